//! git's configuration as a command sees it: `-c KEY=VALUE` for one command and `git config`
//! for the next ones. Keys whose value is a program or shell code git runs (hooks, ssh
//! command, pager, editor, filters, textconv, `!` aliases) make what runs unknown or are
//! analysed as the code they are; stored with `git config`, they also change what later
//! commands run (`cron`).

use std::borrow::Cow;

use super::super::super::super::getopt::{self, Grammar};
use super::super::super::super::Sink;
use super::{Ctx, Words};
use gate_spec::effect::{Act, Place};

/// Configuration keys whose value is a program git runs, or a place it runs programs from:
/// setting them for one command makes what runs unknown.
const RUNS_CODE_KEYS: &[&str] = &[
    "core.hookspath",
    "core.sshcommand",
    "core.fsmonitor",
    "core.gitproxy",
    "core.askpass",
    "uploadpack.packobjectshook",
    "include.path",
    "ssh.variant",
];

/// Of [`RUNS_CODE_KEYS`], those whose value is a path code is loaded from.
const LOADS_FROM_KEYS: &[&str] = &["core.hookspath", "core.fsmonitor", "include.path"];

/// Keys whose value is shell code git runs (`sh -c VALUE`): analysed as such.
const SHELL_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "sequence.editor",
    "diff.external",
    "gpg.program",
    "interactive.difffilter",
];

/// Key endings (`filter.x.clean`, `diff.x.textconv`, …) whose value is shell code.
const SHELL_KEY_ENDINGS: &[&str] = &[
    ".clean",
    ".smudge",
    ".process",
    ".textconv",
    ".command",
    ".driver",
    ".program",
    ".cmd",
    ".uploadpack",
    ".receivepack",
    ".proxycommand",
];

pub(super) fn runs_code(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    RUNS_CODE_KEYS.contains(&k.as_str())
        || SHELL_KEYS.contains(&k.as_str())
        || SHELL_KEY_ENDINGS.iter().any(|e| k.ends_with(e))
        || k.starts_with("pager.")
        || k.starts_with("includeif.")
}

/// Pagers and editors that only show or edit what git hands them (`cat`, `less -R`,
/// `vim`), with no shell syntax around them.
pub(crate) const VIEWERS: &[&str] = &[
    "",
    "cat",
    "less",
    "more",
    "most",
    "delta",
    "diff-so-fancy",
    "bat",
    "vim",
    "vi",
    "nvim",
    "nano",
    "emacs",
    "code",
    "subl",
    "true",
    "false",
    ":",
];

fn is_plain_viewer(code: &str) -> bool {
    let first = code.split_whitespace().next().unwrap_or("");
    VIEWERS.contains(&first) && !code.contains([';', '|', '&', '$', '`', '<', '>', '\n'])
}

/// One `-c KEY=VALUE`.
pub(super) fn config_key(ctx: &mut Ctx, kv: &str, out: &mut Sink) {
    let (key, value) = kv.split_once('=').unwrap_or((kv, "true"));
    let k = key.to_ascii_lowercase();
    if let Some(name) = k.strip_prefix("alias.") {
        ctx.aliases.push((name.to_string(), value.to_string()));
    } else if k == "core.worktree" {
        ctx.work_tree = Some(ctx.at(value));
    } else if RUNS_CODE_KEYS.contains(&k.as_str()) || k.starts_with("includeif.") {
        if !matches!(value, "" | "false" | "0" | "no" | "off") || k == "core.hookspath" {
            out.opaque(kv);
            // A directory or file of code (hooks, an included configuration, a monitor
            // program): from a temporary or outside place it is foreign code.
            if LOADS_FROM_KEYS.contains(&k.as_str()) || k.starts_with("includeif.") {
                out.loads(value);
            } else {
                // A program by its path (`gpg.program=/tmp/g`): code from where it lies.
                out.program(value);
            }
        }
    } else if SHELL_KEYS.contains(&k.as_str())
        || SHELL_KEY_ENDINGS.iter().any(|e| k.ends_with(e))
        || k.starts_with("pager.")
    {
        // A program run through the shell: analysed as the code it is.
        let code = value.strip_prefix('!').unwrap_or(value);
        if !is_plain_viewer(code) {
            out.script(code);
            out.program(code);
        }
    } else if k == "credential.helper" {
        // `!CODE` is shell text; a helper by its path (`/tmp/c`) is run as it is.
        let code = value.strip_prefix('!').unwrap_or(value);
        if code.len() < value.len() {
            out.script(code);
        }
        out.program(code);
    }
}

