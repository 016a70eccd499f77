//! Scripted editors: `ed`, `ex`, `vim -es`/`-c`, `nvim --headless` write what their
//! commands say (`w`, `wq`, `x`, `update`, `w FILE`), and run what `!cmd` says; an
//! interactive session edits its files, a read-only one (`view`, `-R`) reads them.

use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "ed" | "red" => ed(cmd, out),
        "ex" | "vi" | "vim" | "nvim" | "view" | "vimdiff" | "gvim" | "rvim" | "rview" | "nvi"
        | "elvis" | "vim.basic" | "vim.tiny" => vim(cmd, out),
        "nano" | "pico" | "micro" | "joe" | "jed" | "mcedit" => {
            let files: Vec<&str> = cmd
                .args
                .iter()
                .map(|a| &**a)
                .filter(|a| !a.starts_with('-') && !a.starts_with('+'))
                .collect();
            each(out, Act::Write, &files);
        }
        _ => return false,
    }
    true
}

/// `ed [-s] [-p PROMPT] FILE` with its commands on standard input: the file is written when
/// the script writes (`w`, `wq`, `W`), read when it does not, and written when the script is
/// not on the line. `!cmd` runs shell code.
fn ed(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut files: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(w) = cmd.args.get(k) {
        k += 1;
        match &**w {
            "-p" | "--prompt" => k += 1,
            w if w.starts_with('-') && w.len() > 1 => {}
            w => files.push(w),
        }
    }
    let Some(text) = cmd.stdin else {
        each(out, Act::Write, &files);
        return;
    };
    let mut writes = false;
    let mut inserting = false;
    for line in text.lines().take(100_000) {
        let line = line.trim_end();
        if inserting {
            if line == "." {
                inserting = false;
            }
            continue;
        }
        let c = strip_address(line.trim_start());
        if let Some(shell) = c.strip_prefix('!') {
            out.script(shell);
            continue;
        }
        match c.chars().next() {
            Some('a' | 'i' | 'c') if c.len() == 1 => inserting = true,
            Some('w' | 'W') => {
                let arg = c[1..].trim_start_matches('q').trim();
                if let Some(shell) = arg.strip_prefix('!') {
                    out.script(shell);
                } else if !arg.is_empty() {
                    out.path(Act::Overwrite, arg);
                } else {
                    writes = true;
                }
            }
            Some('e' | 'E' | 'r') if c[1..].trim().starts_with('!') => {
                out.script(c[1..].trim().trim_start_matches('!'));
            }
            _ => {}
        }
    }
    each(out, if writes { Act::Write } else { Act::Read }, &files);
}

/// An `ed`/`ex` command without its address (`1,$`, `%`, `.`, `'a`, `/re/`).
fn strip_address(c: &str) -> &str {
    let mut s = c.trim_start_matches(':');
    for _ in 0..8 {
        let before = s.len();
        s = s.trim_start_matches(|ch: char| {
            ch.is_ascii_digit() || matches!(ch, ',' | '.' | '$' | ';' | '+' | '-' | '%' | ' ')
        });
        if let Some(r) = s.strip_prefix('\'') {
            s = r.get(1..).unwrap_or("");
        }
        for delim in ['/', '?'] {
            if let Some(r) = s.strip_prefix(delim) {
                s = match r.find(delim) {
                    Some(e) => &r[e + 1..],
                    None => "",
                };
            }
        }
        if s.len() == before {
            break;
        }
    }
    s
}

/// Ex commands that write the buffer (abbreviations included).
const EX_WRITES: &[&str] = &[
    "w",
    "wr",
    "wri",
    "writ",
    "write",
    "wq",
    "wqa",
    "wqall",
    "wa",
    "wall",
    "x",
    "xi",
    "xit",
    "exi",
    "exit",
    "xa",
    "xall",
    "xwininfo",
    "up",
    "upd",
    "upda",
    "updat",
    "update",
    "sav",
    "save",
    "savea",
    "saveas",
    "wn",
    "wnext",
    "wN",
    "wNext",
    "wp",
    "wprevious",
];

/// What ex commands do: writes of the buffer, writes to named files, shell code.
#[derive(Default)]
struct ExEffects {
    writes: bool,
    unknown: bool,
}

