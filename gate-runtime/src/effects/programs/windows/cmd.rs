//! cmd.exe text: statements split on `&`, `&&`, `||`, `|`; `rd /s`, `del /s /q`, `format`,
//! copies and moves, redirections; the shared Windows programs read as in PowerShell.

use gate_spec::effect::Act;

use super::super::super::Sink;

use super::cmdlets::cmdlet;
use super::powershell::{Stmt, Word};
use super::{cmd_args, powershell_args, win_path, MAX_NEST};

/// cmd.exe text: statements split on `&`, `&&`, `||`, `|`; `rd /s`, `del /s /q`, `format`,
/// and the rest as PowerShell reads them (the same destructive programs).
pub(super) fn cmd_script(text: &str, out: &mut Sink, nest: usize) {
    if nest > MAX_NEST {
        out.opaque(text);
        return;
    }
    let text = text.trim().trim_matches('"');
    for part in text.split(['&', '|', '\n']).take(1000) {
        let words: Vec<&str> = part.split_whitespace().collect();
        let Some(first) = words.first() else {
            continue;
        };
        let name = first.trim_start_matches('@').to_ascii_lowercase();
        let name = name.strip_suffix(".exe").unwrap_or(&name).to_string();
        let rest = &words[1..];
        // cmd's `sc` is the service controller.
        let first_word = if name == "sc" { "sc.exe" } else { first };
        let operands: Vec<&str> = rest
            .iter()
            .copied()
            .filter(|w| !w.starts_with('/'))
            .collect();
        // `>` redirections.
        for (k, w) in words.iter().enumerate() {
            if let Some(target) = w.strip_prefix(">>").or_else(|| w.strip_prefix('>')) {
                let append = w.starts_with(">>");
                let target = if target.is_empty() {
                    words.get(k + 1).copied().unwrap_or("")
                } else {
                    target
                };
                if !target.is_empty() && !target.eq_ignore_ascii_case("nul") {
                    out.path(
                        if append { Act::Write } else { Act::Overwrite },
                        &win_path(target),
                    );
                }
            }
        }
        let cut = words
            .iter()
            .position(|w| w.starts_with('>'))
            .unwrap_or(words.len());
        let operands: Vec<&str> = operands
            .into_iter()
            .filter(|w| !w.starts_with('>') && words[..cut].contains(w))
            .collect();
        match name.as_str() {
            "rd" | "rmdir" | "del" | "erase" => {
                for o in operands {
                    out.path(Act::Delete, &win_path(o));
                }
            }
            "format" => out.none(Act::Device),
            "copy" | "xcopy" | "robocopy" | "move" | "ren" | "rename" => {
                let mv = matches!(name.as_str(), "move" | "ren" | "rename");
                if let Some(src) = operands.first() {
                    out.path(if mv { Act::Move } else { Act::Read }, &win_path(src));
                }
                if let Some(dst) = operands.get(1) {
                    out.path(Act::Overwrite, &win_path(dst));
                }
                if name == "robocopy"
                    && rest
                        .iter()
                        .any(|w| w.eq_ignore_ascii_case("/mir") || w.eq_ignore_ascii_case("/purge"))
                {
                    if let Some(dst) = operands.get(1) {
                        out.path(Act::Delete, &win_path(dst));
                    }
                }
            }
            "type" | "dir" | "echo" | "cd" | "chdir" | "set" | "where" | "ver" | "cls" | "exit"
            | "rem" | "title" | "findstr" | "more" | "md" | "mkdir" => {
                if matches!(name.as_str(), "md" | "mkdir") {
                    for o in operands {
                        out.path(Act::Write, &win_path(o));
                    }
                }
            }
            "powershell" | "pwsh" => powershell_args(rest, None, out, nest + 1),
            "cmd" => cmd_args(rest, out, nest + 1),
            _ => {
                // The shared Windows programs (shutdown, taskkill, reg, sc, net, schtasks,
                // vssadmin, cipher, netsh, …) read as in PowerShell; others as shell.
                let st = Stmt {
                    words: std::iter::once(&first_word)
                        .chain(words[1..cut.max(1)].iter())
                        .map(|w| Word {
                            text: w.trim_matches('"').to_string(),
                            computed: w.contains('%'),
                        })
                        .collect(),
                    text: part.to_string(),
                    ..Stmt::default()
                };
                cmdlet(&st, None, false, out, nest);
            }
        }
    }
}
