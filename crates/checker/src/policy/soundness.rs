//! The shapes of known compiler soundness bugs, found on the parse tree. Each rule matches the *mechanism* a bug
//! needs, so respelling the exploit does not get past it:
//!
//! - rust-lang/rust#25860 (cve-rs) and #84591 need an implied bound `'b: 'a` that a fn-pointer coercion then
//!   forgets. A signature gets one from a type that names a lifetime `'a` (`'static` too) and, inside a
//!   referent or a type argument, another lifetime `'b`: `&'a &'b ()`, `&'a Option<&'b ()>`, `Cow<'a, &'b ()>`, an alias
//!   `R<'a, R<'b, ()>>`, a `for<'a, 'b> Tr<&'b &'a ()>` bound; or from a type the snippet declares with a
//!   lifetime bound (`struct W<'a, 'b: 'a>`).
//! - rust-lang/rust#57893 needs a trait with an associated type implemented for every `?Sized` type, so that a
//!   `dyn Trait<Output = A>` has two answers for `Output`: a blanket impl over a `?Sized` type parameter that
//!   defines an associated type.
//! - rust-lang/rust#84366 needs a type parameter bounded by a lifetime (`T: 'static`, `T: Any`) whose associated
//!   type the item names (`T::Item`, `<T as Tr>::Out`): rustc takes the projection to outlive that lifetime too,
//!   but a closure's type leaves its return type out of what it outlives, so `T::Item` of a `Map` over a closure
//!   returning `&'a str` passes as `'static`. Any item whose generics bound a parameter so and name its projection.

use ra_ap_syntax::ast::{HasGenericArgs, HasGenericParams, HasName, HasTypeBounds};
use ra_ap_syntax::{ast, AstNode, SyntaxNode, TextRange};

/// The soundness-hole shape `node` is, if any: where, the message, the label.
pub(super) fn shape(node: &SyntaxNode) -> Option<(TextRange, String, &'static str)> {
    if let Some(range) = outlived_projection(node) {
        return Some((
            range,
            "an associated type of a type parameter bounded by a lifetime (`T: 'static` with `T::Item`) is taken to \
             outlive it, which a closure's return type need not: the shape of a known compiler soundness bug \
             (rust-lang/rust#84366), which safe mode rejects; name the associated type as a parameter of its own \
             (`I: Iterator<Item = V>`, with `V: 'static` if it must be)"
                .into(),
            "projection of a lifetime-bounded parameter",
        ));
    }
    if let Some(outer) = ast::RefType::cast(node.clone()) {
        let range = nested_reference_lifetimes(&outer)?;
        return Some((range, NESTED.into(), "nested reference with named lifetimes"));
    }
    if let Some(path) = ast::PathType::cast(node.clone()) {
        let range = lifetime_and_argument_naming_another(&path)?;
        return Some((range, NESTED.into(), "named lifetime with a type argument naming another"));
    }
    if let Some(adt) = ast::Adt::cast(node.clone()) {
        let range = lifetime_bounds(&adt)?;
        return Some((
            range,
            "a type whose lifetimes are bounded by each other (`struct W<'a, 'b: 'a>`) gives every signature that \
             names it an implied bound, the shape of a known compiler soundness bug (rust-lang/rust#25860), which \
             safe mode rejects; write the bound on the fn that needs it"
                .into(),
            "lifetime bound on a type",
        ));
    }
    if let Some(imp) = ast::Impl::cast(node.clone()) {
        let range = unsized_blanket_with_assoc_type(&imp)?;
        return Some((
            range,
            "an impl for every `?Sized` type that defines an associated type lets a trait object answer that type \
             twice, the shape of a known compiler soundness bug (rust-lang/rust#57893), which safe mode rejects"
                .into(),
            "blanket impl over ?Sized with an associated type",
        ));
    }
    None
}

const NESTED: &str = "a type naming a lifetime and, inside it, another named lifetime (`&'a &'b T`, \
                      `&'a Option<&'b T>`, `Cow<'a, &'b T>`) is the shape of a known compiler soundness bug \
                      (rust-lang/rust#25860), which safe mode rejects";

/// A named lifetime other than `'_` and `'static` (what an inner lifetime must be to be bounded).
fn named(lifetime: &ast::Lifetime) -> Option<String> {
    let text = lifetime.text().to_string();
    (text != "'_" && text != "'static").then_some(text)
}

