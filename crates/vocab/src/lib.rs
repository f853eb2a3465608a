//! The vocabulary Dustpan's crates share: the words that name a URL's state, how it was
//! found, why it was skipped, where a link sits, what a link comes from, how a redirect
//! hop was made, where a declaration came from, what is wrong with a chain, how a
//! probe varied a URL, and why a fetch failed.
//!
//! Each word is defined once, here, by [`words!`]: its variant, its stored text (the
//! SQL column's value, the serde form, the CSV text), its parsing, and the list of all
//! variants. The store writes and reads these words, the crawl produces them and the
//! analysis reads them, all as the same types. The store's SQL CHECK constraints are
//! tested against [`Words::ALL`] of each type.

// Lets `words!` name this crate the same way inside and outside it.
extern crate self as vocab;

mod macros;
pub use macros::UnknownWord;
mod reason;
mod words;

#[doc(hidden)]
pub use serde;

pub use reason::{UnknownReason, UrlReason};
pub use words::*;

/// What every enum made by [`words!`] offers, for code generic over the vocabulary
/// (a CHECK constraint compared with its type's variants, a word list printed).
pub trait Words: Copy + Sized + 'static {
    /// Every variant, in declaration order.
    const ALL: &'static [Self];
    /// The variant's text: the stored, serialized and exported form.
    fn as_str(self) -> &'static str;
    /// The variant a text names.
    fn parse(text: &str) -> Option<Self>;
}

/// Every enum of the vocabulary, by the name of its type, with its words: the one list
/// a test or a generator walks.
pub fn all() -> Vec<(&'static str, Vec<&'static str>)> {
    fn of<T: Words>(name: &'static str) -> (&'static str, Vec<&'static str>) {
        (name, T::ALL.iter().map(|w| w.as_str()).collect())
    }
    vec![
        of::<UrlState>("UrlState"),
        of::<FoundVia>("FoundVia"),
        of::<ReasonKind>("ReasonKind"),
        of::<HopKind>("HopKind"),
        of::<DeclarationSource>("DeclarationSource"),
        of::<LinkRegion>("LinkRegion"),
        of::<LinkKind>("LinkKind"),
        of::<ChainProblem>("ChainProblem"),
        of::<ProbeRule>("ProbeRule"),
        of::<FetchErrorKind>("FetchErrorKind"),
    ]
}
