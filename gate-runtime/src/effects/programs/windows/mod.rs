//! Windows shells: PowerShell (`powershell`/`pwsh` `-Command`, `-EncodedCommand`, and the
//! Copilot `powershell` tool's text passed as `pwsh -Command TEXT`) and `cmd /c`. Their
//! statements are split here (`;`, newlines, pipes, `&&`, script blocks; not bash syntax),
//! cmdlets and their aliases read with PowerShell's parameter-prefix rules, and Windows
//! paths (`C:\`, `$env:USERPROFILE`, `%TEMP%`) translated to the forms the caller classes.
//! The destructive core: Remove-Item/`rd /s`/`del`, disk formatting, power, process kills,
//! overwrites, downloads (run by `iex`: remote code), registry, services, firewall, tasks,
//! users; other external programs are analysed as shell commands.

use gate_spec::effect::{Act, Place};

use super::super::{Cmd, Sink};

/// Longest command text read.
const MAX_TEXT: usize = 64 * 1024;
/// Deepest nesting of PowerShell in PowerShell (`powershell -c "cmd /c …"`).
const MAX_NEST: usize = 3;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
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
        _ => return false,
    }
    true
}

/// Whether `word` (after its dash) is a prefix of PowerShell parameter `name` of at least
/// `min` characters (case-insensitive), as PowerShell accepts.
fn param(word: &str, name: &str, min: usize) -> bool {
    let w = word.trim_start_matches('-');
    let w = w.split(':').next().unwrap_or(w);
    w.len() >= min && w.len() <= name.len() && name[..w.len()].eq_ignore_ascii_case(w)
}

