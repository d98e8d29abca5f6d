//! Diagnostics as data: what was wrong, where, in the snippet's own coordinates.

use lacuna_policy::ViolationKind;
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
    pub kind: DiagnosticKind,
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
    /// The diagnostic's short name: rustc's or Lacuna's code where it has one, else its kind.
    pub fn code_or_kind(&self) -> &str {
        self.code.as_deref().unwrap_or(self.kind.name())
    }

    /// An error about the snippet as a whole (it escapes its hole, rustc timed out or crashed on it), spanning
    /// it from the start to `end`.
    pub fn whole_snippet(kind: ErrorKind, message: String, end: (u32, u32)) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code: None,
            kind: kind.into(),
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

/// The compiler's vocabulary of errors: a stable name for each family of rustc error codes (and of the errors
/// rustc gives no code), and the checker's own whole-snippet errors. Serialized as its kebab-case name.
macro_rules! error_kinds {
    ($($variant:ident => $name:literal,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $($variant,)*
        }

        impl ErrorKind {
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$variant,)*];

            pub fn name(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => $name,)*
                }
            }
        }
    };
}

error_kinds! {
    NonExhaustiveMatch => "non-exhaustive-match",
    RefutablePattern => "refutable-pattern",
    PatternMismatch => "pattern-mismatch",
    PatternFields => "pattern-fields",
    ExplicitDropCall => "explicit-drop-call",
    TraitImplItems => "trait-impl-items",
    InvalidCast => "invalid-cast",
    ArgumentCount => "argument-count",
    DuplicateField => "duplicate-field",
    MissingFields => "missing-fields",
    InvalidAssignmentTarget => "invalid-assignment-target",
    MissingReturnValue => "missing-return-value",
    MissingLifetime => "missing-lifetime",
    GenericArgumentCount => "generic-argument-count",
    OrphanImpl => "orphan-impl",
    PlaceholderInSignature => "placeholder-in-signature",
    UnsafeRequired => "unsafe-required",
    DuplicateDefinition => "duplicate-definition",
    UndeclaredLifetime => "undeclared-lifetime",
    BreakOutsideLoop => "break-outside-loop",
    TraitNotImplemented => "trait-not-implemented",
    TypeAnnotationsNeeded => "type-annotations-needed",
    TypeMismatch => "type-mismatch",
    UnsupportedOperator => "unsupported-operator",
    ClosureMayOutlive => "closure-may-outlive",
    UninitializedUse => "uninitialized-use",
    UseAfterMove => "use-after-move",
    AssignToImmutable => "assign-to-immutable",
    DuplicateGeneric => "duplicate-generic",
    NotATrait => "not-a-trait",
    UnresolvedTrait => "unresolved-trait",
    UnresolvedType => "unresolved-type",
    BreakWithValueOutsideLoop => "break-with-value-outside-loop",
    ClosureSignatureMismatch => "closure-signature-mismatch",
    IfWithoutElse => "if-without-else",
    ExpectedUnitStructOrVariant => "expected-unit-struct-or-variant",
    ExpectedValue => "expected-value",
    SelfOutsideMethod => "self-outside-method",
    UnresolvedName => "unresolved-name",
    UndeclaredLabel => "undeclared-label",
    UnresolvedImport => "unresolved-import",
    UnresolvedPath => "unresolved-path",
    CaptureInFnItem => "capture-in-fn-item",
    NonConstantInConst => "non-constant-in-const",
    MultipleMutableBorrows => "multiple-mutable-borrows",
    ConflictingBorrow => "conflicting-borrow",
    UseWhileBorrowed => "use-while-borrowed",
    MoveWhileBorrowed => "move-while-borrowed",
    MoveOutOfBorrow => "move-out-of-borrow",
    ReturnReferenceToLocal => "return-reference-to-local",
    BorrowedDataEscapes => "borrowed-data-escapes",
    UnknownField => "unknown-field",
    BorrowImmutableAsMutable => "borrow-immutable-as-mutable",
    DoesNotLiveLongEnough => "does-not-live-long-enough",
    UnresolvedMethod => "unresolved-method",
    PrivateItem => "private-item",
    CannotIndex => "cannot-index",
    UnresolvedField => "unresolved-field",
    CannotDereference => "cannot-dereference",
    MethodUsedAsField => "method-used-as-field",
    NotCallable => "not-callable",
    UnstableFeature => "unstable-feature",
    AmbiguousNumericType => "ambiguous-numeric-type",
    AwaitOutsideAsync => "await-outside-async",
    NotAllowedInConst => "not-allowed-in-const",
    UnterminatedLiteral => "unterminated-literal",
    UnresolvedMacro => "unresolved-macro",
    LiteralOutOfRange => "literal-out-of-range",
    ArithmeticOverflow => "arithmetic-overflow",
    UnconditionalPanic => "unconditional-panic",
    FormatArguments => "format-arguments",
    Lifetime => "lifetime",
    SyntaxError => "syntax-error",
    CheckTimeout => "check-timeout",
    CompilerCrash => "compiler-crash",
    SnippetEscapesHole => "snippet-escapes-hole",
    ControlEscapesHole => "control-escapes-hole",
}

