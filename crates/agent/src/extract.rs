//! Finding the code in a model's reply.

use ra_ap_syntax::ast::HasModuleItem;
use ra_ap_syntax::{Edition, SourceFile};

/// The snippet in `reply`: the last fenced block marked `rust` (or `rs`), else the last unmarked fenced block,
/// else the last fenced block; a reply without fences counts as code when it parses as Rust. `Err` says why
/// there is no code (the attempt fails with that reason, which the model sees).
pub fn extract_code(reply: &str) -> Result<String, String> {
    let reply = strip_thinking(reply);
    if reply.trim().is_empty() {
        return Err("The reply was empty: it had no code.".to_owned());
    }
    let blocks = fenced_blocks(&reply);
    let pick = blocks
        .iter()
        .rev()
        .find(|(lang, _)| matches!(lang.as_str(), "rust" | "rs"))
        .or_else(|| blocks.iter().rev().find(|(lang, _)| lang.is_empty()))
        .or_else(|| blocks.last());
    if let Some((_, code)) = pick {
        return if code.trim().is_empty() {
            Err("The reply's code block was empty.".to_owned())
        } else {
            Ok(code.clone())
        };
    }
    let bare = reply.trim();
    if parses_as_block_body(bare) {
        Ok(bare.to_owned())
    } else {
        Err("The reply had no ```rust code block, and is not Rust code as it stands.".to_owned())
    }
}

/// Whether `text` parses as the body of a block (statements and an optional final expression) without syntax
/// errors. Tells code from prose in a model's unfenced reply.
fn parses_as_block_body(text: &str) -> bool {
    let wrapped = format!("fn __lacuna_probe() {{\n{text}\n}}\n");
    let parse = SourceFile::parse(&wrapped, Edition::Edition2021);
    parse.errors().is_empty() && parse.tree().items().count() == 1
}

/// Removes `<think>…</think>` sections (reasoning models put their deliberation there).
fn strip_thinking(reply: &str) -> String {
    let mut out = String::with_capacity(reply.len());
    let mut rest = reply;
    while let Some(start) = rest.find("<think>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// (language tag, contents) of each ``` or ~~~ fenced block; an unclosed last fence runs to the end.
fn fenced_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, &str, String)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
        match (&mut open, fence) {
            (None, Some(f)) => {
                let lang = trimmed[f.len()..].trim_start_matches(['`', '~']).trim();
                let lang = lang.split(|c: char| c.is_whitespace() || c == ',' || c == '{').next().unwrap_or("");
                open = Some((lang.to_ascii_lowercase(), f, String::new()));
            }
            (Some((_, f, _)), Some(g))
                if *f == g && trimmed.trim_end().trim_start_matches(g.chars().next().unwrap_or('`')).is_empty() =>
            {
                let (lang, _, body) = open.take().expect("open");
                blocks.push((lang, body.trim_end_matches('\n').to_owned()));
            }
            (Some((_, _, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    if let Some((lang, _, body)) = open {
        blocks.push((lang, body.trim_end_matches('\n').to_owned()));
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_parses_and_prose_does_not() {
        assert!(parses_as_block_body("let x = 1;\nx + 1"));
        assert!(parses_as_block_body("xs.iter().filter(|x| **x > 2).count()"));
        assert!(!parses_as_block_body("Sure! Here is the code you asked for."));
        assert!(!parses_as_block_body("} fn evil() {"));
    }

    #[test]
    fn the_last_rust_block_wins() {
        let reply = "Here is a sketch:\n```\nnot this\n```\nand the answer:\n```rust\nlet x = 1;\nx + 1\n```\nDone.";
        assert_eq!(extract_code(reply).unwrap(), "let x = 1;\nx + 1");
        let two = "```rust\nfirst\n```\nfixed:\n```rust\nsecond\n```";
        assert_eq!(extract_code(two).unwrap(), "second");
    }

    #[test]
    fn unfenced_code_counts_when_it_parses() {
        assert_eq!(extract_code("  xs.iter().sum::<i64>()  \n").unwrap(), "xs.iter().sum::<i64>()");
        assert!(extract_code("I'm sorry, I can't help with that.").unwrap_err().contains("no ```rust code block"));
    }

    #[test]
    fn empty_replies_and_thinking_have_no_code() {
        assert!(extract_code("").unwrap_err().contains("empty"));
        assert!(extract_code("<think>hmm ```rust\nno\n```</think>").unwrap_err().contains("empty"));
        assert_eq!(extract_code("<think>maybe 1</think>\n```rust\n2\n```").unwrap(), "2");
        assert!(extract_code("```rust\n\n```").unwrap_err().contains("empty"));
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        assert_eq!(extract_code("```rust\nlet v = vec![1];\nv").unwrap(), "let v = vec![1];\nv");
    }

    #[test]
    fn nested_backticks_inside_strings_do_not_close_the_block() {
        let reply = "```rust\nlet s = \"```\";\ns.len()\n```";
        // A line that is only a fence closes the block; a fence inside a string does not start a line.
        assert_eq!(extract_code(reply).unwrap(), "let s = \"```\";\ns.len()");
    }
}