const CONFIG: Grammar = Grammar {
    short: "lez",
    short_value: "f",
    long: &[
        "global",
        "system",
        "local",
        "worktree",
        "list",
        "get",
        "get-all",
        "get-regexp",
        "get-urlmatch",
        "get-color",
        "get-colorbool",
        "replace-all",
        "add",
        "unset",
        "unset-all",
        "rename-section",
        "remove-section",
        "edit",
        "show-origin",
        "show-scope",
        "name-only",
        "null",
        "bool",
        "int",
        "bool-or-int",
        "path",
        "expiry-date",
        "includes",
        "no-includes",
        "fixed-value",
        "all",
        "append",
    ],
    long_value: &["file", "blob", "type", "default", "comment", "value"],
    posix: false,
};

pub(super) fn config(ctx: &Ctx, args: Words<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&CONFIG, args);
    let file = if a.has("global") {
        "~/.gitconfig".to_string()
    } else if a.has("system") {
        "/etc/gitconfig".to_string()
    } else if let Some(f) = a.value("f").or(a.value("file")) {
        ctx.at(f)
    } else if ctx.git_dir.is_some() {
        String::new()
    } else {
        ctx.at(".git/config")
    };
    let write = |out: &mut Sink| {
        if file.is_empty() {
            out.place(Act::Write, Place::Vcs);
        } else {
            out.path(Act::Write, &file);
        }
    };
    let ops = &a.operands;
    // The subcommand syntax (`git config set K V`).
    let (verb, ops): (&str, &[Cow<'_, str>]) = match ops.first().map(|o| &**o) {
        Some(
            v @ ("get" | "list" | "set" | "unset" | "edit" | "rename-section" | "remove-section"),
        ) => (v, &ops[1..]),
        _ => ("", &ops[..]),
    };
    let reads = a.any(&[
        "l",
        "list",
        "get",
        "get-all",
        "get-regexp",
        "get-urlmatch",
        "get-color",
        "get-colorbool",
    ]) || matches!(verb, "get" | "list");
    if reads {
        return;
    }
    let edits = a.any(&[
        "e",
        "edit",
        "unset",
        "unset-all",
        "rename-section",
        "remove-section",
    ]) || matches!(verb, "edit" | "unset" | "rename-section" | "remove-section");
    if edits {
        write(out);
        return;
    }
    if verb == "set" || ops.len() >= 2 || a.any(&["add", "replace-all", "append"]) {
        write(out);
        if let (Some(key), Some(value)) = (ops.first(), ops.get(1).or(ops.last())) {
            // Stored, a key that names code git runs (or where it fetches code from) changes
            // what later commands run.
            let k = key.to_ascii_lowercase();
            let later = (runs_code(&k) && !is_plain_viewer(value))
                || k == "credential.helper"
                || redirects_elsewhere(key, value)
                || (k.starts_with("alias.") && value.starts_with('!'));
            if later {
                if file.is_empty() {
                    out.place(Act::Cron, Place::Vcs);
                } else {
                    out.path(Act::Cron, &file);
                }
            }
            let mut scratch = Ctx::default();
            config_key(&mut scratch, &format!("{key}={value}"), out);
            if let Some((_, body)) = scratch.aliases.first() {
                if body.starts_with('!') {
                    out.opaque(body);
                }
            }
        }
    }
}

