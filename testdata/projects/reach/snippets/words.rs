// expect: accepted
// An allowed crate's functions.
let words = textkit::words(text);
format!("{} words, first {:?}", words.len(), words.first())