fn powershell_args(words: &[&str], stdin: Option<&str>, out: &mut Sink, nest: usize) {
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

fn cmd_args(words: &[&str], out: &mut Sink, nest: usize) {
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
fn decode_utf16_base64(s: &str) -> Option<String> {
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
        if s.len() >= from.len() && s[..from.len()].eq_ignore_ascii_case(from) {
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
            // `C:foo` is relative to the drive's current directory.
            rest.to_string()
        };
    }
    s
}

/// A PowerShell word: its text unquoted, and whether it holds an expansion.
#[derive(Clone, Debug)]
struct Word {
    text: String,
    /// Holds a variable or subexpression (`$x`, `$(…)`) in an expandable context.
    computed: bool,
}

/// One statement of a pipeline: its words, and redirections.
#[derive(Debug, Default)]
struct Stmt {
    words: Vec<Word>,
    redirects: Vec<(Act, String)>,
    /// Fed by the previous statement through a pipe.
    piped: bool,
    /// The text as written.
    text: String,
}

/// Split PowerShell text into statements (bounded, linear).
fn statements(text: &str) -> Vec<Stmt> {
    let b = text.as_bytes();
    let n = b.len().min(MAX_TEXT);
    let mut out: Vec<Stmt> = Vec::new();
    let mut cur = Stmt::default();
    let mut word = String::new();
    let mut in_word = false;
    let mut computed = false;
    let mut start = 0;
    let mut i = 0;
    let push_word = |cur: &mut Stmt, word: &mut String, in_word: &mut bool, computed: &mut bool| {
        if *in_word {
            cur.words.push(Word {
                text: std::mem::take(word),
                computed: *computed,
            });
        }
        *in_word = false;
        *computed = false;
    };
    let finish = |out: &mut Vec<Stmt>,
                  cur: &mut Stmt,
                  piped_next: bool,
                  text: &str,
                  start: usize,
                  end: usize| {
        let mut done = std::mem::take(cur);
        done.text = text.get(start..end).unwrap_or("").to_string();
        // Redirections: `>`/`>>`/`2>`/`*>` followed by a target.
        let mut words = Vec::new();
        let mut it = done.words.into_iter().peekable();
        while let Some(w) = it.next() {
            let t = w.text.as_str();
            let op = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '*');
            if (op == ">" || op == ">>") && !t.is_empty() {
                if let Some(target) = it.next() {
                    let act = if op == ">>" {
                        Act::Write
                    } else {
                        Act::Overwrite
                    };
                    done.redirects.push((act, target.text));
                }
                continue;
            }
            if let Some(target) = op.strip_prefix(">>").filter(|r| !r.is_empty()) {
                done.redirects.push((Act::Write, target.to_string()));
                continue;
            }
            if let Some(target) = op
                .strip_prefix('>')
                .filter(|r| !r.is_empty() && !r.starts_with('&'))
            {
                done.redirects.push((Act::Overwrite, target.to_string()));
                continue;
            }
            words.push(w);
        }
        done.words = words;
        if !done.words.is_empty() || !done.redirects.is_empty() {
            out.push(done);
        }
        cur.piped = piped_next;
    };
    while i < n {
        let c = b[i];
        match c {
            b'\'' => {
                // Literal string; `''` is a quote.
                in_word = true;
                i += 1;
                while i < n {
                    if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            word.push('\'');
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    let ch_end = next_char(text, i);
                    word.push_str(&text[i..ch_end]);
                    i = ch_end;
                }
                i += 1;
            }
            b'"' => {
                in_word = true;
                i += 1;
                while i < n && b[i] != b'"' {
                    if b[i] == b'`' && i + 1 < n {
                        i += 1;
                    } else if b[i] == b'$'
                        && b.get(i + 1)
                            .is_some_and(|x| x.is_ascii_alphabetic() || *x == b'(' || *x == b'{')
                    {
                        computed = true;
                    }
                    let ch_end = next_char(text, i);
                    word.push_str(&text[i..ch_end]);
                    i = ch_end;
                }
                i += 1;
            }
            b'`' if i + 1 < n => {
                in_word = true;
                let ch_end = next_char(text, i + 1);
                word.push_str(&text[i + 1..ch_end]);
                i = ch_end;
            }
            b'#' if !in_word => {
                while i < n && b[i] != b'\n' {
                    i += 1;
                }
            }
            b';' | b'\n' | b'{' | b'}' | b'|' | b'&' => {
                let pipe = c == b'|' && b.get(i + 1) != Some(&b'|');
                let and = c == b'&' && b.get(i + 1) == Some(&b'&');
                let or = c == b'|' && b.get(i + 1) == Some(&b'|');
                if c == b'&' && !and {
                    // The call operator `& 'prog' args` / background `&`: a word break.
                    push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                    i += 1;
                    continue;
                }
                push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                finish(&mut out, &mut cur, pipe, text, start, i);
                i += if and || or { 2 } else { 1 };
                start = i;
            }
            b'(' | b')' | b',' if !in_word || c != b',' => {
                // Grouping: a word break (`(iwr x).Content`, `rm a,b` keeps the comma).
                push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                if c == b',' {
                    in_word = false;
                }
                i += 1;
            }
            b' ' | b'\t' | b'\r' => {
                // `a, b` is one array argument.
                if !word.ends_with(',') {
                    push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                }
                i += 1;
            }
            _ => {
                if c == b'$'
                    && b.get(i + 1).is_some_and(|x| {
                        x.is_ascii_alphabetic() || *x == b'(' || *x == b'{' || *x == b'_'
                    })
                {
                    computed = true;
                }
                in_word = true;
                let ch_end = next_char(text, i);
                word.push_str(&text[i..ch_end]);
                i = ch_end;
            }
        }
    }
    push_word(&mut cur, &mut word, &mut in_word, &mut computed);
    finish(&mut out, &mut cur, false, text, start, n);
    out
}

fn next_char(text: &str, i: usize) -> usize {
    let mut j = i + 1;
    while j < text.len() && !text.is_char_boundary(j) {
        j += 1;
    }
    j
}

/// Names that download.
const FETCHERS: &[&str] = &[
    "invoke-webrequest",
    "iwr",
    "invoke-restmethod",
    "irm",
    "wget",
    "curl",
    "start-bitstransfer",
    "downloadstring",
    "downloadfile",
    "downloaddata",
];

