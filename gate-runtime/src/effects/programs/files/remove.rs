//! Removing files: `rm`, `unlink`, `shred`, `srm`, `wipe`, `rmdir` (empty directories: a
//! write of what held them), and the finders that delete what they match (`find -delete`,
//! read in `find`; `fd -x rm`).

use super::super::super::getopt::{self, Grammar};
use super::super::super::{Cmd, Sink};
use super::each;
use gate_spec::effect::Act;

const RM: Grammar = Grammar {
    short: "fiIrRdvP",
    short_value: "",
    long: &[
        "force",
        "interactive",
        "recursive",
        "dir",
        "verbose",
        "no-preserve-root",
        "preserve-root",
        "one-file-system",
    ],
    long_value: &[],
    posix: false,
};

const RMDIR: Grammar = Grammar {
    short: "pv",
    short_value: "",
    long: &["ignore-fail-on-non-empty", "parents", "verbose"],
    long_value: &[],
    posix: false,
};

const SHRED: Grammar = Grammar {
    short: "fuvxz",
    short_value: "ns",
    long: &["force", "remove", "verbose", "exact", "zero"],
    long_value: &["iterations", "size", "random-source"],
    posix: false,
};

/// `srm` (secure-delete) and `wipe`: flags only, but for a few counts.
const SRM: Grammar = Grammar {
    short: "dfilmrRsvzqcDkZFaeIh",
    short_value: "QSTxpMlo",
    long: &[
        "dod",
        "doe",
        "force",
        "interactive",
        "recursive",
        "simple",
        "medium",
        "zero",
        "verbose",
        "quiet",
    ],
    long_value: &["rid"],
    posix: false,
};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "rm" => each(out, Act::Delete, &getopt::read(&RM, cmd.args).operands),
        // Only an empty directory is removed: the directory that held it changes, as with
        // `mkdir` (`rmdir ~` and `rmdir /` fail on what is in them).
        "rmdir" => each(out, Act::Write, &getopt::read(&RMDIR, cmd.args).operands),
        // Node's and the desktop's removers: every operand is removed (options never take a
        // value that could be a path).
        "rimraf" | "trash" | "trash-put" | "rmtrash" | "del-cli" => each(
            out,
            Act::Delete,
            &getopt::read(&Grammar::NONE, cmd.args).operands,
        ),
        "unlink" => each(
            out,
            Act::Delete,
            &getopt::read(&Grammar::NONE, cmd.args).operands,
        ),
        "shred" => {
            // The content is destroyed whether or not the file is then removed.
            let ops = getopt::read(&SHRED, cmd.args).operands;
            each(out, Act::Overwrite, &ops);
            each(out, Act::Delete, &ops);
        }
        "srm" | "wipe" | "secure-delete" => {
            let ops = getopt::read(&SRM, cmd.args).operands;
            each(out, Act::Overwrite, &ops);
            each(out, Act::Delete, &ops);
        }
        "find" | "gfind" => super::find::model(cmd, out),
        "fd" | "fdfind" => fd(cmd, out),
        _ => return false,
    }
    true
}

