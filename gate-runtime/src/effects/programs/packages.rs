//! What the package managers' data (`commands/packages.toml`, `commands/packages-node.toml`)
//! cannot say, reached by name as analysers: the scripts of a `package.json` a node manager
//! runs (`npm test`, `yarn build`, `bun run x.ts`, an install's lifecycle scripts), the
//! command a package runner runs (`npx`, `pipenv run`, `rye run`: analysed in turn), a
//! package source set in a manager's configuration (`npm config set registry …`: `cron`),
//! and an install or removal of gate itself (`cargo install --path gate-cli`).

use std::borrow::Cow;

use super::super::getopt::Args;
use super::super::{Cmd, How, Runs, Sink};
use gate_spec::effect::{Act, Place};

type Words<'c, 'a> = &'c [Cow<'a, str>];

/// Where the package is (`--prefix DIR`, `-C DIR`, `--dir`, `--cwd`), and whether the
/// command runs in other packages of a workspace (`-w X`, `--filter X`, `-r`) than that one.
fn package_dir(args: &Args<'_>) -> (Option<String>, bool) {
    let dir = args
        .values(&["prefix", "C", "dir", "cwd"])
        .last()
        .map(str::to_string);
    let elsewhere = args.any(&[
        "filter",
        "F",
        "w",
        "workspace",
        "workspaces",
        "r",
        "recursive",
        "all",
    ]);
    (dir, elsewhere)
}

/// The scripts `names` of the package (each with its `pre`/`post`), read from its
/// `package.json`; scripts of other packages of a workspace are not read here: `opaque`.
fn scripts(args: &Args<'_>, names: Vec<String>, out: &mut Sink) {
    let (dir, elsewhere) = package_dir(args);
    if elsewhere {
        out.opaque("");
    } else {
        out.runs(Runs::Scripts { dir, names });
    }
}

/// `npm run NAME` (`run-script`, `yarn run`, `pnpm run`): the script the first operand
/// after the path names; `bun run FILE` runs the file when it names one.
pub(crate) fn node_run(cmd: &Cmd<'_, '_>, args: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    let Some(name) = rest.first().map(|w| &**w) else {
        return;
    };
    if cmd.program == "bun" && is_file_like(name) {
        out.path(Act::Read, name);
        out.runs(Runs::File {
            path: name.to_string(),
            how: How::Lang(super::Lang::Js),
            args: Vec::new(),
            optional: false,
        });
        return;
    }
    scripts(args, vec![name.to_string()], out);
}

/// `npm test`, `npm start`, `yarn build`: the script the subcommand word itself names
/// (npm's `t`/`tst` and unambiguous abbreviations of its script commands spelled out;
/// `restart` runs `stop` and `start` too).
pub(crate) fn node_script(cmd: &Cmd<'_, '_>, args: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    let at = args.operands.len().saturating_sub(rest.len() + 1);
    let Some(word) = args.operands.get(at).map(|w| &**w) else {
        return;
    };
    let name = match word {
        "t" | "tst" => "test",
        w if cmd.program == "npm" => {
            let mut found = SCRIPT_COMMANDS.iter().filter(|c| c.starts_with(w));
            match (found.next(), found.next()) {
                (Some(only), None) => only,
                _ => w,
            }
        }
        w => w,
    };
    let mut names = vec![name.to_string()];
    if name == "restart" {
        names.extend(["stop".to_string(), "start".to_string()]);
    }
    scripts(args, names, out);
    bin_of_that_name(cmd, word, out);
}

/// yarn, pnpm and bun run the package's binary of that name when no script has it (`yarn
/// wrangler d1 delete db`, `pnpm rimraf dist`): the words from the name on are read as that
/// command too, added to the script's reading (which a live hook call takes from
/// `package.json`); npm runs only scripts.
fn bin_of_that_name(cmd: &Cmd<'_, '_>, word: &str, out: &mut Sink) {
    if !matches!(cmd.program, "yarn" | "pnpm" | "bun") {
        return;
    }
    let Some(k) = cmd.args.iter().position(|a| a == word) else {
        return;
    };
    let words: Vec<&str> = cmd.args[k..].iter().map(|a| &**a).collect();
    out.script(&crate::shell::quote_argv(&words));
}

/// npm's commands that run the script of their name.
const SCRIPT_COMMANDS: &[&str] = &["test", "start", "stop", "restart"];

