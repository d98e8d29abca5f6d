//! Python's arithmetic as τ²'s tools use it, shared by the hosts (each has it as `mod python` by `#[path]`):
//! `round(x, 2)`, a float's `repr`, and the `calculate` tool — Python's evaluation of an arithmetic expression over
//! the characters `0123456789+-*/(). `, answered as `str(round(float(value), 2))`.
//!
//! Python's rules, not a calculator's: `**` (right-associative, binding tighter than a unary sign) and `//`
//! (floor division) are accepted; integers stay integers until a `/`, a float or the final `float()`; `()` is an
//! empty tuple and `(2)(3)` a call, both type errors; `1 2` and `012` are syntax errors; rounding is half-to-even on
//! the float's exact value; the text is Python's `repr` of the rounded float (`4.0`, `1e+16`). Error texts are
//! CPython 3.11's, with a syntax error's position simplified to `(<string>, line 1)`.
//!
//! One limit Python does not have: integers are 128-bit, so an integer result beyond ±2¹²⁷ is an error here
//! where Python would go on with a big integer; and a true division of integers beyond 2⁵³ rounds them first
//! (Python divides them exactly).

/// A value an expression evaluates to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Int(i128),
    Float(f64),
    /// `()`.
    Tuple,
}

impl Value {
    fn type_name(self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Tuple => "tuple",
        }
    }

    fn float(self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            Value::Tuple => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    Number(Value),
    Plus,
    Minus,
    Star,
    Slash,
    SlashSlash,
    StarStar,
    Open,
    Close,
}

/// Why the expression gave no number: the text τ² would return as the tool's error.
type Failure = String;

fn syntax(message: &str) -> Failure {
    format!("{message} (<string>, line 1)")
}

const TOO_LARGE: &str = "integer too large for this calculator (beyond ±2^127)";

/// The tool: `expression` evaluated, rounded to 2 decimals, as Python prints the float.
pub fn calculate(expression: &str) -> Result<String, Failure> {
    if !expression.chars().all(|c| "0123456789+-*/(). ".contains(c)) {
        return Err("Invalid characters in expression".to_string());
    }
    let tokens = tokenize(expression)?;
    if tokens.is_empty() {
        return Err("invalid syntax (<string>, line 0)".to_string());
    }
    let mut parser = Parser { tokens: &tokens, at: 0 };
    let value = parser.sum()?;
    if parser.at != tokens.len() {
        return Err(syntax("invalid syntax"));
    }
    let float = match value {
        Value::Tuple => {
            return Err("float() argument must be a string or a real number, not 'tuple'".to_string());
        }
        other => other.float().expect("a number"),
    };
    Ok(repr(round2(float)))
}

/// Python's `round(x, 2)`: the float nearest the decimal rounding (half to even) of `x`'s exact value.
pub fn round2(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.2}").parse().expect("a formatted float parses")
}

/// Python's `repr` of a float: the shortest digits that read back, in fixed notation from 1e-4 up to 1e16 and in
/// exponent notation (`1e+16`, `1.5e-05`) outside.
pub fn repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        };
        format!("{sign}{text}")
    } else {
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.abs())
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, Failure> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut depth = 0usize;
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        let (token, width) = match c {
            ' ' => {
                at += 1;
                continue;
            }
            '0'..='9' | '.' => {
                let start = at;
                while chars.get(at).is_some_and(char::is_ascii_digit) {
                    at += 1;
                }
                let integral = at > start;
                let mut fraction = false;
                if chars.get(at) == Some(&'.') {
                    at += 1;
                    while chars.get(at).is_some_and(char::is_ascii_digit) {
                        at += 1;
                        fraction = true;
                    }
                    if !integral && !fraction {
                        // A lone `.` begins an attribute access, and there are no names to follow it.
                        return Err(syntax("invalid syntax"));
                    }
                    let literal: String = chars[start..at].iter().collect();
                    tokens.push(Token::Number(Value::Float(literal.parse().expect("a float literal"))));
                } else {
                    let literal: String = chars[start..at].iter().collect();
                    if literal.len() > 1 && literal.starts_with('0') && literal.chars().any(|d| d != '0') {
                        return Err(syntax(
                            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
                        ));
                    }
                    let value = literal.parse::<i128>().map_err(|_| TOO_LARGE.to_string())?;
                    tokens.push(Token::Number(Value::Int(value)));
                }
                continue;
            }
            '+' => (Token::Plus, 1),
            '-' => (Token::Minus, 1),
            '*' if next == Some('*') => (Token::StarStar, 2),
            '*' => (Token::Star, 1),
            '/' if next == Some('/') => (Token::SlashSlash, 2),
            '/' => (Token::Slash, 1),
            '(' => {
                depth += 1;
                (Token::Open, 1)
            }
            ')' => {
                if depth == 0 {
                    return Err(syntax("unmatched ')'"));
                }
                depth -= 1;
                (Token::Close, 1)
            }
            other => unreachable!("characters were checked: {other:?}"),
        };
        tokens.push(token);
        at += width;
    }
    if depth > 0 {
        return Err(syntax("'(' was never closed"));
    }
    Ok(tokens)
}

