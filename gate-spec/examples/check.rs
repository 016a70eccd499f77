//! `cargo run -p gate-spec --example check FILE…`: print the diagnostics of spec files.
//!
//! Exits 1 when any file has an error, 2 when a file cannot be read or no file is given.

use std::process::ExitCode;

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: check FILE.toml…");
        return ExitCode::from(2);
    }
    let mut status = ExitCode::SUCCESS;
    for path in &paths {
        let source = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                eprintln!("{path}: cannot read: {e}");
                return ExitCode::from(2);
            }
        };
        let (spec, diags) = gate_spec::compile(&source);
        let rendered = gate_spec::diag::render_all(path, &source, &diags.items);
        if !rendered.is_empty() {
            println!("{rendered}");
        }
        match spec {
            Some(spec) => println!(
                "{path}: ok ({} states, {} transitions)",
                spec.states.len(),
                spec.transitions.len()
            ),
            None => {
                println!("{path}: failed");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
