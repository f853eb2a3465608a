//! A small arena DOM that html5ever's tree builder writes into.
//!
//! Only what the extractor reads is kept: the tree shape (so that the tree
//! builder's moves — foster parenting, the adoption agency, head/body
//! placement — are reflected exactly), text, a coarse classification of each
//! element, and the attributes of the few elements whose attributes matter.
//! Nodes live in one `Vec` and refer to each other by index, so dropping a
//! deeply nested document is a flat deallocation and walking it needs no
//! recursion.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use html5ever::interface::{ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::{Attribute, LocalName, Namespace, QualName, local_name, ns};

/// Index of a node in the arena.
pub(crate) type NodeId = u32;

/// Marks "no node" in the link fields.
pub(crate) const NONE: NodeId = NodeId::MAX;

/// The document node is always the first one.
pub(crate) const DOCUMENT: NodeId = 0;

/// What the extractor needs to know about an element, decided once when it is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `<html>`.
    Html,
    /// `<head>`.
    Head,
    /// `<title>` (HTML namespace).
    Title,
    /// `<base>`.
    Base,
    /// `<a>`.
    A,
    /// `<area>`.
    Area,
    /// `<link>`.
    Link,
    /// `<meta>`.
    Meta,
    /// `<img>`.
    Img,
    /// An element whose text is not visible: style, noscript, template, iframe,
    /// noembed, noframes, and SVG title/desc/script/style.
    Hidden,
    /// An HTML `<script>`: hidden like [`Kind::Hidden`], but its `type` is kept (a
    /// JSON-LD block declares URLs).
    Script,
    /// A block-level element or `<br>`: its edges separate words.
    Block,
    /// `<nav>` or `<aside>`: a block that is site chrome by HTML5 semantics.
    Chrome,
    /// `<header>` or `<footer>`: site chrome, except inside [`Kind::Content`].
    Banner,
    /// `<main>` or `<article>`: a block of main content by HTML5 semantics.
    Content,
    /// `<h1>`: a block whose first occurrence is the page's heading.
    H1,
    /// Anything else.
    Other,
}

impl Kind {
    fn classify(name: &QualName) -> Kind {
        if name.ns == ns!(html) {
            match name.local {
                local_name!("html") => Kind::Html,
                local_name!("head") => Kind::Head,
                local_name!("title") => Kind::Title,
                local_name!("base") => Kind::Base,
                local_name!("a") => Kind::A,
                local_name!("area") => Kind::Area,
                local_name!("link") => Kind::Link,
                local_name!("meta") => Kind::Meta,
                local_name!("img") => Kind::Img,
                local_name!("script") => Kind::Script,
                local_name!("style")
                | local_name!("noscript")
                | local_name!("template")
                | local_name!("iframe")
                | local_name!("noembed")
                | local_name!("noframes") => Kind::Hidden,
                local_name!("nav") | local_name!("aside") => Kind::Chrome,
                local_name!("header") | local_name!("footer") => Kind::Banner,
                local_name!("main") | local_name!("article") => Kind::Content,
                local_name!("h1") => Kind::H1,
                local_name!("address")
                | local_name!("blockquote")
                | local_name!("br")
                | local_name!("button")
                | local_name!("caption")
                | local_name!("dd")
                | local_name!("details")
                | local_name!("dialog")
                | local_name!("div")
                | local_name!("dl")
                | local_name!("dt")
                | local_name!("fieldset")
                | local_name!("figcaption")
                | local_name!("figure")
                | local_name!("form")
                | local_name!("h2")
                | local_name!("h3")
                | local_name!("h4")
                | local_name!("h5")
                | local_name!("h6")
                | local_name!("hgroup")
                | local_name!("hr")
                | local_name!("input")
                | local_name!("label")
                | local_name!("legend")
                | local_name!("li")
                | local_name!("menu")
                | local_name!("ol")
                | local_name!("option")
                | local_name!("p")
                | local_name!("pre")
                | local_name!("section")
                | local_name!("select")
                | local_name!("summary")
                | local_name!("table")
                | local_name!("tbody")
                | local_name!("td")
                | local_name!("textarea")
                | local_name!("tfoot")
                | local_name!("th")
                | local_name!("thead")
                | local_name!("tr")
                | local_name!("ul")
                | local_name!("body") => Kind::Block,
                _ => Kind::Other,
            }
        } else if name.ns == ns!(svg) {
            match name.local {
                local_name!("title")
                | local_name!("desc")
                | local_name!("script")
                | local_name!("style") => Kind::Hidden,
                _ => Kind::Other,
            }
        } else {
            Kind::Other
        }
    }

    /// Whether the attributes of such an element are kept.
    fn keeps_attrs(self) -> bool {
        matches!(
            self,
            Kind::Html
                | Kind::Base
                | Kind::A
                | Kind::Area
                | Kind::Link
                | Kind::Meta
                | Kind::Img
                | Kind::Script
        )
    }
}

