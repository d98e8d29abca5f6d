//! Proc macros that leave a trace: `touch!("path")` and `#[touch("path")]` write the file while they expand, as
//! a proc macro that reads a database or the disk at build time would act. `#[derive(Named)]` gives a type a
//! `name()` method.

use proc_macro::{TokenStream, TokenTree};

fn touch_path(input: TokenStream) {
    for token in input {
        if let TokenTree::Literal(lit) = token {
            let path = lit.to_string().trim_matches('"').to_owned();
            let _ = std::fs::write(path, "a proc macro ran");
        }
    }
}

#[proc_macro]
pub fn touch(input: TokenStream) -> TokenStream {
    touch_path(input);
    "()".parse().unwrap()
}

#[proc_macro_attribute]
pub fn touch_attr(attr: TokenStream, item: TokenStream) -> TokenStream {
    touch_path(attr);
    item
}

#[proc_macro_derive(Named)]
pub fn named(input: TokenStream) -> TokenStream {
    let mut tokens = input.into_iter();
    let mut name = String::new();
    while let Some(token) = tokens.next() {
        if matches!(&token, TokenTree::Ident(i) if i.to_string() == "struct" || i.to_string() == "enum") {
            if let Some(TokenTree::Ident(n)) = tokens.next() {
                name = n.to_string();
            }
            break;
        }
    }
    format!("impl {name} {{ pub fn name(&self) -> &'static str {{ {name:?} }} }}").parse().unwrap()
}