/// `fd [PATTERN] [PATH…]`: a read of each path (`.` by default); `-x`/`-X` run a command on
/// each result (analysed with `{}` bound to the search paths).
fn fd(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    const FD: Grammar = Grammar {
        short: "HIsiFgaLlpu0qS1",
        short_value: "edtEcjxXo",
        long: &[
            "hidden",
            "no-ignore",
            "case-sensitive",
            "ignore-case",
            "glob",
            "regex",
            "fixed-strings",
            "absolute-path",
            "list-details",
            "follow",
            "full-path",
            "print0",
            "quiet",
            "show-errors",
            "prune",
            "unrestricted",
            "no-ignore-vcs",
        ],
        long_value: &[
            "max-depth",
            "min-depth",
            "exact-depth",
            "type",
            "extension",
            "exclude",
            "size",
            "changed-within",
            "changed-before",
            "owner",
            "color",
            "threads",
            "max-results",
            "base-directory",
            "search-path",
            "ignore-file",
            "exec",
            "exec-batch",
            "batch-size",
            "format",
            "path-separator",
        ],
        posix: false,
    };
    // The command after `-x`/`-X` runs to the end of the line (or `;`).
    let at = cmd.args.iter().position(|a| {
        matches!(&**a, "-x" | "-X" | "--exec" | "--exec-batch")
            || a.starts_with("--exec=")
            || a.starts_with("--exec-batch=")
    });
    let (own, run) = match at {
        Some(i) => (&cmd.args[..i], Some(&cmd.args[i + 1..])),
        None => (cmd.args, None),
    };
    let a = getopt::read(&FD, own);
    let mut paths: Vec<String> = a.operands.iter().skip(1).map(|p| p.to_string()).collect();
    paths.extend(
        a.values(&["search-path", "base-directory"])
            .map(str::to_string),
    );
    if paths.is_empty() {
        paths.push(".".to_string());
    }
    for p in &paths {
        out.path(Act::Read, p);
    }
    // What a command run on each match acts on: the matches, narrowed to `ROOT/*.EXT` by one
    // extension or to `ROOT/*WORD*` by a plain-word pattern (a file name, as fd matches it);
    // else the roots themselves.
    let exts: Vec<&str> = a.values(&["e", "extension"]).collect();
    let pattern = a.operands.first().map(|p| &**p);
    let plain = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
    };
    let narrowed = match (exts.as_slice(), pattern) {
        ([ext], None | Some("." | "^" | ".*" | "")) if plain(ext) => Some(format!("*.{ext}")),
        ([], Some(word)) if plain(word) => Some(format!("*{word}*")),
        _ => None,
    };
    let bound_to: Vec<String> = match &narrowed {
        Some(glob) => paths
            .iter()
            .map(|p| format!("{}/{glob}", p.trim_end_matches('/')))
            .collect(),
        None => paths.clone(),
    };
    let paths = bound_to;
    if let Some(run) = run {
        let mut words: Vec<String> = Vec::new();
        let mut bound = false;
        for w in run.iter().take_while(|w| *w != ";" && *w != "\\;") {
            if w.contains('{') && w.contains('}') {
                bound = true;
                for p in &paths {
                    words.push(quote(&bind_placeholder(w, p)));
                }
            } else {
                words.push(quote(w));
            }
        }
        if !bound {
            words.extend(paths.iter().map(|p| quote(p)));
        }
        out.script(&words.join(" "));
    }
}

/// `{}`, `{/}`, `{//}`, `{.}`, `{/.}` replaced by the search path.
fn bind_placeholder(w: &str, path: &str) -> String {
    let mut s = w.to_string();
    for ph in ["{//}", "{/.}", "{/}", "{.}", "{}"] {
        s = s.replace(ph, path);
    }
    s
}

