// What every τ² host shares, appended to it by its suite (`support`): a small JSON reader (a host links only `std`
// and Lacuna's runtime; objects keep their keys' order, numbers are `f64` parsed as Rust parses float literals),
// the verdict the harness reads, the record-by-record comparison of two stores, and the tools' error.

/// Why a tool refused; nothing changed.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError(pub String);

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

mod compare {
    use std::collections::BTreeMap;

    /// Adds `kind id: ...` for each record that differs between `ours` and `expected` (compared as `Debug` text),
    /// is only in ours, or is missing.
    pub fn differ<T: std::fmt::Debug>(kind: &str, ours: &BTreeMap<String, T>, expected: &BTreeMap<String, T>, out: &mut Vec<String>) {
        for (id, record) in ours {
            match expected.get(id) {
                None => out.push(format!("{kind} {id}: not expected")),
                Some(other) if format!("{record:?}") != format!("{other:?}") => out.push(format!("{kind} {id}: differs")),
                Some(_) => {}
            }
        }
        for id in expected.keys() {
            if !ours.contains_key(id) {
                out.push(format!("{kind} {id}: missing"));
            }
        }
    }
}

mod json {
    /// A JSON value; objects keep their keys' order.
    pub enum Json {
        Null,
        Bool(bool),
        Number(f64),
        Text(String),
        List(Vec<Json>),
        Object(Vec<(String, Json)>),
    }

    impl Json {
        pub fn parse(text: &str) -> Result<Json, String> {
            let bytes = text.as_bytes();
            let mut at = 0;
            let value = value(bytes, &mut at)?;
            skip_space(bytes, &mut at);
            if at != bytes.len() {
                return Err(format!("unexpected text at byte {at}"));
            }
            Ok(value)
        }

        pub fn find(&self, key: &str) -> Option<&Json> {
            match self {
                Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v).filter(|v| !matches!(v, Json::Null)),
                _ => None,
            }
        }

        pub fn get(&self, key: &str) -> Result<&Json, String> {
            self.find(key).ok_or_else(|| format!("missing field `{key}`"))
        }

        pub fn entries(&self) -> Result<&[(String, Json)], String> {
            match self {
                Json::Object(entries) => Ok(entries),
                _ => Err("expected an object".to_string()),
            }
        }

        pub fn items(&self) -> Result<&[Json], String> {
            match self {
                Json::List(items) => Ok(items),
                _ => Err("expected a list".to_string()),
            }
        }

        pub fn text(&self) -> Result<String, String> {
            match self {
                Json::Text(s) => Ok(s.clone()),
                _ => Err("expected a string".to_string()),
            }
        }

        pub fn number(&self) -> Result<f64, String> {
            match self {
                Json::Number(n) => Ok(*n),
                _ => Err("expected a number".to_string()),
            }
        }

        pub fn boolean(&self) -> Result<bool, String> {
            match self {
                Json::Bool(b) => Ok(*b),
                _ => Err("expected true or false".to_string()),
            }
        }
    }

    /// The verdict a τ² host's `verdict` method returns.
    pub fn verdict(tool_calls: usize, diff: &[String], assertions: &[bool]) -> String {
        let diff: Vec<String> = diff.iter().map(|d| quote(d)).collect();
        let assertions: Vec<&str> = assertions.iter().map(|a| if *a { "true" } else { "false" }).collect();
        format!("{{\"tool_calls\":{tool_calls},\"diff\":[{}],\"assertions\":[{}]}}", diff.join(","), assertions.join(","))
    }

    /// `text` as a JSON string literal.
    pub fn quote(text: &str) -> String {
        let mut out = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    fn skip_space(b: &[u8], at: &mut usize) {
        while b.get(*at).is_some_and(|c| c.is_ascii_whitespace()) {
            *at += 1;
        }
    }

    fn expect(b: &[u8], at: &mut usize, c: u8) -> Result<(), String> {
        skip_space(b, at);
        if b.get(*at) != Some(&c) {
            return Err(format!("expected `{}` at byte {}", c as char, *at));
        }
        *at += 1;
        Ok(())
    }

    fn value(b: &[u8], at: &mut usize) -> Result<Json, String> {
        skip_space(b, at);
        match b.get(*at) {
            Some(b'{') => {
                *at += 1;
                let mut entries = Vec::new();
                skip_space(b, at);
                if b.get(*at) == Some(&b'}') {
                    *at += 1;
                    return Ok(Json::Object(entries));
                }
                loop {
                    skip_space(b, at);
                    let key = string(b, at)?;
                    expect(b, at, b':')?;
                    entries.push((key, value(b, at)?));
                    skip_space(b, at);
                    match b.get(*at) {
                        Some(b',') => *at += 1,
                        Some(b'}') => {
                            *at += 1;
                            return Ok(Json::Object(entries));
                        }
                        _ => return Err(format!("expected `,` or `}}` at byte {}", *at)),
                    }
                }
            }
            Some(b'[') => {
                *at += 1;
                let mut items = Vec::new();
                skip_space(b, at);
                if b.get(*at) == Some(&b']') {
                    *at += 1;
                    return Ok(Json::List(items));
                }
                loop {
                    items.push(value(b, at)?);
                    skip_space(b, at);
                    match b.get(*at) {
                        Some(b',') => *at += 1,
                        Some(b']') => {
                            *at += 1;
                            return Ok(Json::List(items));
                        }
                        _ => return Err(format!("expected `,` or `]` at byte {}", *at)),
                    }
                }
            }
            Some(b'"') => Ok(Json::Text(string(b, at)?)),
            Some(b't') if b[*at..].starts_with(b"true") => {
                *at += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if b[*at..].starts_with(b"false") => {
                *at += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if b[*at..].starts_with(b"null") => {
                *at += 4;
                Ok(Json::Null)
            }
            Some(_) => {
                let start = *at;
                while b.get(*at).is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c)) {
                    *at += 1;
                }
                let text = std::str::from_utf8(&b[start..*at]).map_err(|e| e.to_string())?;
                text.parse::<f64>().map(Json::Number).map_err(|_| format!("bad value at byte {start}"))
            }
            None => Err("unexpected end of input".to_string()),
        }
    }

    fn string(b: &[u8], at: &mut usize) -> Result<String, String> {
        if b.get(*at) != Some(&b'"') {
            return Err(format!("expected a string at byte {}", *at));
        }
        *at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            match b.get(*at) {
                None => return Err("unterminated string".to_string()),
                Some(b'"') => {
                    *at += 1;
                    return String::from_utf8(out).map_err(|e| e.to_string());
                }
                Some(b'\\') => {
                    let escaped = b.get(*at + 1).copied().ok_or("unterminated string")?;
                    *at += 2;
                    let c = match escaped {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let hex = b.get(*at..*at + 4).ok_or("short \\u escape")?;
                            *at += 4;
                            let code = u32::from_str_radix(std::str::from_utf8(hex).map_err(|e| e.to_string())?, 16)
                                .map_err(|e| e.to_string())?;
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        }
                        other => other as char,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(&c) => {
                    out.push(c);
                    *at += 1;
                }
            }
        }
    }
}