/// A lifetime other than `'_` (what an outer one must be: `&'static &'b ()` implies `'b: 'static`).
fn outer(lifetime: &ast::Lifetime) -> Option<String> {
    let text = lifetime.text().to_string();
    (text != "'_").then_some(text)
}

/// Whether `inner` names a lifetime other than `a` that no `for<..>` inside it binds.
fn names_another(inner: &SyntaxNode, a: &str) -> bool {
    let bound_inside: Vec<String> = inner
        .descendants()
        .filter_map(ast::LifetimeParam::cast)
        .filter_map(|p| p.lifetime())
        .map(|l| l.text().to_string())
        .collect();
    inner
        .descendants()
        .filter_map(ast::Lifetime::cast)
        .filter_map(|l| named(&l))
        .any(|b| b != a && !bound_inside.contains(&b))
}

/// `&'a T` where `T` names another lifetime `'b` anywhere inside.
fn nested_reference_lifetimes(outer: &ast::RefType) -> Option<TextRange> {
    let a = self::outer(&outer.lifetime()?)?;
    names_another(outer.ty()?.syntax(), &a).then(|| outer.syntax().text_range())
}

/// `P<'a, T>` where a type argument `T` names another lifetime `'b`.
fn lifetime_and_argument_naming_another(path: &ast::PathType) -> Option<TextRange> {
    let segment = path.path()?.segment()?;
    let args = segment.generic_arg_list()?;
    let lifetimes: Vec<String> = args
        .generic_args()
        .filter_map(|a| match a {
            ast::GenericArg::LifetimeArg(l) => l.lifetime().and_then(|l| outer(&l)),
            _ => None,
        })
        .collect();
    let hit = args.generic_args().any(|arg| match arg {
        ast::GenericArg::TypeArg(t) => t.ty().is_some_and(|t| lifetimes.iter().any(|a| names_another(t.syntax(), a))),
        _ => false,
    });
    hit.then(|| path.syntax().text_range())
}

/// A struct, enum or union with a lifetime bounded by another (`<'a, 'b: 'a>`, `where 'b: 'a`).
fn lifetime_bounds(adt: &ast::Adt) -> Option<TextRange> {
    let generics = adt.generic_param_list();
    let in_params = generics
        .iter()
        .flat_map(|g| g.lifetime_params())
        .any(|p| p.type_bound_list().is_some_and(|b| b.bounds().next().is_some()));
    let in_where = adt.where_clause().is_some_and(|w| w.predicates().any(|p| p.lifetime().is_some()));
    (in_params || in_where).then(|| adt.syntax().text_range())
}

/// `impl<T: ?Sized> Trait for T { type Output = ..; }`.
fn unsized_blanket_with_assoc_type(imp: &ast::Impl) -> Option<TextRange> {
    imp.trait_()?;
    let ast::Type::PathType(self_ty) = imp.self_ty()? else { return None };
    let self_name = self_ty.path()?.as_single_name_ref()?.text().to_string();
    let maybe_unsized = |bounds: Option<ast::TypeBoundList>| {
        bounds.is_some_and(|b| b.bounds().any(|b| b.syntax().text().to_string().replace(' ', "") == "?Sized"))
    };
    let param = imp
        .generic_param_list()?
        .type_or_const_params()
        .filter_map(|p| match p {
            ast::TypeOrConstParam::Type(t) => Some(t),
            ast::TypeOrConstParam::Const(_) => None,
        })
        .find(|t| t.name().is_some_and(|n| n.text() == self_name))?;
    let unsized_param = maybe_unsized(param.type_bound_list())
        || imp.where_clause().is_some_and(|w| {
            w.predicates().any(|p| {
                p.ty().is_some_and(|t| t.syntax().text().to_string().trim() == self_name)
                    && maybe_unsized(p.type_bound_list())
            })
        });
    let assoc_type =
        imp.assoc_item_list().is_some_and(|l| l.assoc_items().any(|i| matches!(i, ast::AssocItem::TypeAlias(_))));
    (unsized_param && assoc_type).then(|| imp.syntax().text_range())
}

