//! Drives html5ever's tokenizer and tree builder with a guard in between that keeps
//! hostile documents from costing more than linear time and memory.
//!
//! The HTML tree builder has quadratic corners: many of its steps scan the stack of open
//! elements (e.g. "has a `p` element in button scope" on every `<div>`), so 100,000
//! nested `<div>`s take tens of seconds; and misnested formatting elements with distinct
//! attributes make it re-create elements over and over. The guard therefore:
//!
//! * ignores the start tag of an ordinary element (not one whose text or attributes the
//!   extractor reads, not a void element, not one that changes how the tokenizer reads
//!   what follows) once the tree is `max_depth` deep at the insertion point (browsers cap
//!   the tree depth too: Blink at 512). The content of such an element still lands in
//!   the tree, one level up; only the nesting is lost.
//! * stops building the tree once `max_nodes` nodes exist: the rest of the input is
//!   still tokenized (linear) but produces nothing.

use std::cell::Cell;

use html5ever::buffer_queue::BufferQueue;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts, TreeSink};
use html5ever::{TokenizerResult, local_name};

use crate::dom::{Dom, NodeId, Sink};

/// What the guard ignored.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct GuardStats {
    /// Start tags ignored because the tree was too deep.
    pub(crate) deep_start_tags: u64,
    /// Tokens ignored because the node budget was spent.
    pub(crate) tokens_after_budget: u64,
}

struct Guard {
    inner: TreeBuilder<NodeId, Sink>,
    max_depth: u32,
    max_nodes: usize,
    deep_start_tags: Cell<u64>,
    tokens_after_budget: Cell<u64>,
}

/// Start tags that are never ignored: their attributes or text matter to the extractor,
/// they are void (never deepen the tree), they switch the tokenizer's state, or they
/// are structural.
fn always_kept(tag: &Tag) -> bool {
    matches!(
        tag.name,
        local_name!("html")
            | local_name!("head")
            | local_name!("body")
            | local_name!("title")
            | local_name!("a")
            | local_name!("area")
            | local_name!("base")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
            | local_name!("keygen")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("frame")
            | local_name!("frameset")
            | local_name!("script")
            | local_name!("style")
            | local_name!("textarea")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript")
            | local_name!("plaintext")
            | local_name!("template")
    )
}

impl TokenSink for Guard {
    type Handle = NodeId;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeId> {
        match &token {
            Token::EOFToken | Token::ParseError(_) => {}
            _ if self.inner.sink.node_count() >= self.max_nodes => {
                self.tokens_after_budget
                    .set(self.tokens_after_budget.get() + 1);
                return TokenSinkResult::Continue;
            }
            Token::TagToken(tag)
                if tag.kind == TagKind::StartTag
                    && self.inner.sink.current_depth() >= self.max_depth
                    && !always_kept(tag) =>
            {
                self.deep_start_tags.set(self.deep_start_tags.get() + 1);
                return TokenSinkResult::Continue;
            }
            _ => {}
        }
        self.inner.process_token(token, line_number)
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// Parses a decoded document into a [`Dom`] (scripting enabled, as in browsers).
pub(crate) fn parse(text: &str, max_depth: u32, max_nodes: usize) -> (Dom, GuardStats) {
    // A size hint only: the arena grows as needed (text-heavy pages have few nodes).
    let sink = Sink::new((text.len() / 24 + 16).min(max_nodes).min(1 << 16));
    let guard = Guard {
        inner: TreeBuilder::new(sink, TreeBuilderOpts::default()),
        max_depth,
        max_nodes,
        deep_start_tags: Cell::new(0),
        tokens_after_budget: Cell::new(0),
    };
    let tokenizer = Tokenizer::new(guard, TokenizerOpts::default());
    let input = BufferQueue::default();
    if !text.is_empty() {
        input.push_back(StrTendril::from_slice(text));
    }
    // Script and encoding-change pauses are not acted on: continue until the input is used up.
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    let guard = tokenizer.sink;
    let stats = GuardStats {
        deep_start_tags: guard.deep_start_tags.get(),
        tokens_after_budget: guard.tokens_after_budget.get(),
    };
    (guard.inner.sink.finish(), stats)
}
