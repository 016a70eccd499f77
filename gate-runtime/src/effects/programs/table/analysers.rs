//! Code a form or a program names where data cannot say what a command does: commands run
//! on another machine or in a container (`kubectl exec P -- CMD`, `docker exec C CMD`),
//! ansible's module arguments, the system programs whose words need reading (`kill`'s
//! targets, a process pattern's width, `fuser`'s ports, the units a stop names, the shell's
//! own state: `programs/system/`), SQL handed to a database tool, the network programs whose
//! words need reading (`curl`, `ssh`, `rclone`, …: `programs/network/`) and the forge CLIs'
//! API calls, release assets and clones (`programs/vcs/forge.rs`), and git's subcommands
//! whose words need reading (`programs/vcs/git/`), and the package managers' scripts,
//! runners, configured sources and installs of gate (`programs/packages.rs`), `make`'s
//! makefiles (`programs/scripts.rs`), and the file
//! programs' modes, owners, temporary names and finders, and those whose operands need
//! reading (`rsync`'s remotes, `rename`'s expression, `jq`'s filter, `patch`'s diff:
//! `programs/files/`), and the object stores' copies (which side is a store) and aws's
//! operations no form names (`programs/cloud/`). Each is reached from `analyser = "name"`. The query languages a
//! program's `queries` are read as (`language = "sql"`) are named here too.

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
pub(crate) use super::super::cloud::{cloud_operation, object_copy, object_sync};
pub(crate) use super::super::files::{
    chmod_mode, chown_owner, fd, find, jq, mktemp, patch, rename, rsync, yq,
};
pub(crate) use super::super::network::{
    aria2c, curl, httpie, rclone, remote_command, remote_removes, scp, socat, ssh, wget,
};
pub(crate) use super::super::packages::{
    cargo_gate, node_install, node_run, node_script, package_config, runner,
};
pub(crate) use super::super::scripts::make;
pub(crate) use super::super::system::{fuser_ports, kill, process_patterns, service_unit, units};
pub(crate) use super::super::vcs::forge::{
    api_call as forge_api, assets as forge_assets, clone as forge_clone,
};
pub(crate) use super::super::vcs::git::{
    git_alias, git_apply, git_checkout, git_checkout_index, git_clean, git_clone, git_config,
    git_difftool, git_filter_repo, git_init, git_mv, git_options, git_push, git_rebase, git_reset,
    git_restore, git_rm, git_run, git_stash, git_submodule, git_switch, git_worktree,
};
pub(crate) use super::super::vcs::{clone, svn_checkout};
use gate_spec::effect::{Act, Place};
use std::borrow::Cow;

/// What an analyser is given: the command, its words as read by the program's grammar, the
/// operands after the form's subcommand path, and the sink.
pub(crate) type Analyser = fn(&Cmd<'_, '_>, &Args<'_>, &[Cow<'_, str>], &mut Sink);

/// The analyser a project's file names (the built-in files are linked to them by name).
pub(crate) fn by_name(name: &str) -> Option<Analyser> {
    Some(match name {
        "remote_after_dashdash" => remote_after_dashdash,
        "ansible" => ansible,
        "in_container" => in_container,
        "docker_compose" => docker_compose,
        "kill" => kill,
        "process_patterns" => process_patterns,
        "fuser_ports" => fuser_ports,
        "units" => units,
        "service_unit" => service_unit,
        "parted_script" => parted_script,
        "redis" => redis,
        "shell_state" => shell_state,
        "sql_options" => sql_options,
        "sql_operands" => sql_operands,
        "sql_file_or_stdin" => sql_file_or_stdin,
        "curl" => curl,
        "wget" => wget,
        "aria2c" => aria2c,
        "httpie" => httpie,
        "scp" => scp,
        "ssh" => ssh,
        "remote_command" => remote_command,
        "remote_removes" => remote_removes,
        "socat" => socat,
        "rclone" => rclone,
        "forge_api" => forge_api,
        "forge_assets" => forge_assets,
        "forge_clone" => forge_clone,
        "git_alias" => git_alias,
        "git_apply" => git_apply,
        "git_checkout" => git_checkout,
        "git_checkout_index" => git_checkout_index,
        "git_clean" => git_clean,
        "git_clone" => git_clone,
        "git_config" => git_config,
        "git_difftool" => git_difftool,
        "git_filter_repo" => git_filter_repo,
        "git_init" => git_init,
        "git_mv" => git_mv,
        "git_options" => git_options,
        "git_push" => git_push,
        "git_rebase" => git_rebase,
        "git_reset" => git_reset,
        "git_restore" => git_restore,
        "git_rm" => git_rm,
        "git_run" => git_run,
        "git_stash" => git_stash,
        "git_submodule" => git_submodule,
        "git_switch" => git_switch,
        "git_worktree" => git_worktree,
        "clone" => clone,
        "svn_checkout" => svn_checkout,
        "node_run" => node_run,
        "node_script" => node_script,
        "node_install" => node_install,
        "runner" => runner,
        "package_config" => package_config,
        "cargo_gate" => cargo_gate,
        "make" => make,
        "chmod_mode" => chmod_mode,
        "chown_owner" => chown_owner,
        "mktemp" => mktemp,
        "find" => find,
        "fd" => fd,
        "option_code" => option_code,
        "rsync" => rsync,
        "object_copy" => object_copy,
        "object_sync" => object_sync,
        "cloud_operation" => cloud_operation,
        "rename" => rename,
        "jq" => jq,
        "yq" => yq,
        "patch" => patch,
        _ => return None,
    })
}

