//! A crate's module tree as one text: each `mod name;` becomes `mod name { <its file> }`, recursively, with the
//! file found as rustc finds it (`name.rs`, `name/mod.rs`, `#[path]`). The text means what the crate means —
//! module paths, privacy, `#[macro_use]` order and inner attributes all stay — so everything Lacuna does with a
//! single-file host (holes, splicing, rust-analyzer, rustc, instrumentation) applies to the crate, and every offset
//! of the text maps back to a file and an offset in it.
//!
//! Relative paths of `include!`, `include_str!` and `include_bytes!` are made absolute: the text is compiled from
//! somewhere else than its files. Pure: files are read through the caller's function.

use std::path::{Path, PathBuf};

use ra_ap_syntax::{
    ast, ast::HasAttrs, ast::HasModuleItem, ast::HasName, AstNode, AstToken, Edition, SourceFile, SyntaxKind,
};

/// A crate as one text, and where each part of it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flattened {
    pub text: String,
    /// The crate's files, its root first.
    pub files: Vec<PathBuf>,
    /// Their texts.
    pub texts: Vec<String>,
    /// Stretches of `text` copied from a file, in order.
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    /// Where it starts in the text.
    at: usize,
    file: usize,
    /// Where it starts in the file.
    from: usize,
    len: usize,
}

/// A file of the module tree that could not be read or is out of reach.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlattenError {
    #[error("cannot read the crate root {}", .0.display())]
    Root(PathBuf),
    #[error("modules nest more than {MAX_DEPTH} files deep at {} (a `#[path]` cycle?)", .0.display())]
    TooDeep(PathBuf),
}

const MAX_DEPTH: usize = 64;

/// One change to a file's text on its way into the flat text.
enum Edit {
    /// The `;` of `mod name;` → the module's file, the first of `paths` there is, its own modules under `dir`.
    Module {
        paths: Vec<PathBuf>,
        dir: PathBuf,
    },
    Text(String),
}

impl Flattened {
    /// The file (an index into [`Flattened::files`]) and offset a position of the text came from; `None` for the
    /// braces put around a module's file.
    pub fn to_original(&self, offset: usize) -> Option<(usize, usize)> {
        let i = self.segments.partition_point(|s| s.at <= offset).checked_sub(1)?;
        let s = self.segments[i];
        (offset < s.at + s.len || (offset == s.at + s.len && i + 1 == self.segments.len()))
            .then(|| (s.file, s.from + (offset - s.at)))
    }

    /// Where `offset` of file `file` is in the text.
    pub fn to_flat(&self, file: usize, offset: usize) -> Option<usize> {
        self.segments
            .iter()
            .find(|s| s.file == file && (s.from..=s.from + s.len).contains(&offset))
            .map(|s| s.at + (offset - s.from))
    }

    /// The index of `path` among the crate's files.
    pub fn file_index(&self, path: &Path) -> Option<usize> {
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let path = canonical(path);
        self.files.iter().position(|f| canonical(f) == path)
    }
}

/// The crate whose root file is `root`, as one text. A `mod name;` whose file `read` cannot give stays as it is
/// (rustc then reports it, unless a `cfg` leaves the module out).
pub fn flatten(root: &Path, read: &mut dyn FnMut(&Path) -> Option<String>) -> Result<Flattened, FlattenError> {
    let mut out = Flattened { text: String::new(), files: Vec::new(), texts: Vec::new(), segments: Vec::new() };
    emit_root(&mut out, root, None, read)?;
    Ok(out)
}

/// The module a package's binary becomes inside its library ([`flatten_package`]).
pub const BINARY_MODULE: &str = "__lacuna_bin";

