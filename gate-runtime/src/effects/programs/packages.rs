//! Package managers read rather than matched: the node managers (their scripts and
//! lifecycle run), cargo (gate's own install), the python tools and pip (runners run a
//! command, a package source set in their configuration) and image pushes.
//!
//! Publishing is `publish`, withdrawing (`unpublish`, `deprecate`, `yank`, `dist-tag rm`)
//! `unpublish`; a dry run is neither. Installs are a `fetch` (with a
//! `write` of `node_modules` for the node managers). Package runners (`npx`, `pnpm dlx`,
//! `bunx`, `uvx`, `uv run`, `poetry run`, `pipx run`) run the command they are given: it
//! is analysed in turn. The registries, release tools and build tools whose forms are words
//! (twine, gem, vsce, ovsx, composer, lerna, changesets, maturin, goreleaser,
//! semantic-release, release-it, np, brew, maven, gradle, dotnet, nuget) are data:
//! `commands/packages.toml`; `helm push` is in
//! `commands/orchestration.toml`.

use std::borrow::Cow;

use super::super::{Cmd, How, Runs, Sink};
use gate_spec::effect::{Act, Place};

type Words<'c, 'a> = &'c [Cow<'a, str>];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    let program = cmd.program;
    // `pip3`, `pip3.12`.
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match base {
        "npm" | "pnpm" | "yarn" | "bun" => node(program, args, out),
        "npx" | "bunx" | "pnpx" => run(args, &["-p", "--package", "-c", "--call"], out),
        "uvx" => run(args, &["--from", "--with", "--python"], out),
        "cargo" => cargo(args, out),
        "poetry" | "uv" | "hatch" | "flit" | "pdm" | "pipx" | "rye" => python_tool(base, args, out),
        "pip" | "pipenv" => match first_word(args) {
            Some("install" | "download" | "wheel" | "sync") => {
                out.place(Act::Fetch, Place::Remote);
                for r in values(args, &["-r", "--requirement", "-c", "--constraint"]) {
                    out.path(Act::Read, r);
                }
            }
            Some("uninstall" | "remove") => out.path(Act::Write, ".venv"),
            Some("run") => run(&args[1..], &[], out),
            Some("config") => {
                if let Some("set" | "unset" | "edit") = first_word(&args[1..]) {
                    out.path(Act::Write, "~/.config/pip/pip.conf");
                    config_source(&args[1..], "~/.config/pip/pip.conf", out);
                }
            }
            _ => {}
        },
        "docker" | "podman" | "buildah" | "nerdctl" => return image_push(args, out),
        _ => return false,
    }
    true
}

fn first_word<'c>(args: Words<'c, '_>) -> Option<&'c str> {
    args.iter().map(|a| &**a).find(|a| !a.starts_with('-'))
}

fn values<'c, 'n>(args: Words<'c, '_>, names: &'n [&'n str]) -> impl Iterator<Item = &'c str> + 'n
where
    'c: 'n,
{
    args.windows(2)
        .filter(move |w| names.contains(&&*w[0]))
        .map(|w| &*w[1])
}

fn dry(args: Words<'_, '_>) -> bool {
    args.iter().any(|a| {
        matches!(
            &**a,
            "--dry-run" | "-n" | "--dryrun" | "--dry_run" | "--dry-run=true"
        )
    })
}

fn publish(args: Words<'_, '_>, out: &mut Sink) {
    if !dry(args) {
        out.none(Act::Publish);
    }
}

fn withdraw(args: Words<'_, '_>, out: &mut Sink) {
    if !dry(args) {
        out.none(Act::Unpublish);
    }
}

/// Words joined back into shell code, each quoted when it needs to be.
fn shell_words(words: &[&str]) -> String {
    let mut s = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        if w.is_empty()
            || w.contains(|c: char| c.is_whitespace() || "'\"\\$`;&|<>(){}*?".contains(c))
        {
            s.push('\'');
            s.push_str(&w.replace('\'', "'\\''"));
            s.push('\'');
        } else {
            s.push_str(w);
        }
    }
    s
}

/// A runner's command: the words after its own options (`valued` take a value), analysed as
/// shell code.
fn run(args: Words<'_, '_>, valued: &[&str], out: &mut Sink) {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        if a == "--" {
            k += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        k += if valued.contains(&&**a) { 2 } else { 1 };
    }
    let rest: Vec<&str> = args.iter().skip(k).map(|a| &**a).collect();
    if rest.is_empty() {
        return;
    }
    out.script(&shell_words(&rest));
}

