//! Diagnostics as data: what was wrong, where, in the snippet's own coordinates.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Which text a diagnostic's position refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    /// Lines and columns count from the snippet's first character.
    Snippet,
    /// An error the snippet caused in host code (say, the host uses a value the snippet moved): the position is
    /// the hole's, in host lines and columns.
    Host,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// rustc's error code (`E0308`) where rustc has one for this error.
    pub code: Option<String>,
    /// A stable name for the kind of error (`type-mismatch`, `unresolved-name`, ...): see [`kind_for_code`].
    pub kind: String,
    pub message: String,
    /// What the caret points at, when the compiler says (`expected `i32`, found `&str``).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Further notes and help lines, as the compiler gave them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub location: Location,
    /// 1-based; columns count chars.
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

impl Diagnostic {
    /// An error about the snippet as a whole (it escapes its hole, rustc timed out or crashed on it), spanning
    /// it from the start to `end`.
    pub fn whole_snippet(kind: &str, message: String, end: (u32, u32)) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code: None,
            kind: kind.to_owned(),
            message,
            label: None,
            notes: Vec::new(),
            location: Location::Snippet,
            line: 1,
            column: 1,
            end_line: end.0,
            end_column: end.1,
        }
    }
}

/// The kind of rustc's "type annotations needed" (E0282, E0283, E0284), which the checker treats apart.
pub(crate) const TYPE_ANNOTATIONS_NEEDED: &str = "type-annotations-needed";

/// The stable kind name for a rustc error code; `other` for codes without a name here.
pub fn kind_for_code(code: &str) -> &'static str {
    match code {
        "E0004" => "non-exhaustive-match",
        "E0005" => "refutable-pattern",
        "E0023" | "E0029" | "E0164" | "E0532" => "pattern-mismatch",
        "E0026" | "E0027" => "pattern-fields",
        "E0040" => "explicit-drop-call",
        "E0046" | "E0407" => "trait-impl-items",
        "E0054" | "E0604" | "E0605" | "E0606" | "E0607" | "E0620" => "invalid-cast",
        "E0057" | "E0060" | "E0061" => "argument-count",
        "E0062" => "duplicate-field",
        "E0063" => "missing-fields",
        "E0067" | "E0070" => "invalid-assignment-target",
        "E0069" => "missing-return-value",
        "E0106" => "missing-lifetime",
        "E0107" => "generic-argument-count",
        "E0116" | "E0117" | "E0210" => "orphan-impl",
        "E0121" => "placeholder-in-signature",
        "E0133" => "unsafe-required",
        "E0252" | "E0254" | "E0255" | "E0428" => "duplicate-definition",
        "E0261" => "undeclared-lifetime",
        "E0267" | "E0268" => "break-outside-loop",
        "E0277" => "trait-not-implemented",
        "E0282" | "E0283" | "E0284" => TYPE_ANNOTATIONS_NEEDED,
        "E0308" => "type-mismatch",
        "E0369" | "E0368" | "E0600" => "unsupported-operator",
        "E0373" => "closure-may-outlive",
        "E0381" => "uninitialized-use",
        "E0382" => "use-after-move",
        "E0383" | "E0384" | "E0594" => "assign-to-immutable",
        "E0403" => "duplicate-generic",
        "E0404" => "not-a-trait",
        "E0405" => "unresolved-trait",
        "E0412" => "unresolved-type",
        "E0571" => "break-with-value-outside-loop",
        "E0593" | "E0631" => "closure-signature-mismatch",
        "E0317" => "if-without-else",
        "E0533" => "expected-unit-struct-or-variant",
        "E0423" => "expected-value",
        "E0424" => "self-outside-method",
        "E0425" => "unresolved-name",
        "E0426" => "undeclared-label",
        "E0432" => "unresolved-import",
        "E0433" => "unresolved-path",
        "E0434" => "capture-in-fn-item",
        "E0435" => "non-constant-in-const",
        "E0499" => "multiple-mutable-borrows",
        "E0502" | "E0501" => "conflicting-borrow",
        "E0503" | "E0506" => "use-while-borrowed",
        "E0505" => "move-while-borrowed",
        "E0507" | "E0508" | "E0509" => "move-out-of-borrow",
        "E0515" => "return-reference-to-local",
        "E0521" => "borrowed-data-escapes",
        "E0559" | "E0560" => "unknown-field",
        "E0596" => "borrow-immutable-as-mutable",
        "E0597" | "E0716" => "does-not-live-long-enough",
        "E0599" => "unresolved-method",
        "E0603" | "E0616" | "E0624" => "private-item",
        "E0608" => "cannot-index",
        "E0609" | "E0610" => "unresolved-field",
        "E0614" => "cannot-dereference",
        "E0615" => "method-used-as-field",
        "E0618" => "not-callable",
        "E0658" => "unstable-feature",
        "E0689" => "ambiguous-numeric-type",
        "E0728" => "await-outside-async",
        "E0744" | "E0015" => "not-allowed-in-const",
        "E0765" | "E0766" => "unterminated-literal",
        _ => "other",
    }
}

