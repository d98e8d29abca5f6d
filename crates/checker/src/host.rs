//! Host programs, their holes, and splicing a snippet into a hole.
//!
//! A host is a single-file Rust program. A hole is `agent!(...)` (or `lacuna::agent!(...)`) in expression
//! position, found at the token level so holes inside other macros' arguments (`println!("{}", agent!(..)?)`)
//! count too. Splicing is textual: the same spliced text goes to rust-analyzer and to rustc, so "accepted iff
//! rustc accepts the spliced host" is a statement about one string.

use ra_ap_syntax::{ast, AstNode, AstToken, Edition, SourceFile, SyntaxKind, SyntaxToken, TextRange, T};

use crate::apart::Layout;
use crate::line_index::LineIndex;
use crate::outline::HostOutline;

/// Appended to the host so the prelude is in scope without an import. At the end, host lines and columns stay
/// as the user wrote them; `#[macro_use]` makes `agent!` visible in every module regardless of position.
pub const PRELUDE_INJECTION: &str =
    "\n#[macro_use] extern crate lacuna;\n#[allow(unused_imports)] use lacuna::prelude::*;\n";

/// Around a snippet: the hole's value is `Ok(snippet)`, and the snippet is a block, so it may have statements
/// before its final expression. When the hole's type `T` is known it is written out, so the block is checked
/// against `T` (coercions apply, and a wrong type is reported at the snippet's final expression, not in host
/// code). Newlines keep a trailing `//` comment in the snippet from eating the `}`.
pub(crate) fn snippet_open(ty: Option<&str>) -> String {
    match ty {
        Some(t) => format!("::core::result::Result::<{t}, ::lacuna::HoleError>::Ok({{\n"),
        None => "::core::result::Result::Ok::<_, ::lacuna::HoleError>({\n".to_owned(),
    }
}
pub(crate) const SNIPPET_CLOSE: &str = "\n})";

/// One `agent!(...)` call in a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    /// 1-based, in source order.
    pub number: usize,
    /// Byte range of the whole macro call (path through closing delimiter) in the host text.
    pub range: std::ops::Range<usize>,
    /// 1-based line and column (in chars) of the call.
    pub line: u32,
    pub column: u32,
    /// The task string, when it is a string literal.
    pub task: Option<String>,
    /// The model named by `agent!(model, "task")`.
    pub model: Option<String>,
    /// Byte range of the task expression in the host text (evaluated at run time for the prompt).
    pub task_range: Option<std::ops::Range<usize>>,
    /// The hole's code runs in an async context (the nearest enclosing function, closure or block that has a body
    /// of its own is an `async fn`, `async` closure or `async` block): a snippet there may `.await`.
    pub in_async: bool,
    /// The hole's code may do what needs `unsafe`: it is inside an `unsafe` block or `unsafe fn` (closures in
    /// between inherit it; a nested function does not). A snippet there may call an `unsafe fn` without a block of its
    /// own, as the host's code around it may.
    pub in_unsafe: bool,
}

/// A host program, normalized (no BOM, `\n` line endings) and with its holes located.
#[derive(Debug, Clone)]
pub struct Host {
    pub name: String,
    pub text: String,
    pub holes: Vec<Hole>,
    /// What later stages read of the host's items, from the same parse.
    pub outline: HostOutline,
    /// Per hole, the host range of the function around it (else of the hole itself): where rustc's "type
    /// annotations needed" about the hole's value can be (`let i = agent!(..).unwrap(); v[i]`).
    pub(crate) hole_functions: Vec<std::ops::Range<usize>>,
    pub(crate) line_index: LineIndex,
    /// A cargo project's crate flattened into `text`: where each part of it came from.
    pub sources: Option<std::sync::Arc<lacuna_project::Flattened>>,
    /// How rust-analyzer reads the host: its modules without holes as files ([`crate::apart`]).
    pub(crate) layout: std::sync::Arc<Layout>,
    /// What of the host rustc may leave out when it checks a snippet ([`crate::lean`]); nothing for a host rustc
    /// has not checked alone.
    pub(crate) lean: std::sync::Arc<crate::lean::Lean>,
}

/// A host that cannot be used: it does not parse, or has no holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSyntaxError {
    pub message: String,
    pub line: u32,
    pub column: u32,
}

