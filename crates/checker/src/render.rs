//! Diagnostics rendered the way rustc renders them: a title with the code, the snippet's lines, carets.
//!
//! Pure (data in, text out), so the test suite can snapshot exactly what a user and a model see.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::line_index::LineIndex;
use crate::{Diagnostic, Location, PreparedHost, Verdict};

/// Renders every diagnostic of a verdict, then a one-line verdict.
///
/// `snippet_name` and `snippet` are what the user gave; `hole` is the 0-based hole index.
pub fn render_verdict(
    prepared: &PreparedHost,
    hole: usize,
    snippet_name: &str,
    snippet: &str,
    verdict: &Verdict,
    styled: bool,
    base: Option<&std::path::Path>,
) -> String {
    let renderer = if styled { Renderer::styled() } else { Renderer::plain() };
    let snippet = crate::normalize(snippet);
    let mut out = String::new();
    for d in &verdict.diagnostics {
        out.push_str(&render_diagnostic(&renderer, prepared, snippet_name, &snippet, d));
        out.push_str("\n\n");
    }
    let host = &prepared.host;
    let expected = verdict.expected_type.as_deref().map(|t| format!(", expected `{t}`")).unwrap_or_default();
    let how = format!(
        "by {} in {:.1} ms (hole {} of {} at {}{expected})",
        verdict.decided_by.as_str(),
        verdict.timings.check,
        hole + 1,
        host.name,
        host.hole_location(hole, base)
    );
    if verdict.accepted {
        out.push_str(&format!("{snippet_name}: accepted {how}\n"));
    } else {
        let n = verdict.diagnostics.len();
        out.push_str(&format!("{snippet_name}: rejected {how}: {n} error{}\n", if n == 1 { "" } else { "s" }));
    }
    out
}

/// One diagnostic, on the snippet's text or, for errors in host code, on the host's hole.
pub fn render_diagnostic(
    renderer: &Renderer,
    prepared: &PreparedHost,
    snippet_name: &str,
    snippet: &str,
    d: &Diagnostic,
) -> String {
    let (mut source, mut path) = match d.location {
        Location::Snippet => (snippet, snippet_name.to_owned()),
        Location::Host => (prepared.host.text.as_str(), prepared.host.name.clone()),
    };
    let index = LineIndex::new(source);
    let mut start = offset_of(&index, source, d.line, d.column);
    let mut end = offset_of(&index, source, d.end_line, d.end_column).max(start);
    // In a cargo project the host text is its crate flattened: show the file the position came from.
    if let (Location::Host, Some(sources)) = (d.location, &prepared.host.sources) {
        if let (Some((file, from)), Some((_, to))) = (sources.to_original(start), sources.to_original(end)) {
            source = sources.texts[file].as_str();
            path = sources.files[file].display().to_string();
            (start, end) = (from, to.max(from));
        }
    }
    let path = path.as_str();
    let mut annotation = AnnotationKind::Primary.span(start..end);
    if let Some(label) = &d.label {
        annotation = annotation.label(label.as_str());
    }
    let mut title = Level::ERROR.primary_title(d.message.as_str());
    if let Some(code) = &d.code {
        title = title.id(code.as_str());
    }
    let mut group = title.element(Snippet::source(source).path(path).annotation(annotation));
    for note in &d.notes {
        let (level, text) = match note.split_once(": ") {
            Some(("help", rest)) => (Level::HELP, rest),
            Some(("note", rest)) => (Level::NOTE, rest),
            _ => (Level::NOTE, note.as_str()),
        };
        group = group.element(level.message(text));
    }
    let report: [Group<'_>; 1] = [group];
    renderer.render(&report)
}

/// Byte offset of a 1-based (line, char column) in `source`.
fn offset_of(index: &LineIndex, source: &str, line: u32, column: u32) -> usize {
    let line_start = index.line_start(line);
    let line_text = source[line_start..].split('\n').next().unwrap_or("");
    let col = (column as usize).saturating_sub(1);
    line_start + line_text.char_indices().nth(col).map_or(line_text.len(), |(i, _)| i)
}

/// One diagnostic rendered without colour: what a hole's `HoleError::Rejected` carries and a model is shown.
pub fn render_plain(prepared: &PreparedHost, snippet_name: &str, snippet: &str, d: &Diagnostic) -> String {
    render_diagnostic(&Renderer::plain(), prepared, snippet_name, &crate::normalize(snippet), d)
}