/// A package's binary and its library as one crate: the library's text, then the binary's module tree as its
/// module [`BINARY_MODULE`], whose `main` becomes the crate's. Holes anywhere in the package then live in one
/// crate. The binary's paths keep their meaning: `extern crate self as <library>;` makes the library's name (how
/// the binary names it, `lib_name::item`, in any module) the crate root, and the binary's `crate::` and `$crate::`
/// paths get the module inserted (`crate::__lacuna_bin::`). What changes: the binary sees the library's
/// `pub(crate)` items, which cargo's two crates keep from it.
pub fn flatten_package(
    lib_root: &Path,
    lib_name: &str,
    bin_root: &Path,
    read: &mut dyn FnMut(&Path) -> Option<String>,
) -> Result<Flattened, FlattenError> {
    let mut out = Flattened { text: String::new(), files: Vec::new(), texts: Vec::new(), segments: Vec::new() };
    emit_root(&mut out, lib_root, None, read)?;
    out.text.push_str(&format!(
        "\n// Lacuna: the package's binary, as a module of its library (one crate holds every hole).\n\
         #[doc(hidden)]\nextern crate self as {lib_name};\n\
         #[doc(hidden)]\n#[allow(missing_docs)]\npub mod {BINARY_MODULE} {{\n"
    ));
    emit_root(&mut out, bin_root, Some(BINARY_MODULE), read)?;
    out.text.push_str(&format!(
        "\npub(crate) fn __lacuna_main() -> impl ::std::process::Termination {{ main() }}\n}}\n\
         #[doc(hidden)]\npub fn main() -> impl ::std::process::Termination {{ {BINARY_MODULE}::__lacuna_main() }}\n"
    ));
    Ok(out)
}

fn emit_root(
    out: &mut Flattened,
    root: &Path,
    nested_in: Option<&str>,
    read: &mut dyn FnMut(&Path) -> Option<String>,
) -> Result<(), FlattenError> {
    let text = read(root).ok_or_else(|| FlattenError::Root(root.to_path_buf()))?;
    let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
    emit(out, root, text, &dir, nested_in, read, 0)
}

fn emit(
    out: &mut Flattened,
    path: &Path,
    text: String,
    dir: &Path,
    nested_in: Option<&str>,
    read: &mut dyn FnMut(&Path) -> Option<String>,
    depth: usize,
) -> Result<(), FlattenError> {
    if depth > MAX_DEPTH {
        return Err(FlattenError::TooDeep(path.to_path_buf()));
    }
    let file = out.files.len();
    out.files.push(path.to_path_buf());
    out.texts.push(String::new());
    let here = path.parent().unwrap_or(Path::new(""));
    let tree = SourceFile::parse(&text, Edition::CURRENT).tree();
    let mut edits = Vec::new();
    modules(tree.items(), here, dir, false, &mut edits);
    includes(&tree, here, &mut edits);
    if let Some(module) = nested_in {
        crate_paths(&tree, &text, module, &mut edits);
    }
    edits.sort_by_key(|(range, _)| range.start);

    let mut at = 0;
    for (range, edit) in edits {
        if range.start < at {
            continue;
        }
        copy(out, file, &text, at..range.start);
        at = range.end;
        match edit {
            Edit::Text(t) => out.text.push_str(&t),
            Edit::Module { paths, dir: child_dir } => match paths.iter().find_map(|p| Some((p, read(p)?))) {
                Some((child, child_text)) => {
                    out.text.push_str(" {\n");
                    emit(out, child, child_text, &child_dir, nested_in, read, depth + 1)?;
                    out.text.push_str("\n}");
                }
                None => copy(out, file, &text, range),
            },
        }
    }
    copy(out, file, &text, at..text.len());
    out.texts[file] = text;
    Ok(())
}

fn copy(out: &mut Flattened, file: usize, text: &str, range: std::ops::Range<usize>) {
    if range.is_empty() {
        return;
    }
    out.segments.push(Segment { at: out.text.len(), file, from: range.start, len: range.len() });
    out.text.push_str(&text[range]);
}