/// An install of the package itself (no package named, not global, scripts not ignored:
/// `npm install`, `npm ci`, `yarn`) runs its lifecycle scripts (`preinstall`, `install`,
/// `postinstall`, `prepare`).
pub(crate) fn node_install(_: &Cmd<'_, '_>, args: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    if !rest.is_empty() || args.any(&["g", "global", "ignore-scripts"]) {
        return;
    }
    let names = ["install", "prepare", "prepublish"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    scripts(args, names, out);
}

/// Whether a word `bun run` is given names a file rather than a script (`index.ts`,
/// `./x.js`).
fn is_file_like(word: &str) -> bool {
    word.contains('/')
        || [".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts"]
            .iter()
            .any(|e| word.ends_with(e))
}

/// The subcommands after which a package runner's command starts (`npm exec`, `pnpm dlx`,
/// `bun x`, `uv run`, `uv tool run`, `pipenv run`).
const RUNNER_WORDS: &[&str] = &["exec", "x", "dlx", "run"];

/// The runners' own options that take a value (`npx -p PKG`, `uvx --from X`, `uv run
/// --env-file F`, `pipx run --spec X`).
const RUNNER_VALUED: &[&str] = &[
    "-p",
    "--package",
    "-c",
    "--call",
    "--from",
    "--with",
    "--python",
    "--env-file",
    "-e",
    "--env",
    "--spec",
    "--pip-args",
];

/// A package runner's command (`npx rimraf x`, `npm exec -- sh -c …`, `pipenv run sh -c …`):
/// the words after the runner's own options, analysed as shell code. (The shell parser
/// peels most runners before any model sees them; this reads the rest.)
pub(crate) fn runner(cmd: &Cmd<'_, '_>, args: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    let words = cmd.args;
    let start = if rest.len() == args.operands.len() {
        // The program is the runner (`npx`, `uvx`): its command starts at its first operand.
        0
    } else {
        words
            .iter()
            .position(|w| RUNNER_WORDS.contains(&&**w))
            .map_or(words.len(), |i| i + 1)
    };
    let mut k = start;
    while let Some(a) = words.get(k) {
        if a == "--" {
            k += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        k += if RUNNER_VALUED.contains(&&**a) { 2 } else { 1 };
    }
    let command: Vec<&str> = words.iter().skip(k).map(|a| &**a).collect();
    if !command.is_empty() {
        out.script(&crate::shell::quote_argv(&command));
    }
}

/// `… config set KEY VALUE` (or `KEY=VALUE`): a key that says where packages come from is
/// `cron` at the configuration file (pip's for pip, else `~/.npmrc`), as the same line
/// written into it is.
pub(crate) fn package_config(cmd: &Cmd<'_, '_>, _: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    let file = if cmd.program.starts_with("pip") {
        "~/.config/pip/pip.conf"
    } else {
        "~/.npmrc"
    };
    let words: Vec<&str> = rest
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

/// `cargo install`/`uninstall` of gate (`--path gate-cli`, `--git URL --bin gate`,
/// `gate-cli`) puts another gate binary where the hooks may run it, or removes it: a change
/// to gate. An install with `--force` replaces whatever binaries of the same names are in
/// the install root's `bin` (`--root DIR`, else `~/.cargo`), whichever package owns them:
/// each binary it names with `--bin`, or, naming none, any of them (`ROOT/bin/*`, which
/// holds gate when gate was installed there).
pub(crate) fn cargo_gate(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    if cmd.args.first().is_some_and(|a| a == "install") {
        forced_install(&cmd.args[1..], out);
    }
    if names_gate(cmd.args) {
        out.place(Act::Write, Place::Gate);
    }
}

/// The binaries a forced `cargo install` (its words after `install`) replaces.
fn forced_install(words: Words<'_, '_>, out: &mut Sink) {
    let mut root = "~/.cargo".to_string();
    let mut bins: Vec<&str> = Vec::new();
    let mut forced = false;
    let mut k = 0;
    while k < words.len() {
        let w = &*words[k];
        let next = words.get(k + 1).map(|v| &**v);
        match w {
            "-f" | "--force" => forced = true,
            "--root" | "--bin" => {
                if let Some(v) = next {
                    if w == "--root" {
                        root = v.to_string();
                    } else {
                        bins.push(v);
                    }
                }
                k += 1;
            }
            _ => {
                if let Some(v) = w.strip_prefix("--root=") {
                    root = v.to_string();
                } else if let Some(v) = w.strip_prefix("--bin=") {
                    bins.push(v);
                }
            }
        }
        k += 1;
    }
    if !forced {
        return;
    }
    let dir = format!("{}/bin", root.trim_end_matches('/'));
    if bins.is_empty() {
        out.path(Act::Overwrite, &format!("{dir}/*"));
    }
    for b in bins {
        out.path(Act::Overwrite, &format!("{dir}/{b}"));
    }
}

/// Whether the words name gate: a crate, path, repository or binary called `gate` or
/// `gate-cli` (`--path ./gate-cli`, `--git https://…/gate.git --bin gate`).
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
            "cargo install --path . --bin xtask --force",
            "cargo install --root /tmp/tools --path . --force",
        ] {
            assert!(!has(line, "write@gate"), "{line}: {:?}", effects(line));
            assert!(!has(line, "overwrite@gate"), "{line}: {:?}", effects(line));
        }
    }

    /// A forced install replaces the binaries of its names in the install root, whichever
    /// package they came from: naming none, any of them, gate's among them.
    #[test]
    fn a_forced_install_replaces_the_binaries_in_its_root() {
        for line in [
            "cargo install --path . --force",
            "cargo install --path . -f",
            "cargo install --git https://example.com/x/tools --force",
            "cargo install ripgrep --force",
            "cargo install --root ~/.cargo --path . --force",
            "cargo install --root=$HOME/.cargo --path tools --force",
            "cargo install --path . --bin gate --force",
            "cargo install --root ~/.local --bin=gate --path . -f",
        ] {
            assert!(has(line, "overwrite@gate"), "{line}: {:?}", effects(line));
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