/// Whether `url.BASE.insteadOf PREFIX` (or `pushInsteadOf`) sends URLs to another host:
/// a rewrite between a host's HTTPS and SSH addresses (`url.git@github.com:.insteadOf
/// https://github.com/`) keeps them where they were going.
fn redirects_elsewhere(key: &str, prefix: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix("url.") else {
        return false;
    };
    let Some(base_len) = [".insteadof", ".pushinsteadof"]
        .iter()
        .find_map(|s| rest.strip_suffix(s).map(str::len))
    else {
        return false;
    };
    let base = &key["url.".len().."url.".len() + base_len];
    match (url_host(base), url_host(prefix)) {
        (Some(a), Some(b)) => !a.eq_ignore_ascii_case(b),
        _ => true,
    }
}

/// The host of a git URL or URL prefix (`https://h/…`, `ssh://u@h:22/…`, `u@h:path`).
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let host = rest.split(['/', ':']).next()?;
    (!host.is_empty() && host.contains('.')).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::super::super::super::testing::{effects, has};

    #[test]
    fn a_url_rewrite_to_another_host_is_kept_for_later_commands() {
        for line in [
            "git config --global url.https://evil.example/.insteadOf https://github.com/",
            "git config url.git@evil.example:x/.pushInsteadOf git@github.com:",
            "git config --global url.\"$MIRROR\".insteadOf https://github.com/",
        ] {
            assert!(
                has(line, "cron@dotfiles") || has(line, "cron@vcs"),
                "{line}: {:?}",
                effects(line)
            );
        }
        for line in [
            "git config --global url.'git@github.com:'.insteadOf 'https://github.com/'",
            "git config --global url.ssh://git@gitlab.com/.insteadOf https://gitlab.com/",
            "git config url.https://github.com/.insteadOf git@github.com:",
        ] {
            assert!(
                !has(line, "cron@dotfiles") && !has(line, "cron@vcs"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn config_flags_and_aliases() {
        assert!(has("git -c alias.x='!rm -rf ~' x", "delete@home"));
        assert!(has("git -c 'alias.nuke=!rm -rf /' nuke", "delete@root"));
        assert!(has("git -c alias.wipe='clean -fdx' wipe", "delete@project"));
        assert!(has(
            "git -c alias.f='push --force' f origin",
            "history@remote"
        ));
        assert!(!has("git -c alias.x='!rm -rf ~' status", "delete@home"));
        assert!(has(
            "git -c core.hooksPath=/tmp/h commit -m x",
            "opaque@none"
        ));
        assert!(has(
            "git -c core.sshCommand='ssh -i k' fetch",
            "opaque@none"
        ));
        assert!(has("git -c core.fsmonitor=./x.sh status", "opaque@none"));
        assert!(has("git -c core.pager='rm -rf ~' log", "delete@home"));
        assert!(has("git -c diff.x.textconv='rm -rf /' diff", "delete@root"));
        assert!(has("git --exec-path=/tmp/x status", "opaque@none"));
        assert!(has(
            "git config --global core.hooksPath .githooks",
            "write@dotfiles"
        ));
        assert!(has(
            "git config --global core.hooksPath .githooks",
            "opaque@none"
        ));
        assert!(has("git config core.pager 'rm -rf ~'", "delete@home"));
        assert!(has("git config alias.x '!rm -rf /'", "opaque@none"));
        assert!(has("git config --unset user.name", "write@vcs"));
        assert!(has("git config --system x.y z", "write@system"));
        assert!(has("git rebase -x 'rm -rf ~' main", "delete@home"));
        assert!(has("git rebase --exec='rm -rf ~' main", "delete@home"));
        assert!(has(
            "git submodule foreach 'git clean -fdx'",
            "delete@project"
        ));
        assert!(has(
            "git submodule foreach --recursive rm -rf build",
            "delete@outputs"
        ));
        assert!(has("git bisect run rm -rf ~", "delete@home"));
        assert_eq!(effects("git frobnicate"), vec!["exec@none"]);
        // Code loaded from a temporary or outside place is foreign; the project's is not.
        for line in [
            "git -c core.hooksPath=/tmp/h commit -m x",
            "git -c include.path=/tmp/evil.cfg log",
            "git --exec-path=/tmp/x status",
        ] {
            assert!(has(line, "opaque@temp"), "{line}");
        }
        assert!(!has(
            "git -c core.hooksPath=.githooks commit -m x",
            "opaque@temp"
        ));
    }
}
