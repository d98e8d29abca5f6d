//! Replies that need no network: scripted replies for demos and tests, and record/replay cassettes keyed by the
//! request, so a rerun of a benchmark costs no model calls and gives the same run.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::llm::{ChatRequest, Llm, LlmError, Reply};

/// Canned replies, handed out in order, one per request. The file holds replies separated by lines that read
/// `=== reply` (text before the first such line is a comment).
pub struct Scripted {
    name: String,
    replies: Vec<String>,
    next: Mutex<usize>,
}

/// The line that starts each reply in a script file.
pub const REPLY_SEPARATOR: &str = "=== reply";

impl Scripted {
    pub fn new(name: impl Into<String>, replies: Vec<String>) -> Scripted {
        Scripted { name: name.into(), replies, next: Mutex::new(0) }
    }

    pub fn from_file(path: &Path) -> Result<Scripted, LlmError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LlmError::Io { detail: format!("cannot read the script {}: {e}", path.display()) })?;
        let replies = Scripted::parse(&text);
        if replies.is_empty() {
            return Err(LlmError::Io {
                detail: format!(
                    "the script {} has no replies: start each with a line `{REPLY_SEPARATOR}`",
                    path.display()
                ),
            });
        }
        Ok(Scripted::new(path.display().to_string(), replies))
    }

    /// The replies of a script file's text.
    pub fn parse(text: &str) -> Vec<String> {
        let mut replies: Vec<String> = Vec::new();
        let mut current: Option<String> = None;
        for line in text.split_inclusive('\n') {
            if line.trim_end() == REPLY_SEPARATOR {
                replies.extend(current.take());
                current = Some(String::new());
            } else if let Some(reply) = current.as_mut() {
                reply.push_str(line);
            }
        }
        replies.extend(current);
        replies.into_iter().map(|r| r.trim_end_matches('\n').to_owned()).collect()
    }
}

impl Llm for Scripted {
    fn describe(&self) -> String {
        format!("script:{}", self.name)
    }

    fn reply(&self, _request: &ChatRequest) -> Result<Reply, LlmError> {
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let reply = self
            .replies
            .get(*next)
            .ok_or_else(|| LlmError::ScriptExhausted { script: self.name.clone(), replies: self.replies.len() })?;
        *next += 1;
        Ok(Reply { text: reply.clone(), tokens: None })
    }
}

/// One line of a cassette.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CassetteEntry {
    pub key: String,
    pub model: String,
    pub request: ChatRequest,
    pub reply: String,
    /// What the provider said the exchange cost, replayed with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// The cassette key of a request: SHA-256 over the request (system instruction and messages).
pub fn request_key(request: &ChatRequest) -> String {
    let mut hasher = Sha256::new();
    hasher.update(serde_json::to_vec(request).unwrap_or_default());
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Passes requests to a model and appends each exchange to a cassette (JSON lines).
pub struct Recorder {
    inner: Box<dyn Llm>,
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl Recorder {
    pub fn new(inner: Box<dyn Llm>, path: &Path) -> Result<Recorder, LlmError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| LlmError::Io { detail: format!("cannot create {}: {e}", dir.display()) })?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| LlmError::Io { detail: format!("cannot open the cassette {}: {e}", path.display()) })?;
        Ok(Recorder { inner, path: path.to_owned(), file: Mutex::new(file) })
    }
}

impl Llm for Recorder {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn reply(&self, request: &ChatRequest) -> Result<Reply, LlmError> {
        let reply = self.inner.reply(request)?;
        let model = self.inner.describe();
        let entry = CassetteEntry {
            key: request_key(request),
            model,
            request: request.clone(),
            reply: reply.text.clone(),
            tokens: reply.tokens,
        };
        let mut line = serde_json::to_string(&entry).map_err(|e| LlmError::Io { detail: e.to_string() })?;
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(line.as_bytes())
            .map_err(|e| LlmError::Io { detail: format!("cannot write the cassette {}: {e}", self.path.display()) })?;
        Ok(reply)
    }
}