/// Python's grammar for these tokens: `sum: sum (+|-) term`, `term: term (*|/|//) factor`, `factor: (+|-) factor |
/// power`, `power: primary [** factor]`, `primary: primary '(' [sum] ')' | atom`, `atom: NUMBER | '(' [sum] ')'`.
struct Parser<'t> {
    tokens: &'t [Token],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).copied()
    }

    fn sum(&mut self) -> Result<Value, Failure> {
        let mut value = self.term()?;
        while let Some(op @ (Token::Plus | Token::Minus)) = self.peek() {
            self.at += 1;
            let rhs = self.term()?;
            value = binary(op, value, rhs)?;
        }
        Ok(value)
    }

    fn term(&mut self) -> Result<Value, Failure> {
        let mut value = self.factor()?;
        while let Some(op @ (Token::Star | Token::Slash | Token::SlashSlash)) = self.peek() {
            self.at += 1;
            let rhs = self.factor()?;
            value = binary(op, value, rhs)?;
        }
        Ok(value)
    }

    fn factor(&mut self) -> Result<Value, Failure> {
        match self.peek() {
            Some(op @ (Token::Plus | Token::Minus)) => {
                self.at += 1;
                let value = self.factor()?;
                unary(op, value)
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Value, Failure> {
        let base = self.primary()?;
        if self.peek() == Some(Token::StarStar) {
            self.at += 1;
            let exponent = self.factor()?;
            return binary(Token::StarStar, base, exponent);
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Value, Failure> {
        let value = self.atom()?;
        // A call: the callee and its argument are evaluated first, then calling a number or a tuple fails.
        if self.peek() == Some(Token::Open) {
            self.at += 1;
            if self.peek() != Some(Token::Close) {
                self.sum()?;
            }
            if self.peek() != Some(Token::Close) {
                return Err(syntax("invalid syntax"));
            }
            self.at += 1;
            return Err(format!("'{}' object is not callable", value.type_name()));
        }
        Ok(value)
    }

    fn atom(&mut self) -> Result<Value, Failure> {
        match self.peek() {
            Some(Token::Number(value)) => {
                self.at += 1;
                Ok(value)
            }
            Some(Token::Open) => {
                self.at += 1;
                if self.peek() == Some(Token::Close) {
                    self.at += 1;
                    return Ok(Value::Tuple);
                }
                let value = self.sum()?;
                if self.peek() != Some(Token::Close) {
                    return Err(syntax("invalid syntax"));
                }
                self.at += 1;
                Ok(value)
            }
            _ => Err(syntax("invalid syntax")),
        }
    }
}

fn symbol(op: Token) -> &'static str {
    match op {
        Token::Plus => "+",
        Token::Minus => "-",
        Token::Star => "*",
        Token::Slash => "/",
        Token::SlashSlash => "//",
        Token::StarStar => "** or pow()",
        Token::Number(_) | Token::Open | Token::Close => unreachable!("not an operator"),
    }
}

fn unary(op: Token, value: Value) -> Result<Value, Failure> {
    match (op, value) {
        (Token::Plus, Value::Tuple) | (Token::Minus, Value::Tuple) => {
            Err(format!("bad operand type for unary {}: 'tuple'", symbol(op)))
        }
        (Token::Plus, v) => Ok(v),
        (_, Value::Int(i)) => i.checked_neg().map(Value::Int).ok_or_else(|| TOO_LARGE.to_string()),
        (_, Value::Float(f)) => Ok(Value::Float(-f)),
        (_, Value::Tuple) => unreachable!("matched above"),
    }
}

fn binary(op: Token, lhs: Value, rhs: Value) -> Result<Value, Failure> {
    use Value::{Float, Int, Tuple};
    let too_large = || TOO_LARGE.to_string();
    match (lhs, rhs) {
        (Tuple, _) | (_, Tuple) => tuple_op(op, lhs, rhs),
        (Int(a), Int(b)) => match op {
            Token::Plus => a.checked_add(b).map(Int).ok_or_else(too_large),
            Token::Minus => a.checked_sub(b).map(Int).ok_or_else(too_large),
            Token::Star => a.checked_mul(b).map(Int).ok_or_else(too_large),
            Token::Slash if b == 0 => Err("division by zero".to_string()),
            Token::Slash => Ok(Float(a as f64 / b as f64)),
            Token::SlashSlash if b == 0 => Err("integer division or modulo by zero".to_string()),
            Token::SlashSlash => {
                let q = a.checked_div(b).ok_or_else(too_large)?;
                let floor = if a % b != 0 && ((a < 0) != (b < 0)) { q - 1 } else { q };
                Ok(Int(floor))
            }
            Token::StarStar if b < 0 => float_pow(a as f64, b as f64),
            Token::StarStar => {
                let b = u32::try_from(b).map_err(|_| too_large())?;
                a.checked_pow(b).map(Int).ok_or_else(too_large)
            }
            _ => unreachable!("not a binary operator"),
        },
        (a, b) => {
            let (a, b) = (a.float().expect("a number"), b.float().expect("a number"));
            match op {
                Token::Plus => Ok(Float(a + b)),
                Token::Minus => Ok(Float(a - b)),
                Token::Star => Ok(Float(a * b)),
                Token::Slash if b == 0.0 => Err("float division by zero".to_string()),
                Token::Slash => Ok(Float(a / b)),
                Token::SlashSlash if b == 0.0 => Err("float floor division by zero".to_string()),
                Token::SlashSlash => Ok(Float(floor_div(a, b))),
                Token::StarStar => float_pow(a, b),
                _ => unreachable!("not a binary operator"),
            }
        }
    }
}

/// CPython's `float.__floordiv__` (`_float_div_mod`).
fn floor_div(vx: f64, wx: f64) -> f64 {
    let mut m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 && ((wx < 0.0) != (m < 0.0)) {
        m += wx;
        div -= 1.0;
    }
    let _ = m;
    if div != 0.0 {
        let mut floordiv = div.floor();
        if div - floordiv > 0.5 {
            floordiv += 1.0;
        }
        floordiv
    } else {
        0.0f64.copysign(vx / wx)
    }
}

/// CPython's `float.__pow__`: a negative base to a fractional power is a complex number, which the final
/// `float()` refuses; an overflow is an error, not infinity.
fn float_pow(x: f64, y: f64) -> Result<Value, Failure> {
    if x == 0.0 && y < 0.0 {
        return Err("0.0 cannot be raised to a negative power".to_string());
    }
    if x < 0.0 && y.is_finite() && y != y.floor() {
        return Err("float() argument must be a string or a real number, not 'complex'".to_string());
    }
    let z = x.powf(y);
    if z.is_infinite() && x.is_finite() && y.is_finite() {
        return Err("(34, 'Numerical result out of range')".to_string());
    }
    Ok(Value::Float(z))
}

/// An operator with `()` on either side: sequence concatenation and repetition, or a type error.
fn tuple_op(op: Token, lhs: Value, rhs: Value) -> Result<Value, Failure> {
    match (op, lhs, rhs) {
        (Token::Plus, Value::Tuple, Value::Tuple) => Ok(Value::Tuple),
        (Token::Plus, Value::Tuple, other) => {
            Err(format!("can only concatenate tuple (not \"{}\") to tuple", other.type_name()))
        }
        (Token::Star, Value::Tuple, Value::Int(_)) | (Token::Star, Value::Int(_), Value::Tuple) => Ok(Value::Tuple),
        (Token::Star, Value::Tuple, other) | (Token::Star, other, Value::Tuple) if other != Value::Tuple => {
            Err(format!("can't multiply sequence by non-int of type '{}'", other.type_name()))
        }
        _ => Err(format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            symbol(op),
            lhs.type_name(),
            rhs.type_name()
        )),
    }
}