/// A `class` attribute with the token `widget`: a CMS's sidebar or footer widget
/// (`<section class="widget widget_recent_comments">`).
pub(crate) fn is_widget_class(a: &Attribute) -> bool {
    a.name.local == local_name!("class") && a.value.split_ascii_whitespace().any(|t| t == "widget")
}

/// What a node is.
#[derive(Debug)]
pub(crate) enum Data {
    /// The document, or a template's contents fragment (never attached).
    Document,
    /// An element.
    Element {
        /// Its qualified name (the tree builder asks for it).
        name: QualName,
        /// Its classification.
        kind: Kind,
        /// Its attributes, only when `kind.keeps_attrs()`.
        attrs: Vec<Attribute>,
        /// The contents fragment of a `<template>`.
        template_contents: NodeId,
        /// MathML annotation-xml integration point flag (the tree builder asks for it).
        mathml_integration: bool,
    },
    /// A text node (adjacent text is merged).
    Text(StrTendril),
    /// A comment, doctype or processing instruction: kept only as a placeholder.
    Other,
}

/// One node and its links.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) parent: NodeId,
    pub(crate) first_child: NodeId,
    pub(crate) last_child: NodeId,
    pub(crate) prev: NodeId,
    pub(crate) next: NodeId,
    /// Depth in the tree when last inserted (the document is 0). Not updated for the
    /// descendants of a moved node: it only feeds the nesting guard, which is approximate.
    depth: u32,
    pub(crate) data: Data,
}

impl Node {
    fn new(data: Data) -> Node {
        Node {
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            prev: NONE,
            next: NONE,
            depth: 0,
            data,
        }
    }
}

/// The parsed document: an arena of nodes, the first being the document.
#[derive(Debug)]
pub(crate) struct Dom {
    pub(crate) nodes: Vec<Node>,
}

impl Dom {
    /// Looks an attribute up by local name (attributes are only kept on some elements).
    pub(crate) fn attr(&self, id: NodeId, name: &LocalName) -> Option<&str> {
        match &self.nodes[id as usize].data {
            Data::Element { attrs, .. } => attrs
                .iter()
                .find(|a| a.name.local == *name && a.name.ns == ns!())
                .map(|a| &*a.value),
            _ => None,
        }
    }

    fn detach(&mut self, id: NodeId) {
        let (parent, prev, next) = {
            let n = &mut self.nodes[id as usize];
            let links = (n.parent, n.prev, n.next);
            n.parent = NONE;
            n.prev = NONE;
            n.next = NONE;
            links
        };
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        } else if parent != NONE {
            self.nodes[parent as usize].last_child = prev;
        }
        if prev != NONE {
            self.nodes[prev as usize].next = next;
        } else if parent != NONE {
            self.nodes[parent as usize].first_child = next;
        }
    }

    fn append(&mut self, parent: NodeId, child: NodeId) {
        self.detach(child);
        let last = self.nodes[parent as usize].last_child;
        let depth = self.nodes[parent as usize].depth.saturating_add(1);
        {
            let c = &mut self.nodes[child as usize];
            c.parent = parent;
            c.prev = last;
            c.depth = depth;
        }
        if last != NONE {
            self.nodes[last as usize].next = child;
        } else {
            self.nodes[parent as usize].first_child = child;
        }
        self.nodes[parent as usize].last_child = child;
    }

    fn insert_before(&mut self, sibling: NodeId, new: NodeId) {
        self.detach(new);
        let (parent, prev, depth) = {
            let s = &self.nodes[sibling as usize];
            (s.parent, s.prev, s.depth)
        };
        {
            let n = &mut self.nodes[new as usize];
            n.parent = parent;
            n.next = sibling;
            n.prev = prev;
            n.depth = depth;
        }
        if prev != NONE {
            self.nodes[prev as usize].next = new;
        } else if parent != NONE {
            self.nodes[parent as usize].first_child = new;
        }
        self.nodes[sibling as usize].prev = new;
    }

    fn push(&mut self, data: Data) -> NodeId {
        // The input is capped well below 4 GiB, so the arena never reaches u32::MAX nodes.
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NONE - 1);
        self.nodes.push(Node::new(data));
        id
    }

    /// Appends text to `prev` if it is a text node, else returns the text back.
    fn merge_text(&mut self, prev: NodeId, text: StrTendril) -> Option<StrTendril> {
        if prev != NONE
            && let Data::Text(existing) = &mut self.nodes[prev as usize].data
        {
            existing.push_tendril(&text);
            return None;
        }
        Some(text)
    }
}

/// The owned element name handed to the tree builder (namespace and local name are atoms,
/// cheap to clone), so that no `RefCell` borrow outlives a sink call.
#[derive(Debug)]
pub(crate) struct Name {
    ns: Namespace,
    local: LocalName,
}

impl ElemName for Name {
    fn ns(&self) -> &Namespace {
        &self.ns
    }
    fn local_name(&self) -> &LocalName {
        &self.local
    }
}

