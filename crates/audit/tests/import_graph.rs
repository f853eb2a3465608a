//! The analysis's modules form no import circle: each module (a folder's files taken as
//! one) imports only modules that do not import it back, directly or through others, so
//! that it can be read, tested and changed knowing only what lies below it.
//!
//! The graph has an edge from a module to another when its code outside `#[cfg(test)]`
//! names a path into it: `crate::site::Site`, `super::Ctx`, a child module's
//! `metadata::DuplicateValue`, or a name the crate root re-exports from it
//! (`crate::LinkRegion`). Its circles are its strongly connected components of two or
//! more modules (Tarjan). Run with `--nocapture` to see the graph.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path below the crate root (empty: the root, `lib.rs`).
type Module = Vec<String>;

/// Circles accepted for now: none (the validation samples the configuration carries live
/// in `validation.rs`, below both it and `dust`). Any circle fails the test.
const KNOWN_CIRCLES: &[&[&str]] = &[];

#[test]
fn the_analysis_modules_form_no_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::of(&src);
    let top = graph.top_level();
    for (from, to) in &top {
        let to: Vec<&str> = to.iter().map(name).collect();
        eprintln!("{} -> {}", name(from), to.join(", "));
    }
    let circles = circles(&top);
    eprintln!(
        "{} modules, {} import edges, circles: {:?}",
        top.len(),
        top.values().map(BTreeSet::len).sum::<usize>(),
        circles
    );
    let known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|m| (*m).to_owned()).collect())
        .collect();
    assert_eq!(
        circles, known,
        "the analysis's modules import each other in a circle; move what both sides \
         need into a module below them"
    );
}

#[test]
fn a_circle_is_found() {
    let mut g: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let m = |s: &str| vec![s.to_owned()];
    g.entry(m("a")).or_default().insert(m("b"));
    g.entry(m("b")).or_default().insert(m("c"));
    g.entry(m("c")).or_default().insert(m("a"));
    g.entry(m("c")).or_default().insert(m("d"));
    g.entry(m("d")).or_default();
    assert_eq!(circles(&g), vec![vec!["a", "b", "c"]]);
    g.get_mut(&m("c")).unwrap().remove(&m("a"));
    assert!(circles(&g).is_empty());
}

#[test]
fn paths_are_read_from_code_not_from_tests_or_text() {
    let file: syn::File = syn::parse_quote! {
        use crate::site::{Site, NONE as N};
        use super::Ctx;
        fn f() -> String {
            let _ = metadata::DuplicateValue::default();
            format!("{}", crate::wording::count(1, "a", "b"))
        }
        /// `crate::in_docs::Nothing`
        fn g() -> &'static str { "crate::in_text::Nothing" }
        #[cfg(test)]
        mod tests { use crate::only_in_tests::X; }
    };
    let found: BTreeSet<String> = paths(&file, &["metadata".to_owned()])
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    let expected: BTreeSet<String> = [
        "crate::site::Site",
        "crate::site::NONE",
        "super::Ctx",
        "metadata::DuplicateValue::default",
        "crate::wording::count",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(found, expected);
}

/// The crate's module graph.
struct Graph {
    edges: BTreeMap<Module, BTreeSet<Module>>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let files = modules(src);
        let parse = |file: &Path| {
            let text = std::fs::read_to_string(file).unwrap();
            syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        };
        let root = parse(&files[&Module::new()]);
        let reexports = reexports(&root, &files);
        let mut edges = BTreeMap::new();
        for (module, file) in &files {
            let children: Vec<String> = files
                .keys()
                .filter(|k| k.len() == module.len() + 1 && k.starts_with(module))
                .map(|k| k[module.len()].clone())
                .collect();
            let targets: &mut BTreeSet<Module> = edges.entry(module.clone()).or_default();
            for path in paths(&parse(file), &children) {
                if let Some(to) = resolve(module, &path, &children, &files, &reexports)
                    && to != *module
                {
                    targets.insert(to);
                }
            }
        }
        Graph { edges }
    }

    /// The graph of the top-level modules: a folder module and the modules inside it
    /// are one.
    fn top_level(&self) -> BTreeMap<Module, BTreeSet<Module>> {
        let top = |m: &Module| m.iter().take(1).cloned().collect::<Module>();
        let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (from, to) in &self.edges {
            let set = out.entry(top(from)).or_default();
            set.extend(to.iter().map(top).filter(|t| *t != top(from)));
        }
        out
    }
}

fn name(m: &Module) -> &str {
    m.first().map_or("lib", String::as_str)
}

/// Every module of the crate and its file, test modules left out.
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![(src.to_path_buf(), Module::new())];
    while let Some((dir, parent)) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if stem == "tests" {
                continue;
            }
            if path.is_dir() {
                let mut m = parent.clone();
                m.push(stem);
                dirs.push((path, m));
            } else if path.extension().is_some_and(|e| e == "rs") {
                let module = match stem.as_str() {
                    "lib" | "main" if parent.is_empty() => Module::new(),
                    "mod" => parent.clone(),
                    _ => {
                        let mut m = parent.clone();
                        m.push(stem);
                        m
                    }
                };
                out.insert(module, path);
            }
        }
    }
    out
}

/// Whether the item is compiled for tests only.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

