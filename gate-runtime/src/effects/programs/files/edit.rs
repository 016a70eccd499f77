//! In-place editors: `sed -i`, `perl -i`, `gawk -i inplace`, and the scripted editors
//! (`ed`, `ex`, `vim -es`/`-c`, `nvim --headless`) that write what their commands say.
//! `perl` and `awk` without in-place editing are the interpreters family's (we return false).

use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let p = cmd.program;
    match p {
        "sed" | "gsed" => sed(cmd, out),
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
        _ if p == "perl" || p.starts_with("perl5") => return perl(cmd, out),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => return awk(cmd, out),
        _ => return false,
    }
    true
}

/// The long options of GNU sed and whether they take a value.
const SED_LONG: &[(&str, u8)] = &[
    ("expression", 1),
    ("file", 1),
    ("in-place", 2),
    ("line-length", 1),
    ("null-data", 0),
    ("zero-terminated", 0),
    ("quiet", 0),
    ("silent", 0),
    ("regexp-extended", 0),
    ("separate", 0),
    ("sandbox", 0),
    ("debug", 0),
    ("posix", 0),
    ("unbuffered", 0),
    ("follow-symlinks", 0),
    ("binary", 0),
    ("help", 0),
    ("version", 0),
];

/// A long option spelled (maybe abbreviated) among `names`: the name, unless ambiguous.
fn long<'n>(spelled: &str, names: &'n [(&'n str, u8)]) -> Option<(&'n str, u8)> {
    let mut found = None;
    for &(n, v) in names {
        if n == spelled {
            return Some((n, v));
        }
        if !spelled.is_empty() && n.starts_with(spelled) {
            if found.is_some() {
                return None;
            }
            found = Some((n, v));
        }
    }
    found
}

/// `sed [-n] [-i[SUF]] [-e SCRIPT]… [-f FILE]… [SCRIPT] FILE…`: the files are written with
/// `-i`/`-I`/`--in-place` (any bundle, `-i.bak`, BSD `-i ''`), read otherwise; the script
/// operand is not a path when no `-e`/`-f` is given.
fn sed(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let args = cmd.args;
    let mut in_place = false;
    let mut script_given = false;
    let mut ops: Vec<&str> = Vec::new();
    let mut only_ops = false;
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        let w: &str = w;
        if only_ops || !w.starts_with('-') || w == "-" {
            ops.push(w);
            continue;
        }
        if w == "--" {
            only_ops = true;
            continue;
        }
        if let Some(l) = w.strip_prefix("--") {
            let (spelled, inline) = match l.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (l, None),
            };
            match long(spelled, SED_LONG) {
                Some(("in-place", _)) => in_place = true,
                Some(("expression", _)) => {
                    script_given = true;
                    if inline.is_none() {
                        k += 1;
                    }
                }
                Some(("file", _)) => {
                    script_given = true;
                    let f = match inline {
                        Some(v) => Some(v),
                        None => {
                            k += 1;
                            args.get(k - 1).map(|a| &**a)
                        }
                    };
                    if let Some(f) = f.filter(|f| *f != "-") {
                        out.path(Act::Read, f);
                    }
                }
                Some((_, 1)) if inline.is_none() => k += 1,
                _ => {}
            }
            continue;
        }
        let flags = &w[1..];
        for (i, c) in flags.char_indices() {
            let rest = &flags[i + c.len_utf8()..];
            match c {
                'i' | 'I' => {
                    in_place = true;
                    if rest.is_empty() && bsd_suffix(args, k) {
                        k += 1;
                    }
                    break;
                }
                'e' => {
                    script_given = true;
                    if rest.is_empty() {
                        k += 1;
                    }
                    break;
                }
                'f' => {
                    script_given = true;
                    let f = if rest.is_empty() {
                        k += 1;
                        args.get(k - 1).map(|a| &**a)
                    } else {
                        Some(rest)
                    };
                    if let Some(f) = f.filter(|f| *f != "-") {
                        out.path(Act::Read, f);
                    }
                    break;
                }
                'l' => {
                    if rest.is_empty() {
                        k += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    let files = if script_given {
        &ops[..]
    } else {
        &ops[1.min(ops.len())..]
    };
    each(out, if in_place { Act::Write } else { Act::Read }, files);
}

/// BSD `sed -i SUFFIX`: the word after a bare `-i` is its suffix when it is empty (`-i ''`)
/// or a short dotted extension followed by more words.
fn bsd_suffix(args: &[std::borrow::Cow<'_, str>], k: usize) -> bool {
    match args.get(k) {
        Some(next) if next.is_empty() => true,
        Some(next) => {
            next.starts_with('.')
                && next.len() <= 8
                && !next.contains('/')
                && !next.contains(' ')
                && args.len() > k + 2
        }
        None => false,
    }
}

/// `perl -i[EXT] [-pne …] -e CODE FILE…`: the files are written. Without `-i` the program is
/// the interpreters family's.
fn perl(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    let mut in_place = false;
    let mut codes: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(w) = args.get(k) {
        let w: &str = w;
        if w == "--" {
            k += 1;
            break;
        }
        if !w.starts_with('-') || w == "-" {
            break;
        }
        k += 1;
        if w.starts_with("--") {
            continue;
        }
        let flags = &w[1..];
        let mut chars = flags.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let rest = &flags[i + c.len_utf8()..];
            match c {
                'i' => {
                    in_place = true;
                    break;
                }
                'e' | 'E' => {
                    if rest.is_empty() {
                        if let Some(code) = args.get(k) {
                            codes.push(code);
                        }
                        k += 1;
                    } else {
                        codes.push(rest);
                    }
                    break;
                }
                'M' | 'm' | 'I' | 'F' | 'd' | 'D' | 'x' | 'C' | 'V' => {
                    if rest.is_empty() && matches!(c, 'I' | 'M' | 'm') {
                        k += 1;
                    }
                    break;
                }
                'l' | '0' => {
                    while chars
                        .peek()
                        .is_some_and(|(_, d)| d.is_ascii_hexdigit() || *d == 'x')
                    {
                        chars.next();
                    }
                }
                _ => {}
            }
        }
    }
    if !in_place {
        return false;
    }
    let mut rest: Vec<&str> = args[k.min(args.len())..].iter().map(|a| &**a).collect();
    if codes.is_empty() && !rest.is_empty() {
        // The program is in a file.
        out.path(Act::Read, rest.remove(0));
        out.opaque(&cmd.args.join(" "));
    }
    for code in &codes {
        const RISKY: &[&str] = &[
            "system", "exec", "`", "unlink", "rmtree", "rename", "qx", "open",
        ];
        if RISKY.iter().any(|r| code.contains(r)) {
            out.opaque(code);
        }
    }
    each(out, Act::Write, &rest);
    true
}

/// `gawk -i inplace 'PROG' FILE…` (also `-iinplace`, `--include=inplace`): the files are
/// written. Without the in-place extension the program is the interpreters family's.
fn awk(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    let mut in_place = false;
    let mut program_given = false;
    let mut ops: Vec<&str> = Vec::new();
    let mut k = 0;
    let mut only_ops = false;
    while let Some(w) = args.get(k) {
        k += 1;
        let w: &str = w;
        if only_ops || !w.starts_with('-') || w == "-" {
            ops.push(w);
            if !program_given {
                // POSIX order: options end at the program text.
                only_ops = true;
            }
            continue;
        }
        if w == "--" {
            only_ops = true;
            continue;
        }
        let (name, inline): (&str, Option<&str>) = if let Some(l) = w.strip_prefix("--") {
            match l.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (l, None),
            }
        } else {
            let end = w[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
            let c = &w[1..end];
            let rest = &w[end..];
            (c, (!rest.is_empty()).then_some(rest))
        };
        let takes = matches!(
            name,
            "f" | "v"
                | "F"
                | "i"
                | "l"
                | "E"
                | "e"
                | "file"
                | "assign"
                | "field-separator"
                | "include"
                | "load"
                | "exec"
                | "source"
        );
        let value = if takes && inline.is_none() {
            k += 1;
            args.get(k - 1).map(|a| &**a)
        } else {
            inline
        };
        match name {
            "i" | "include" if value.is_some_and(|v| v.contains("inplace")) => in_place = true,
            "f" | "file" | "E" | "exec" => {
                program_given = true;
                if let Some(f) = value {
                    out.path(Act::Read, f);
                }
            }
            "e" | "source" => program_given = true,
            _ => {}
        }
    }
    if !in_place {
        return false;
    }
    let files: Vec<&str> = ops
        .iter()
        .skip(usize::from(!program_given))
        .copied()
        .filter(|o| !is_assignment(o))
        .collect();
    each(out, Act::Write, &files);
    true
}

/// An awk operand `var=value` (an assignment, not a file).
fn is_assignment(op: &str) -> bool {
    match op.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
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
    fn sed_in_place_spellings() {
        assert_eq!(effects("sed -n 1,5p a.txt"), vec!["read@source"]);
        assert_eq!(effects("sed 's/a/b/' a.txt"), vec!["read@source"]);
        assert_eq!(effects("sed -i 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(effects("sed -i.bak 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(effects("sed -ni 's/a/b/p' a.txt"), vec!["write@source"]);
        assert_eq!(effects("sed -Ei 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(
            effects("sed --in-place 's/a/b/' a.txt"),
            vec!["write@source"]
        );
        assert_eq!(
            effects("sed --in-place=.orig 's/a/b/' a.txt"),
            vec!["write@source"]
        );
        assert_eq!(effects("sed --in 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(effects("sed -i '' 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(effects("sed -i .bak 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(
            effects("sed -i -e 's/a/b/' -e 's/c/d/' a b"),
            vec!["write@source"]
        );
        assert_eq!(effects("sed -ie 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(
            effects("sed -f fix.sed -i a.txt"),
            vec!["read@source", "write@source"]
        );
        assert!(has("sed -i '/^alias/d' ~/.bashrc", "write@dotfiles"));
        assert!(has(
            "sudo sed -i 's/x/y/' /etc/ssh/sshd_config",
            "write@system"
        ));
        assert!(has("sed -i -- 's/x/y/' .env", "write@secrets"));
        assert!(has(
            "sed --expression='s/x/y/' --in-place .claude/settings.json",
            "write@gate"
        ));
        assert!(has(
            "find . -name '*.rs' | xargs sed -i 's/a/b/'",
            "write@project"
        ));
        assert!(has(
            "bash -c \"sed -i 's/a/b/' ~/.profile\"",
            "write@dotfiles"
        ));
        // The script is not a path.
        assert!(!has("sed -i 's/~/x/' a.txt", "write@home"));
        assert!(!has("sed 's/x/y/' ~/.bashrc", "write@dotfiles"));
    }

    #[test]
    fn perl_in_place_only() {
        assert_eq!(effects("perl -pi -e 's/a/b/' a.txt"), vec!["write@source"]);
        assert_eq!(
            effects("perl -i.bak -pe 's/a/b/' a.txt"),
            vec!["write@source"]
        );
        assert_eq!(effects("perl -p -i -e 's/a/b/g' x y"), vec!["write@source"]);
        assert_eq!(
            effects("perl -0777 -pi -e 's/a/b/' a.txt"),
            vec!["write@source"]
        );
        assert!(has("perl -pi -e 's/a/b/' ~/.bashrc", "write@dotfiles"));
        assert!(has("sudo perl -i -pe 's/x/y/' /etc/hosts", "write@system"));
        assert!(has("perl -pi -e 'system(\"x\")' a", "opaque@none"));
        // Without -i: the interpreters family's, not written here.
        assert!(!has("perl -pe 's/a/b/' a.txt", "write@source"));
        assert!(!has("perl -ne 'print' ~/.bashrc", "write@dotfiles"));
    }

    #[test]
    fn awk_in_place_only() {
        assert_eq!(
            effects("gawk -i inplace '{print}' a.txt"),
            vec!["write@source"]
        );
        assert_eq!(
            effects("awk -i inplace -v x=1 '{print}' a b"),
            vec!["write@source"]
        );
        assert_eq!(
            effects("gawk -iinplace '{print}' a.txt"),
            vec!["write@source"]
        );
        assert_eq!(
            effects("gawk --include=inplace 1 a.txt"),
            vec!["write@source"]
        );
        assert!(has(
            "gawk -i inplace -f prog.awk ~/.bashrc",
            "write@dotfiles"
        ));
        assert!(has("gawk -i inplace -f prog.awk ~/.bashrc", "read@source"));
        assert!(has("awk -i inplace '{}' n=1 ~/.profile", "write@dotfiles"));
        assert!(!has("awk '{print $1}' ~/.bashrc", "write@dotfiles"));
    }

    #[test]
    fn ed_scripts() {
        // A script the line does not show: the file may be written.
        assert_eq!(effects("ed -s a.txt <<< $',p\\nq'"), vec!["write@source"]);
        assert_eq!(effects("ed a.txt < script.ed"), vec!["write@source"]);
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
        assert_eq!(effects("ex -s a.txt <<< $'%p\\nq!'"), vec!["write@source"]);
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
