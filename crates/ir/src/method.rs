//! Method vocabularies.

pub const CHAR_METHODS: &[&str] = &[
    "is_alphabetic",
    "is_numeric",
    "is_alphanumeric",
    "is_whitespace",
    "is_uppercase",
    "is_lowercase",
    "is_ascii",
    "is_ascii_digit",
    "is_ascii_alphabetic",
    "is_ascii_alphanumeric",
    "is_ascii_uppercase",
    "is_ascii_lowercase",
    "is_ascii_punctuation",
    "is_ascii_whitespace",
    "to_ascii_uppercase",
    "to_ascii_lowercase",
];

/// Sequence methods that change the sequence.
pub const SEQ_MUTATORS: &[&str] = &["sort", "sort_unstable", "reverse", "swap", "fill", "dedup", "push", "pop"];
