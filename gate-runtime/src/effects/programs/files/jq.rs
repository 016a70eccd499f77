//! `jq` and `yq`, reached from `commands/files-copy.toml` by name: which operand is the
//! filter and which are files (jq's `--arg NAME VALUE` takes two words, `-f` names the
//! filter's file; yq's v3 `w FILE PATH VALUE` and v4 `eval EXPR FILE…` differ), and whether
//! the files are written in place (`yq -i`).

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;
use std::borrow::Cow;

/// `jq [OPTS] FILTER [FILE…]`: reads its files; never writes (`--arg NAME VALUE` and
/// `--argjson` take two words, `--slurpfile`/`--rawfile NAME FILE` read FILE, `--args`
/// makes the rest arguments).
pub(crate) fn jq(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let mut k = 0;
    let mut filter_given = false;
    let mut rest_are_args = false;
    let mut operands = Vec::new();
    let mut only_operands = false;
    while let Some(w) = cmd.args.get(k) {
        k += 1;
        let w: &str = w;
        if only_operands || !w.starts_with('-') || w == "-" {
            operands.push(w);
            continue;
        }
        match w {
            "--" => only_operands = true,
            "--arg" | "--argjson" => k += 2,
            "--slurpfile" | "--rawfile" => {
                if let Some(f) = cmd.args.get(k + 1) {
                    out.path(Act::Read, f);
                }
                k += 2;
            }
            "-f" | "--from-file" => {
                if let Some(f) = cmd.args.get(k) {
                    out.path(Act::Read, f);
                }
                filter_given = true;
                k += 1;
            }
            "-L" | "--indent" => k += 1,
            "--args" | "--jsonargs" => rest_are_args = true,
            _ => {}
        }
    }
    let skip = usize::from(!filter_given);
    if rest_are_args {
        return;
    }
    each(out, Act::Read, &operands[skip.min(operands.len())..]);
}

/// `yq [eval|e|eval-all|ea] [-i] EXPR FILE…` (v4), `yq w -i FILE PATH VALUE` (v3), and the
/// jq-wrapper `yq -i`: files written in place with `-i`/`--inplace`, read otherwise.
pub(crate) fn yq(_: &Cmd<'_, '_>, a: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let in_place = a.any(&["i", "inplace", "in-place"]);
    let mut ops: Vec<&str> = a.operands.iter().map(|o| &**o).collect();
    let v3 = matches!(
        ops.first().copied(),
        Some(
            "w" | "write"
                | "d"
                | "delete"
                | "m"
                | "merge"
                | "p"
                | "prefix"
                | "r"
                | "read"
                | "n"
                | "new"
                | "v"
                | "validate"
        )
    );
    if v3 {
        // The file comes first, then paths and values.
        ops = ops.get(1..2).map(|s| s.to_vec()).unwrap_or_default();
    } else {
        if matches!(ops.first().copied(), Some("eval" | "e" | "eval-all" | "ea")) {
            ops.remove(0);
        }
        let expr_given = a.any(&["expression", "from-file"]);
        // With one operand that looks like a file and no expression, it is the file.
        let lone_file = ops.len() == 1 && looks_like_data_file(ops[0]);
        if !expr_given && !lone_file && !ops.is_empty() {
            ops.remove(0);
        }
    }
    let act = if in_place { Act::Write } else { Act::Read };
    each(out, act, &ops);
}

fn looks_like_data_file(s: &str) -> bool {
    [
        ".yaml",
        ".yml",
        ".json",
        ".toml",
        ".xml",
        ".properties",
        ".csv",
        ".tsv",
    ]
    .iter()
    .any(|e| s.to_ascii_lowercase().ends_with(e))
}