fn ex_commands(text: &str, fx: &mut ExEffects, out: &mut Sink) {
    for piece in text.split(['|', '\n']).take(10_000) {
        let c = strip_address(piece.trim());
        if let Some(shell) = c.strip_prefix('!') {
            out.script(shell);
            continue;
        }
        if c.contains("ZZ") {
            fx.writes = true;
        }
        if c.contains("system(") || c.contains("systemlist(") || c.starts_with("so") {
            fx.unknown = true;
            out.opaque(c);
        }
        let word_end = c
            .find(|ch: char| !ch.is_ascii_alphabetic())
            .unwrap_or(c.len());
        let word = &c[..word_end];
        let rest = &c[word_end..];
        let (bang, rest) = match rest.strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let arg = rest.trim();
        if matches!(word, "r" | "read") && arg.starts_with('!') {
            out.script(&arg[1..]);
            continue;
        }
        if EX_WRITES.contains(&word) {
            if let Some(shell) = arg.strip_prefix('!') {
                out.script(shell);
            } else if let Some(file) = arg.strip_prefix(">>") {
                out.path(Act::Write, file.trim());
            } else if !arg.is_empty() && !word.ends_with('a') && !word.ends_with("all") {
                out.path(if bang { Act::Overwrite } else { Act::Write }, arg);
                if word.starts_with("sav") {
                    continue;
                }
                fx.writes |= word.contains('q') || word.starts_with('x');
            } else {
                fx.writes = true;
            }
        }
    }
}

