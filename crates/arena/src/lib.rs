//! Matches and tournaments between tabula agents.
//!
//! A strength claim is only believed when a match proves it: this crate plays games between
//! [`tabula_core::Agent`]s for any [`tabula_core::Game`] (the game's own rules are the referee),
//! in parallel and resumably, and turns the results into Elo with error bars, SPRT decisions
//! and tournament ratings.

pub mod stats;
