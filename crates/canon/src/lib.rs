//! URL canonicalization (in progress).
