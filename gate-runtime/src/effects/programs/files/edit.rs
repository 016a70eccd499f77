//! In-place stream editors: `sed -i`, `perl -i`, `gawk -i inplace` write their files; `sed`
//! without `-i` reads them. `perl` and `awk` without in-place editing are the interpreters
//! family's (we return false).

use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let p = cmd.program;
    match p {
        "sed" | "gsed" => sed(cmd, out),
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
    // A suffix keeps the old text beside the file (`-i.bak`, `--in-place=.orig`, BSD `-i
    // .bak`).
    let mut backup = false;
    let mut script_given = false;
    let mut scripts: Vec<&str> = Vec::new();
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
                Some(("in-place", _)) => {
                    in_place = true;
                    backup |= inline.is_some_and(|v| !v.is_empty());
                }
                Some(("expression", _)) => {
                    script_given = true;
                    match inline {
                        Some(v) => scripts.push(v),
                        None => {
                            scripts.extend(args.get(k).map(|a| &**a));
                            k += 1;
                        }
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
                    backup |= !rest.is_empty();
                    if rest.is_empty() && bsd_suffix(args, k) {
                        backup |= args.get(k).is_some_and(|a| !a.is_empty());
                        k += 1;
                    }
                    break;
                }
                'e' => {
                    script_given = true;
                    if rest.is_empty() {
                        scripts.extend(args.get(k).map(|a| &**a));
                        k += 1;
                    } else {
                        scripts.push(rest);
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
        scripts.extend(ops.first());
        &ops[1.min(ops.len())..]
    };
    let mut empties = false;
    for script in scripts {
        sed_script(script, out);
        empties |= deletes_every_line(script);
    }
    // An in-place edit that deletes every line leaves the file empty: its text is gone.
    out.rewrites_in_place |= in_place && !backup;
    let act = match (in_place, empties) {
        (true, true) => Act::Overwrite,
        (true, false) => Act::Write,
        _ => Act::Read,
    };
    each(out, act, files);
}

/// Whether a sed script deletes every line it reads (`d`, `1,$d`, `/^/d`, `/.*/d`).
fn deletes_every_line(script: &str) -> bool {
    script.split(['\n', ';']).any(|piece| {
        let piece: String = piece.chars().filter(|c| !c.is_whitespace()).collect();
        matches!(
            piece.strip_suffix('d'),
            Some("" | "1,$" | "/^/" | "/.*/" | "/^.*/" | "/^.*$/" | "/$/" | "0,$")
        )
    })
}

/// What a sed script does beyond its input: `w FILE` and the `s///w FILE` flag write FILE
/// (truncated when sed starts), `r FILE` reads it, `e CMD` runs CMD, and the `s///e` flag
/// (or a bare `e`) runs text the line does not show.
fn sed_script(script: &str, out: &mut Sink) {
    for piece in script.split(['\n', ';']).take(10_000) {
        let c = sed_strip_address(piece.trim());
        let mut chars = c.chars();
        let Some(command) = chars.next() else {
            continue;
        };
        let rest = chars.as_str();
        match command {
            'w' | 'W' => {
                let f = rest.trim();
                if !f.is_empty() && !f.starts_with("/dev/std") {
                    out.path(Act::Overwrite, f);
                }
            }
            'r' | 'R' => {
                let f = rest.trim();
                if !f.is_empty() {
                    out.path(Act::Read, f);
                }
            }
            'e' => match rest.trim() {
                "" => out.opaque(script),
                shell => out.script(shell),
            },
            's' | 'y' => {
                // The delimiter, then three fields; what follows are the flags.
                let Some(delim) = rest.chars().next() else {
                    continue;
                };
                let mut fields = 0;
                let mut escaped = false;
                let mut flags_at = None;
                for (i, ch) in rest.char_indices() {
                    if escaped {
                        escaped = false;
                    } else if ch == '\\' {
                        escaped = true;
                    } else if ch == delim {
                        fields += 1;
                        if fields == 3 {
                            flags_at = Some(i + ch.len_utf8());
                            break;
                        }
                    }
                }
                let Some(at) = flags_at.filter(|_| command == 's') else {
                    continue;
                };
                let flags = &rest[at..];
                let (flags, file) = match flags.find('w') {
                    Some(w) => (&flags[..w], Some(flags[w + 1..].trim())),
                    None => (flags, None),
                };
                if flags.contains('e') {
                    out.opaque(script);
                }
                if let Some(f) = file.filter(|f| !f.is_empty() && !f.starts_with("/dev/std")) {
                    out.path(Act::Overwrite, f);
                }
            }
            _ => {}
        }
    }
}

/// A sed command without its address (`1`, `$`, `1,5`, `0~2`, `/re/`, `\%re%`, `addr!`).
fn sed_strip_address(c: &str) -> &str {
    let mut s = c;
    for _ in 0..4 {
        let before = s.len();
        s = s.trim_start_matches(|ch: char| {
            ch.is_ascii_digit() || matches!(ch, ',' | '$' | '~' | '+' | ' ' | '!')
        });
        let delim = if let Some(r) = s.strip_prefix('/') {
            s = r;
            Some('/')
        } else if let Some(r) = s.strip_prefix('\\') {
            let d = r.chars().next();
            s = d.map_or("", |d| &r[d.len_utf8()..]);
            d
        } else {
            None
        };
        if let Some(d) = delim {
            let mut escaped = false;
            let mut end = s.len();
            for (i, ch) in s.char_indices() {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == d {
                    end = i + ch.len_utf8();
                    break;
                }
            }
            s = &s[end..];
            // `I` and `M` modifiers of a regex address.
            s = s.trim_start_matches(['I', 'M']);
        }
        if s.len() == before {
            break;
        }
    }
    s
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
    // Every line replaced by nothing (`s/.*//`, `$_=""`) leaves the file without its text.
    let empties = codes.iter().any(|code| {
        let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        let code = code.trim_end_matches(';');
        matches!(
            code,
            "s/.*//" | "s/.*//s" | "s/^.*$//" | "s/^.*//" | "$_=\"\"" | "$_=''" | "undef$_"
        )
    });
    out.rewrites_in_place = true;
    each(
        out,
        if empties { Act::Overwrite } else { Act::Write },
        &rest,
    );
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
    out.rewrites_in_place = true;
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

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn sed_deleting_every_line_empties_the_file() {
        for line in [
            "sed -i '1,$d' ~/.bashrc",
            "sed -i d /etc/hosts",
            "sed -i -e '/.*/d' ~/.ssh/authorized_keys",
            "sudo sed --in-place '1,$ d' /etc/fstab",
        ] {
            let e = effects(line);
            assert!(
                e.iter().any(|e| e.starts_with("overwrite@")),
                "{line}: {e:?}"
            );
        }
        for line in [
            "sed -i '1d' notes.txt",
            "sed -i '/^#/d' ~/.bashrc",
            "sed -i '$d' a.txt",
            "sed '1,$d' a.txt",
        ] {
            let e = effects(line);
            assert!(
                e.iter().all(|e| !e.starts_with("overwrite@")),
                "{line}: {e:?}"
            );
        }
    }

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
        // A system file rewritten in place with no copy kept loses its old text; with a
        // backup suffix the old text stays beside it.
        for line in [
            "sudo sed -i 's/x/y/' /etc/ssh/sshd_config",
            "sed -i '/^include /d' /etc/ipsec.conf",
            "sed -Ei 's/a/b/' /etc/pacman.conf",
            "sed --in-place -e 's/a/b/' /etc/hosts",
        ] {
            assert!(has(line, "overwrite@system"), "{line}: {:?}", effects(line));
        }
        for line in [
            "sed -i.bak 's/x/y/' /etc/ssh/sshd_config",
            "sed --in-place=.orig 's/a/b/' /etc/hosts",
            "sed -i '.bak' 's/a/b/' /etc/hosts",
        ] {
            assert!(has(line, "write@system"), "{line}: {:?}", effects(line));
            assert!(!has(line, "overwrite@system"), "{line}");
        }
        assert!(has("sed -i -- 's/x/y/' .env", "write@secrets"));
        assert!(has(
            "sed --expression='s/x/y/' --in-place .claude/settings.json",
            "write@gate"
        ));
        // The files a find's one `-name` pattern matches, not the project itself.
        assert!(has(
            "find . -name '*.rs' | xargs sed -i 's/a/b/'",
            "write@source"
        ));
        assert!(has(
            "bash -c \"sed -i 's/a/b/' ~/.profile\"",
            "write@dotfiles"
        ));
        // What the script itself writes, reads and runs.
        assert!(has("sed -n '/x/w out.txt' a.txt", "overwrite@source"));
        assert!(has("sed -n 'w ~/.bashrc' a.txt", "overwrite@dotfiles"));
        assert!(has("sed 's/a/b/w /etc/hosts' a.txt", "overwrite@system"));
        assert!(has("sed -e '1r ~/.ssh/id_rsa' a.txt", "read@secrets"));
        assert!(has("sed '1e rm -rf ~' a.txt", "delete@home"));
        assert!(has("sed 's/.*/rm -rf ~/e' a.txt", "opaque@none"));
        assert!(has("sed --expression='$!e rm -rf /' a.txt", "delete@root"));
        assert!(!has("sed 's/where/there/g' a.txt", "overwrite@source"));
        assert!(!has("sed 's/x/y/gw' a.txt", "opaque@none"));
        assert_eq!(
            effects("sed -e 's/e/E/' -e '/^$/d' a.txt"),
            vec!["read@source"]
        );
        // The script is not a path.
        assert!(!has("sed -i 's/~/x/' a.txt", "write@home"));
        assert!(!has("sed 's/x/y/' ~/.bashrc", "write@dotfiles"));
    }

    #[test]
    fn perl_in_place_emptying() {
        assert!(has("perl -pi -e 's/.*//' /etc/hosts", "overwrite@system"));
        assert!(has(
            "perl -i -pe '$_ = \"\"' ~/.bashrc",
            "overwrite@dotfiles"
        ));
        assert!(!has("perl -pi -e 's/.*foo//' a.txt", "overwrite@source"));
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
        assert!(has(
            "sudo perl -i -pe 's/x/y/' /etc/hosts",
            "overwrite@system"
        ));
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
}
