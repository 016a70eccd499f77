//! The `gate` binary.

fn main() {}