/// A word quoted for the shell (single quotes), unless it is plain.
fn quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '-' | '_' | '.' | '/' | '~' | '=' | ':' | '+' | '*' | '@' | ','
                )
        })
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn rm_targets_every_spelling() {
        assert!(has("rm -rf ~", "delete@home"));
        assert!(has("rm --rec --forc /", "delete@root"));
        assert!(has("rm -r -f /", "delete@root"));
        assert!(has("rm -Rf --no-preserve-root /", "delete@root"));
        assert!(has("cd / && rm -rf *", "delete@root"));
        assert!(has("cd src; rm -rf ../..", "delete@home"));
        assert!(has("rm -rf {/,~}", "delete@root"));
        assert!(has("sudo rm -rf -- ~/", "delete@home"));
        assert!(has("rm -rf /home/u/proj/target", "delete@outputs"));
        assert!(has("rm .cl*/settings.json", "delete@gate"));
        assert!(has("/bin/rm -rf $HOME", "delete@home"));
        assert!(has("env X=1 rm -rf ~/*", "delete@home"));
        assert!(has("bash -c 'rm -rf ~'", "delete@home"));
        assert!(has("rm -rf . ", "delete@project"));
        assert!(has("rm -rf ./*", "delete@project"));
        assert!(has("rm -rf .git", "delete@vcs"));
        assert!(has("rm ~/.ssh/id_rsa", "delete@secrets"));
        assert!(has("rm -f ~/.bashrc", "delete@dotfiles"));
        assert!(has("rm -rf /etc", "delete@system"));
        assert!(has("rm -rf /tmp/build", "delete@temp"));
        assert!(has("rm -rf \"$DIR\"/", "delete@unknown"));
        assert!(has("rm -- -rf", "delete@source"));
        assert_eq!(effects("rm -f src/a.rs"), vec!["delete@source"]);
        assert_eq!(effects("rm -rf node_modules"), vec!["delete@outputs"]);
    }

    #[test]
    fn node_and_desktop_removers() {
        assert!(has("rimraf ~", "delete@home"));
        assert!(has("npx rimraf --glob 'dist/**' ~/", "delete@home"));
        assert!(has("trash-put ~/.ssh", "delete@secrets"));
        assert_eq!(effects("rimraf node_modules"), ["delete@outputs"]);
    }

    #[test]
    fn rmdir_unlink() {
        // An empty directory removed: a write of what held it.
        assert_eq!(effects("rmdir build"), vec!["write@outputs"]);
        assert_eq!(effects("rmdir -p a/b/c"), vec!["write@source"]);
        assert!(has("rmdir --ignore-fail-on-non-empty ~/x", "write@outside"));
        assert_eq!(effects("rmdir ~"), vec!["write@home"]);
        assert_eq!(effects("rmdir .claude"), vec!["write@gate"]);
        assert_eq!(effects("unlink ~/.zshrc"), vec!["delete@dotfiles"]);
        assert_eq!(
            effects("sudo unlink /usr/bin/python"),
            vec!["delete@system"]
        );
    }

    #[test]
    fn shred_and_secure_delete() {
        assert!(has("shred -u ~/.ssh/id_ed25519", "delete@secrets"));
        assert!(has("shred -n 3 -z -u secrets.txt", "delete@source"));
        assert!(has("shred --iterations=7 --remove .env", "delete@secrets"));
        assert!(has("shred -vfz /dev/sda", "overwrite@device"));
        assert!(has("shred src/a.rs", "overwrite@source"));
        assert!(has("srm -rf ~/Documents", "delete@outside"));
        assert!(has("wipe -rf /", "delete@root"));
        assert!(has("sudo wipe -kq /dev/sdb", "overwrite@device"));
    }

    #[test]
    fn find_delete_and_reads() {
        assert_eq!(effects("find . -name '*.rs'"), vec!["read@project"]);
        assert_eq!(effects("find src -type f"), vec!["read@source"]);
        assert!(has("find / -delete", "delete@root"));
        assert!(has("find ~ -type f -delete", "delete@home"));
        assert!(has("find ~ -mindepth 1 -delete", "delete@home"));
        assert!(has("find . -delete", "delete@project"));
        assert!(has("find -L ~/ -delete", "delete@home"));
        assert!(has("sudo find /var/log -type f -delete", "delete@system"));
        // One pattern narrows what goes.
        assert!(has("find . -name '*.pyc' -delete", "delete@source"));
        assert!(!has("find . -name '*.pyc' -delete", "delete@project"));
        assert!(has(
            "find . -name '__pycache__' -type d -delete",
            "delete@outputs"
        ));
        assert!(has("find . -name .env -delete", "delete@secrets"));
        assert!(has("find ~ -name '*' -delete", "delete@home"));
        assert!(has("find . -path './build/*' -delete", "delete@outputs"));
        // Alternatives and negations are not narrowed.
        assert!(has("find . ! -name keep -delete", "delete@project"));
        // `-delete` acts in its own branch: what `-name b` selects.
        assert!(has("find . -name a -o -name b -delete", "delete@source"));
        assert!(has("find . -name a -o -delete", "delete@project"));
        // -exec commands are the parser's; find itself only reads.
        assert!(has("find ~ -exec rm -rf {} +", "delete@home"));
        assert!(has("find . -name '*.o' -exec rm {} \\;", "read@project"));
        assert!(has("find . -type f -fprint /tmp/list", "overwrite@temp"));
        assert!(has("find . -fprintf ~/.bashrc '%p'", "overwrite@dotfiles"));
    }

    #[test]
    fn fd_exec() {
        assert_eq!(effects("fd -e rs"), vec!["read@project"]);
        assert_eq!(effects("fd pattern src"), vec!["read@source"]);
        assert!(has("fd -t f -e pyc -X rm", "delete@source"));
        assert!(!has("fd -t f -e pyc -X rm", "delete@project"));
        assert!(has("fd -e log -x rm", "delete@source"));
        assert!(has("fd -H . -X rm", "delete@project"));
        assert!(
            has("fd -e bashrc . ~ -x rm", "delete@dotfiles")
                || has("fd -e bashrc . ~ -x rm", "delete@outside")
        );
        assert!(has("fd . ~ -x rm -rf {}", "delete@home"));
        assert!(has("fdfind -H . / --exec rm -rf", "delete@root"));
    }
}
