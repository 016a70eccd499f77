//! `gate explain --runtime R`: show step by step what gate would answer (the lead wires it).

use crate::cli::ExplainArgs;

/// Explain one payload; returns the exit code.
pub fn run(args: &ExplainArgs, json: bool) -> anyhow::Result<i32> {
    let _ = (args, json);
    anyhow::bail!("gate explain is not wired yet")
}