impl Host {
    /// Where hole `hole` is, for people: `src/triage.rs:16` in a cargo project (relative to `base`), else
    /// `line 16`.
    pub fn hole_location(&self, hole: usize, base: Option<&std::path::Path>) -> String {
        let hole = &self.holes[hole];
        let Some(sources) = &self.sources else { return format!("line {}", hole.line) };
        match sources.to_original(hole.range.start) {
            Some((file, offset)) => {
                let path = &sources.files[file];
                let shown = base.and_then(|b| path.strip_prefix(b).ok()).unwrap_or(path);
                let text = &sources.texts[file];
                let line = text[..offset.min(text.len())].matches('\n').count() + 1;
                format!("{}:{line}", shown.display())
            }
            None => format!("line {}", hole.line),
        }
    }

    /// Parses a host. Syntax errors are returned as data (the caller decides how to report them).
    pub fn parse(name: &str, text: &str) -> Result<Host, Vec<HostSyntaxError>> {
        let text = normalize(text);
        let line_index = LineIndex::new(&text);
        let parse = SourceFile::parse(&text, Edition::Edition2021);
        if !parse.errors().is_empty() {
            return Err(parse
                .errors()
                .iter()
                .take(20)
                .map(|e| {
                    let (line, column) = line_index.line_col(usize::from(e.range().start()));
                    HostSyntaxError { message: e.to_string(), line, column }
                })
                .collect());
        }
        let file = parse.tree();
        let holes = find_holes(&file, &line_index);
        let hole_functions = hole_functions(&file, &holes);
        let ranges: Vec<std::ops::Range<usize>> = holes.iter().map(|h| h.range.clone()).collect();
        let outline = HostOutline::of(&text, &file, &ranges);
        let layout = std::sync::Arc::new(Layout::of(&file, &ranges));
        let lean = std::sync::Arc::new(crate::lean::Lean::of(&file, &ranges, &hole_functions));
        Ok(Host {
            name: name.to_owned(),
            text,
            holes,
            outline,
            hole_functions,
            line_index,
            sources: None,
            layout,
            lean,
        })
    }

    /// The host as the compiler sees it with every hole unfilled.
    pub(crate) fn unfilled(&self) -> Spliced {
        Spliced::new(self, None)
    }

    /// The host with `snippet` in hole `hole` (an index into [`Host::holes`]), typed `ty` when given.
    pub(crate) fn splice(&self, hole: usize, snippet: &str, ty: Option<&str>) -> Spliced {
        Spliced::new(self, Some((&self.holes[hole], snippet, ty)))
    }

    /// The host with each given hole replaced by a value of the given type, to learn whether rustc agrees that
    /// `T` is the hole's type (and that `T` can be written at the hole).
    pub(crate) fn with_typed_placeholders(&self, types: &[(usize, &str)]) -> String {
        let mut holes: Vec<&(usize, &str)> = types.iter().collect();
        holes.sort_by_key(|(i, _)| self.holes[*i].range.start);
        let mut text = String::with_capacity(self.text.len() + 128 * holes.len());
        let mut at = 0;
        for &&(i, ty) in &holes {
            let range = &self.holes[i].range;
            text.push_str(&self.text[at..range.start]);
            text.push_str(&format!(
                "::core::result::Result::<{ty}, ::lacuna::HoleError>::Ok(::lacuna::__private::placeholder())"
            ));
            at = range.end;
        }
        text.push_str(&self.text[at..]);
        text.push_str(PRELUDE_INJECTION);
        text
    }
}

/// Per hole, the range of the function around it (else of the hole itself).
fn hole_functions(file: &SourceFile, holes: &[Hole]) -> Vec<std::ops::Range<usize>> {
    holes
        .iter()
        .map(|hole| {
            let range = TextRange::new((hole.range.start as u32).into(), (hole.range.end as u32).into());
            let node = match file.syntax().covering_element(range) {
                ra_ap_syntax::NodeOrToken::Node(n) => Some(n),
                ra_ap_syntax::NodeOrToken::Token(t) => t.parent(),
            };
            node.and_then(|n| n.ancestors().find(|a| ast::Fn::can_cast(a.kind())))
                .map(|n| usize::from(n.text_range().start())..usize::from(n.text_range().end()))
                .unwrap_or_else(|| hole.range.clone())
        })
        .collect()
}

