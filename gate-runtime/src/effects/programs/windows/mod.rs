//! Windows shells: PowerShell (`powershell`/`pwsh` `-Command`, `-EncodedCommand`, and the
//! Copilot `powershell` tool's text passed as `pwsh -Command TEXT`) and `cmd /c`. Their
//! statements are split here (`;`, newlines, pipes, `&&`, script blocks; not bash syntax),
//! cmdlets and their aliases read with PowerShell's parameter-prefix rules, and Windows
//! paths (`C:\`, `$env:USERPROFILE`, `%TEMP%`) translated to the forms the caller classes.
//! The destructive core: Remove-Item/`rd /s`/`del`, disk formatting, power, process kills,
//! overwrites, downloads (run by `iex`: remote code), `Set-Service`; other external programs
//! are analysed as shell commands. What the Windows administration programs (`vssadmin`,
//! `sc`, `reg`, …, typed into any shell) and the cmdlets whose name says what they do
//! (`Stop-Computer`, `Format-Volume`, …) do is data: `commands/windows.toml`.

use gate_spec::effect::Act;

use super::super::{Cmd, Sink};

mod cmd;
mod cmdlets;
mod powershell;

use cmd::cmd_script;
use powershell::script;

/// Longest command text read.
pub(super) const MAX_TEXT: usize = 64 * 1024;
/// Deepest nesting of PowerShell in PowerShell (`powershell -c "cmd /c …"`).
pub(super) const MAX_NEST: usize = 3;

/// Every program name this family reads (without `.exe`, any case): the shells and cmd's own
/// commands a POSIX shell may be handed. Asked for every command of every line, so a name
/// outside it costs a few comparisons and nothing else.
const NAMES: &[&str] = &[
    "powershell",
    "pwsh",
    "powershell_ise",
    "cmd",
    "format",
    "format.com",
    "del",
    "erase",
    "rd",
    "rmdir",
];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let name = cmd.program;
    let base = match name.len().checked_sub(4) {
        Some(at) if name.is_char_boundary(at) && name[at..].eq_ignore_ascii_case(".exe") => {
            &name[..at]
        }
        _ => name,
    };
    if !NAMES.iter().any(|n| n.eq_ignore_ascii_case(base)) {
        return false;
    }
    let p = cmd.program.to_ascii_lowercase();
    let p = p.strip_suffix(".exe").unwrap_or(&p);
    match p {
        "powershell" | "pwsh" | "powershell_ise" => {
            let words: Vec<&str> = cmd.args.iter().map(|a| &**a).collect();
            powershell_args(&words, cmd.stdin, out, 0);
        }
        "cmd" => {
            let words: Vec<&str> = cmd.args.iter().map(|a| &**a).collect();
            cmd_args(&words, out, 0);
        }
        // cmd.exe's own commands typed into a POSIX shell (Git Bash on Windows runs
        // `format.com`; an agent writes `del /s /q c:\` where it means cmd): read as cmd reads
        // them. No POSIX program of these names exists to be mistaken for them.
        "format" | "format.com" | "del" | "erase" | "rd" => cmd_typed(cmd, out),
        // `rmdir` is also a POSIX program; with cmd's switches (`rmdir /s /q C:\x`) it is cmd's.
        "rmdir"
            if cmd
                .args
                .first()
                .is_some_and(|a| a.eq_ignore_ascii_case("/s") || a.eq_ignore_ascii_case("/q")) =>
        {
            cmd_typed(cmd, out)
        }
        _ => return false,
    }
    true
}

/// A cmd.exe command typed into a POSIX shell, read as cmd reads it.
fn cmd_typed(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut line = cmd.program.to_string();
    for arg in cmd.args {
        line.push(' ');
        line.push_str(arg);
    }
    cmd_script(&line, out, 0);
}

/// Whether `word` (after its dash) is a prefix of PowerShell parameter `name` of at least
/// `min` characters (case-insensitive), as PowerShell accepts.
pub(super) fn param(word: &str, name: &str, min: usize) -> bool {
    let w = word.trim_start_matches('-');
    let w = w.split(':').next().unwrap_or(w);
    w.len() >= min && w.len() <= name.len() && name[..w.len()].eq_ignore_ascii_case(w)
}