/// npm, pnpm, yarn and bun.
fn node(program: &str, args: Words<'_, '_>, out: &mut Sink) {
    let mut k = 0;
    // Where the package is (`--prefix DIR`, `-C DIR`, `--cwd DIR`), and whether the command
    // runs in other packages of a workspace (`-w X`, `--filter X`, `-r`) than that one.
    let mut dir: Option<String> = None;
    let mut elsewhere = false;
    let mut option = |a: &str, value: Option<&str>| match a {
        "--prefix" | "-C" | "--dir" | "--cwd" => dir = value.map(str::to_string),
        "--filter" | "-F" | "-w" | "--workspace" | "--workspaces" | "-ws" | "-r"
        | "--recursive" | "--all" => elsewhere = true,
        _ => {}
    };
    // Leading options (`--prefix DIR`, `-w`, `--filter X`, `-C DIR`).
    while let Some(a) = args.get(k) {
        if !a.starts_with('-') {
            break;
        }
        let valued = matches!(
            &**a,
            "--prefix" | "--filter" | "-F" | "-C" | "--dir" | "--cwd" | "-w" | "--workspace"
        );
        option(a, args.get(k + 1).map(|v| &**v).filter(|_| valued));
        if let Some((name, value)) = a.split_once('=') {
            option(name, Some(value));
        }
        k += if valued { 2 } else { 1 };
    }
    let Some(sub) = args.get(k).map(|a| &**a) else {
        if program == "yarn" {
            out.place(Act::Fetch, Place::Remote);
            out.path(Act::Write, "node_modules");
            lifecycle(dir, elsewhere, out);
        }
        return;
    };
    // npm runs the command an unambiguous abbreviation names (`npm publ`, `npm unp`).
    let sub = if program == "npm" {
        npm_command(sub)
    } else {
        sub
    };
    let rest = &args[k + 1..];
    // Options after the subcommand say the same (`npm run build --prefix web`); the
    // script's own words come after `--`.
    let mut j = 0;
    while let Some(a) = rest.get(j) {
        if a == "--" {
            break;
        }
        let valued = matches!(
            &**a,
            "--prefix" | "--filter" | "-F" | "-C" | "--dir" | "--cwd" | "-w" | "--workspace"
        );
        option(a, rest.get(j + 1).map(|v| &**v).filter(|_| valued));
        if let Some((name, value)) = a.split_once('=') {
            option(name, Some(value));
        }
        j += if valued { 2 } else { 1 };
    }
    let run_scripts = |names: Vec<String>, out: &mut Sink| {
        if elsewhere {
            // Scripts of other packages of the workspace: not read here.
            out.opaque("");
        } else {
            out.runs(Runs::Scripts {
                dir: dir.clone(),
                names,
            });
        }
    };
    match sub {
        "publish" => publish(rest, out),
        "unpublish" | "deprecate" | "undeprecate" => withdraw(rest, out),
        "dist-tag" | "dist-tags" => match first_word(rest) {
            Some("rm" | "remove") => withdraw(rest, out),
            Some("add") => publish(rest, out),
            _ => {}
        },
        "npm" if program == "yarn" => match first_word(rest) {
            Some("publish") => publish(rest, out),
            Some("tag") if rest.iter().any(|a| a == "remove") => withdraw(rest, out),
            _ => {}
        },
        "install" | "i" | "add" | "ci" | "update" | "up" | "upgrade" | "remove" | "rm"
        | "uninstall" | "un" | "dedupe" | "prune" | "link" | "rebuild" | "import" => {
            out.place(Act::Fetch, Place::Remote);
            let global = rest.iter().any(|a| a == "-g" || a == "--global");
            if !global {
                out.path(Act::Write, "node_modules");
            }
            // An install of the package itself (no package named) runs its own lifecycle
            // scripts (`preinstall`, `install`, `postinstall`, `prepare`).
            let named = rest.iter().any(|a| !a.starts_with('-'));
            let installs = matches!(sub, "install" | "i" | "ci" | "rebuild");
            if installs && !named && !global && !rest.iter().any(|a| a == "--ignore-scripts") {
                run_scripts(lifecycle_names(), out);
            }
        }
        "exec" | "x" | "dlx" => run(rest, &["-p", "--package", "-c", "--call"], out),
        "ls" | "list" | "view" | "info" | "show" | "outdated" | "audit" | "why" | "explain"
        | "search" | "whoami" | "ping" | "doctor" | "help" | "--version" | "-v" | "version"
            if !rest.iter().any(|a| a == "fix") =>
        {
            if matches!(
                sub,
                "view" | "info" | "show" | "outdated" | "audit" | "search"
            ) {
                out.place(Act::Fetch, Place::Remote);
            }
        }
        "audit" => {
            out.place(Act::Fetch, Place::Remote);
            out.path(Act::Write, "node_modules");
        }
        "login" | "adduser" | "logout" => out.path(Act::Write, "~/.npmrc"),
        "config" | "c" | "set" => match first_word(rest) {
            Some("get" | "list" | "ls") | None => {}
            _ => {
                out.path(Act::Write, "~/.npmrc");
                config_source(rest, "~/.npmrc", out);
            }
        },
        "owner" | "access" | "team" | "token" | "org" | "star" | "unstar" => {
            out.place(Act::Send, Place::Remote)
        }
        // A script of the package's `package.json`.
        "run" | "run-script" | "rum" | "urn" => {
            out.none(Act::Exec);
            match first_word(rest) {
                // `bun run FILE` runs the file when it names one.
                Some(name) if program == "bun" && is_file_like(name) => {
                    out.path(Act::Read, name);
                    out.runs(Runs::File {
                        path: name.to_string(),
                        how: How::Lang(super::Lang::Js),
                        args: Vec::new(),
                        optional: false,
                    });
                }
                Some(name) => run_scripts(vec![name.to_string()], out),
                None => {}
            }
        }
        "test" | "t" | "tst" | "start" | "stop" | "restart"
            if program != "bun" || sub != "test" =>
        {
            out.none(Act::Exec);
            let name = match sub {
                "t" | "tst" => "test",
                s => s,
            };
            let mut names = vec![name.to_string()];
            if name == "restart" {
                names.extend(["stop".to_string(), "start".to_string()]);
            }
            run_scripts(names, out);
        }
        // yarn, pnpm and bun run a script by its name alone (`yarn build`).
        name if !(program == "npm"
            || BUILTINS.contains(&name)
            || name.starts_with('-')
            || program == "bun" && BUN_BUILTINS.contains(&name)) =>
        {
            out.none(Act::Exec);
            run_scripts(vec![name.to_string()], out);
        }
        _ => out.none(Act::Exec),
    }
}