fn is_fetch_word(w: &str) -> bool {
    let l = w.to_ascii_lowercase();
    FETCHERS
        .iter()
        .any(|f| l == *f || l.ends_with(&format!(".{f}")))
        || l.contains("downloadstring")
        || l.contains("net.webclient")
}

/// Analyse PowerShell text.
fn script(text: &str, out: &mut Sink, nest: usize) {
    if nest > MAX_NEST {
        out.opaque(text);
        return;
    }
    let stmts = statements(text);
    let mut fetched_before = false;
    for (k, st) in stmts.iter().enumerate() {
        for (act, target) in &st.redirects {
            let l = target.to_ascii_lowercase();
            if l != "$null" && l != "nul" {
                out.path(*act, &win_path(target));
            }
        }
        let piped_from = if st.piped && k > 0 {
            Some(&stmts[k - 1])
        } else {
            None
        };
        let fed_by_fetch =
            piped_from.is_some_and(|p| p.words.iter().any(|w| is_fetch_word(&w.text)));
        cmdlet(st, piped_from, fed_by_fetch || fetched_before, out, nest);
        if st.words.iter().any(|w| is_fetch_word(&w.text))
            && st.words.first().is_some_and(|w| w.text.starts_with('$'))
        {
            // `$s = iwr …` then `iex $s`.
            fetched_before = true;
        }
    }
}

/// Arguments of a cmdlet: named parameters (by prefix) and positionals.
struct Params<'w> {
    named: Vec<(&'static str, Option<&'w Word>)>,
    positional: Vec<&'w Word>,
}

/// Read a cmdlet's arguments: `valued` parameters take the next word (or `-P:value`).
fn params<'w>(words: &'w [Word], valued: &[&'static str], flags: &[&'static str]) -> Params<'w> {
    let mut p = Params {
        named: Vec::new(),
        positional: Vec::new(),
    };
    let mut k = 0;
    while let Some(w) = words.get(k) {
        k += 1;
        let t = w.text.as_str();
        if t.len() > 1 && t.starts_with('-') && t.as_bytes()[1].is_ascii_alphabetic() {
            let name = &t[1..];
            let (name, inline) = match name.split_once(':') {
                Some((n, _)) => (n, true),
                None => (name, false),
            };
            if let Some(v) = valued.iter().find(|v| param(name, v, 1)) {
                if inline {
                    p.named.push((v, Some(w)));
                } else {
                    p.named.push((v, words.get(k)));
                    k += 1;
                }
            } else if let Some(f) = flags.iter().find(|f| param(name, f, 1)) {
                p.named.push((f, None));
            } else {
                p.named.push(("?", None));
            }
            continue;
        }
        p.positional.push(w);
    }
    p
}

impl Params<'_> {
    fn has(&self, name: &str) -> bool {
        self.named.iter().any(|(n, _)| *n == name)
    }

    fn value(&self, name: &str) -> Option<&Word> {
        self.named
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| *v)
    }

    /// The values of `names`, else the positional at `index`.
    fn paths(&self, names: &[&str], index: usize) -> Vec<&Word> {
        let named: Vec<&Word> = self
            .named
            .iter()
            .filter(|(n, _)| names.contains(n))
            .filter_map(|(_, v)| *v)
            .collect();
        if !named.is_empty() {
            return named;
        }
        self.positional.get(index).copied().into_iter().collect()
    }
}

/// The value of a word given as `-Name:value`.
fn value_text(w: &Word) -> &str {
    match w.text.split_once(':') {
        Some((n, v)) if n.starts_with('-') => v,
        _ => &w.text,
    }
}

/// Each path a word names (`a,b` lists).
fn each_path(w: &Word, act: Act, out: &mut Sink) {
    for part in value_text(w).split(',').filter(|p| !p.is_empty()) {
        let p = win_path(part);
        let l = part.to_ascii_lowercase();
        if l.starts_with("hklm:") || l.starts_with("hkcu:") || l.starts_with("registry::") {
            out.none(Act::Service);
        } else if p.starts_with('$') && !p.starts_with("$env") {
            out.place(act, Place::Unknown);
        } else {
            out.path(act, &p);
        }
    }
}