/// What kind of error a diagnostic reports, from where it was found: a closed vocabulary but for rust-analyzer's
/// own names (diagnostics rustc has no code for), which pass through as rust-analyzer spells them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiagnosticKind {
    Error(ErrorKind),
    /// Safe mode's verdict: what the snippet reached for that its scope does not grant.
    SafeMode(ViolationKind),
    /// A rust-analyzer diagnostic without a rustc code, by rust-analyzer's name for it.
    Analyzer(String),
    /// An error outside the vocabulary.
    Other,
}

impl DiagnosticKind {
    pub fn name(&self) -> &str {
        match self {
            DiagnosticKind::Error(kind) => kind.name(),
            DiagnosticKind::SafeMode(kind) => kind.name(),
            DiagnosticKind::Analyzer(name) => name,
            DiagnosticKind::Other => "other",
        }
    }
}

impl std::fmt::Display for DiagnosticKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl From<ErrorKind> for DiagnosticKind {
    fn from(kind: ErrorKind) -> DiagnosticKind {
        DiagnosticKind::Error(kind)
    }
}

impl Serialize for DiagnosticKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// The stable kind for a rustc error code; `None` for codes without a name here.
pub fn kind_for_code(code: &str) -> Option<ErrorKind> {
    Some(match code {
        "E0004" => ErrorKind::NonExhaustiveMatch,
        "E0005" => ErrorKind::RefutablePattern,
        "E0023" | "E0029" | "E0164" | "E0532" => ErrorKind::PatternMismatch,
        "E0026" | "E0027" => ErrorKind::PatternFields,
        "E0040" => ErrorKind::ExplicitDropCall,
        "E0046" | "E0407" => ErrorKind::TraitImplItems,
        "E0054" | "E0604" | "E0605" | "E0606" | "E0607" | "E0620" => ErrorKind::InvalidCast,
        "E0057" | "E0060" | "E0061" => ErrorKind::ArgumentCount,
        "E0062" => ErrorKind::DuplicateField,
        "E0063" => ErrorKind::MissingFields,
        "E0067" | "E0070" => ErrorKind::InvalidAssignmentTarget,
        "E0069" => ErrorKind::MissingReturnValue,
        "E0106" => ErrorKind::MissingLifetime,
        "E0107" => ErrorKind::GenericArgumentCount,
        "E0116" | "E0117" | "E0210" => ErrorKind::OrphanImpl,
        "E0121" => ErrorKind::PlaceholderInSignature,
        "E0133" => ErrorKind::UnsafeRequired,
        "E0252" | "E0254" | "E0255" | "E0428" => ErrorKind::DuplicateDefinition,
        "E0261" => ErrorKind::UndeclaredLifetime,
        "E0267" | "E0268" => ErrorKind::BreakOutsideLoop,
        "E0277" => ErrorKind::TraitNotImplemented,
        "E0282" | "E0283" | "E0284" => ErrorKind::TypeAnnotationsNeeded,
        "E0308" => ErrorKind::TypeMismatch,
        "E0369" | "E0368" | "E0600" => ErrorKind::UnsupportedOperator,
        "E0373" => ErrorKind::ClosureMayOutlive,
        "E0381" => ErrorKind::UninitializedUse,
        "E0382" => ErrorKind::UseAfterMove,
        "E0383" | "E0384" | "E0594" => ErrorKind::AssignToImmutable,
        "E0403" => ErrorKind::DuplicateGeneric,
        "E0404" => ErrorKind::NotATrait,
        "E0405" => ErrorKind::UnresolvedTrait,
        "E0412" => ErrorKind::UnresolvedType,
        "E0571" => ErrorKind::BreakWithValueOutsideLoop,
        "E0593" | "E0631" => ErrorKind::ClosureSignatureMismatch,
        "E0317" => ErrorKind::IfWithoutElse,
        "E0533" => ErrorKind::ExpectedUnitStructOrVariant,
        "E0423" => ErrorKind::ExpectedValue,
        "E0424" => ErrorKind::SelfOutsideMethod,
        "E0425" => ErrorKind::UnresolvedName,
        "E0426" => ErrorKind::UndeclaredLabel,
        "E0432" => ErrorKind::UnresolvedImport,
        "E0433" => ErrorKind::UnresolvedPath,
        "E0434" => ErrorKind::CaptureInFnItem,
        "E0435" => ErrorKind::NonConstantInConst,
        "E0499" => ErrorKind::MultipleMutableBorrows,
        "E0502" | "E0501" => ErrorKind::ConflictingBorrow,
        "E0503" | "E0506" => ErrorKind::UseWhileBorrowed,
        "E0505" => ErrorKind::MoveWhileBorrowed,
        "E0507" | "E0508" | "E0509" => ErrorKind::MoveOutOfBorrow,
        "E0515" => ErrorKind::ReturnReferenceToLocal,
        "E0521" => ErrorKind::BorrowedDataEscapes,
        "E0559" | "E0560" => ErrorKind::UnknownField,
        "E0596" => ErrorKind::BorrowImmutableAsMutable,
        "E0597" | "E0716" => ErrorKind::DoesNotLiveLongEnough,
        "E0599" => ErrorKind::UnresolvedMethod,
        "E0603" | "E0616" | "E0624" => ErrorKind::PrivateItem,
        "E0608" => ErrorKind::CannotIndex,
        "E0609" | "E0610" => ErrorKind::UnresolvedField,
        "E0614" => ErrorKind::CannotDereference,
        "E0615" => ErrorKind::MethodUsedAsField,
        "E0618" => ErrorKind::NotCallable,
        "E0658" => ErrorKind::UnstableFeature,
        "E0689" => ErrorKind::AmbiguousNumericType,
        "E0728" => ErrorKind::AwaitOutsideAsync,
        "E0744" | "E0015" => ErrorKind::NotAllowedInConst,
        "E0765" | "E0766" => ErrorKind::UnterminatedLiteral,
        _ => return None,
    })
}