/// The words after `--` are a command run elsewhere (`kubectl exec P -- sh -c …`).
pub(crate) fn remote_after_dashdash(
    cmd: &Cmd<'_, '_>,
    _: &Args<'_>,
    _: &[Cow<'_, str>],
    out: &mut Sink,
) {
    if let Some(i) = cmd.args.iter().position(|a| a == "--") {
        let words: Vec<&str> = cmd.args[i + 1..].iter().map(|a| &**a).collect();
        if !words.is_empty() {
            out.container_script(&fed(&crate::shell::quote_argv(&words), cmd.stdin));
        }
    }
}

/// A command run elsewhere with what the line feeds it here (`echo 'DROP DATABASE x' |
/// kubectl exec -i P -- clickhouse-client`): there it reads that text on its input, given as
/// a here-document so that the line there is read with it.
fn fed(script: &str, stdin: Option<&str>) -> String {
    let Some(text) = stdin.filter(|t| !t.trim().is_empty()) else {
        return script.to_string();
    };
    let mut end = String::from("GATE_INPUT");
    while text.lines().any(|l| l == end) {
        end.push('_');
    }
    format!(
        "{script} <<'{end}'\n{}\n{end}\n",
        text.trim_end_matches('\n')
    )
}

/// The ansible modules whose free-form arguments are a command line run on each host.
const ANSIBLE_COMMANDS: &[&str] = &["shell", "command", "raw"];

/// The ansible modules that only gather facts or answer (`ping`, `setup`): nothing changes.
const ANSIBLE_QUERIES: &[&str] = &["ping", "setup"];

/// `ansible HOSTS -m MODULE -a ARGS` (the `module` and `module_args` roles; no module is
/// `command`): a `file` module with `state=absent` deletes there; a command module's
/// arguments are analysed as a line run there (`-m shell -a 'rm -rf /srv/app'`); any module
/// but the queries changes the hosts (a send).
pub(crate) fn ansible(_: &Cmd<'_, '_>, args: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let module = args.role_value("module").unwrap_or("command");
    let name = module.strip_prefix("ansible.builtin.").unwrap_or(module);
    let margs = args.role_value("module_args").unwrap_or("");
    if ANSIBLE_QUERIES.contains(&name) {
        return;
    }
    if name == "file" && margs.contains("state=absent") {
        out.place(Act::CloudDelete, Place::Remote);
    }
    if ANSIBLE_COMMANDS.contains(&name) && !margs.trim().is_empty() {
        out.remote_script(margs);
    }
    out.place(Act::Send, Place::Remote);
}

/// Options of `docker exec`/`run` (and compose's) that take a value.
const CONTAINER_VALUED: &[&str] = &[
    "-e",
    "--env",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--env-file",
    "--detach-keys",
    "-v",
    "--volume",
    "-p",
    "--publish",
    "--name",
    "--entrypoint",
    "-l",
    "--label",
    "--network",
    "--net",
    "--mount",
    "-m",
    "--memory",
    "--platform",
    "--pull",
    "-h",
    "--hostname",
    "--add-host",
    "--device",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
    "--ulimit",
    "--restart",
    "--log-driver",
    "--log-opt",
    "--cpus",
    "--gpus",
    "--shm-size",
    "--tmpfs",
    "--index",
];

/// `docker exec [OPTIONS] CONTAINER COMMAND…`, `docker run [OPTIONS] IMAGE COMMAND…` and
/// compose's `exec`/`run SERVICE COMMAND…`: the command runs in the container, whose files
/// (and the volumes mounted there) are not this machine's. Read from the words as written:
/// these subcommands stop reading options at the container (`docker exec c rm -rf /`).
pub(crate) fn in_container(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let args = cmd.args;
    let Some(start) = args.iter().position(|a| a == "exec" || a == "run") else {
        return;
    };
    let mut k = start + 1;
    while let Some(a) = args.get(k) {
        if CONTAINER_VALUED.contains(&&**a) {
            k += 2;
        } else if a.starts_with('-') {
            k += 1;
        } else {
            break;
        }
    }
    // `args[k]` is the container, image or service; the rest is the command.
    let words: Vec<&str> = args.iter().skip(k + 1).map(|a| &**a).collect();
    if !words.is_empty() {
        out.container_script(&fed(&crate::shell::quote_argv(&words), cmd.stdin));
    }
}

/// SQL given by a query option (`wrangler d1 execute DB --command "DROP TABLE t"`, `-e`,
/// `--query`, `--sql`): what it does to the database, read as the generic reading reads it.
pub(crate) fn sql_options(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    super::super::generic::sql_option(cmd.args, out);
}

/// SQL given as the operands after the form's path (`typeorm query "DROP TABLE t"`).
pub(crate) fn sql_operands(_: &Cmd<'_, '_>, _: &Args<'_>, rest: &[Cow<'_, str>], out: &mut Sink) {
    let words: Vec<&str> = rest.iter().map(|w| &**w).collect();
    super::super::database::sql_text(&words.join(" "), out);
}