fn cmdlet(st: &Stmt, piped_from: Option<&Stmt>, after_fetch: bool, out: &mut Sink, nest: usize) {
    let Some(first) = st.words.first() else {
        return;
    };
    let mut words: &[Word] = &st.words;
    // `& 'C:\x\prog.exe' …`, `. .\script.ps1`.
    if first.text == "." && words.len() > 1 {
        words = &words[1..];
    }
    let name_raw = words[0].text.as_str();
    let base = name_raw.rsplit(['\\', '/']).next().unwrap_or(name_raw);
    let lower = base.to_ascii_lowercase();
    let name = match lower.strip_suffix(".exe") {
        // `sc` is Set-Content in PowerShell; `sc.exe` controls services.
        Some("sc") => "sc.exe".to_string(),
        Some(n) => n.to_string(),
        None => lower,
    };
    let args = &words[1..];
    if name.starts_with('$') {
        // `$x = …`: an assignment; its right side may be a command.
        if let Some(eq) = words.iter().position(|w| w.text == "=") {
            if eq + 1 < words.len() {
                let sub = Stmt {
                    words: words[eq + 1..].to_vec(),
                    ..Stmt::default()
                };
                cmdlet(&sub, None, after_fetch, out, nest);
            }
        }
        // A method call on a downloader: `(New-Object Net.WebClient).DownloadString(…)`.
        if words.iter().any(|w| is_fetch_word(&w.text)) {
            out.place(Act::Fetch, Place::Remote);
        }
        return;
    }
    let whatif = args
        .iter()
        .any(|w| param(&w.text, "WhatIf", 2) && w.text.starts_with('-'));
    match name.as_str() {
        "remove-item" | "rm" | "ri" | "del" | "erase" | "rd" | "rmdir" => {
            if whatif {
                return;
            }
            let p = params(
                args,
                &[
                    "Path",
                    "LiteralPath",
                    "Filter",
                    "Include",
                    "Exclude",
                    "Credential",
                    "Stream",
                ],
                &["Recurse", "Force", "Confirm", "WhatIf"],
            );
            let targets = p.paths(&["Path", "LiteralPath"], 0);
            if targets.is_empty() {
                match piped_from {
                    Some(src) => {
                        let root = producer_root(src);
                        out.path(Act::Delete, &root);
                    }
                    None => out.place(Act::Delete, Place::Unknown),
                }
            }
            for t in targets {
                each_path(t, Act::Delete, out);
            }
        }
        "clear-content" | "clc" | "set-content" | "sc" | "out-file" | "add-content" | "ac"
        | "new-item" | "ni" | "clear-item" | "cli" => {
            if whatif {
                return;
            }
            let act = match name.as_str() {
                "add-content" | "ac" => Act::Write,
                "new-item" | "ni" if !args.iter().any(|w| param(&w.text, "Force", 2)) => Act::Write,
                _ => Act::Overwrite,
            };
            let p = params(
                args,
                &[
                    "Path",
                    "LiteralPath",
                    "FilePath",
                    "Value",
                    "Encoding",
                    "ItemType",
                    "Name",
                    "InputObject",
                    "Width",
                ],
                &["Force", "Append", "NoNewline", "NoClobber", "PassThru"],
            );
            let act = if p.has("Append") { Act::Write } else { act };
            for t in p.paths(&["Path", "LiteralPath", "FilePath"], 0) {
                each_path(t, act, out);
            }
        }
        "move-item" | "mv" | "mi" | "move" | "rename-item" | "ren" | "rni" | "copy-item" | "cp"
        | "cpi" | "copy" => {
            if whatif {
                return;
            }
            let copy = matches!(name.as_str(), "copy-item" | "cp" | "cpi" | "copy");
            let p = params(
                args,
                &[
                    "Path",
                    "LiteralPath",
                    "Destination",
                    "NewName",
                    "Filter",
                    "Include",
                    "Exclude",
                ],
                &["Recurse", "Force", "Container", "PassThru"],
            );
            for t in p.paths(&["Path", "LiteralPath"], 0) {
                each_path(t, if copy { Act::Read } else { Act::Move }, out);
            }
            for t in p.paths(&["Destination", "NewName"], 1) {
                each_path(t, Act::Overwrite, out);
            }
        }
        "format-volume"
        | "clear-disk"
        | "initialize-disk"
        | "remove-partition"
        | "format"
        | "diskpart"
        | "set-disk"
        | "remove-physicaldisk"
        | "clear-recyclebin" => {
            if name == "clear-recyclebin" {
                out.place(Act::Delete, Place::Home);
            } else {
                out.none(Act::Device);
            }
        }
        "cipher"
            if args
                .iter()
                .any(|w| w.text.to_ascii_lowercase().starts_with("/w")) =>
        {
            out.none(Act::Device)
        }
        "vssadmin" | "wmic" | "wbadmin"
            if args.iter().any(|w| w.text.eq_ignore_ascii_case("delete")) =>
        {
            out.none(Act::Device)
        }
        "bcdedit"
            if args.iter().any(|w| {
                w.text.to_ascii_lowercase().starts_with("/delete")
                    || w.text.eq_ignore_ascii_case("/set")
            }) =>
        {
            out.none(Act::Device)
        }
        "stop-computer" | "restart-computer" => out.none(Act::Power),
        "shutdown" => {
            if !args
                .iter()
                .any(|w| w.text.eq_ignore_ascii_case("/a") || w.text.eq_ignore_ascii_case("-a"))
            {
                out.none(Act::Power);
            }
        }
        "stop-process" | "spps" | "kill" | "taskkill" | "pskill" => {
            let all = args.iter().any(|w| {
                w.text.contains('*')
                    || (name != "taskkill" && param(&w.text, "Name", 1) && w.text.starts_with('-'))
                    || w.text.eq_ignore_ascii_case("/im")
            });
            out.none(if all { Act::KillAll } else { Act::Kill });
        }
        "stop-service"
        | "spsv"
        | "set-service"
        | "remove-service"
        | "suspend-service"
        | "remove-itemproperty"
        | "rp"
        | "reg"
        | "sc.exe"
        | "net"
        | "new-itemproperty"
        | "set-itemproperty"
        | "sp" => registry_or_service(&name, args, out),
        "netsh"
        | "set-netfirewallprofile"
        | "new-netfirewallrule"
        | "remove-netfirewallrule"
        | "disable-netfirewallrule"
        | "set-netfirewallrule"
        | "set-mppreference" => {
            let l: Vec<String> = args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
            if name != "netsh" || l.iter().any(|w| w == "advfirewall" || w == "firewall") {
                out.none(Act::Firewall);
            }
        }
        "schtasks"
        | "unregister-scheduledtask"
        | "register-scheduledtask"
        | "set-scheduledtask" => {
            let l: Vec<String> = args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
            if name != "schtasks"
                || l.iter()
                    .any(|w| w == "/delete" || w == "/create" || w == "/change")
            {
                out.none(Act::Cron);
            }
        }
        "remove-localuser"
        | "new-localuser"
        | "set-localuser"
        | "disable-localuser"
        | "add-localgroupmember"
        | "remove-localgroupmember" => out.none(Act::Users),
        "invoke-webrequest" | "iwr" | "invoke-restmethod" | "irm" | "wget" | "curl"
        | "start-bitstransfer" => {
            let p = params(
                args,
                &[
                    "Uri",
                    "OutFile",
                    "Method",
                    "Body",
                    "InFile",
                    "Headers",
                    "Source",
                    "Destination",
                    "ContentType",
                    "UserAgent",
                    "Credential",
                    "TimeoutSec",
                ],
                &["UseBasicParsing", "PassThru"],
            );
            let send = p.has("Body")
                || p.has("InFile")
                || p.value("Method").is_some_and(|m| {
                    !matches!(
                        value_text(m).to_ascii_lowercase().as_str(),
                        "get" | "head" | "options"
                    )
                });
            out.place(if send { Act::Send } else { Act::Fetch }, Place::Remote);
            for f in p.paths(&["OutFile", "Destination"], usize::MAX) {
                each_path(f, Act::Overwrite, out);
            }
            if let Some(f) = p.value("InFile") {
                each_path(f, Act::Read, out);
            }
        }
        "invoke-expression" | "iex" => {
            let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
            let downloads = after_fetch || args.iter().any(|w| is_fetch_word(&w.text));
            if downloads {
                out.place(Act::Fetch, Place::Remote);
                out.none(Act::RemoteExec);
            } else {
                out.opaque(&text.join(" "));
            }
        }
        "start-process" | "saps" | "start" => {
            let p = params(
                args,
                &[
                    "FilePath",
                    "ArgumentList",
                    "WorkingDirectory",
                    "Verb",
                    "WindowStyle",
                    "RedirectStandardOutput",
                    "RedirectStandardError",
                    "RedirectStandardInput",
                    "Credential",
                ],
                &["Wait", "NoNewWindow", "PassThru"],
            );
            let prog = p.value("FilePath").or(p.positional.first().copied());
            let argl = p.value("ArgumentList").or(p.positional.get(1).copied());
            if let Some(prog) = prog {
                let mut line = value_text(prog).to_string();
                if let Some(a) = argl {
                    line.push(' ');
                    line.push_str(&value_text(a).replace(',', " "));
                }
                run_external(&line, out, nest);
            }
        }
        "powershell" | "pwsh" => {
            let w: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
            powershell_args(&w, None, out, nest + 1);
        }
        "cmd" => {
            let w: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
            cmd_args(&w, out, nest + 1);
        }
        "new-object" => {
            if args
                .iter()
                .any(|w| w.text.to_ascii_lowercase().contains("webclient"))
                && st.text.to_ascii_lowercase().contains("download")
            {
                out.place(Act::Fetch, Place::Remote);
            }
        }
        _ if is_fetch_word(&name)
            || st
                .words
                .iter()
                .any(|w| w.text.to_ascii_lowercase().contains(".download")) =>
        {
            out.place(Act::Fetch, Place::Remote);
        }
        _ if QUIET.contains(&name.as_str())
            || name.starts_with("get-")
            || name.starts_with("test-")
            || name.starts_with("select-")
            || name.starts_with("format-")
            || name.starts_with("write-")
            || name.starts_with("convertto-")
            || name.starts_with("convertfrom-")
            || name.starts_with("measure-")
            || name.starts_with("out-") && name != "out-file" =>
        {
            read_targets(&name, args, out);
        }
        _ if name.contains('-')
            && name.as_bytes()[0].is_ascii_alphabetic()
            && !name.contains('.') =>
        {
            // Another cmdlet: unknown effect.
            out.none(Act::Exec);
        }
        _ => {
            // An external program: read as a shell command.
            if st.words.iter().any(|w| w.computed) {
                out.opaque(&st.text);
            } else {
                let line: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
                run_external(&super::database::shell_join(&line), out, nest);
            }
        }
    }
}

