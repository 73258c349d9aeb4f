//! Generic searches.