/// SQL from the file option `--file` names (read, and a write to the database: what it holds
/// is not read here), else from standard input, else unknown (a write): `prisma db execute`.
pub(crate) fn sql_file_or_stdin(
    cmd: &Cmd<'_, '_>,
    args: &Args<'_>,
    _: &[Cow<'_, str>],
    out: &mut Sink,
) {
    match (args.value("file"), cmd.stdin) {
        (Some(file), _) => {
            out.path(Act::Read, file);
            out.none(Act::DbWrite);
        }
        (None, Some(text)) => super::super::database::sql_text(text, out),
        (None, None) => out.none(Act::DbWrite),
    }
}

/// `docker compose …` (and podman's): the words after `compose` read as `docker-compose`'s.
pub(crate) fn docker_compose(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let Some(i) = cmd.args.iter().position(|a| a == "compose") else {
        return;
    };
    if let Some(compose) = super::builtin::find("docker-compose") {
        let inner = Cmd {
            program: "docker-compose",
            args: &cmd.args[i + 1..],
            ..*cmd
        };
        super::run(compose, &inner, out);
    }
}

/// The words of a `parted` script that only print or set how it prints (`parted -s /dev/sda
/// unit MiB print`); any other word (`mklabel`, `rm`, `resizepart`) changes the disk.
const PARTED_PRINTS: &[&str] = &[
    "print",
    "p",
    "unit",
    "s",
    "B",
    "kB",
    "MB",
    "GB",
    "TB",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "%",
    "cyl",
    "chs",
    "compact",
    "free",
    "list",
    "all",
    "devices",
    "align-check",
    "opt",
    "minimal",
    "min",
    "optimal",
    "help",
    "quit",
    "version",
];

/// `parted [OPTS] [DEVICE [COMMAND…]]`: a script of words after the device. A script of
/// printing words, or a listing option, reads; any other script, or none (an interactive
/// session), changes the device.
pub(crate) fn parted_script(
    _: &Cmd<'_, '_>,
    args: &Args<'_>,
    ops: &[Cow<'_, str>],
    out: &mut Sink,
) {
    let listing = ["l", "list", "h", "help", "v", "version"]
        .iter()
        .any(|n| args.has(n));
    let script = ops.get(1..).unwrap_or_default();
    let prints = !script.is_empty() && script.iter().all(|w| PARTED_PRINTS.contains(&&**w));
    if !listing && !prints {
        let device: Vec<&str> = ops.iter().take(1).map(|w| &**w).collect();
        super::devices(&device, &mut |out, act, path| out.path(act, path), out);
    }
}

/// Redis commands, any case, as operands or fed on standard input (`database/redis.rs`),
/// read with `redis-cli`'s options as the data declares them.
pub(crate) fn redis(cmd: &Cmd<'_, '_>, args: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    super::super::database::redis(cmd, args, out);
}

/// What reads the queries a program runs (a form's or program's `queries`): given query
/// text or a file of it the line does not show, it writes what it sees into the sink and
/// says what the queries do to the database.
pub(crate) type Language = fn(Query<'_>, &mut Sink) -> Verdict;
pub(crate) use super::super::database::languages::{django, mongo, opaque, sql, Query, Verdict};

/// The query language a project's file names (the built-in files are linked by name).
pub(crate) fn language(name: &str) -> Option<Language> {
    Some(match name {
        "sql" => sql,
        "mongo" => mongo,
        "django" => django,
        "opaque" => opaque,
        _ => return None,
    })
}

/// The shell's environment, aliases and the builtins that keep code (`env`, `alias`,
/// `complete -C`, …: `system/shell_state.rs`).
pub(crate) fn shell_state(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    super::super::system::shell_state(cmd, out);
}

/// The code a program's options carry as `effects/code_options.rs`'s table lists it (`sort
/// --compress-program=CMD`): each value read as it runs (a shell line, a program).
pub(crate) fn option_code(cmd: &Cmd<'_, '_>, args: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    crate::effects::code_options::options(cmd.program, args, out);
}