/// Answers from a cassette: the replies recorded for the same request (and model, when one is named), in
/// recorded order (the last one again once they are used up). Never touches the network.
pub struct Replay {
    name: String,
    model: Option<String>,
    /// By request key: (model, reply) in recorded order.
    replies: HashMap<String, Vec<(String, Reply)>>,
    used: Mutex<HashMap<String, usize>>,
}

impl Replay {
    /// `model`: which recorded model this replay stands for (`None`: any).
    pub fn from_file(path: &Path, model: Option<String>) -> Result<Replay, LlmError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LlmError::Io { detail: format!("cannot read the cassette {}: {e}", path.display()) })?;
        let mut replies: HashMap<String, Vec<(String, Reply)>> = HashMap::new();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let entry: CassetteEntry = serde_json::from_str(line).map_err(|e| LlmError::Io {
                detail: format!("{}:{}: not a cassette entry: {e}", path.display(), n + 1),
            })?;
            replies
                .entry(entry.key)
                .or_default()
                .push((entry.model, Reply { text: entry.reply, tokens: entry.tokens }));
        }
        Ok(Replay { name: path.display().to_string(), model, replies, used: Mutex::new(HashMap::new()) })
    }
}

impl Llm for Replay {
    fn describe(&self) -> String {
        self.model.clone().unwrap_or_else(|| format!("replay:{}", self.name))
    }

    fn reply(&self, request: &ChatRequest) -> Result<Reply, LlmError> {
        let key = request_key(request);
        let recorded: Vec<&Reply> = self
            .replies
            .get(&key)
            .into_iter()
            .flatten()
            .filter(|(model, _)| self.model.as_ref().is_none_or(|m| m == model))
            .map(|(_, reply)| reply)
            .collect();
        if recorded.is_empty() {
            return Err(LlmError::NotRecorded { cassette: self.name.clone(), key });
        }
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        let n = used.entry(format!("{key} {}", self.describe())).or_insert(0);
        let reply = recorded[(*n).min(recorded.len() - 1)].clone();
        *n += 1;
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;

    #[test]
    fn scripts_split_on_reply_lines_and_keep_code_intact() {
        let text = "a comment\n=== reply\n```rust\nlet x = 1;\nx\n```\n=== reply\n\n42\n";
        assert_eq!(Scripted::parse(text), vec!["```rust\nlet x = 1;\nx\n```".to_owned(), "\n42".to_owned()]);
        assert!(Scripted::parse("no separator at all").is_empty());
    }

    #[test]
    fn a_recorded_exchange_replays_and_an_unknown_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let cassette = dir.path().join("sub/run.jsonl");
        let request = ChatRequest { system: "s".into(), messages: vec![Message::user("task")] };
        let recorder =
            Recorder::new(Box::new(Scripted::new("t", vec!["one".into(), "two".into()])), &cassette).unwrap();
        assert_eq!(recorder.complete(&request).unwrap(), "one");
        assert_eq!(recorder.complete(&request).unwrap(), "two");
        let replay = Replay::from_file(&cassette, None).unwrap();
        assert_eq!(Replay::from_file(&cassette, Some("script:t".into())).unwrap().complete(&request).unwrap(), "one");
        assert!(Replay::from_file(&cassette, Some("openai:x".into())).unwrap().complete(&request).is_err());
        assert_eq!(replay.complete(&request).unwrap(), "one");
        assert_eq!(replay.complete(&request).unwrap(), "two");
        assert_eq!(replay.complete(&request).unwrap(), "two");
        let other = ChatRequest { system: "s".into(), messages: vec![Message::user("other task")] };
        assert!(matches!(replay.complete(&other), Err(LlmError::NotRecorded { .. })));
    }

    #[test]
    fn a_broken_cassette_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let cassette = dir.path().join("bad.jsonl");
        std::fs::write(&cassette, "{\"key\": 1}\n").unwrap();
        let Err(LlmError::Io { detail }) = Replay::from_file(&cassette, None) else { panic!("expected an error") };
        assert!(detail.contains("bad.jsonl:1"), "{detail}");
    }
}