/// `mod name;` items among `items` (and inside their inline modules), with the file each one names. `here` is the
/// directory of the file being read; `dir` the directory its modules' files are in; `inline` whether `items` are
/// an inline module's.
fn modules(
    items: ast::AstChildren<ast::Item>,
    here: &Path,
    dir: &Path,
    inline: bool,
    edits: &mut Vec<(std::ops::Range<usize>, Edit)>,
) {
    for item in items {
        let ast::Item::Module(module) = item else { continue };
        let Some(name) = module.name() else { continue };
        let name = name.text().trim_start_matches("r#").to_owned();
        let path_attr = path_attribute(&module);
        match module.item_list() {
            Some(list) => {
                let inner = match &path_attr {
                    Some(p) => dir.join(p),
                    None => dir.join(&name),
                };
                modules(list.items(), here, &inner, true, edits);
            }
            None => {
                let Some(semicolon) = module.semicolon_token() else { continue };
                let (paths, child_dir) = match path_attr {
                    // Relative to the file's own directory outside inline modules; the file owns its directory.
                    Some(p) => {
                        let path = if inline { dir.join(&p) } else { here.join(&p) };
                        let child_dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
                        (vec![path], child_dir)
                    }
                    None => (vec![dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")], dir.join(&name)),
                };
                let range = semicolon.text_range();
                edits.push((range.start().into()..range.end().into(), Edit::Module { paths, dir: child_dir }));
            }
        }
    }
}

fn path_attribute(module: &ast::Module) -> Option<String> {
    module.attrs().find_map(|attr| {
        let ast::Meta::KeyValueMeta(meta) = attr.meta()? else { return None };
        if meta.path()?.as_single_name_ref()?.text() != "path" {
            return None;
        }
        let ast::Expr::Literal(lit) = meta.expr()? else { return None };
        let ast::LiteralKind::String(s) = lit.kind() else { return None };
        s.value().ok().map(|v| v.into_owned())
    })
}

/// `crate::` and `$crate::` paths (also inside macros' token trees) of a crate nested as `module` of another: the
/// module inserted after `crate`.
fn crate_paths(tree: &SourceFile, text: &str, module: &str, edits: &mut Vec<(std::ops::Range<usize>, Edit)>) {
    for token in tree.syntax().descendants_with_tokens().filter_map(|e| e.into_token()) {
        if token.kind() != SyntaxKind::CRATE_KW {
            continue;
        }
        let end: usize = token.text_range().end().into();
        if text[end..].trim_start().starts_with("::") {
            edits.push((end..end, Edit::Text(format!("::{module}"))));
        }
    }
}

/// A relative path given to `include!`, `include_str!` or `include_bytes!` as a plain string, made absolute.
fn includes(tree: &SourceFile, here: &Path, edits: &mut Vec<(std::ops::Range<usize>, Edit)>) {
    for call in tree.syntax().descendants().filter_map(ast::MacroCall::cast) {
        let Some(name) = call.path().and_then(|p| p.segment()).and_then(|s| s.name_ref()) else { continue };
        if !matches!(name.text(), "include" | "include_str" | "include_bytes") {
            continue;
        }
        let Some(tt) = call.token_tree() else { continue };
        let mut tokens = tt.syntax().children_with_tokens().filter_map(|t| t.into_token()).skip(1);
        let Some(token) = tokens.find(|t| !t.kind().is_trivia()) else { continue };
        let Some(s) = ast::String::cast(token) else { continue };
        let Ok(value) = s.value() else { continue };
        if Path::new(value.as_ref()).is_absolute() {
            continue;
        }
        let absolute = here.join(value.as_ref());
        let range = s.syntax().text_range();
        edits.push((
            range.start().into()..range.end().into(),
            Edit::Text(format!("{:?}", absolute.display().to_string())),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn flat(files: &[(&str, &str)]) -> Flattened {
        let files: HashMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
        flatten(Path::new("/p/src/main.rs"), &mut |p| files.get(p).cloned()).unwrap()
    }

    #[test]
    fn module_files_are_inlined_where_rustc_finds_them() {
        let f = flat(&[
            (
                "/p/src/main.rs",
                "mod model;\n#[path = \"extra/tools.rs\"]\nmod tools;\nmod net { pub mod http; }\nfn main() {}\n",
            ),
            ("/p/src/model.rs", "//! Model.\n#![allow(dead_code)]\npub mod user;\npub struct Issue;\n"),
            ("/p/src/model/user.rs", "pub struct User;\n"),
            ("/p/src/extra/tools.rs", "mod helper;\n"),
            ("/p/src/extra/helper.rs", "pub fn h() {}\n"),
            ("/p/src/net/http/mod.rs", "pub fn get() {}\n"),
        ]);
        expect_test::expect![[r##"
            mod model {
            //! Model.
            #![allow(dead_code)]
            pub mod user {
            pub struct User;

            }
            pub struct Issue;

            }
            #[path = "extra/tools.rs"]
            mod tools {
            mod helper {
            pub fn h() {}

            }

            }
            mod net { pub mod http {
            pub fn get() {}

            } }
            fn main() {}
        "##]]
        .assert_eq(&f.text);
        assert_eq!(f.files.len(), 6);
    }

    #[test]
    fn offsets_map_back_to_their_files() {
        let f = flat(&[("/p/src/main.rs", "mod a;\nfn main() { a::f() }\n"), ("/p/src/a.rs", "pub fn f() {}\n")]);
        let in_a = f.text.find("pub fn f").unwrap();
        assert_eq!(f.to_original(in_a), Some((1, 0)));
        let main = f.text.find("fn main").unwrap();
        assert_eq!(f.to_original(main), Some((0, 7)));
        assert_eq!(f.to_flat(0, 7), Some(main));
        assert_eq!(f.to_flat(1, 4), Some(in_a + 4));
        assert_eq!(f.to_original(f.text.find(" {\n").unwrap()), None);
    }

    #[test]
    fn a_binary_becomes_a_module_of_its_library_with_its_paths_kept() {
        let files: HashMap<PathBuf, String> = [
            ("/p/src/lib.rs", "pub mod orders;\npub fn total() -> u32 { orders::ONE }\n"),
            ("/p/src/orders.rs", "pub const ONE: u32 = 1;\n"),
            (
                "/p/src/main.rs",
                "use desk::orders::ONE;\nmod report;\nmacro_rules! here { () => { $crate::report::line() } }\n\
                 fn main() { println!(\"{} {}\", crate::report::line(), here!()); }\n",
            ),
            ("/p/src/report.rs", "pub(crate) fn line() -> u32 { crate :: ONE + desk::total() }\n"),
        ]
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
        let f = flatten_package(Path::new("/p/src/lib.rs"), "desk", Path::new("/p/src/main.rs"), &mut |p| {
            files.get(p).cloned()
        })
        .unwrap();
        expect_test::expect![[r##"
            pub mod orders {
            pub const ONE: u32 = 1;

            }
            pub fn total() -> u32 { orders::ONE }

            // Lacuna: the package's binary, as a module of its library (one crate holds every hole).
            #[doc(hidden)]
            extern crate self as desk;
            #[doc(hidden)]
            #[allow(missing_docs)]
            pub mod __lacuna_bin {
            use desk::orders::ONE;
            mod report {
            pub(crate) fn line() -> u32 { crate::__lacuna_bin :: ONE + desk::total() }

            }
            macro_rules! here { () => { $crate::__lacuna_bin::report::line() } }
            fn main() { println!("{} {}", crate::__lacuna_bin::report::line(), here!()); }

            pub(crate) fn __lacuna_main() -> impl ::std::process::Termination { main() }
            }
            #[doc(hidden)]
            pub fn main() -> impl ::std::process::Termination { __lacuna_bin::__lacuna_main() }
        "##]]
        .assert_eq(&f.text);
        assert_eq!(f.files.len(), 4);
        let line = f.text.find("pub(crate) fn line").unwrap();
        assert_eq!(f.to_original(line), Some((3, 0)));
        assert_eq!(f.to_original(f.text.find("fn main() { println").unwrap()).map(|(file, _)| file), Some(2));
    }

    #[test]
    fn missing_files_stay_declarations_and_includes_become_absolute() {
        let f = flat(&[(
            "/p/src/main.rs",
            "#[cfg(windows)]\nmod win;\nconst DATA: &str = include_str!(\"../data/issues.json\");\nfn main() {}\n",
        )]);
        assert!(f.text.contains("mod win;"));
        assert!(f.text.contains("include_str!(\"/p/src/../data/issues.json\")"), "{}", f.text);
    }
}