/// The package manager commands that are no script name (`yarn build` runs a script,
/// `yarn why` does not); bun's own also include `build`, `test`, `pm` and `repl`.
const BUILTINS: &[&str] = &[
    "init",
    "create",
    "pack",
    "cache",
    "bin",
    "global",
    "workspace",
    "workspaces",
    "plugin",
    "set",
    "version",
    "versions",
    "upgrade-interactive",
    "licenses",
    "outdated",
    "owner",
    "team",
    "config",
    "patch",
    "patch-commit",
    "store",
    "env",
    "setup",
    "server",
    "deploy",
    "fetch",
    "import",
    "node",
    "policies",
    "generate-lock-entry",
    "check",
    "autoclean",
    "tag",
    "unlink",
    "unplug",
    "constraints",
    "dedupe",
    "explain",
    "npm",
    "stage",
    "completions",
    "root",
    "recursive",
    "help",
    "info",
    "why",
    "list",
    "login",
    "logout",
    "access",
];
const BUN_BUILTINS: &[&str] = &["build", "test", "pm", "repl", "upgrade", "init", "create"];

/// Whether a word `bun run` is given names a file rather than a script (`index.ts`,
/// `./x.js`).
fn is_file_like(word: &str) -> bool {
    word.contains('/')
        || [".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts"]
            .iter()
            .any(|e| word.ends_with(e))
}