/// rustc reports parse errors and a few resolution errors without a code; their kind comes from the message.
pub fn kind_for_uncoded_message(message: &str) -> &'static str {
    const SYNTAX: &[&str] = &[
        "expected ",
        "unexpected ",
        "mismatched closing delimiter",
        "unclosed delimiter",
        "this file contains an unclosed delimiter",
        "unknown start of token",
        "unterminated ",
        "missing ",
        "incorrect ",
        "invalid ",
        "found ",
        "prefix ",
        "character literal may only contain one codepoint",
        "unknown character escape",
        "leading `+` is not supported",
        "comparison operators cannot be chained",
        "macros that expand to items",
    ];
    if message.starts_with("cannot find macro") {
        "unresolved-macro"
    } else if message.starts_with("literal out of range") {
        "literal-out-of-range"
    } else if message.starts_with("this arithmetic operation will overflow") {
        "arithmetic-overflow"
    } else if message.starts_with("this operation will panic at runtime") {
        "unconditional-panic"
    } else if message.contains("positional argument")
        || message.contains("in format string")
        || message.starts_with("argument never used")
        || message.starts_with("multiple unused formatting arguments")
        || message.starts_with("named argument")
    {
        // `format!("{} {}", x)` and friends: rustc gives these no code.
        "format-arguments"
    } else if message.starts_with("lifetime may not live long enough") || message.starts_with("borrowed data escapes") {
        // Region errors of the borrow checker: a borrow (often a capability of a scoped grant) would outlive
        // what it borrows.
        "lifetime"
    } else if SYNTAX.iter().any(|p| message.starts_with(p)) {
        "syntax-error"
    } else {
        "other"
    }
}

/// rust-analyzer's names for diagnostics without a rustc code, in the same vocabulary as rustc's.
pub fn kind_for_ra_name(name: &str) -> &str {
    match name {
        "unresolved-macro-call" => "unresolved-macro",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_the_issue_names_have_kinds() {
        for code in [
            "E0277", "E0599", "E0308", "E0433", "E0432", "E0382", "E0425", "E0061", "E0004", "E0502", "E0499", "E0596",
            "E0384", "E0282", "E0369", "E0609", "E0560", "E0063", "E0106", "E0515", "E0597", "E0373",
        ] {
            assert_ne!(kind_for_code(code), "other", "{code}");
        }
    }
}

/// A rust-analyzer parse error in rustc's words: its token names (`expected R_PAREN`, `expected SEMICOLON`,
/// `expected IN_KW`) become the tokens themselves (`` expected `)` ``, `` expected `;` ``, `` expected `in` ``).
pub fn syntax_message(message: &str) -> String {
    const PUNCTUATION: &[(&str, &str)] = &[
        ("SEMICOLON", ";"),
        ("COMMA", ","),
        ("L_PAREN", "("),
        ("R_PAREN", ")"),
        ("L_CURLY", "{"),
        ("R_CURLY", "}"),
        ("L_BRACK", "["),
        ("R_BRACK", "]"),
        ("L_ANGLE", "<"),
        ("R_ANGLE", ">"),
        ("AT", "@"),
        ("POUND", "#"),
        ("TILDE", "~"),
        ("QUESTION", "?"),
        ("DOLLAR", "$"),
        ("AMP", "&"),
        ("PIPE", "|"),
        ("PLUS", "+"),
        ("STAR", "*"),
        ("SLASH", "/"),
        ("CARET", "^"),
        ("PERCENT", "%"),
        ("UNDERSCORE", "_"),
        ("DOT", "."),
        ("DOT2", ".."),
        ("DOT3", "..."),
        ("DOT2EQ", "..="),
        ("COLON", ":"),
        ("COLON2", "::"),
        ("EQ", "="),
        ("EQ2", "=="),
        ("FAT_ARROW", "=>"),
        ("BANG", "!"),
        ("NEQ", "!="),
        ("MINUS", "-"),
        ("THIN_ARROW", "->"),
        ("LTEQ", "<="),
        ("GTEQ", ">="),
        ("AMP2", "&&"),
        ("PIPE2", "||"),
        ("SHL", "<<"),
        ("SHR", ">>"),
    ];
    const WORDS: &[(&str, &str)] = &[
        ("IDENT", "an identifier"),
        ("LIFETIME_IDENT", "a lifetime"),
        ("INT_NUMBER", "a number"),
        ("FLOAT_NUMBER", "a number"),
        ("STRING", "a string"),
        ("CHAR", "a character"),
    ];
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(|c: char| c.is_ascii_uppercase()) {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let len =
            from.find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')).unwrap_or(from.len());
        let word = &from[..len];
        // Only whole words (not the tail of an identifier).
        let whole = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let spelled = match PUNCTUATION.iter().chain(WORDS).find(|(name, _)| *name == word) {
            Some((_, s)) if whole && WORDS.iter().any(|(n, _)| n == &word) => Some((*s).to_owned()),
            Some((_, s)) if whole => Some(format!("`{s}`")),
            _ if whole && word.len() > 3 && word.ends_with("_KW") => {
                Some(format!("`{}`", word.trim_end_matches("_KW").to_ascii_lowercase()))
            }
            _ => None,
        };
        out.push_str(spelled.as_deref().unwrap_or(word));
        rest = &from[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod syntax_message_tests {
    use super::syntax_message;

    #[test]
    fn token_names_read_as_rustc_writes_them() {
        assert_eq!(syntax_message("expected R_PAREN"), "expected `)`");
        assert_eq!(syntax_message("expected SEMICOLON"), "expected `;`");
        assert_eq!(syntax_message("expected COMMA"), "expected `,`");
        assert_eq!(syntax_message("expected IN_KW"), "expected `in`");
        assert_eq!(syntax_message("expected IDENT"), "expected an identifier");
        assert_eq!(
            syntax_message("expected expression, item or let statement"),
            "expected expression, item or let statement"
        );
        assert_eq!(syntax_message("Missing trailing `\"` symbol"), "Missing trailing `\"` symbol");
    }
}