/// `vim`/`nvim`/`ex`/`vi` with commands (`-c CMD`, `+CMD`, `--cmd CMD`, a script on stdin in
/// ex mode): the files are written when a command writes, read when none does; an
/// interactive session edits them (write), a read-only one (`view`, `-R`) reads.
fn vim(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let mut files: Vec<&str> = Vec::new();
    let mut fx = ExEffects::default();
    let mut ex_mode = cmd.program == "ex";
    let mut batch = ex_mode;
    let mut read_only = matches!(cmd.program, "view" | "rview");
    let mut commands = false;
    let mut k = 0;
    let mut only_files = false;
    while let Some(w) = cmd.args.get(k) {
        k += 1;
        let w: &str = w;
        if only_files {
            files.push(w);
            continue;
        }
        if let Some(c) = w.strip_prefix('+') {
            commands = true;
            if !c.is_empty() && !c.chars().all(|ch| ch.is_ascii_digit()) {
                ex_commands(c, &mut fx, out);
            }
            continue;
        }
        if w == "--" {
            only_files = true;
            continue;
        }
        if let Some(l) = w.strip_prefix("--") {
            match l {
                "cmd" => {
                    commands = true;
                    if let Some(c) = cmd.args.get(k) {
                        ex_commands(c, &mut fx, out);
                    }
                    k += 1;
                }
                "headless" | "embed" => batch = true,
                "servername" | "startuptime" | "listen" | "log" | "api-info" => k += 1,
                _ => {}
            }
            continue;
        }
        if w.len() < 2 || !w.starts_with('-') {
            files.push(w);
            continue;
        }
        let flags = &w[1..];
        for (i, c) in flags.char_indices() {
            let rest = &flags[i + c.len_utf8()..];
            let value = |k: &mut usize| -> Option<&str> {
                if rest.is_empty() {
                    *k += 1;
                    cmd.args.get(*k - 1).map(|a| &**a)
                } else {
                    Some(rest)
                }
            };
            match c {
                'e' | 'E' => {
                    ex_mode = true;
                    batch = true;
                }
                's' if ex_mode => batch = true,
                's' => {
                    // A script of typed keys: what it does is not on the line.
                    if let Some(f) = value(&mut k) {
                        out.path(Act::Read, f);
                    }
                    fx.unknown = true;
                    break;
                }
                'R' | 'M' => read_only = true,
                'c' => {
                    commands = true;
                    if let Some(c) = value(&mut k) {
                        ex_commands(c, &mut fx, out);
                    }
                    break;
                }
                'S' => {
                    commands = true;
                    fx.unknown = true;
                    if rest.is_empty() && cmd.args.get(k).is_some_and(|n| !n.starts_with('-')) {
                        out.path(Act::Read, &cmd.args[k]);
                        k += 1;
                    }
                    break;
                }
                'w' | 'W' => {
                    if let Some(f) = value(&mut k) {
                        out.path(if c == 'W' { Act::Overwrite } else { Act::Write }, f);
                    }
                    break;
                }
                'u' | 'U' | 'i' | 'T' | 't' => {
                    let _ = value(&mut k);
                    break;
                }
                'o' | 'O' | 'p' | 'q' | 'V' => break,
                _ => {}
            }
        }
    }
    if ex_mode && !commands {
        match cmd.stdin {
            Some(text) => ex_commands(text, &mut fx, out),
            None => fx.unknown = true,
        }
    }
    let interactive = !batch && !commands;
    let act = if fx.writes || fx.unknown || (interactive && !read_only) {
        Act::Write
    } else {
        Act::Read
    };
    each(out, act, &files);
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has, stdin_effects};

    #[test]
    fn ed_scripts() {
        // A here-string script that only prints reads; a script the line does not show
        // (read from a file) may write.
        assert_eq!(effects("ed -s a.txt <<< $',p\\nq'"), vec!["read@source"]);
        assert_eq!(
            effects("ed -s a.txt <<< $'1d\\nw\\nq'"),
            vec!["write@source"]
        );
        assert_eq!(
            effects("ed a.txt < script.ed"),
            vec!["read@source", "write@source"]
        );
        assert!(has("printf '%s\\n' 1d wq | ed -s a.txt", "write@source"));
        assert!(has("printf '%s\\n' ,p q | ed -s a.txt", "read@source"));
        assert!(!has("printf '%s\\n' ,p q | ed -s a.txt", "write@source"));
        assert!(has(
            "printf '%s\\n' '1,$d' w q | ed -s ~/.bashrc",
            "write@dotfiles"
        ));
        assert!(has("printf '%s\\n' '!rm -rf ~' q | ed -s x", "delete@home"));
        assert!(has(
            "printf '%s\\n' 'w /etc/hosts' q | ed -s x",
            "overwrite@system"
        ));
        // Text after `a` is not a command.
        let text = "$a\nw\n.\nq\n";
        assert_eq!(
            stdin_effects("ed", &["-s", "~/.bashrc"], text),
            vec!["read@dotfiles"]
        );
    }

    #[test]
    fn vim_ex_commands() {
        assert_eq!(
            effects("vim -c '%s/a/b/g' -c 'wq' a.txt"),
            vec!["write@source"]
        );
        assert_eq!(
            effects("vim -es +'%s/a/b/' +wq a.txt"),
            vec!["write@source"]
        );
        assert_eq!(effects("ex -sc '%s/a/b/|x' a.txt"), vec!["write@source"]);
        assert_eq!(effects("ex -s a.txt <<< $'%p\\nq!'"), vec!["read@source"]);
        assert!(has(
            "printf '%s\\n' 'g/x/d' wq | ex -s a.txt",
            "write@source"
        ));
        assert!(has("printf '%s\\n' '%p' 'q!' | ex -s a.txt", "read@source"));
        assert!(!has(
            "printf '%s\\n' '%p' 'q!' | ex -s a.txt",
            "write@source"
        ));
        assert_eq!(
            effects("vim -es -c 'argdo %s/a/b/ge | update' -c qa *.rs"),
            vec!["write@source"]
        );
        assert_eq!(
            effects("nvim --headless -c 'w' -c 'q' a.txt"),
            vec!["write@source"]
        );
        assert_eq!(effects("vim -es -c 'q' a.txt"), vec!["read@source"]);
        assert_eq!(
            effects("nvim --headless +PlugInstall +qa"),
            Vec::<String>::new()
        );
        assert_eq!(effects("view a.txt"), vec!["read@source"]);
        assert_eq!(effects("vim -R a.txt"), vec!["read@source"]);
        assert_eq!(effects("vim a.txt"), vec!["write@source"]);
        assert!(has("vim ~/.bashrc", "write@dotfiles"));
        assert!(has("sudo vim /etc/fstab", "write@system"));
        assert!(has("vim -c 'normal ggdGZZ' ~/.zshrc", "write@dotfiles"));
        assert!(has(
            "vim -es -c 'w! /etc/passwd' -c q a",
            "overwrite@system"
        ));
        assert!(has("vim -c '!rm -rf ~' -c q", "delete@home"));
        assert!(has("vim -c 'call system(\"x\")' a", "opaque@none"));
        assert!(has("nano ~/.ssh/config", "write@secrets"));
    }
}
