//! Helpers shared by the integration tests of this directory.

// Every test binary that declares `mod common` compiles all of it and uses a part.
#![allow(dead_code)]

pub mod engine;
pub mod lines;
pub mod specs;
pub mod store;
pub mod tools;