/// Cmdlets and aliases that only read or print.
const QUIET: &[&str] = &[
    "echo",
    "ls",
    "dir",
    "gci",
    "cat",
    "gc",
    "type",
    "pwd",
    "cd",
    "sl",
    "set-location",
    "push-location",
    "pop-location",
    "where",
    "?",
    "foreach",
    "%",
    "foreach-object",
    "where-object",
    "sort-object",
    "sort",
    "select",
    "ft",
    "fl",
    "measure",
    "tee-object",
    "resolve-path",
    "split-path",
    "join-path",
    "import-module",
    "clear-host",
    "cls",
    "exit",
    "return",
    "if",
    "else",
    "elseif",
    "for",
    "while",
    "param",
    "function",
    "try",
    "catch",
    "finally",
    "throw",
    "true",
    "false",
    "$true",
    "$false",
    "sleep",
    "start-sleep",
    "history",
    "h",
    "mkdir",
    "md",
    "new-variable",
    "set-variable",
    "set",
    "nv",
    "compare-object",
    "group-object",
    "unique",
    "get-unique",
];

/// Read effects of listing and printing cmdlets (`Get-Content x`, `gci x`).
fn read_targets(name: &str, args: &[Word], out: &mut Sink) {
    if matches!(name, "mkdir" | "md") {
        for w in args.iter().filter(|w| !w.text.starts_with('-')) {
            each_path(w, Act::Write, out);
        }
        return;
    }
    if matches!(name, "cat" | "gc" | "type" | "get-content") {
        let p = params(
            args,
            &[
                "Path",
                "LiteralPath",
                "Encoding",
                "TotalCount",
                "Tail",
                "Head",
            ],
            &["Raw", "Wait"],
        );
        for t in p.paths(&["Path", "LiteralPath"], 0) {
            each_path(t, Act::Read, out);
        }
    }
}

