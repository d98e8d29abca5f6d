//! rust-analyzer's view of a spliced program: the host's inline modules that hold no hole, each read as a file of
//! its own.
//!
//! A check changes one hole's text; rust-analyzer reparses the file that changed and walks its module for
//! diagnostics. With the whole program in one file (a single-file host, or a cargo project's crate flattened into
//! one text) that is the whole program, every check: the cost grows with the program. So rust-analyzer is given the
//! program as a root file in which each inline module without a hole, `mod name { .. }`, is written `mod name;`,
//! and the module's items as the file `name.rs` beside it — what a person would write, with the same meaning: a
//! file module resolves names, macros in textual scope, `#[macro_use]` and visibility as the inline module did.
//! A check then rewrites only the root file, which holds the holes' modules.
//!
//! In the root file a module's `{ .. }` becomes `;`: the root file is as long as what is left of the program, so
//! rust-analyzer lexes and hashes only that per check. Its offsets differ from the spliced text's after each module
//! cut out; [`Offsets`] maps between the two, and `RaSession` maps at its boundary (ranges in, diagnostics,
//! scopes and violations out), so everything outside it speaks the spliced text's offsets. A module file's
//! offsets are its own; nothing there is a snippet's, and its diagnostics are the host's.
//!
//! Not made a file (left inline): a module holding a hole, one whose name `name.rs` could not be (the root's own
//! name `main`, a raw identifier, two modules of one name under different `cfg`s), and everything inside a module
//! with a `#[path]` attribute (whose children's files would be looked up elsewhere).

use ra_ap_syntax::{ast, ast::HasAttrs, ast::HasModuleItem, ast::HasName, AstNode, SourceFile};

/// An inline module rust-analyzer reads as a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Apart {
    /// The module's `{ .. }`, braces included, in the text's coordinates.
    pub body: std::ops::Range<usize>,
    /// The file's path below the root file's directory: `store.rs`, `inventory/store.rs`.
    pub path: String,
}

/// How rust-analyzer reads a host: which modules are files, and what of the host it cannot see once they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    pub apart: Vec<Apart>,
    /// The host declares an `impl` inside a block (a function body, a closure), where rust-analyzer's method and
    /// trait resolution is incomplete (a snippet's own are looked for in its parse).
    pub block_local_impls: bool,
    /// A snippet checked lifted out of its hole ([`crate::lifted`]): the module it is in, read as a file of its own.
    pub lifted: Option<LiftedModule>,
}

/// Where a lifted snippet's module is in the text, and which of its parameters stand for which binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LiftedModule {
    /// The module's `{ .. }`, braces included, after everything else of the program but the prelude.
    pub body: std::ops::Range<usize>,
    /// Per parameter: the offset of its name, and the declaration of the hole binding it stands for (both in the
    /// text's offsets). A parameter is its binding wherever a binding is looked up by its declaration.
    pub aliases: Vec<(usize, usize)>,
}

impl Layout {
    /// The layout of `file` whose ranges in `keep` (the holes) stay in the root file.
    pub(crate) fn of(file: &SourceFile, keep: &[std::ops::Range<usize>]) -> Layout {
        let mut apart = Vec::new();
        collect(file.items(), "", keep, &mut apart);
        // Once per host, so that a check walks only its snippet for them.
        let block_local_impls = crate::analysis::has_block_local_impls(file.syntax());
        Layout { apart, block_local_impls, lifted: None }
    }

    /// The layout with every offset moved by `f` (what splicing a hole does to the text after it).
    pub(crate) fn mapped(&self, f: impl Fn(usize) -> usize) -> Layout {
        Layout {
            apart: self
                .apart
                .iter()
                .map(|a| Apart { body: f(a.body.start)..f(a.body.end), path: a.path.clone() })
                .collect(),
            block_local_impls: self.block_local_impls,
            lifted: self.lifted.clone(),
        }
    }

    /// Every module body made a file, the lifted one last (it follows the program).
    fn bodies(&self) -> impl Iterator<Item = &std::ops::Range<usize>> {
        self.apart.iter().map(|a| &a.body).chain(self.lifted.iter().map(|l| &l.body))
    }

    /// The root file's text: `text` with each module's `{ .. }` made `;`.
    pub(crate) fn root_text(&self, text: &str) -> String {
        let cut: usize = self.bodies().map(|b| b.len() - 1).sum();
        let mut root = String::with_capacity(text.len() - cut);
        let mut at = 0;
        for body in self.bodies() {
            root.push_str(&text[at..body.start]);
            root.push(';');
            at = body.end;
        }
        root.push_str(&text[at..]);
        root
    }

    /// Offsets between a text read with this layout and its root file.
    pub(crate) fn offsets(&self) -> Offsets {
        Offsets { cuts: self.bodies().map(|b| b.start + 1..b.end).collect() }
    }

    /// The lifted module's text (its items, between its braces), if there is one.
    pub(crate) fn lifted_text<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.lifted.as_ref().map(|l| &text[l.body.start + 1..l.body.end - 1])
    }

    /// Each module file's path and text (the module's items, between its braces).
    pub(crate) fn files<'t>(&'t self, text: &'t str) -> impl Iterator<Item = (&'t str, &'t str)> + 't {
        self.apart.iter().map(move |a| (a.path.as_str(), &text[a.body.start + 1..a.body.end - 1]))
    }
}

/// Offsets between a spliced text and its root file ([`Layout::root_text`]): the root file is the text less the
/// cuts (each module's body after the `{` that became `;`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Offsets {
    /// In the text's offsets, in order, apart.
    cuts: Vec<std::ops::Range<usize>>,
}

