//! Byte offsets to 1-based line and column (columns count chars, as rustc's do).

#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset where each line starts.
    starts: Vec<usize>,
    text: std::sync::Arc<str>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts, text: text.into() }
    }

    /// 1-based (line, column); an offset past the end clamps to the end.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        // An offset inside a multi-byte char counts as that char.
        let column = self.text[start..].char_indices().take_while(|(i, _)| start + i < offset).count();
        (line as u32 + 1, column as u32 + 1)
    }

    /// 1-based (line, column) of `offset` in `text`, for a single look-up.
    pub fn one(text: &str, offset: usize) -> (u32, u32) {
        LineIndex::new(text).line_col(offset)
    }

    /// Byte offset where 1-based `line` starts (clamped to the last line).
    pub fn line_start(&self, line: u32) -> usize {
        self.starts[(line as usize).saturating_sub(1).min(self.starts.len() - 1)]
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line as usize).saturating_sub(1).min(self.starts.len() - 1);
        let end = self.starts.get(i + 1).map_or(self.text.len(), |e| e - 1);
        &self.text[self.starts[i]..end.max(self.starts[i])]
    }
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    #[test]
    fn lines_and_char_columns() {
        let idx = LineIndex::new("ab\nçd\n");
        assert_eq!(idx.line_col(0), (1, 1));
        assert_eq!(idx.line_col(3), (2, 1));
        assert_eq!(idx.line_col(5), (2, 2)); // after the two-byte ç
        assert_eq!(idx.line_col(100), (3, 1));
        assert_eq!(idx.line_text(2), "çd");
    }
}
