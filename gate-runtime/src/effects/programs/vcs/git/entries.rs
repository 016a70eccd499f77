//! The analysers `commands/vcs.toml` names for git: each reads the global options into the
//! context its subcommand acts in (`-C`, `--work-tree`, `--git-dir`, `-c core.worktree`, `-c
//! alias.*`) and hands the subcommand's words to the code that reads them. `git_options`
//! runs before every git command (the `-c` settings that carry code); `git_alias` reads a
//! subcommand no form names.

use std::borrow::Cow;

use super::super::super::super::getopt::{self, Args};
use super::super::super::super::{Cmd, Sink};
use super::super::super::table;
use super::{config, config_key, refs, runs_code, shell_words, work, Ctx, GLOBAL};
use gate_spec::effect::{Act, Place};

/// The context the global options of `cmd` set up; what they carry themselves (code in a
/// `-c` setting) goes into `out`.
fn globals<'c>(cmd: &Cmd<'c, '_>, out: &mut Sink) -> Ctx<'c> {
    let g = getopt::read(&GLOBAL, cmd.args);
    let mut ctx = Ctx {
        stdin: cmd.stdin,
        ..Ctx::default()
    };
    for o in &g.opts {
        match (&*o.name, o.value.as_deref()) {
            ("C", Some(d)) if !d.is_empty() => ctx.dir = Some(ctx.at(d)),
            ("work-tree", Some(w)) => ctx.work_tree = Some(ctx.at(w)),
            ("git-dir", Some(d)) => {
                // The metadata is read where it is named (gate's own store among the places).
                ctx.git_dir = Some(ctx.at(d));
                out.path(Act::Read, &ctx.at(d));
            }
            ("c", Some(kv)) => config_key(&mut ctx, kv, out),
            ("config-env", Some(kv)) => {
                // `KEY=ENVVAR`: the value is not on the line. For a key whose value is code
                // or where code is found (`core.pager`, `core.hooksPath`), what runs is
                // unknown, and so is where it acts.
                // An alias's body is a command too (`alias.st=VAR`, then `git st`).
                let key = kv.split_once('=').map_or(kv, |(k, _)| k);
                if runs_code(key) || key.to_ascii_lowercase().starts_with("alias.") {
                    out.opaque(kv);
                    out.place(Act::Opaque, Place::Unknown);
                }
            }
            ("exec-path", Some(p)) => {
                out.opaque(p);
                out.loads(&ctx.at(p));
            }
            _ => {}
        }
    }
    ctx
}

/// The context alone (what the options carry was written by `git_options`).
fn context<'c>(cmd: &Cmd<'c, '_>) -> Ctx<'c> {
    globals(cmd, &mut Sink::default())
}

type Words<'r, 'a> = &'r [Cow<'a, str>];

/// Every git command: the code its `-c` and `--config-env` settings and `--exec-path` carry.
pub(crate) fn git_options(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    if cmd.program == "git" || cmd.program == "hub" {
        globals(cmd, out);
    }
}

/// Declares an analyser that hands the subcommand's words to `f` with the context.
macro_rules! with_context {
    ($($name:ident => $f:path),* $(,)?) => {$(
        pub(crate) fn $name(cmd: &Cmd<'_, '_>, _: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
            $f(&context(cmd), rest, out);
        }
    )*};
}

with_context! {
    git_reset => work::reset,
    git_clean => work::clean,
    git_checkout => work::checkout,
    git_switch => work::switch,
    git_restore => work::restore,
    git_stash => work::stash,
    git_checkout_index => work::checkout_index,
    git_rm => work::rm,
    git_mv => work::mv,
    git_apply => work::apply,
    git_rebase => refs::rebase,
    git_worktree => refs::worktree,
    git_clone => refs::clone,
    git_submodule => refs::submodule,
    git_config => config::config,
    git_init => refs::init,
    git_difftool => refs::difftool,
}

/// `git push …`: what it sends, and whether it rewrites or deletes remote history.
pub(crate) fn git_push(_: &Cmd<'_, '_>, _: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    refs::push(rest, out);
}