impl Offsets {
    /// The root file's offset of the text's `at` (an offset inside a cut: where the cut was).
    pub(crate) fn root_of(&self, at: usize) -> usize {
        let mut removed = 0;
        for cut in &self.cuts {
            if at < cut.end {
                return at.min(cut.start) - removed;
            }
            removed += cut.len();
        }
        at - removed
    }

    /// The text's offset of the root file's `at` (the point where a cut was: after the cut).
    pub(crate) fn text_of(&self, at: usize) -> usize {
        self.text_of_biased(at, false)
    }

    /// The text's offset of the root file's `at`; at the point where a cut was, before the cut if `before`.
    fn text_of_biased(&self, at: usize, before: bool) -> usize {
        let mut removed = 0;
        for cut in &self.cuts {
            let here = cut.start - removed;
            if at < here || (at == here && before) {
                break;
            }
            removed += cut.len();
        }
        at + removed
    }

    pub(crate) fn root_range(&self, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
        self.root_of(range.start)..self.root_of(range.end)
    }

    /// A root file's range in the text: a start where a cut was is after it, an end before it (a range stays
    /// within what it covered).
    pub(crate) fn text_range_of(&self, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let start = self.text_of(range.start);
        start..self.text_of_biased(range.end, true).max(start)
    }
}

/// Modules among `items` (whose directory below the root's is `dir`) that can be files, into `out` in text order;
/// the ones that hold a hole are walked for theirs.
fn collect(items: ast::AstChildren<ast::Item>, dir: &str, keep: &[std::ops::Range<usize>], out: &mut Vec<Apart>) {
    let modules: Vec<ast::Module> = items
        .filter_map(|item| match item {
            ast::Item::Module(m) => Some(m),
            _ => None,
        })
        .collect();
    let name_of = |m: &ast::Module| m.name().map(|n| n.text().to_string());
    for module in &modules {
        let (Some(name), Some(list)) = (name_of(module), module.item_list()) else { continue };
        let range = list.syntax().text_range();
        let body = usize::from(range.start())..usize::from(range.end());
        let holds_hole = keep.iter().any(|k| k.start < body.end && body.start < k.end);
        let has_path = module.attrs().any(|a| a.path().is_some_and(|p| p.syntax().text() == "path"));
        if holds_hole {
            if !has_path {
                collect(list.items(), &format!("{dir}{name}/"), keep, out);
            }
            continue;
        }
        let unique = modules.iter().filter(|m| name_of(m).as_deref() == Some(name.as_str())).count() == 1;
        let nameable = !(name.starts_with("r#") || (dir.is_empty() && name == "main"));
        if unique && nameable && !has_path {
            out.push(Apart { body, path: format!("{dir}{name}.rs") });
        }
    }
    out.sort_by_key(|a| a.body.start);
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn layout(text: &str) -> (Layout, String) {
        let file = SourceFile::parse(text, ra_ap_syntax::Edition::Edition2021).tree();
        let hole = text.find("agent!").map(|at| at..at + 6).into_iter().collect::<Vec<_>>();
        let layout = Layout::of(&file, &hole);
        let mut shown: String = layout.root_text(text).lines().map(|l| format!("{l}\n")).collect();
        for (path, body) in layout.files(text) {
            shown.push_str(&format!("--- {path}\n{}\n", body.trim()));
        }
        (layout, shown)
    }

    #[test]
    fn modules_without_holes_become_files_and_offsets_map_back() {
        let text = "mod a {\n    pub fn f() {}\n}\n#[cfg(test)]\nmod tests { #![allow(dead_code)] }\n\
                    mod b {\n    mod c { pub struct C; }\n    fn g() { agent!(\"x\"); }\n}\nfn main() {}\n";
        let (layout, shown) = layout(text);
        // Every offset outside a cut comes back from the root file; the hole is there, earlier.
        let (root, offsets) = (layout.root_text(text), layout.offsets());
        let hole = text.find("agent!").unwrap();
        assert_eq!(&root[offsets.root_of(hole)..offsets.root_of(hole) + 6], "agent!");
        for at in 0..=text.len() {
            if !offsets.cuts.iter().any(|c| c.start <= at && at < c.end) {
                assert_eq!(offsets.text_of(offsets.root_of(at)), at, "at {at}");
            }
        }
        assert_eq!(offsets.text_range_of(offsets.root_range(hole..hole + 6)), hole..hole + 6);
        expect![[r#"
            mod a ;
            #[cfg(test)]
            mod tests ;
            mod b {
                mod c ;
                fn g() { agent!("x"); }
            }
            fn main() {}
            --- a.rs
            pub fn f() {}
            --- tests.rs
            #![allow(dead_code)]
            --- b/c.rs
            pub struct C;
        "#]]
        .assert_eq(&shown);
    }

    #[test]
    fn modules_a_file_could_not_stand_for_stay_inline() {
        let text = "#[cfg(unix)] mod imp { pub fn f() {} }\n#[cfg(not(unix))] mod imp { pub fn f() {} }\n\
                    mod main { }\nmod r#type { }\n#[path = \"x\"] mod p { mod q { } fn h() { agent!(\"x\") } }\n\
                    mod s { impl S { fn f() { struct T; impl T {} } } }\n";
        let (layout, _) = layout(text);
        let paths: Vec<&str> = layout.apart.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(paths, ["s.rs"]);
        assert!(layout.block_local_impls);
    }
}