/// Strips a byte-order mark and turns `\r\n` into `\n`, as rustc does when it reads a file. Positions we report
/// are in these coordinates (lines and char columns are unaffected).
pub fn normalize(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains("\r\n") {
        text.replace("\r\n", "\n")
    } else {
        text.to_owned()
    }
}

fn find_holes(file: &SourceFile, line_index: &LineIndex) -> Vec<Hole> {
    let tokens: Vec<SyntaxToken> = file
        .syntax()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia())
        .collect();
    let mut holes = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let is_call = t.kind() == SyntaxKind::IDENT
            && t.text() == "agent"
            && tokens.get(i + 1).is_some_and(|b| b.kind() == T![!])
            && tokens.get(i + 2).is_some_and(|p| matches!(p.kind(), T!['('] | T!['['] | T!['{']))
            // `macro_rules! agent { .. }` and uses inside macro definitions are not holes.
            && !t.parent_ancestors().any(|a| matches!(a.kind(), SyntaxKind::MACRO_RULES | SyntaxKind::MACRO_DEF));
        if !is_call {
            i += 1;
            continue;
        }
        // Include a `lacuna::` or `::lacuna::` path prefix in the hole. Inside a token tree `::` may come as two
        // `:` tokens.
        let mut start = i;
        if let Some(before) = path_sep_before(&tokens, i) {
            if before >= 1 && tokens[before - 1].text() == "lacuna" {
                start = before - 1;
                if let Some(root) = path_sep_before(&tokens, start) {
                    start = root;
                }
            }
        }
        let Some(close) = matching_close(&tokens, i + 2) else {
            i += 1;
            continue;
        };
        let args = &tokens[i + 3..close];
        let range_start = usize::from(tokens[start].text_range().start());
        let range_end = usize::from(tokens[close].text_range().end());
        let (line, column) = line_index.line_col(range_start);
        holes.push(Hole {
            number: holes.len() + 1,
            range: range_start..range_end,
            line,
            column,
            task: task_literal(args),
            model: model_name(args),
            task_range: task_range(args),
            in_async: in_async_context(&tokens[i]),
            in_unsafe: in_unsafe_context(&tokens[i]),
        });
        i = close + 1;
    }
    holes
}

/// Whether code at `token` runs in an async context: the nearest enclosing `fn`, closure, `async` block, `const` or
/// `static` is an `async fn`, an `async` closure or an `async` block.
///
/// Inside a macro's arguments (a token tree, not parsed), a `{ .. }` group right after `async` or `async move` is an
/// async block; a `|` before the hole in a group may start a closure, so the hole counts as plain code (where it
/// always works: it is entered as a call); other groups are looked through.
fn in_async_context(token: &SyntaxToken) -> bool {
    let mut inner = ra_ap_syntax::NodeOrToken::Token(token.clone());
    for node in token.parent_ancestors() {
        let child = std::mem::replace(&mut inner, ra_ap_syntax::NodeOrToken::Node(node.clone()));
        if node.kind() == SyntaxKind::TOKEN_TREE {
            let closure_before = node
                .children_with_tokens()
                .take_while(|c| *c != child)
                .any(|c| c.kind() == T![|] || c.kind() == T![||]);
            if closure_before {
                return false;
            }
            let opens_brace = node.first_token().is_some_and(|t| t.kind() == T!['{']);
            let before =
                |t: Option<SyntaxToken>| std::iter::successors(t, |t| t.prev_token()).find(|t| !t.kind().is_trivia());
            let mut prev = before(node.first_token().and_then(|t| t.prev_token()));
            if opens_brace && prev.as_ref().is_some_and(|t| t.kind() == T![move]) {
                prev = before(prev.and_then(|t| t.prev_token()));
            }
            match prev.map(|t| t.kind()) {
                Some(T![async]) if opens_brace => return true,
                Some(T![|]) if opens_brace => return false,
                _ => continue,
            }
        }
        match node.kind() {
            SyntaxKind::FN => return ast::Fn::cast(node).is_some_and(|f| f.async_token().is_some()),
            SyntaxKind::CLOSURE_EXPR => {
                return ast::ClosureExpr::cast(node).is_some_and(|c| c.async_token().is_some());
            }
            SyntaxKind::BLOCK_EXPR if ast::BlockExpr::cast(node.clone()).is_some_and(|b| b.async_token().is_some()) => {
                return true;
            }
            SyntaxKind::CONST | SyntaxKind::STATIC => return false,
            _ => {}
        }
    }
    false
}

