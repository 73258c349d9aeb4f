//! Connect Four.