/// rustc reports parse errors and a few resolution errors without a code; their kind comes from the message.
pub fn kind_for_uncoded_message(message: &str) -> Option<ErrorKind> {
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
    Some(if message.starts_with("cannot find macro") {
        ErrorKind::UnresolvedMacro
    } else if message.starts_with("literal out of range") {
        ErrorKind::LiteralOutOfRange
    } else if message.starts_with("this arithmetic operation will overflow") {
        ErrorKind::ArithmeticOverflow
    } else if message.starts_with("this operation will panic at runtime") {
        ErrorKind::UnconditionalPanic
    } else if message.contains("positional argument")
        || message.contains("in format string")
        || message.starts_with("argument never used")
        || message.starts_with("multiple unused formatting arguments")
        || message.starts_with("named argument")
    {
        // `format!("{} {}", x)` and friends: rustc gives these no code.
        ErrorKind::FormatArguments
    } else if message.starts_with("lifetime may not live long enough") || message.starts_with("borrowed data escapes") {
        // Region errors of the borrow checker: a borrow (often a capability of a scoped grant) would outlive
        // what it borrows.
        ErrorKind::Lifetime
    } else if SYNTAX.iter().any(|p| message.starts_with(p)) {
        ErrorKind::SyntaxError
    } else {
        return None;
    })
}

/// rust-analyzer's names for diagnostics without a rustc code, in the same vocabulary as rustc's where it has one.
pub fn kind_for_ra_name(name: &str) -> DiagnosticKind {
    match name {
        "unresolved-macro-call" => ErrorKind::UnresolvedMacro.into(),
        other => ErrorKind::ALL
            .iter()
            .find(|k| k.name() == other)
            .map_or_else(|| DiagnosticKind::Analyzer(other.to_owned()), |&k| k.into()),
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
            assert!(kind_for_code(code).is_some(), "{code}");
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