/// Whether code at `token` may do what needs `unsafe`: an `unsafe` block or `unsafe fn` is around it before any
/// `fn`, `const` or `static` (closures inherit it). Inside a macro's arguments, a `{ .. }` group right after `unsafe`
/// is an `unsafe` block.
fn in_unsafe_context(token: &SyntaxToken) -> bool {
    for node in token.parent_ancestors() {
        match node.kind() {
            SyntaxKind::TOKEN_TREE => {
                let opens_brace = node.first_token().is_some_and(|t| t.kind() == T!['{']);
                let before = node.first_token().and_then(|t| t.prev_token());
                let prev = std::iter::successors(before, |t| t.prev_token()).find(|t| !t.kind().is_trivia());
                if opens_brace && prev.is_some_and(|t| t.kind() == T![unsafe]) {
                    return true;
                }
            }
            SyntaxKind::FN => return ast::Fn::cast(node).is_some_and(|f| f.unsafe_token().is_some()),
            SyntaxKind::BLOCK_EXPR
                if ast::BlockExpr::cast(node.clone()).is_some_and(|b| b.unsafe_token().is_some()) =>
            {
                return true;
            }
            SyntaxKind::CONST | SyntaxKind::STATIC => return false,
            _ => {}
        }
    }
    false
}

/// If a `::` ends right before token `at`, the index of its first token.
fn path_sep_before(tokens: &[SyntaxToken], at: usize) -> Option<usize> {
    match at.checked_sub(1).map(|j| (j, tokens[j].kind())) {
        Some((j, T![::])) => Some(j),
        Some((j, T![:])) if j >= 1 && tokens[j - 1].kind() == T![:] => Some(j - 1),
        _ => None,
    }
}