/// The html5ever tree sink that fills a [`Dom`].
pub(crate) struct Sink {
    dom: RefCell<Dom>,
    /// Tree depth of the element the tree builder last inserted, or of the parent of the
    /// element it last popped: an estimate of the depth of the stack of open elements.
    current_depth: Cell<u32>,
}

impl Sink {
    pub(crate) fn new(capacity_hint: usize) -> Sink {
        let mut nodes = Vec::with_capacity(capacity_hint);
        nodes.push(Node::new(Data::Document));
        Sink {
            dom: RefCell::new(Dom { nodes }),
            current_depth: Cell::new(0),
        }
    }

    /// The estimated depth of the tree builder's stack of open elements.
    pub(crate) fn current_depth(&self) -> u32 {
        self.current_depth.get()
    }

    /// How many nodes have been created.
    pub(crate) fn node_count(&self) -> usize {
        self.dom.borrow().nodes.len()
    }

    /// Notes the depth of a node just inserted, if it is an element.
    fn inserted(&self, id: NodeId) {
        let dom = self.dom.borrow();
        let node = &dom.nodes[id as usize];
        if matches!(node.data, Data::Element { .. }) {
            self.current_depth.set(node.depth);
        }
    }

    fn node_or_text(&self, child: NodeOrText<NodeId>, prev: NodeId) -> Option<NodeId> {
        match child {
            NodeOrText::AppendNode(id) => Some(id),
            NodeOrText::AppendText(text) => {
                let mut dom = self.dom.borrow_mut();
                let text = dom.merge_text(prev, text)?;
                Some(dom.push(Data::Text(text)))
            }
        }
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = Dom;
    type ElemName<'a>
        = Name
    where
        Self: 'a;

    fn finish(self) -> Dom {
        self.dom.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Name {
        let dom = self.dom.borrow();
        match dom.nodes.get(*target as usize).map(|n| &n.data) {
            Some(Data::Element { name, .. }) => Name {
                ns: name.ns.clone(),
                local: name.local.clone(),
            },
            // The tree builder only asks for names of elements; answer harmlessly otherwise.
            _ => Name {
                ns: ns!(),
                local: local_name!(""),
            },
        }
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let kind = Kind::classify(&name);
        let attrs = if kind.keeps_attrs() {
            attrs
        } else if kind == Kind::Block {
            // A block keeps only a class naming it a CMS widget (`is_widget_class`).
            attrs.into_iter().filter(is_widget_class).collect()
        } else {
            Vec::new()
        };
        let mut dom = self.dom.borrow_mut();
        let template_contents = if flags.template {
            dom.push(Data::Document)
        } else {
            NONE
        };
        dom.push(Data::Element {
            name,
            kind,
            attrs,
            template_contents,
            mathml_integration: flags.mathml_annotation_xml_integration_point,
        })
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.dom.borrow_mut().push(Data::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.dom.borrow_mut().push(Data::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        let prev = self.dom.borrow().nodes[*parent as usize].last_child;
        if let Some(id) = self.node_or_text(child, prev) {
            self.dom.borrow_mut().append(*parent, id);
            self.inserted(id);
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.dom.borrow().nodes[*element as usize].parent != NONE;
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {
        let mut dom = self.dom.borrow_mut();
        let id = dom.push(Data::Other);
        dom.append(DOCUMENT, id);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        let mut dom = self.dom.borrow_mut();
        match dom.nodes.get(*target as usize).map(|n| &n.data) {
            Some(Data::Element {
                template_contents, ..
            }) if *template_contents != NONE => *template_contents,
            // Not a template: hand out a fresh detached fragment rather than panic.
            _ => dom.push(Data::Document),
        }
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn pop(&self, node: &NodeId) {
        let depth = self.dom.borrow().nodes[*node as usize].depth;
        self.current_depth.set(depth.saturating_sub(1));
    }

    fn append_before_sibling(&self, sibling: &NodeId, child: NodeOrText<NodeId>) {
        let prev = self.dom.borrow().nodes[*sibling as usize].prev;
        if let Some(id) = self.node_or_text(child, prev) {
            self.dom.borrow_mut().insert_before(*sibling, id);
            self.inserted(id);
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, new_attrs: Vec<Attribute>) {
        let mut dom = self.dom.borrow_mut();
        if let Some(Data::Element { kind, attrs, .. }) =
            dom.nodes.get_mut(*target as usize).map(|n| &mut n.data)
            && kind.keeps_attrs()
        {
            for attr in new_attrs {
                if !attrs.iter().any(|a| a.name == attr.name) {
                    attrs.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.dom.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut dom = self.dom.borrow_mut();
        let mut child = dom.nodes[*node as usize].first_child;
        while child != NONE {
            let next = dom.nodes[child as usize].next;
            dom.append(*new_parent, child);
            child = next;
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeId) -> bool {
        matches!(
            self.dom
                .borrow()
                .nodes
                .get(*handle as usize)
                .map(|n| &n.data),
            Some(Data::Element {
                mathml_integration: true,
                ..
            })
        )
    }
}