/// The scripts an install of the package itself runs (each with its `pre`/`post`).
fn lifecycle_names() -> Vec<String> {
    ["install", "prepare", "prepublish"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// `yarn` alone: an install of the package itself.
fn lifecycle(dir: Option<String>, elsewhere: bool, out: &mut Sink) {
    if elsewhere {
        out.opaque("");
    } else {
        out.runs(Runs::Scripts {
            dir,
            names: lifecycle_names(),
        });
    }
}

/// `… config set KEY VALUE` (or `KEY=VALUE`): a key that says where packages come from is
/// `cron` at the configuration file, as the same line written into it is.
fn config_source(args: Words<'_, '_>, file: &str, out: &mut Sink) {
    let words: Vec<&str> = args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-'))
        .skip_while(|w| matches!(*w, "set" | "unset" | "edit"))
        .collect();
    let line = match words.as_slice() {
        [kv] if kv.contains('=') => kv.to_string(),
        [key, value, ..] => format!("{key}={value}"),
        [key] => format!("{key}="),
        [] => return,
    };
    if super::super::later::names_package_source(&line) {
        out.path(Act::Cron, file);
    }
}

fn cargo(args: Words<'_, '_>, out: &mut Sink) {
    let mut k = 0;
    while args
        .get(k)
        .is_some_and(|a| a.starts_with('-') || a.starts_with('+'))
    {
        k += if matches!(&*args[k], "-C" | "--config" | "-Z") {
            2
        } else {
            1
        };
    }
    let Some(sub) = args.get(k).map(|a| &**a) else {
        return;
    };
    let rest = &args[k + 1..];
    match sub {
        "publish" => publish(rest, out),
        "yank" => {
            if rest.iter().any(|a| a == "--undo") {
                out.place(Act::Send, Place::Remote);
            } else {
                withdraw(rest, out);
            }
        }
        "owner" => out.place(Act::Send, Place::Remote),
        "install" | "fetch" | "search" | "info" | "login" => {
            out.place(Act::Fetch, Place::Remote);
            if sub == "login" {
                out.path(Act::Write, "~/.cargo/credentials.toml");
            }
            // Installing gate (`--path gate-cli`, `--git URL --bin gate`, `gate-cli`) puts
            // another gate binary where the hooks may run it: a change to gate.
            if sub == "install" && names_gate(rest) {
                out.place(Act::Write, Place::Gate);
            }
        }
        "uninstall" => {
            if names_gate(rest) {
                out.place(Act::Write, Place::Gate);
            } else {
                out.none(Act::Exec);
            }
        }
        "update" | "generate-lockfile" => {
            out.place(Act::Fetch, Place::Remote);
            out.path(Act::Write, "Cargo.lock");
        }
        "add" | "remove" | "rm" => {
            out.place(Act::Fetch, Place::Remote);
            out.path(Act::Write, "Cargo.toml");
        }
        "clean" => out.path(Act::Delete, "target"),
        "tree" | "metadata" | "locate-project" | "pkgid" | "version" | "--version" | "-V"
        | "help" | "verify-project" | "read-manifest" => {}
        _ => out.none(Act::Exec),
    }
}

/// Whether a `cargo install`/`uninstall` names gate: a crate, path, repository or binary
/// called `gate` or `gate-cli` (`--path ./gate-cli`, `--git https://…/gate.git --bin gate`).
fn names_gate(args: Words<'_, '_>) -> bool {
    args.iter().any(|a| {
        let value = a.split_once('=').map_or(&**a, |(_, v)| v);
        let name = value
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(value);
        let name = name.strip_suffix(".git").unwrap_or(name);
        let name = name.split('@').next().unwrap_or(name);
        matches!(name, "gate" | "gate-cli" | "gate.exe")
    })
}

fn python_tool(tool: &str, args: Words<'_, '_>, out: &mut Sink) {
    let mut k = 0;
    while args.get(k).is_some_and(|a| a.starts_with('-')) {
        k += if matches!(
            &*args[k],
            "--directory" | "--project" | "-C" | "--python" | "-p"
        ) {
            2
        } else {
            1
        };
    }
    let Some(sub) = args.get(k).map(|a| &**a) else {
        return;
    };
    let rest = &args[k + 1..];
    match (tool, sub) {
        (_, "publish") => publish(rest, out),
        ("hatch" | "flit" | "pdm", "upload") => publish(rest, out),
        ("uv", "pip") => match first_word(rest) {
            Some("install" | "sync" | "compile") => out.place(Act::Fetch, Place::Remote),
            Some("uninstall") => out.path(Act::Write, ".venv"),
            _ => {}
        },
        ("uv" | "poetry" | "pdm" | "rye" | "hatch", "run") => {
            run(
                rest,
                &[
                    "--with",
                    "--python",
                    "-p",
                    "--env-file",
                    "--from",
                    "--package",
                    "-e",
                    "--env",
                ],
                out,
            );
            for f in values(rest, &["--env-file"]) {
                out.path(Act::Read, f);
            }
        }
        ("uv", "tool") if first_word(rest) == Some("run") => {
            let at = rest.iter().position(|a| a == "run").map_or(0, |i| i + 1);
            run(&rest[at..], &["--from", "--with", "--python"], out);
        }
        ("pipx", "run") => run(rest, &["--spec", "--python", "--pip-args"], out),
        (
            _,
            "install" | "add" | "sync" | "lock" | "update" | "upgrade" | "remove" | "inject"
            | "reinstall" | "venv" | "init" | "new" | "build",
        ) => {
            out.place(Act::Fetch, Place::Remote);
            if tool != "pipx" {
                out.path(Act::Write, ".venv");
            }
        }
        (
            _,
            "show" | "list" | "tree" | "check" | "version" | "--version" | "help" | "env"
            | "config" | "search" | "export",
        ) => {}
        ("hatch", "shell") | ("poetry", "shell") => {}
        _ => out.none(Act::Exec),
    }
}

/// `docker push`, `docker image push`, `docker buildx build --push` (and podman, buildah,
/// nerdctl): publish. Other container commands are the cloud family's.
fn image_push(args: Words<'_, '_>, out: &mut Sink) -> bool {
    let words: Vec<&str> = args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-'))
        .take(2)
        .collect();
    let pushes = match words.as_slice() {
        ["push", ..] | ["image" | "manifest", "push", ..] => true,
        ["buildx" | "build", ..] | ["image", "build", ..] | ["bud", ..] => args.iter().any(|a| {
            a == "--push" || a.starts_with("--output=type=registry") || a.contains("push=true")
        }),
        ["compose", "push", ..] => true,
        _ => false,
    };
    if pushes {
        if !dry(args) {
            out.none(Act::Publish);
        }
        if words.first().is_some_and(|w| *w != "push") && words.get(1) != Some(&"push") {
            // A build that runs its Dockerfile's steps first.
            out.none(Act::Exec);
        }
    }
    pushes
}

/// npm's commands, as `npm help` lists them: a word that is a prefix of exactly one of them
/// (and no command or alias itself) is that command, as npm's own abbreviation reading does.
const NPM_COMMANDS: &[&str] = &[
    "access",
    "adduser",
    "audit",
    "bugs",
    "cache",
    "ci",
    "completion",
    "config",
    "dedupe",
    "deprecate",
    "diff",
    "dist-tag",
    "docs",
    "doctor",
    "edit",
    "exec",
    "explain",
    "explore",
    "find-dupes",
    "fund",
    "get",
    "help",
    "help-search",
    "hook",
    "init",
    "install",
    "install-ci-test",
    "install-test",
    "link",
    "ll",
    "login",
    "logout",
    "ls",
    "org",
    "outdated",
    "owner",
    "pack",
    "ping",
    "pkg",
    "prefix",
    "profile",
    "prune",
    "publish",
    "query",
    "rebuild",
    "repo",
    "restart",
    "root",
    "run-script",
    "sbom",
    "search",
    "set",
    "shrinkwrap",
    "star",
    "stars",
    "start",
    "stop",
    "team",
    "test",
    "token",
    "undeprecate",
    "uninstall",
    "unpublish",
    "unstar",
    "update",
    "version",
    "view",
    "whoami",
];

/// npm's aliases of its commands (`npm i`, `npm rm`, `npm run`), which are never abbreviations.
const NPM_ALIASES: &[&str] = &[
    "i",
    "in",
    "ins",
    "inst",
    "insta",
    "instal",
    "isnt",
    "isnta",
    "isntal",
    "isntall",
    "add",
    "un",
    "unlink",
    "remove",
    "rm",
    "r",
    "run",
    "rum",
    "urn",
    "t",
    "tst",
    "c",
    "x",
    "ln",
    "la",
    "list",
    "up",
    "upgrade",
    "udpate",
    "author",
    "home",
    "issues",
    "info",
    "show",
    "v",
    "s",
    "se",
    "find",
    "it",
    "cit",
    "clean-install",
    "clean-install-test",
    "sit",
    "ddp",
    "hlep",
    "create",
    "innit",
    "login",
    "logout",
    "adduser",
    "add-user",
    "verison",
    "why",
    "dist-tags",
];

/// The npm command `word` names: itself, or the one command it is an unambiguous prefix of.
fn npm_command(word: &str) -> &str {
    if word.starts_with('-') || NPM_COMMANDS.contains(&word) || NPM_ALIASES.contains(&word) {
        return word;
    }
    let mut found = NPM_COMMANDS.iter().filter(|c| c.starts_with(word));
    match (found.next(), found.next()) {
        (Some(only), None) => only,
        _ => word,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn installing_gate_is_a_change_to_gate() {
        for line in [
            "cargo install --path gate-cli",
            "cargo install --path ./gate-cli/ --force",
            "cargo install --git https://github.com/x/gate --bin gate",
            "cargo install --git https://example.com/x/gate.git",
            "cargo install gate-cli",
            "cargo install --root /tmp/x --path gate-cli",
            "cargo uninstall gate-cli",
            "cargo uninstall gate",
        ] {
            assert!(has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
        for line in [
            "cargo install ripgrep",
            "cargo install --path tools/xtask",
            "cargo uninstall ripgrep",
            "cargo build -p gate-cli",
        ] {
            assert!(!has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn release_tools_publish() {
        for line in [
            "lerna publish from-package --yes",
            "npx changeset publish",
            "npx semantic-release --no-ci",
            "maturin publish",
            "goreleaser release --clean",
            "npx release-it --ci",
            "npx np 2.0.0",
        ] {
            assert!(has(line, "publish@none"), "{line}: {:?}", effects(line));
        }
        for line in [
            "goreleaser release --snapshot --clean",
            "npx semantic-release --dry-run",
            "lerna run build",
            "npx changeset version",
            "maturin develop",
        ] {
            assert!(!has(line, "publish@none"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn where_packages_come_from_is_code_that_runs_later() {
        for line in [
            "npm config set registry https://evil.example",
            "npm config set @corp:registry https://evil.example",
            "npm config set registry=https://evil.example",
            "pnpm config set registry https://evil.example",
            "yarn config set registry https://evil.example",
            "npm set strict-ssl false",
            "pip config set global.index-url https://evil.example/simple",
            "pip3 config set global.extra-index-url https://evil.example/simple",
            "echo 'registry=https://evil.example' >> ~/.npmrc",
            "echo 'registry=https://evil.example' > .npmrc",
            "printf '[global]\\nindex-url = https://evil.example/simple\\n' > ~/.config/pip/pip.conf",
            "echo 'registry=https://evil.example' | tee -a ~/.npmrc",
        ] {
            assert!(has(line, "cron@secrets") || has(line, "cron@dotfiles") || has(line, "cron@source"), "{line}: {:?}", effects(line));
        }
        for line in [
            "npm config set fund false",
            "npm config get registry",
            "pip config list",
            "pip config set global.timeout 60",
            "echo 'save-exact=true' >> .npmrc",
            "echo 'registry=https://x' > notes.txt",
        ] {
            let e = effects(line);
            assert!(e.iter().all(|e| !e.starts_with("cron@")), "{line}: {e:?}");
        }
    }

    #[test]
    fn publishing_every_ecosystem() {
        for line in [
            "npm publish",
            "npm publish --access public",
            "pnpm publish -r",
            "yarn publish",
            "yarn npm publish",
            "bun publish",
            "npm --prefix pkg publish",
            "cargo publish",
            "cargo publish -p gate-spec",
            "cargo +nightly publish",
            "twine upload dist/*",
            "poetry publish --build",
            "uv publish",
            "hatch publish",
            "flit publish",
            "pdm publish",
            "gem push x-1.0.gem",
            "docker push org/app:1",
            "podman push org/app",
            "docker image push org/app",
            "docker buildx build --push -t org/app .",
            "mvn deploy",
            "mvn -B clean deploy -DskipTests",
            "mvn release:perform",
            "./gradlew publish",
            "gradle publishToMavenCentral",
            "./gradlew :lib:publish",
            "gradle uploadArchives",
            "dotnet nuget push pkg.nupkg -k x",
            "nuget push pkg.nupkg",
            "vsce publish",
            "ovsx publish",
            "helm push chart.tgz oci://r",
            "npm dist-tag add pkg@1 latest",
            "sudo npm publish",
            "env NPM_TOKEN=x npm publish",
            "bash -c 'cargo publish'",
        ] {
            assert!(has(line, "publish@none"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn withdrawing() {
        for line in [
            "npm unpublish pkg@1.0.0",
            "npm unpublish pkg --force",
            "npm deprecate pkg@1 'no'",
            "npm dist-tag rm pkg beta",
            "pnpm unpublish pkg",
            "yarn npm tag remove pkg beta",
            "cargo yank --version 1.0.0 gate",
            "cargo yank gate@1.0.0",
            "gem yank x -v 1.0",
            "dotnet nuget delete pkg 1.0",
            "vsce unpublish pub.ext",
        ] {
            assert!(has(line, "unpublish@none"), "{line}: {:?}", effects(line));
        }
        assert!(!has("cargo yank --undo gate@1.0.0", "unpublish@none"));
    }

    #[test]
    fn dry_runs_and_reads_are_benign() {
        for line in [
            "npm publish --dry-run",
            "cargo publish --dry-run",
            "cargo publish -n",
            "uv publish --dry-run",
            "npm unpublish pkg --dry-run",
            "npm ls",
            "npm --version",
            "cargo tree",
            "cargo metadata --format-version 1",
            "twine check dist/*",
            "poetry show",
            "pip list",
            "pip freeze",
            "gem list",
        ] {
            let e = effects(line);
            assert!(
                e.iter()
                    .all(|x| x.starts_with("read@") || x.starts_with("fetch@")),
                "{line}: {e:?}"
            );
        }
        assert!(!has("docker build -t x .", "publish@none"));
        assert!(!has("mvn test", "publish@none"));
        assert!(!has("./gradlew build", "publish@none"));
        for line in [
            "./gradlew publishToMavenLocal",
            "gradle :lib:publishToMavenLocal",
            "./gradlew publishMavenJavaPublicationToMavenLocal --info",
        ] {
            assert!(!has(line, "publish@none"), "{line}");
            assert!(has(line, "exec@none"), "{line}");
        }
        for line in [
            "./gradlew publishToMavenLocal publish",
            "./gradlew publishMavenJavaPublicationToOssrhRepository",
            "./gradlew publishAllPublicationsToMavenLocalRepository",
        ] {
            assert!(has(line, "publish@none"), "{line}");
        }
    }

    #[test]
    fn installs_and_runners() {
        assert_eq!(
            effects("npm install"),
            vec!["fetch@remote", "write@outputs"]
        );
        assert_eq!(effects("npm ci"), vec!["fetch@remote", "write@outputs"]);
        assert_eq!(effects("yarn"), vec!["fetch@remote", "write@outputs"]);
        assert_eq!(effects("npm i -g typescript"), vec!["fetch@remote"]);
        assert_eq!(
            effects("pip install -r requirements.txt"),
            vec!["fetch@remote", "read@source"]
        );
        assert_eq!(effects("pip3.12 install requests"), vec!["fetch@remote"]);
        assert!(has("cargo install ripgrep", "fetch@remote"));
        assert!(has("cargo clean", "delete@outputs"));
        assert!(has("npx rimraf ~", "exec@none") || has("npx rimraf ~", "delete@home"));
        assert!(has("npx -y rm-cli -- rm -rf ~", "exec@none"));
        assert!(has("npx --yes bash -c 'rm -rf ~'", "delete@home"));
        assert!(has("pnpm dlx sh -c 'rm -rf ~'", "delete@home"));
        assert!(has("bunx sh -c 'rm -rf /'", "delete@root"));
        assert!(has("uvx --from x sh -c 'rm -rf ~'", "delete@home"));
        assert!(has("uv run rm -rf ~", "delete@home") || has("uv run rm -rf ~", "exec@none"));
        assert!(has(
            "uv run --with x sh -c 'git push --force'",
            "history@remote"
        ));
        assert!(has("poetry run sh -c 'git push -f'", "history@remote"));
        assert!(has("pipx run --spec x sh -c 'rm -rf ~'", "delete@home"));
        assert!(has("npm exec -- sh -c 'rm -rf ~'", "delete@home"));
        // The parser peels `uv run` (its `--env-file` value included): the command is what runs.
        assert!(has("uv run --env-file .env rm -rf ~", "delete@home"));
        assert_eq!(effects("npm run build"), vec!["exec@none"]);
        assert_eq!(effects("cargo test"), vec!["exec@none"]);
    }
}