/// Index of the token closing the delimiter at `open`.
fn matching_close(tokens: &[SyntaxToken], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(open) {
        match t.kind() {
            T!['('] | T!['['] | T!['{'] => depth += 1,
            T![')'] | T![']'] | T!['}'] => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The task: the last top-level argument, when it is a plain string literal.
fn task_literal(args: &[SyntaxToken]) -> Option<String> {
    let last = args.iter().rev().find(|t| t.kind() != T![,])?;
    ast::String::cast(last.clone()).and_then(|s| s.value().ok().map(|v| v.into_owned()))
}

/// The task expression: every argument token after the model (if any), without a trailing comma.
fn task_range(args: &[SyntaxToken]) -> Option<std::ops::Range<usize>> {
    let rest = if model_name(args).is_some() { &args[2..] } else { args };
    let rest = match rest {
        [init @ .., last] if last.kind() == T![,] => init,
        _ => rest,
    };
    let (first, last) = (rest.first()?, rest.last()?);
    Some(usize::from(first.text_range().start())..usize::from(last.text_range().end()))
}

/// The model in `agent!(model, "task")`: an identifier (or string) followed by a comma at top level.
fn model_name(args: &[SyntaxToken]) -> Option<String> {
    match args {
        [first, comma, _, ..] if comma.kind() == T![,] => match first.kind() {
            SyntaxKind::IDENT => Some(first.text().to_owned()),
            SyntaxKind::STRING => ast::String::cast(first.clone()).and_then(|s| s.value().ok().map(|v| v.into_owned())),
            _ => None,
        },
        _ => None,
    }
}

/// Where a byte of spliced text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Byte offset in the snippet.
    Snippet(usize),
    /// Byte offset in the (normalized) host.
    Host(usize),
    /// Text Lacuna added (the prelude injection, the `Ok({ })` around the snippet).
    Glue,
}

/// A host with the prelude appended and, optionally, one hole replaced by a snippet.
#[derive(Debug, Clone)]
pub(crate) struct Spliced {
    pub text: String,
    /// Where the appended prelude starts: everything from here on is glue.
    prelude_at: usize,
    hole: Option<SplicedHole>,
    /// The host's layout in the spliced text's coordinates.
    pub layout: Layout,
}

#[derive(Debug, Clone, Copy)]
struct SplicedHole {
    /// Host range of the replaced hole.
    host_start: usize,
    host_end: usize,
    /// Spliced range of the replacement (glue + snippet + glue).
    start: usize,
    end: usize,
    snippet_start: usize,
    snippet_end: usize,
}

impl Spliced {
    fn new(host: &Host, fill: Option<(&Hole, &str, Option<&str>)>) -> Spliced {
        let snippet_len = fill.map_or(0, |(_, s, _)| s.len());
        let mut text = String::with_capacity(host.text.len() + PRELUDE_INJECTION.len() + snippet_len + 64);
        let hole = match fill {
            None => {
                text.push_str(&host.text);
                None
            }
            Some((hole, snippet, ty)) => {
                text.push_str(&host.text[..hole.range.start]);
                let start = text.len();
                text.push_str(&snippet_open(ty));
                let snippet_start = text.len();
                text.push_str(snippet);
                let snippet_end = text.len();
                text.push_str(SNIPPET_CLOSE);
                let end = text.len();
                text.push_str(&host.text[hole.range.end..]);
                Some(SplicedHole {
                    host_start: hole.range.start,
                    host_end: hole.range.end,
                    start,
                    end,
                    snippet_start,
                    snippet_end,
                })
            }
        };
        let prelude_at = text.len();
        text.push_str(PRELUDE_INJECTION);
        let mut spliced = Spliced { text, prelude_at, hole, layout: Layout::default() };
        // No module made a file holds a hole: only what follows the hole moves.
        spliced.layout = host.layout.mapped(|at| spliced.spliced_offset(at));
        spliced
    }

    /// The host with every hole unfilled and `snippet` lifted out of hole `hole` ([`crate::lifted`]): the lifted
    /// module follows the host's text, so host offsets are the text's, and the snippet's coordinates are as in its
    /// hole (everything around it is glue).
    pub(crate) fn lifted(host: &Host, lift: &crate::lifted::Lift, snippet: &str) -> Spliced {
        let (items, snippet_at, aliases) = lift.module_text(snippet);
        let mut text = String::with_capacity(host.text.len() + items.len() + PRELUDE_INJECTION.len() + 32);
        text.push_str(&host.text);
        let start = text.len();
        text.push_str(&format!("\nmod {} ", crate::lifted::MODULE));
        let body = text.len();
        text.push('{');
        let items_at = text.len();
        text.push_str(&items);
        text.push_str("}\n");
        let prelude_at = text.len();
        text.push_str(PRELUDE_INJECTION);
        let hole = SplicedHole {
            host_start: host.text.len(),
            host_end: host.text.len(),
            start,
            end: prelude_at,
            snippet_start: items_at + snippet_at,
            snippet_end: items_at + snippet_at + snippet.len(),
        };
        let mut layout = (*host.layout).clone();
        let aliases = aliases.into_iter().map(|(at, decl)| (items_at + at, decl)).collect();
        layout.lifted = Some(crate::apart::LiftedModule { body: body..prelude_at - 1, aliases });
        Spliced { text, prelude_at, hole: Some(hole), layout }
    }

    /// `text` (a host's, without the prelude) read with `layout`, and no snippet.
    pub(crate) fn plain(mut text: String, layout: Layout) -> Spliced {
        let prelude_at = text.len();
        text.push_str(PRELUDE_INJECTION);
        Spliced { text, prelude_at, hole: None, layout }
    }

    pub fn origin(&self, offset: usize) -> Origin {
        if offset >= self.prelude_at {
            return Origin::Glue;
        }
        match self.hole {
            Some(h) if offset >= h.end => Origin::Host(offset - h.end + h.host_end),
            Some(h) if offset >= h.snippet_start && offset <= h.snippet_end => {
                Origin::Snippet(offset - h.snippet_start)
            }
            Some(h) if offset >= h.start => Origin::Glue,
            _ => Origin::Host(offset),
        }
    }

    /// The program without the prelude appended.
    pub fn program(&self) -> &str {
        &self.text[..self.prelude_at]
    }

    /// The byte range of the snippet in the spliced text.
    pub fn snippet_range(&self) -> Option<std::ops::Range<usize>> {
        self.hole.map(|h| h.snippet_start..h.snippet_end)
    }

    /// The range `{ snippet }` occupies, braces included.
    pub fn block_range(&self) -> Option<std::ops::Range<usize>> {
        self.hole.map(|h| h.snippet_start - 2..h.snippet_end + 2)
    }

    /// Maps a host offset into spliced coordinates (a host offset inside the replaced hole maps to its start).
    pub fn spliced_offset(&self, host_offset: usize) -> usize {
        match self.hole {
            Some(h) if host_offset >= h.host_end => host_offset - h.host_end + h.end,
            Some(h) if host_offset >= h.host_start => h.start,
            _ => host_offset,
        }
    }
}

/// Is `range` (spliced coordinates) exactly the snippet block we inserted? Used to prove the snippet did not
/// close our block early or open a comment or string that runs past it.
pub(crate) fn block_is_intact(file: &SourceFile, block: &std::ops::Range<usize>) -> bool {
    let range = TextRange::new((block.start as u32).into(), (block.end as u32).into());
    let covering = file.syntax().covering_element(range);
    let node = match covering {
        ra_ap_syntax::NodeOrToken::Node(n) => n,
        ra_ap_syntax::NodeOrToken::Token(t) => match t.parent() {
            Some(p) => p,
            None => return false,
        },
    };
    // The braces belong to a STMT_LIST inside the BLOCK_EXPR, both spanning exactly the braces; for a hole
    // inside another macro's arguments (`println!("{}", agent!(..)?)`), to a TOKEN_TREE.
    node.ancestors()
        .take_while(|n| n.text_range() == range)
        .any(|n| matches!(n.kind(), SyntaxKind::BLOCK_EXPR | SyntaxKind::TOKEN_TREE))
}

/// Whether a snippet (syntactically a block body) has an `.await` anywhere: in a hole in async code it then runs
/// as a future the host awaits.
/// (inside a macro's arguments too: `format!("{}", f().await)`).
pub fn snippet_awaits(snippet: &str) -> bool {
    let text = format!("fn __lacuna_snippet() {{\n{snippet}\n}}");
    SourceFile::parse(&text, Edition::Edition2021)
        .tree()
        .syntax()
        .descendants_with_tokens()
        .any(|e| e.kind() == T![await])
}

/// How a snippet's control flow would leave its hole, if it does: `return` or `?` that returns from the host
/// function, or `break`/`continue` that targets a loop or block outside the snippet. rustc accepts those in the
/// spliced text, but a hole is an expression whose value is the snippet's final expression, so they are
/// rejected. Returns the construct's range in the snippet and a description. Syntax only; `snippet` must be
/// syntactically a block body (checked before).
pub(crate) fn control_escape(
    snippet: &str,
    in_async: bool,
) -> Option<(std::ops::Range<usize>, &'static str, &'static str)> {
    const PREFIX: &str = "fn __lacuna_snippet() {\n";
    let text = format!("{PREFIX}{snippet}\n}}");
    let file = SourceFile::parse(&text, Edition::Edition2021).tree();
    let body = file.syntax().descendants().find_map(ast::Fn::cast)?.body()?;
    let is_boundary = |n: &ra_ap_syntax::SyntaxNode| match n.kind() {
        SyntaxKind::CLOSURE_EXPR | SyntaxKind::FN | SyntaxKind::CONST | SyntaxKind::STATIC => true,
        SyntaxKind::BLOCK_EXPR => ast::BlockExpr::cast(n.clone()).is_some_and(|b| b.async_token().is_some()),
        _ => false,
    };
    for node in body.syntax().descendants() {
        const STAY: &str = "a hole's value is the snippet's final expression, so control flow must stay inside the \
                            snippet (handle the case and produce a value instead)";
        let (what, advice) = match node.kind() {
            SyntaxKind::RETURN_EXPR => ("`return` leaves the host function", STAY),
            SyntaxKind::TRY_EXPR => ("`?` may return from the host function", STAY),
            SyntaxKind::BREAK_EXPR => ("`break` leaves the snippet", STAY),
            SyntaxKind::CONTINUE_EXPR => ("`continue` leaves the snippet", STAY),
            // In an async context the snippet runs as a future the host awaits at the hole, so it may suspend;
            // elsewhere rustc itself rejects `.await` (E0728), and this is the same judgement said for a hole.
            SyntaxKind::AWAIT_EXPR if in_async => continue,
            SyntaxKind::AWAIT_EXPR => (
                "`.await` is only allowed where the hole is in an async function or block",
                "this hole is in a plain function: use the host's non-async tools, or move the hole into an \
                 `async fn` or `async` block",
            ),
            _ => continue,
        };
        let label = node
            .children_with_tokens()
            .filter_map(|e| e.into_node())
            .find(|n| n.kind() == SyntaxKind::LIFETIME)
            .map(|l| l.text().to_string());
        let mut inside = false;
        for ancestor in node.ancestors().skip(1) {
            if ancestor == *body.syntax() {
                break;
            }
            if is_boundary(&ancestor) {
                inside = true;
                break;
            }
            let is_loop =
                matches!(ancestor.kind(), SyntaxKind::LOOP_EXPR | SyntaxKind::WHILE_EXPR | SyntaxKind::FOR_EXPR);
            let targets = match (&label, node.kind()) {
                (None, SyntaxKind::BREAK_EXPR | SyntaxKind::CONTINUE_EXPR) => is_loop,
                (Some(l), SyntaxKind::BREAK_EXPR | SyntaxKind::CONTINUE_EXPR) => ancestor
                    .children()
                    .find(|c| c.kind() == SyntaxKind::LABEL)
                    .is_some_and(|c| c.text().to_string().trim_end_matches(':').trim() == l),
                _ => false,
            };
            if targets {
                inside = true;
                break;
            }
        }
        if !inside {
            let range = node.text_range();
            let start = usize::from(range.start()).saturating_sub(PREFIX.len()).min(snippet.len());
            let end = usize::from(range.end()).saturating_sub(PREFIX.len()).min(snippet.len());
            return Some((start..end, what, advice));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> Host {
        Host::parse("host.rs", text).expect("host parses")
    }

    fn control_escape_sync(snippet: &str) -> Option<(std::ops::Range<usize>, &'static str, &'static str)> {
        control_escape(snippet, false)
    }

    #[test]
    fn finds_holes_in_source_order_including_macro_arguments() {
        let h = host(
            "fn main() {\n    let a: i32 = agent!(\"one\").unwrap();\n    println!(\"{}\", lacuna::agent!(fast, \"two\").unwrap_or(0));\n}\n",
        );
        assert_eq!(h.holes.len(), 2);
        assert_eq!(h.holes[0].task.as_deref(), Some("one"));
        assert_eq!((h.holes[0].line, h.holes[0].column), (2, 18));
        assert_eq!(h.holes[1].model.as_deref(), Some("fast"));
        assert_eq!(&h.text[h.holes[1].range.clone()], "lacuna::agent!(fast, \"two\")");
        assert_eq!(&h.text[h.holes[0].task_range.clone().unwrap()], "\"one\"");
        assert_eq!(&h.text[h.holes[1].task_range.clone().unwrap()], "\"two\"");
    }

    #[test]
    fn a_computed_task_is_a_range_of_the_host() {
        let h = host(
            "fn main() {
    let t = 1;
    let a: Result<i32, _> = agent!(format!(\"n={}\", t),);
}
",
        );
        assert_eq!(&h.text[h.holes[0].task_range.clone().unwrap()], "format!(\"n={}\", t)");
        assert_eq!(h.holes[0].task, None);
    }

    #[test]
    fn holes_know_whether_they_are_in_async_code() {
        let h = host(
            "async fn a() -> Result<u8, HoleError> { agent!(\"1\") }
fn b() -> u8 {
    let f = async { agent!(\"2\") };
    let g = || agent!(\"3\");
    let k = async || agent!(\"4\");
    0
}
async fn c() {
    let g = || agent!(\"5\");
    fn inner() -> u8 { agent!(\"6\").unwrap() }
    let m = async move { agent!(\"7\") };
}
impl S {
    async fn method(&mut self) -> u8 { let x: u8 = agent!(\"8\").unwrap(); x }
}
",
        );
        let in_async: Vec<bool> = h.holes.iter().map(|h| h.in_async).collect();
        assert_eq!(in_async, [true, true, false, true, false, false, true, true]);
        // In a macro's arguments, which are not parsed.
        let h = host(
            "fn main() {
    println!(\"{:?}\", block_on(async { agent!(\"1\") }));
    println!(\"{:?}\", block_on(async move { if x { agent!(\"2\") } else { y } }));
    println!(\"{:?}\", run(|| { agent!(\"3\") }));
    println!(\"{:?}\", agent!(\"4\"));
}
async fn a() {
    println!(\"{:?}\", agent!(\"5\"));
    println!(\"{:?}\", call(|x| { agent!(\"6\") }));
    println!(\"{:?}\", call(|| agent!(\"7\")));
    println!(\"{:?}\", join(async { agent!(\"8\") }, async { 1 }));
}
",
        );
        let in_async: Vec<bool> = h.holes.iter().map(|h| h.in_async).collect();
        assert_eq!(in_async, [true, true, false, false, true, false, false, true]);
        assert!(snippet_awaits("format!(\"{}\", f().await)"));
        assert!(!snippet_awaits("let awaited = 1; awaited"));
    }

    #[test]
    fn holes_know_whether_they_may_do_what_needs_unsafe() {
        let h = host(
            "unsafe fn a() -> u8 { agent!(\"1\").unwrap() }
fn b() {
    let x: u8 = unsafe { agent!(\"2\").unwrap() };
    let f = unsafe { || agent!(\"3\") };
    unsafe { fn inner() -> u8 { agent!(\"4\").unwrap() } }
    println!(\"{:?}\", unsafe { agent!(\"5\") });
    let y: u8 = agent!(\"6\").unwrap();
}
",
        );
        let in_unsafe: Vec<bool> = h.holes.iter().map(|h| h.in_unsafe).collect();
        assert_eq!(in_unsafe, [true, true, true, false, true, false]);
    }

    #[test]
    fn macro_definitions_are_not_holes() {
        let h = host("macro_rules! m { () => { agent!(\"x\") } }\nfn main() {}\n");
        assert!(h.holes.is_empty());
    }

    #[test]
    fn prelude_goes_after_the_host_text() {
        let h = host("//! docs\n#![allow(dead_code)]\nfn main() { let _x: i32 = agent!(\"t\").unwrap(); }");
        let s = h.splice(0, "1", None);
        assert!(s.text.starts_with("//! docs\n#![allow(dead_code)]\nfn main() { let _x: i32 = ::core::result"));
        assert!(s.text.ends_with(PRELUDE_INJECTION));
        assert_eq!(s.origin(s.text.len() - 2), Origin::Glue);
    }

    #[test]
    fn origins_map_back() {
        let h = host("fn main() { let x: i32 = agent!(\"t\").unwrap(); let y = x; }\n");
        let s = h.splice(0, "40 + 2", Some("i32"));
        let snip = s.snippet_range().unwrap();
        assert_eq!(&s.text[snip.clone()], "40 + 2");
        assert_eq!(s.origin(snip.start + 5), Origin::Snippet(5));
        let y = s.text.find("let y").unwrap();
        assert_eq!(s.origin(y), Origin::Host(h.text.find("let y").unwrap()));
        assert_eq!(s.origin(3), Origin::Host(3));
        assert_eq!(s.origin(snip.start - 1), Origin::Glue);
        assert_eq!(s.spliced_offset(h.text.find("let y").unwrap()), y);
    }

    #[test]
    fn control_flow_must_stay_in_the_hole() {
        assert!(control_escape_sync("return;").is_some());
        assert!(control_escape_sync("let x = y?;\nx").is_some());
        assert!(control_escape_sync("break").is_some());
        assert!(control_escape_sync("loop { break 'outer; }").is_some());
        assert_eq!(control_escape_sync("if a {\n    return 0;\n}\n1").map(|(r, _, _)| r), Some(11..19));
        assert!(control_escape_sync("loop { break 5; }").is_none());
        assert!(control_escape_sync("let u = dir.fetch(1).await;\nu").is_some());
        assert!(control_escape("let u = dir.fetch(1).await;\nu", true).is_none());
        assert!(control_escape("let u = dir.fetch(1).await?;\nu", true).is_some());
        assert!(control_escape_sync("block_on(async { dir.fetch(1).await })").is_none());
        assert!(control_escape_sync("'a: { if x { break 'a 1; } 0 }").is_none());
        assert!(control_escape_sync("'o: for i in 0..3 { for j in 0..3 { if j > i { continue 'o; } } } 0").is_none());
        assert!(control_escape_sync("let f = |x: Option<i32>| -> Option<i32> { Some(x? + 1) };\nf(None)").is_none());
        assert!(control_escape_sync("fn g() -> i32 { return 1; }\ng()").is_none());
        assert!(
            control_escape_sync("let r = xs.iter().map(|x| { if *x > 0 { return 1; } 0 }).sum::<i32>(); r").is_none()
        );
    }

    #[test]
    fn normalizes_bom_and_crlf() {
        assert_eq!(normalize("\u{feff}a\r\nb"), "a\nb");
    }
}