/// The paths a file's code outside `#[cfg(test)]` names that start with `crate`,
/// `super`, `self` or one of `children`, each as its segments.
fn paths(file: &syn::File, children: &[String]) -> Vec<Vec<String>> {
    let local = |first: &str| {
        matches!(first, "crate" | "super" | "self") || children.iter().any(|c| c == first)
    };
    let mut out = Vec::new();
    let mut items: Vec<&syn::Item> = file.items.iter().collect();
    while let Some(item) = items.pop() {
        if item_attrs(item).is_some_and(test_only) {
            continue;
        }
        match item {
            syn::Item::Use(u) => use_tree(&u.tree, &mut Vec::new(), &mut out),
            syn::Item::Mod(m) => items.extend(m.content.iter().flat_map(|(_, items)| items)),
            syn::Item::Impl(i) => {
                for member in i.items.iter().filter(|member| match member {
                    syn::ImplItem::Fn(f) => !test_only(&f.attrs),
                    _ => true,
                }) {
                    scan(member.to_token_stream(), &mut out);
                }
            }
            other => scan(other.to_token_stream(), &mut out),
        }
    }
    out.retain(|p| p.len() > 1 && local(&p[0]));
    out
}

fn item_attrs(item: &syn::Item) -> Option<&[syn::Attribute]> {
    Some(match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        _ => return None,
    })
}

/// The paths a `use` tree imports, below `prefix`.
fn use_tree(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => out.push(with(prefix, &n.ident)),
        syn::UseTree::Rename(r) => out.push(with(prefix, &r.ident)),
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix, out);
            }
        }
    }
}

fn with(prefix: &[String], last: &syn::Ident) -> Vec<String> {
    let mut p = prefix.to_vec();
    p.push(last.to_string());
    p
}

/// Every path in the tokens (`a::b::c`, and `a::{b, c}` in a `use` inside a body),
/// macro arguments included. String literals, doc comments among them, are single
/// tokens: the paths their text names are not read.
fn scan(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let colons = |i: usize| {
        matches!((tokens.get(i), tokens.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
    };
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) => scan(g.stream(), out),
            TokenTree::Ident(id) if i < 2 || !colons(i - 2) => {
                let mut path = vec![id.to_string()];
                let mut j = i + 1;
                loop {
                    match tokens.get(j + 2) {
                        Some(TokenTree::Ident(next)) if colons(j) => {
                            path.push(next.to_string());
                            j += 3;
                        }
                        Some(TokenTree::Group(g))
                            if colons(j) && g.delimiter() == Delimiter::Brace =>
                        {
                            let tree: TokenStream = tokens[i..j + 3].iter().cloned().collect();
                            if let Ok(tree) = syn::parse2::<syn::UseTree>(tree) {
                                use_tree(&tree, &mut Vec::new(), out);
                            }
                            path.clear();
                            j += 3;
                            break;
                        }
                        _ => break,
                    }
                }
                if !path.is_empty() {
                    out.push(path);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

/// The names the crate root re-exports (`pub use checks::KeptLink;`), by the module
/// they come from.
fn reexports(root: &syn::File, files: &BTreeMap<Module, PathBuf>) -> BTreeMap<String, Module> {
    let mut out = BTreeMap::new();
    for item in &root.items {
        let syn::Item::Use(u) = item else { continue };
        if !matches!(u.vis, syn::Visibility::Public(_)) {
            continue;
        }
        let mut found = Vec::new();
        let mut renames = Vec::new();
        collect_renames(&u.tree, &mut Vec::new(), &mut found, &mut renames);
        for (path, name) in found.into_iter().zip(renames) {
            let mut module: Module = path[..path.len() - 1].to_vec();
            while !module.is_empty() && !files.contains_key(&module) {
                module.pop();
            }
            if !module.is_empty() {
                out.insert(name, module);
            }
        }
    }
    out
}

/// The paths a `use` tree imports with the name each is imported as.
fn collect_renames(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    paths: &mut Vec<Vec<String>>,
    names: &mut Vec<String>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect_renames(&p.tree, prefix, paths, names);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            paths.push(with(prefix, &n.ident));
            names.push(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            paths.push(with(prefix, &r.ident));
            names.push(r.rename.to_string());
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_renames(t, prefix, paths, names);
            }
        }
    }
}

/// The module a path written in `here` leads into: the deepest module it names, or for
/// a name the root re-exports, the module it comes from.
fn resolve(
    here: &Module,
    path: &[String],
    children: &[String],
    files: &BTreeMap<Module, PathBuf>,
    reexports: &BTreeMap<String, Module>,
) -> Option<Module> {
    let (mut base, mut rest): (Module, &[String]) = match path[0].as_str() {
        "crate" => (Module::new(), &path[1..]),
        "self" => (here.clone(), &path[1..]),
        "super" => (here[..here.len().checked_sub(1)?].to_vec(), &path[1..]),
        first if children.iter().any(|c| c == first) => (here.clone(), path),
        _ => return None,
    };
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut best = base.clone();
    for k in 1..=rest.len() {
        let mut m = base.clone();
        m.extend(rest[..k].iter().cloned());
        if files.contains_key(&m) {
            best = m;
        }
    }
    if best.is_empty()
        && let Some(module) = rest.first().and_then(|name| reexports.get(name))
    {
        best = module.clone();
    }
    Some(best)
}

/// The strongly connected components of two or more modules (Tarjan), each sorted by
/// name, in order.
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        on_stack: BTreeSet<&'g Module>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let Some((w, _)) = s.graph.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(name(w).to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found.sort();
    s.found
}