/// In an item with generics (a fn, an impl, a trait, a type), a type parameter with a lifetime bound — `T: 'a`
/// in its bounds or a where clause, or a bound by `Any` (whose supertrait is `'static`) — whose projection the
/// item names (`T::Item`, `<T as Iterator>::Item`): the projection's range.
fn outlived_projection(node: &SyntaxNode) -> Option<TextRange> {
    let (generics, where_clause) = if let Some(f) = ast::Fn::cast(node.clone()) {
        (f.generic_param_list(), f.where_clause())
    } else if let Some(i) = ast::Impl::cast(node.clone()) {
        (i.generic_param_list(), i.where_clause())
    } else if let Some(t) = ast::Trait::cast(node.clone()) {
        (t.generic_param_list(), t.where_clause())
    } else if let Some(a) = ast::Adt::cast(node.clone()) {
        (a.generic_param_list(), a.where_clause())
    } else if let Some(t) = ast::TypeAlias::cast(node.clone()) {
        (t.generic_param_list(), t.where_clause())
    } else {
        return None;
    };
    let outlives = |bounds: Option<ast::TypeBoundList>| {
        bounds.is_some_and(|b| {
            b.bounds().any(|b| {
                b.lifetime().is_some()
                    || b.ty().is_some_and(|t| {
                        let text = t.syntax().text().to_string().replace(' ', "");
                        text == "Any" || text.ends_with("::Any")
                    })
            })
        })
    };
    let mut bounded: Vec<String> = generics
        .iter()
        .flat_map(|g| g.type_or_const_params())
        .filter_map(|p| match p {
            ast::TypeOrConstParam::Type(t) => outlives(t.type_bound_list()).then(|| t.name()).flatten(),
            ast::TypeOrConstParam::Const(_) => None,
        })
        .map(|n| n.text().to_string())
        .collect();
    bounded.extend(where_clause.iter().flat_map(|w| w.predicates()).filter_map(|p| {
        let ast::Type::PathType(ty) = p.ty()? else { return None };
        let name = ty.path()?.as_single_name_ref()?.text().to_string();
        outlives(p.type_bound_list()).then_some(name)
    }));
    if bounded.is_empty() {
        return None;
    }
    node.descendants().filter_map(ast::Path::cast).find_map(|path| {
        // `T::Item`: a path whose qualifier is the parameter alone; `<T as Tr>::Item`: a qualifier whose first
        // segment is the parameter as a type anchor.
        let qualifier = path.qualifier()?;
        let segment = qualifier.segment()?;
        let named = match segment.type_anchor().and_then(|a| a.ty()) {
            Some(ast::Type::PathType(anchor)) => anchor.path()?.as_single_name_ref()?.text().to_string(),
            Some(_) => return None,
            None if qualifier.qualifier().is_none() => segment.name_ref()?.text().to_string(),
            None => return None,
        };
        bounded.contains(&named).then(|| path.syntax().text_range())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    type Wrap = dyn Fn(&str, &str) -> String;

    fn hits(item: &str) -> usize {
        let file = ra_ap_syntax::SourceFile::parse(item, ra_ap_syntax::Edition::Edition2021).tree();
        file.syntax().descendants().filter(|n| shape(n).is_some()).count()
    }

    /// Every way of putting a second named lifetime inside a type that names a first, in every place a
    /// signature or a declaration can hold it: rejected. The same places with one lifetime, `'_` or a lifetime
    /// a `for<..>` inside binds: accepted.
    #[test]
    fn implied_bound_variants_are_all_found() {
        let outers: &[&Wrap] = &[
            &|a, x| format!("&{a} {x}"),
            &|a, x| format!("&{a} mut {x}"),
            &|a, x| format!("&{a} Option<{x}>"),
            &|a, x| format!("&{a} [{x}; 1]"),
            &|a, x| format!("&{a} [{x}]"),
            &|a, x| format!("&{a} ({x},)"),
            &|a, x| format!("&{a} Box<{x}>"),
            &|a, x| format!("&{a} Vec<Option<{x}>>"),
            &|a, x| format!("std::borrow::Cow<{a}, {x}>"),
            &|a, x| format!("std::slice::Iter<{a}, {x}>"),
            &|a, x| format!("Alias<{a}, Alias<'z, {x}>>"),
            &|a, x| format!("std::marker::PhantomData<&{a} {x}>"),
        ];
        let inners = ["&'b ()", "&'b mut u8", "std::cell::Cell<&'b ()>", "fn(&'b ())", "Box<dyn Tr<'b>>", "Wrap<'b>"];
        let places: &[&dyn Fn(&str) -> String] = &[
            &|t| format!("fn f<'a, 'b, 'z, T>(_: {t}, v: &'b T) -> &'a T {{ todo!() }}"),
            &|t| format!("fn f<'b, 'z, T>(_: {t}, v: &'b T) -> &'static T {{ todo!() }}"),
            &|t| format!("struct S<'a, 'b, 'z>({t});"),
            &|t| format!("type A<'a, 'b, 'z> = {t};"),
            &|t| format!("fn f<'z, S>() where S: for<'a, 'b> Tr<'a, {t}> {{}}"),
            &|t| format!("impl<'a, 'b, 'z> Tr for {t} {{}}"),
        ];
        let mut missed = Vec::new();
        for outer in outers {
            for a in ["'a", "'static"] {
                for inner in inners {
                    for place in places {
                        let item = place(&outer(a, inner));
                        if hits(&item) == 0 {
                            missed.push(item);
                        }
                    }
                }
            }
        }
        assert!(missed.is_empty(), "not found:\n{}", missed.join("\n"));
        let benign = [
            "fn f<'a>(x: &'a str, y: &'a [u8]) -> &'a str { x }",
            "fn f<'a>(x: std::borrow::Cow<'a, str>) -> usize { x.len() }",
            "fn f<'a>(x: &'a Option<&'a str>) {}",
            "fn f(x: &'_ &'_ str) {}",
            "fn f<'a>(x: &'a Box<dyn for<'b> Fn(&'b str) -> &'b str>) {}",
            "fn f<'a>(x: &'a Vec<&'static str>) {}",
            "struct S<'a> { name: &'a str, rest: Vec<&'a str> }",
            "impl<T: ?Sized> Tr for T {}",
            "impl<T: Clone> Tr for T { type Out = T; }",
            "fn f<'a, 'b: 'a>(x: &'a u8, y: &'b u8) -> &'a u8 { y }",
        ];
        for item in benign {
            assert_eq!(hits(item), 0, "{item}");
        }
    }

    /// rust-lang/rust#84366 in its spellings: the lifetime bound in the parameter list, a where clause or an
    /// outer impl, `'static` or another, `Any`; the projection by shorthand or qualified. The same projections of
    /// parameters with no lifetime bound, and lifetime-bounded parameters whose projections are not named: accepted.
    #[test]
    fn projections_of_lifetime_bounded_parameters_are_found() {
        for item in [
            "fn f<T: Iterator + 'static>(_: &T, x: T::Item) -> Box<dyn Display> where T::Item: Display { todo!() }",
            "fn f<T>(_: &T, x: T::Item) where T: Iterator + 'static {}",
            "fn f<'a, T: Tr + 'a>(x: <T as Tr>::Out) {}",
            "fn f<T: Tr + std::any::Any>(x: T::Out) {}",
            "fn f<T: Any + Tr>(x: T::Out) {}",
            "impl<T: Tr + 'static> Holder<T> { fn get(x: T::Out) -> Box<dyn Display> { todo!() } }",
            "struct Holder<T: Tr + 'static>(T::Out);",
            "trait Keep<T: Tr + 'static> { fn keep(x: T::Out); }",
        ] {
            assert_eq!(hits(item), 1, "{item}");
        }
        for item in [
            "fn f<T: Iterator>(x: T::Item) {}",
            "fn f<T: Iterator<Item = V> + 'static, V>(x: V) {}",
            "fn f<T: Clone + 'static>(x: T) -> T { x }",
            "fn f<T: 'static>(x: Vec<T>) -> usize { Vec::<T>::new().len() }",
            "impl<R, F: Fn() -> R> Tr for F { type Out = R; }",
        ] {
            assert_eq!(hits(item), 0, "{item}");
        }
    }

    /// rust-lang/rust#57893 in its spellings: the `?Sized` bound in the parameter list or a where clause, the
    /// associated type the trait's own or a supertrait's.
    #[test]
    fn unsized_blanket_impls_with_associated_types_are_found() {
        for item in [
            "impl<T: ?Sized, U> Object<U> for T { type Output = U; }",
            "impl<T, U> Object<U> for T where T: ?Sized { type Output = U; }",
            "impl<U, T: ?Sized + Send> Sup<U> for T { type Out = U; }",
        ] {
            assert_eq!(hits(item), 1, "{item}");
        }
    }
}