/// The directory a listing command names (what a piped Remove-Item deletes).
fn producer_root(src: &Stmt) -> String {
    let args = src.words.get(1..).unwrap_or(&[]);
    let p = params(
        args,
        &[
            "Path",
            "LiteralPath",
            "Filter",
            "Include",
            "Exclude",
            "Depth",
        ],
        &["Recurse", "Force", "File", "Directory", "Hidden"],
    );
    match p.paths(&["Path", "LiteralPath"], 0).first() {
        Some(w) => format!("{}/*", win_path(value_text(w)).trim_end_matches('/')),
        None => "*".to_string(),
    }
}

/// Registry and service changes (`reg delete`, `Remove-ItemProperty HKLM:…`, `sc.exe stop`,
/// `net stop`, `net user x /delete`).
fn registry_or_service(name: &str, args: &[Word], out: &mut Sink) {
    let l: Vec<String> = args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
    let has = |w: &str| l.iter().any(|x| x == w);
    match name {
        "reg" => {
            if has("delete")
                || has("add")
                || has("import")
                || has("restore")
                || has("load")
                || has("unload")
                || has("copy")
            {
                out.none(Act::Service);
            }
        }
        "sc.exe" => {
            if has("stop") || has("delete") || has("config") || has("pause") || has("failure") {
                out.none(Act::Service);
            }
        }
        "net" => {
            if has("stop") || has("pause") {
                out.none(Act::Service);
            } else if (has("user") || has("localgroup") || has("group"))
                && (has("/delete") || has("/add") || l.len() > 2)
            {
                out.none(Act::Users);
            }
        }
        "set-service" => {
            if l.iter()
                .any(|w| w == "disabled" || w == "stopped" || w.starts_with("-status"))
            {
                out.none(Act::Service);
            }
        }
        _ => out.none(Act::Service),
    }
}

/// An external program inside PowerShell or cmd: analysed as a shell command, unless it is
/// one of the Windows shells (modelled here).
fn run_external(line: &str, out: &mut Sink, nest: usize) {
    let first = line
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let base = first
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(&first)
        .trim_matches(|c| c == '\'' || c == '"');
    let base = base.strip_suffix(".exe").unwrap_or(base);
    if matches!(base, "powershell" | "pwsh" | "cmd") || nest > 0 && base.is_empty() {
        script(line, out, nest + 1);
    } else {
        out.script(line);
    }
}

/// cmd.exe text: statements split on `&`, `&&`, `||`, `|`; `rd /s`, `del /s /q`, `format`,
/// and the rest as PowerShell reads them (the same destructive programs).
fn cmd_script(text: &str, out: &mut Sink, nest: usize) {
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

#[cfg(test)]
mod tests;
