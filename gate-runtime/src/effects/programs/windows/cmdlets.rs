//! What each PowerShell cmdlet and alias whose parameters name its targets does: deletes,
//! overwrites, moves, archives, processes, `Set-Service`, downloads and code run by
//! `Invoke-Expression`; the Windows programs and the cmdlets whose name alone says what
//! they do are read from `commands/windows.toml`; other programs as shell commands.

use gate_spec::effect::{Act, Place};

use super::super::super::Sink;

use super::powershell::*;
use super::{cmd_args, param, powershell_args, win_path};

pub(super) fn cmdlet(
    st: &Stmt,
    piped_from: Option<&Stmt>,
    after_fetch: bool,
    out: &mut Sink,
    nest: usize,
) {
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
    // Windows administration programs (`vssadmin`, `sc.exe`, `reg`, …) and the cmdlets
    // whose name says what they do (`Stop-Computer`): data, `commands/windows.toml`.
    // (`sc` alone is Set-Content here.)
    let texts: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    if name != "sc" && super::super::table::windows(&name, &texts, out) {
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
            // `$_` in a `ForEach-Object` block is the item the pipe hands it.
            let targets: Vec<&Word> = p
                .paths(&["Path", "LiteralPath"], 0)
                .into_iter()
                .filter(|t| !(is_item(t) && piped_from.is_some()))
                .collect();
            if targets.is_empty() {
                match piped_from {
                    Some(src) => {
                        for set in producer_set(src) {
                            out.path(Act::Delete, &set);
                        }
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
        // An archive made of what the paths hold, or unpacked into a directory.
        "compress-archive" | "expand-archive" => {
            if whatif {
                return;
            }
            let p = params(
                args,
                &["Path", "LiteralPath", "DestinationPath", "CompressionLevel"],
                &["Force", "Update", "PassThru"],
            );
            let onto = if p.has("Force") || p.has("Update") {
                Act::Overwrite
            } else {
                Act::Write
            };
            for t in p.paths(&["Path", "LiteralPath"], 0) {
                each_path(t, Act::Read, out);
            }
            for t in p.paths(&["DestinationPath"], 1) {
                each_path(t, onto, out);
            }
        }
        "format" => out.none(Act::Device),
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
        // Disabling or stopping a service; its other settings (a description) are not.
        "set-service" => {
            if args.iter().any(|w| {
                let l = w.text.to_ascii_lowercase();
                l == "disabled" || l == "stopped" || l.starts_with("-status")
            }) {
                out.none(Act::Service);
            }
        }
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
                run_external(&super::super::database::shell_join(&line), out, nest);
            }
        }
    }
}

/// Cmdlets and aliases that only read or print.
pub(super) const QUIET: &[&str] = &[
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
pub(super) fn read_targets(name: &str, args: &[Word], out: &mut Sink) {
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

/// Whether a word is the pipeline's current item (`$_`, `$_.FullName`, `$PSItem`).
pub(super) fn is_item(w: &Word) -> bool {
    let t = w.text.to_ascii_lowercase();
    t == "$_" || t.starts_with("$_.") || t == "$psitem" || t.starts_with("$psitem.")
}

/// The directory a listing command names (what a piped Remove-Item deletes).
pub(super) fn producer_root(src: &Stmt) -> String {
    let args = src.words.get(1..).unwrap_or(&[]);
    let p = params(args, LISTING_VALUED, LISTING_SWITCHES);
    match p.paths(&["Path", "LiteralPath"], 0).first() {
        Some(w) => format!("{}/*", win_path(value_text(w)).trim_end_matches('/')),
        None => "*".to_string(),
    }
}

const LISTING_VALUED: &[&str] = &[
    "Path",
    "LiteralPath",
    "Filter",
    "Include",
    "Exclude",
    "Depth",
    "Attributes",
];
const LISTING_SWITCHES: &[&str] = &["Recurse", "Force", "File", "Directory", "Hidden"];

/// What a listing hands down a pipe, as paths: a name selection (`-Include bin,obj`,
/// `-Filter *.pdb`, a wildcard path `*.obj`) bounds it to those names, below its root with
/// `-Recurse` (`./**/bin`); without one it is everything in the root (`DIR/*`).
pub(super) fn producer_set(src: &Stmt) -> Vec<String> {
    let Some(name) = src.words.first().map(|w| w.text.to_ascii_lowercase()) else {
        return vec!["*".to_string()];
    };
    if !matches!(name.as_str(), "get-childitem" | "gci" | "ls" | "dir") {
        return vec![producer_root(src)];
    }
    let args = src.words.get(1..).unwrap_or(&[]);
    let p = params(args, LISTING_VALUED, LISTING_SWITCHES);
    let recurse = p.has("Recurse");
    let mut root = p
        .paths(&["Path", "LiteralPath"], 0)
        .first()
        .map_or(".".to_string(), |w| win_path(value_text(w)));
    let mut names: Vec<String> = ["Include", "Filter"]
        .iter()
        .filter_map(|n| p.value(n))
        .flat_map(|w| {
            value_text(w)
                .split(',')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .map(|n| n.trim().trim_matches(|c| c == '\'' || c == '"').to_string())
        .filter(|n| !n.is_empty() && n.chars().any(|c| c != '*'))
        .collect();
    // `Get-ChildItem *.obj -Recurse`: the path's last part is the name selection.
    if names.is_empty() {
        if let Some((dir, last)) = root.rsplit_once('/').or(Some((".", root.as_str()))) {
            if last.contains(['*', '?']) && last.chars().any(|c| c != '*') {
                names.push(last.to_string());
                root = dir.to_string();
            }
        }
    }
    // `/` trims to nothing, which the formats below make `/*` again.
    let root = root.trim_end_matches('/');
    if names.is_empty() {
        return vec![format!("{root}/*")];
    }
    let below = if recurse { "/**/" } else { "/" };
    names.iter().map(|n| format!("{root}{below}{n}")).collect()
}