pub(super) fn powershell_args(words: &[&str], stdin: Option<&str>, out: &mut Sink, nest: usize) {
    let mut k = 0;
    while let Some(&w) = words.get(k) {
        k += 1;
        if !(w.starts_with('-') || w.starts_with('/')) || w == "-" {
            // No `-Command`: powershell reads the rest as a command (pwsh as a file).
            let rest = words[k - 1..].join(" ");
            if w == "-" {
                if let Some(s) = stdin {
                    script(s, out, nest);
                }
            } else if w.to_ascii_lowercase().ends_with(".ps1") {
                out.path(Act::Read, &win_path(w));
                out.none(Act::Exec);
            } else {
                script(&rest, out, nest);
            }
            return;
        }
        let name = &w[1..];
        if param(name, "Command", 1) {
            let rest = words[k.min(words.len())..].join(" ");
            if rest.trim() == "-" || rest.is_empty() {
                if let Some(s) = stdin {
                    script(s, out, nest);
                }
            } else {
                script(&rest, out, nest);
            }
            return;
        }
        if param(name, "EncodedCommand", 1)
            || name.eq_ignore_ascii_case("ec")
            || name.eq_ignore_ascii_case("enc")
        {
            match words.get(k).and_then(|b| decode_utf16_base64(b)) {
                Some(text) => script(&text, out, nest),
                None => out.opaque(&words.join(" ")),
            }
            return;
        }
        if param(name, "File", 1) {
            if let Some(f) = words.get(k) {
                out.path(Act::Read, &win_path(f));
            }
            out.none(Act::Exec);
            return;
        }
        // Parameters that take a value.
        if [
            "ExecutionPolicy",
            "WindowStyle",
            "InputFormat",
            "OutputFormat",
            "Version",
            "ConfigurationName",
            "WorkingDirectory",
            "PSConsoleFile",
            "CustomPipeName",
            "SettingsFile",
        ]
        .iter()
        .any(|p| param(name, p, 2))
            || name.eq_ignore_ascii_case("ep")
            || name.eq_ignore_ascii_case("wd")
        {
            k += 1;
        }
    }
    if let Some(s) = stdin {
        script(s, out, nest);
    }
}

pub(super) fn cmd_args(words: &[&str], out: &mut Sink, nest: usize) {
    for (k, w) in words.iter().enumerate() {
        let lw = w.to_ascii_lowercase();
        if lw == "/c" || lw == "/k" || lw == "/r" {
            let text = words[k + 1..].join(" ");
            cmd_script(&text, out, nest);
            return;
        }
        if let Some(rest) = lw.strip_prefix("/c").or_else(|| lw.strip_prefix("/k")) {
            // `/c"…"` attached.
            if !rest.is_empty() && !rest.starts_with(':') {
                let text = format!("{} {}", &w[2..], words[k + 1..].join(" "));
                cmd_script(&text, out, nest);
                return;
            }
        }
    }
}

/// base64 of UTF-16LE text, as `-EncodedCommand` takes.
pub(super) fn decode_utf16_base64(s: &str) -> Option<String> {
    let mut bits: u32 = 0;
    let mut nbits = 0;
    let mut bytes = Vec::with_capacity(s.len() * 3 / 4);
    for c in s.bytes().take(MAX_TEXT * 2) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            bytes.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    String::from_utf16(&units).ok()
}

/// A Windows path as the caller classes it: `C:\` → `/`, `C:\Windows` → `/Windows`,
/// `$env:USERPROFILE\x`, `%USERPROFILE%\x`, `$HOME\x`, `~\x` → `~/x`, `$env:TEMP` → `/tmp`.
pub(crate) fn win_path(raw: &str) -> String {
    let s = raw.trim().trim_matches(|c| c == '\'' || c == '"');
    let s = s.replace('\\', "/");
    const PREFIXES: &[(&str, &str)] = &[
        ("$env:USERPROFILE", "~"),
        ("${env:USERPROFILE}", "~"),
        ("%USERPROFILE%", "~"),
        ("$env:HOMEPATH", "~"),
        ("%HOMEPATH%", "~"),
        ("$env:HOME", "~"),
        ("$HOME", "~"),
        ("$env:APPDATA", "~/AppData/Roaming"),
        ("%APPDATA%", "~/AppData/Roaming"),
        ("$env:LOCALAPPDATA", "~/AppData/Local"),
        ("%LOCALAPPDATA%", "~/AppData/Local"),
        ("$env:TEMP", "/tmp"),
        ("$env:TMP", "/tmp"),
        ("%TEMP%", "/tmp"),
        ("%TMP%", "/tmp"),
        ("$env:SystemRoot", "/Windows"),
        ("$env:windir", "/Windows"),
        ("%SystemRoot%", "/Windows"),
        ("%windir%", "/Windows"),
        ("$env:ProgramFiles", "/Program Files"),
        ("%ProgramFiles%", "/Program Files"),
        ("$env:SystemDrive", ""),
        ("%SystemDrive%", ""),
        ("$PWD", "."),
        ("$PSScriptRoot", "."),
    ];
    for (from, to) in PREFIXES {
        // `get`: the prefix's length may fall inside a character of `s`.
        if s.get(..from.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(from))
        {
            let rest = &s[from.len()..];
            let boundary = rest.is_empty() || rest.starts_with('/');
            if boundary {
                let joined = format!("{to}{rest}");
                return if joined.is_empty() {
                    "/".into()
                } else {
                    joined
                };
            }
        }
    }
    let b = s.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        let rest = &s[2..];
        return if rest.is_empty() || rest == "/" {
            "/".into()
        } else if rest.starts_with('/') {
            rest.to_string()
        } else {
            // `C:foo` is relative to the drive's current directory, which the line does not
            // show (a POSIX shell also makes `C:\x\y` typed unquoted into `C:xy`).
            format!("$DRIVE_CWD/{rest}")
        };
    }
    s
}

/// A PowerShell word: its text unquoted, and whether it holds an expansion.
#[cfg(test)]
mod tests;