/// The operands are a command git runs here (`git bisect run CMD…`).
pub(crate) fn git_run(_: &Cmd<'_, '_>, _: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    if !rest.is_empty() {
        out.script(&shell_words(rest));
        out.program(&rest[0]);
    }
}

/// `git filter-repo`, `git-filter-repo`, `bfg`: every commit rewritten, unless filter-repo
/// only analyses or rehearses.
pub(crate) fn git_filter_repo(
    cmd: &Cmd<'_, '_>,
    _: &Args<'_>,
    rest: Words<'_, '_>,
    out: &mut Sink,
) {
    match cmd.program {
        "git" | "hub" => super::rewrite_all(&context(cmd), rest, false, out),
        program => super::rewrite_all(&Ctx::default(), cmd.args, program == "bfg", out),
    }
}

/// A subcommand no form names: an alias given with `-c` (its body read as the command it
/// stands for, or as shell code after `!`), else a `git-NAME` program or an alias from the
/// user's configuration, unknown.
pub(crate) fn git_alias(cmd: &Cmd<'_, '_>, _: &Args<'_>, ops: Words<'_, '_>, out: &mut Sink) {
    let Some((sub, args)) = ops.split_first() else {
        return;
    };
    let ctx = context(cmd);
    let found = ctx
        .aliases
        .iter()
        .rev()
        .find(|(n, _)| n.eq_ignore_ascii_case(sub));
    let Some((_, body)) = found else {
        // `git-NAME` on PATH: its words read as any unknown program's are.
        super::super::super::model_git_external(sub, args, out);
        out.none(Act::Exec);
        return;
    };
    if let Some(code) = body.strip_prefix('!') {
        let mut script = code.to_string();
        if !args.is_empty() {
            script.push(' ');
            script.push_str(&shell_words(args));
        }
        out.script(&script);
        return;
    }
    // The global options without this alias's definition (git refuses an alias that names
    // itself; each expansion drops one definition, so expanding ends), then the body, then
    // the words after the alias.
    let global = &cmd.args[..cmd.args.len() - ops.len()];
    let mut words: Vec<Cow<'_, str>> = Vec::with_capacity(cmd.args.len() + 4);
    let mut k = 0;
    while let Some(w) = global.get(k) {
        k += 1;
        let defines = |kv: &str| {
            kv.split_once('=').is_some_and(|(key, _)| {
                key.to_ascii_lowercase()
                    .strip_prefix("alias.")
                    .is_some_and(|n| n.eq_ignore_ascii_case(sub))
            })
        };
        if w == "-c" && global.get(k).is_some_and(|kv| defines(kv)) {
            k += 1;
            continue;
        }
        if w.strip_prefix("-c").is_some_and(defines) {
            continue;
        }
        words.push(w.clone());
    }
    words.extend(
        body.split_whitespace()
            .map(|w| Cow::Owned(w.trim_matches(['"', '\'']).to_string())),
    );
    words.extend(args.iter().cloned());
    let expanded = Cmd {
        args: &words,
        ..*cmd
    };
    if !table::run_forms(&expanded, out) {
        out.none(Act::Exec);
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::super::testing::{effects, has};

    /// `--config-env=KEY=VAR` takes the value from a variable the line does not show: for a
    /// key that runs code or says where code is found, what runs is unknown, and so is where
    /// it acts; other keys, and code keys with the value shown, are as `-c`.
    #[test]
    fn a_code_setting_from_the_environment_is_unknown_code() {
        for line in [
            "git --config-env=core.hooksPath=HOOKS commit -m x",
            "git --config-env=core.pager=X log",
            "git --config-env core.sshCommand=SSH fetch",
            "git --config-env=alias.st=CMD st",
            "git --config-env=diff.x.textconv=T diff",
        ] {
            assert!(has(line, "opaque@unknown"), "{line}: {:?}", effects(line));
        }
        for line in [
            "git --config-env=user.name=GIT_NAME commit -m x",
            "git --config-env=http.extraHeader=AUTH fetch",
            "git -c core.pager=less log",
        ] {
            assert!(!has(line, "opaque@unknown"), "{line}: {:?}", effects(line));
        }
    }
}
