//! `fd [PATTERN] [PATH…]` and `fdfind`: a read of each path (`.` by default); `-x`/`-X`
//! run a command on each result, analysed with `{}` bound to what the search finds (the
//! search paths, narrowed by one extension or a plain-word pattern). Reached by name from
//! `commands/files.toml` (`analyser = "fd"`).

use super::super::super::getopt::{self, Args, Grammar};
use super::super::super::{Cmd, Sink};
use gate_spec::effect::Act;
use std::borrow::Cow;

/// `fd [PATTERN] [PATH…]`: a read of each path (`.` by default); `-x`/`-X` run a command on
/// each result (analysed with `{}` bound to the search paths).
pub(crate) fn fd(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
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
        // `help` is a pattern, not a subcommand.
        assert!(has("fd help ~ -x rm -rf", "delete@outside"));
    }
}
