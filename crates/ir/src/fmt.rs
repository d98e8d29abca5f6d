//! Format strings: literal text and arguments with their specs.

use crate::TExpr;

/// A piece of a format string: literal text, or an argument formatted by a spec.
#[derive(Debug, Clone, PartialEq)]
// An argument is an expression in place: pieces are few, and boxing each would only add indirection.
#[allow(clippy::large_enum_variant)]
pub enum FmtPiece {
    Lit(String),
    Arg { value: TExpr, spec: FmtSpec },
}

/// `{:<fill><align><sign><#><0><width>.<precision><trait>}` with constant width and precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FmtSpec {
    pub fill: Option<char>,
    /// `<`, `^` or `>`.
    pub align: Option<char>,
    pub plus: bool,
    pub alternate: bool,
    pub zero: bool,
    pub width: Option<usize>,
    pub precision: Option<usize>,
    pub trait_: FmtTrait,
}

/// Which formatting trait a spec names. `repr(u8)`: the JIT's `RawSpec` carries it across to its helpers as is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum FmtTrait {
    #[default]
    Display,
    Debug,
    LowerHex,
    UpperHex,
    Binary,
    Octal,
    LowerExp,
    UpperExp,
}

/// Parses a format string into literal text and arguments (`None` for what the typed view does not cover:
/// widths or precisions taken from arguments, `{:x?}`-style debug hex). Each argument says which one it
/// formats.
pub fn parse_format(template: &str) -> Option<Vec<(Option<FmtArgRef>, String, FmtSpec)>> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = template.chars().peekable();
    let mut next_positional = 0;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '}' => return None,
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        ch => inner.push(ch),
                    }
                }
                if !text.is_empty() {
                    out.push((None, std::mem::take(&mut text), FmtSpec::default()));
                }
                let (name, spec) = inner.split_once(':').unwrap_or((inner.as_str(), ""));
                let name = name.trim();
                let arg = if name.is_empty() {
                    next_positional += 1;
                    FmtArgRef::Index(next_positional - 1)
                } else if let Ok(i) = name.parse::<usize>() {
                    FmtArgRef::Index(i)
                } else if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    FmtArgRef::Name(name.to_owned())
                } else {
                    return None;
                };
                out.push((Some(arg), String::new(), parse_spec(spec)?));
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push((None, text, FmtSpec::default()));
    }
    Some(out)
}

/// Which argument a `{..}` formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FmtArgRef {
    Index(usize),
    Name(String),
}

fn parse_spec(spec: &str) -> Option<FmtSpec> {
    let mut s = FmtSpec::default();
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let is_align = |c: Option<&char>| matches!(c, Some('<' | '^' | '>'));
    if chars.len() >= 2 && is_align(chars.get(1)) {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if is_align(chars.first()) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if chars.get(i) == Some(&'+') {
        s.plus = true;
        i += 1;
    } else if chars.get(i) == Some(&'-') {
        return None;
    }
    if chars.get(i) == Some(&'#') {
        s.alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.zero = true;
        i += 1;
    }
    let number = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        (start < *i).then(|| chars[start..*i].iter().collect::<String>().parse().ok()).flatten()
    };
    s.width = number(&mut i);
    if chars.get(i) == Some(&'$') {
        return None;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        s.precision = Some(number(&mut i)?);
        if chars.get(i) == Some(&'$') {
            return None;
        }
    }
    s.trait_ = match chars[i..].iter().collect::<String>().as_str() {
        "" => FmtTrait::Display,
        "?" => FmtTrait::Debug,
        "x" => FmtTrait::LowerHex,
        "X" => FmtTrait::UpperHex,
        "b" => FmtTrait::Binary,
        "o" => FmtTrait::Octal,
        "e" => FmtTrait::LowerExp,
        "E" => FmtTrait::UpperExp,
        _ => return None,
    };
    Some(s)
}
