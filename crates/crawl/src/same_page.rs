//! Whether two fetched pages' texts are one page: the shared notion
//! ([`rules::same_page`]), with the order of an extracted page's text blocks.

pub use rules::same_page::{
    BlockOrder, DIFFERENT_DISTANCE, Pair, Text, canonical_key, declared_one, key_hash, text_pair,
};

/// The [`BlockOrder`] of a page's text blocks (`extract::Page::blocks`).
pub fn blocks_order(blocks: &[extract::blocks::TextBlock]) -> BlockOrder {
    rules::same_page::blocks_order(blocks.iter().map(|b| b.hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_distance_is_the_analysis_s() {
        assert_eq!(
            DIFFERENT_DISTANCE,
            audit::AnalysisConfig::default().different_distance
        );
    }
}
