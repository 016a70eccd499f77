//! The `gate` binary: hook entry points per runtime, installers, and the operator commands.
//!
//! Errors print as one line, `gate: <error chain>` (an input error may add a block after
//! it: a draft spec's diagnostics with their carets), and map to the exit codes of
//! [`cli::Exit`]; a closed stdout (`gate log | head`) is success. The `hook` subcommand is
//! parsed leniently and never fails: it always exits 0 and never writes to stderr.

// The C `main` below replaces std's runtime start-up (the test harness keeps its own).
#![cfg_attr(not(test), no_main)]

use clap::FromArgMatches;
use gate_cli::cli::{self, AuditCommand, Cli, Command, Exit, GlobalArgs, HookArgs, SinkCommand};
use gate_cli::cmd::store;
use gate_cli::{cmd, doctor, install, InputError};
use std::ffi::OsString;

/// The process entry point, in place of std's.
///
/// std's start-up finds the main thread's stack for its overflow message by reading and
/// `sscanf`-parsing `/proc/self/maps`: ≈ 0.1 M instructions, 5 % of a hook call, for a message
/// gate never prints (the hook is silent, and an overflow still ends the process at the guard
/// page). So gate starts itself and does the two things of std's start-up it relies on: the
/// standard descriptors 0–2 are open (else SQLite could open the database as descriptor 1
/// and the answer would be written into it), and SIGPIPE is ignored (a closed stdout is an
/// `EPIPE` error that gate handles, not a signal that kills the hook). Arguments come from
/// glibc's start-up as usual; `std::process::exit` flushes stdout.
#[cfg(not(test))]
#[allow(unsafe_code)] // `no_mangle`: this is the C entry point.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    start::standard_descriptors_open();
    start::ignore_sigpipe();
    match std::panic::catch_unwind(gate_main) {
        Ok(never) => match never {},
        // The panic hook has printed the message; std's runtime exits with 101 too.
        Err(_) => 101,
    }
}

#[cfg(not(test))]
mod start {
    //! What gate needs of std's process start-up, done by hand (see `main`).
    #![allow(unsafe_code)] // three libc calls, each with its SAFETY note

    /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, in order, so each
    /// lands on its own number (as std's start-up does).
    pub fn standard_descriptors_open() {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        });
        // SAFETY: `fds` is a valid array of three pollfd for the duration of the call.
        let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
        for pfd in &fds {
            let closed = if polled >= 0 {
                pfd.revents & libc::POLLNVAL != 0
            } else {
                // SAFETY: F_GETFD on any integer is harmless.
                unsafe { libc::fcntl(pfd.fd, libc::F_GETFD) == -1 }
            };
            if closed {
                // SAFETY: the path is a NUL-terminated literal.
                let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
                if fd != pfd.fd {
                    // Nothing sensible is left to run on; std aborts here too.
                    std::process::abort();
                }
            }
        }
    }

    /// SIGPIPE ignored, as std's start-up sets it.
    pub fn ignore_sigpipe() {
        // SAFETY: installing SIG_IGN for SIGPIPE has no preconditions.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    }
}

#[cfg_attr(test, allow(dead_code))]
fn gate_main() -> std::convert::Infallible {
    // The specs live in this binary, not in the library (a spec edit rebuilds only them and
    // this file).
    gate_cli::registry::install(gate_specs::ALL);
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(hook) = lenient_hook_args(&args) {
        std::process::exit(run_hook(hook));
    }
    if let Some(db) = background_checkpoint_args(&args) {
        let code = store::checkpoint_at(&db, true, false).unwrap_or_else(|e| report(&e));
        std::process::exit(code);
    }
    let code = match parse(&args) {
        Ok(cli) => match dispatch(cli) {
            Ok(code) => code,
            Err(error) => report(&error),
        },
        Err(code) => code,
    };
    std::process::exit(code);
}

/// Parse the command line; on failure print help/version (exit 0) or a one-line error
/// (exit 2).
fn parse(args: &[OsString]) -> Result<Cli, i32> {
    let matches = cli::command().try_get_matches_from(args);
    let result = matches.and_then(|m| Cli::from_arg_matches(&m));
    match result {
        Ok(cli) => Ok(cli),
        Err(error) => {
            use clap::error::ErrorKind;
            match error.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = error.print();
                    Err(
                        if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                            Exit::Usage.code()
                        } else {
                            Exit::Ok.code()
                        },
                    )
                }
                _ => {
                    let rendered = error.render().to_string();
                    let first = rendered
                        .lines()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or("invalid arguments")
                        .trim();
                    let first = first.strip_prefix("error: ").unwrap_or(first);
                    eprintln!("gate: {first} (see `gate --help`)");
                    Err(Exit::Usage.code())
                }
            }
        }
    }
}

/// Print an error as one line and choose its exit code.
fn report(error: &anyhow::Error) -> i32 {
    let broken_pipe = error.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return Exit::Ok.code();
    }
    let message = format!("{error:#}").replace('\n', " ");
    eprintln!("gate: {message}");
    let input = error.chain().find_map(|e| e.downcast_ref::<InputError>());
    if let Some(block) = input.and_then(InputError::block) {
        eprint!("{}", block.trim_end_matches('\n'));
        eprintln!();
    }
    if input.is_some() {
        Exit::Usage.code()
    } else {
        Exit::Environment.code()
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    let global = cli.global;
    match cli.command {
        Command::Hook(mut args) => {
            args.global = global;
            Ok(run_hook(args))
        }
        Command::Init(args) => install_command(&args, &global),
        Command::Doctor => doctor::run(&global),
        Command::Config => cmd::config(&global),
        Command::Specs => cmd::specs(&global),
        Command::Check(args) => cmd::check(&args, &global),
        Command::Diagram(args) => cmd::diagram::run(&args, &global),
        Command::Status(args) => store::status(&args, &global),
        Command::Log(args) => store::log(&args, &global),
        Command::Audit(AuditCommand::Verify) => store::audit_verify(&global),
        Command::Audit(AuditCommand::Export(args)) => store::audit_export(&args, &global),
        Command::Approve(args) => store::approve(&args, &global),
        Command::Grants(args) => store::grants(&args, &global),
        Command::Undo(args) => cmd::backups::undo(&args, &global),
        Command::Backups(args) => cmd::backups::backups(&args, &global),
        Command::Calibrate(args) => store::calibrate(&args, &global),
        Command::Checkpoint(args) => store::checkpoint(&args, &global),
        Command::Sink(SinkCommand::Flush(args)) => cmd::sink::flush(&args, &global),
        Command::Sink(SinkCommand::Status) => cmd::sink::status(&global),
        Command::Explain(args) => cmd::explain::run(&args, &global),
        Command::Replay(mut args) => {
            args.spec = global.spec.clone();
            args.role = global.role.clone();
            args.db = global.db.clone();
            cmd::replay::run(&args, global.json)
        }
        Command::Diff(_) | Command::Verify(_) if global.role.is_some() => Err(InputError::new(
            "--role does not apply here: every role the spec defines is explored (and none)",
        )
        .into()),
        Command::Diff(_) if global.spec.is_some() => Err(InputError::new(
            "gate diff takes the two policies as OLD and NEW, not --spec",
        )
        .into()),
        Command::Diff(args) => cmd::diff::run(&args, global.json),
        Command::Verify(mut args) => {
            args.spec = global.spec.clone();
            cmd::verify::run(&args, global.json)
        }
        Command::Test(args) => cmd::spectest::run(&args, &global),
        Command::Completions(args) => cmd::completions(&args),
        Command::Man => cmd::man(),
    }
}

fn install_command(args: &cli::InitArgs, global: &GlobalArgs) -> anyhow::Result<i32> {
    use anyhow::Context;
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("cannot find the path of the running gate binary")?;
    // `--spec`, `--spec-file` and `--role` go into the installed hook's command line, checked
    // now: the hook itself would only fail open on a name it does not know or a draft that
    // does not load.
    let draft =
        match &args.spec_file {
            Some(_) if global.spec.is_some() => return Err(InputError::new(
                "give either --spec NAME or --spec-file PATH, not both: the hook answers with one",
            )
            .into()),
            Some(path) if !args.remove => {
                let path = std::path::absolute(path)
                    .with_context(|| format!("cannot make {} absolute", path.display()))?;
                let policy = cmd::policy::Policy::draft(&path)?;
                if let Some(role) = &global.role {
                    cmd::check_role(policy.spec(), role, "flag --role")?;
                }
                Some((path, policy))
            }
            _ => None,
        };
    if !args.remove && draft.is_none() {
        if let Some(name) = &global.spec {
            cmd::compiled_spec(name)?;
        }
        if let Some(role) = &global.role {
            let spec = match &global.spec {
                Some(name) => name.clone(),
                None => {
                    gate_cli::config::Config::resolve(&gate_cli::config::Overrides::default())?
                        .spec
                        .value
                }
            };
            cmd::check_role(cmd::compiled_spec(&spec)?.ir(), role, "flag --role")?;
        }
    }
    let locations = install::Locations::from_env()?;
    {
        use gate_runtime::event::Runtime;
        if args.sandbox && !matches!(args.runtime.runtime(), Runtime::ClaudeCode | Runtime::Codex) {
            return Err(gate_cli::InputError::new(format!(
                "--sandbox is for claude-code and codex: {} has no OS sandbox that can keep \
                 gate's files from its tools (`gate doctor` says what holds them)",
                args.runtime.runtime().as_str()
            ))
            .into());
        }
    }
    let protected =
        match gate_cli::config::Config::resolve(&gate_cli::config::Overrides::from(global)) {
            Ok(config) => {
                // The sandbox is handed gate's home as it will be: a directory that exists
                // before the first hook call creates it (0700, as the store makes it).
                if args.sandbox && !args.dry_run && !args.remove {
                    let mut dir = std::fs::DirBuilder::new();
                    dir.recursive(true);
                    #[cfg(unix)]
                    std::os::unix::fs::DirBuilderExt::mode(&mut dir, 0o700);
                    dir.create(&config.home.value).with_context(|| {
                        format!("cannot create {}", config.home.value.display())
                    })?;
                    // The database and its key too (what the first hook call would make), so
                    // that Codex's profile can name them; a store that cannot be opened now
                    // is the hook's fault to record later, not a reason to stop here.
                    let _ = gate_runtime::store::Store::open(&config.db.value);
                }
                let mut protected =
                    gate_cli::sandbox::Protected::generate(&locations, &config, &exe);
                // The draft's files judge the agent: kept from its commands like gate's own.
                if let Some((_, cmd::policy::Policy::Draft { files, .. })) = &draft {
                    for file in files.iter().filter_map(|f| std::path::absolute(f).ok()) {
                        if !protected.deny_write.contains(&file) {
                            protected.deny_write.push(file);
                        }
                    }
                }
                protected
            }
            Err(error) if args.sandbox => return Err(error),
            Err(_) => gate_cli::sandbox::Protected::default(),
        };
    let request = install::Request {
        runtime: args.runtime.runtime(),
        global: args.global,
        remove: args.remove,
        dry_run: args.dry_run,
        exe,
        spec: global.spec.clone(),
        spec_file: draft.as_ref().map(|(path, _)| path.clone()),
        role: global.role.clone(),
        sandbox: args.sandbox,
        protected,
    };
    let outcome = match install::run(&locations, &request) {
        Ok(outcome) => outcome,
        Err(error) if error.is::<install::EnvironmentConflict>() => {
            eprintln!("gate: {error:#}");
            return Ok(Exit::Environment.code());
        }
        Err(error) => return Err(error),
    };
    if global.json {
        cmd::out_json(&serde_json::json!({
            "runtime": request.runtime.as_str(),
            "file": outcome.path,
            "action": if request.remove { "remove" } else { "install" },
            "dry_run": request.dry_run,
            "changed": outcome.changed,
            "removed_file": outcome.after.is_none(),
            "content": outcome.after,
            "diff": outcome.diff(),
            "notes": outcome.notes,
            "also": outcome.also.iter().map(|o| serde_json::json!({
                "file": o.path,
                "changed": o.changed,
                "removed_file": o.after.is_none(),
                "content": o.after,
                "diff": o.diff(),
                "notes": o.notes,
            })).collect::<Vec<_>>(),
        }))?;
        return Ok(Exit::Ok.code());
    }
    let mut text = String::new();
    if request.dry_run {
        match &outcome.after {
            Some(after) => text.push_str(&format!(
                "# {} would become:\n{after}\n",
                outcome.path.display()
            )),
            None => text.push_str(&format!("# {} would be removed\n", outcome.path.display())),
        }
        text.push_str(&outcome.diff());
    } else if outcome.changed {
        let verb = match (&outcome.after, request.remove) {
            (None, _) => "removed",
            (Some(_), true) => "took gate out of",
            (Some(_), false) => "wired gate into",
        };
        text.push_str(&format!(
            "{verb} {} ({})\n",
            outcome.path.display(),
            request.runtime.as_str()
        ));
    }
    for note in &outcome.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    for also in &outcome.also {
        if request.dry_run {
            match &also.after {
                Some(after) => text.push_str(&format!(
                    "# {} would become:\n{after}\n",
                    also.path.display()
                )),
                None => text.push_str(&format!("# {} would be removed\n", also.path.display())),
            }
            text.push_str(&also.diff());
        } else if also.changed {
            let verb = if also.after.is_none() {
                "removed"
            } else {
                "changed"
            };
            text.push_str(&format!("{verb} {}\n", also.path.display()));
        }
        for note in &also.notes {
            text.push_str(&format!("note: {note}\n"));
        }
    }
    cmd::out(&text)?;
    Ok(Exit::Ok.code())
}

/// Run the hook path: fail-open, silent on stderr, exit 0 whatever happens.
fn run_hook(args: HookArgs) -> i32 {
    // A panic must not print a backtrace on stderr (Gemini would read it as a deny).
    std::panic::set_hook(Box::new(|_| {}));
    match std::panic::catch_unwind(|| cmd::hook::run(&args)) {
        Ok(_) | Err(_) => 0,
    }
}

/// Options that take a value, so that their value is not mistaken for the subcommand.
const VALUE_FLAGS: [&str; 4] = ["--spec", "--role", "--db", "--home"];
/// Options of `gate hook` itself that take a value.
const HOOK_VALUE_FLAGS: [&str; 2] = ["--event", "--spec-file"];

/// `gate --db PATH checkpoint --quiet`, exactly: the form in which a hook starts the
/// background checkpoint (`cmd::hook`). It runs without building clap's command tree, which
/// is ≈ 0.26 M instructions of a process that otherwise costs ≈ 0.8 M; what it does is what
/// the clap path does with those arguments (the path made absolute against the working
/// directory, no output, the same exit codes). Any other form goes through clap.
fn background_checkpoint_args(args: &[OsString]) -> Option<std::path::PathBuf> {
    match args {
        [_, db_flag, db, command, quiet]
            if db_flag == "--db" && command == "checkpoint" && quiet == "--quiet" =>
        {
            std::path::absolute(db).ok()
        }
        _ => None,
    }
}

/// If the subcommand is `hook`, its arguments, parsed leniently: unknown flags are ignored
/// (the call is answered as without them, as `gate hook --help` says) and nothing here can
/// fail.
fn lenient_hook_args(args: &[OsString]) -> Option<HookArgs> {
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // Find the subcommand: the first word that is neither an option nor an option's value.
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if VALUE_FLAGS.contains(&w.as_str()) || HOOK_VALUE_FLAGS.contains(&w.as_str()) {
            i += 2;
        } else if w.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    if words.get(i).map(String::as_str) != Some("hook") {
        return None;
    }
    // `gate hook --help` is for a person: let clap print it.
    if words.iter().any(|w| w == "--help" || w == "-h") {
        return None;
    }
    let mut hook = HookArgs::default();
    let mut j = 0;
    let mut runtime_seen = false;
    while j < words.len() {
        if j == i {
            j += 1;
            continue;
        }
        let w = &words[j];
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (w.as_str(), None),
        };
        let takes_value = HOOK_VALUE_FLAGS.contains(&flag) || VALUE_FLAGS.contains(&flag);
        let value = if takes_value {
            match inline {
                Some(v) => Some(v),
                None => {
                    j += 1;
                    words.get(j).cloned()
                }
            }
        } else {
            None
        };
        match flag {
            "--event" => hook.event = value,
            "--spec-file" => hook.spec_file = value.map(Into::into),
            "--spec" => hook.global.spec = value,
            "--role" => hook.global.role = value,
            "--db" => hook.global.db = value.map(Into::into),
            "--home" => hook.global.home = value.map(Into::into),
            "--json" => hook.global.json = true,
            f if f.starts_with('-') => {}
            _ if j > i && !runtime_seen => {
                hook.runtime = w.clone();
                runtime_seen = true;
            }
            _ => {}
        }
        j += 1;
    }
    Some(hook)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(args: &[&str]) -> Option<HookArgs> {
        let args: Vec<OsString> = std::iter::once("gate")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        lenient_hook_args(&args)
    }

    #[test]
    fn hook_flags_are_parsed_leniently() {
        let h = hook(&["hook", "copilot", "--event", "preToolUse", "--bogus"]).unwrap();
        assert_eq!(h.runtime, "copilot");
        assert_eq!(h.event.as_deref(), Some("preToolUse"));
        let h = hook(&["--spec", "guard", "hook", "--event=x", "codex"]).unwrap();
        assert_eq!(h.runtime, "codex");
        assert_eq!(h.global.spec.as_deref(), Some("guard"));
        assert_eq!(h.event.as_deref(), Some("x"));
        let h = hook(&["hook", "claude-code", "--spec-file", "/p/specs/d.toml"]).unwrap();
        assert_eq!(h.runtime, "claude-code");
        assert_eq!(h.spec_file, Some("/p/specs/d.toml".into()));
        let h = hook(&["hook", "--spec-file=/p/d.toml", "codex"]).unwrap();
        assert_eq!(h.runtime, "codex");
        assert_eq!(h.spec_file, Some("/p/d.toml".into()));
        let h = hook(&["hook"]).unwrap();
        assert_eq!(h.runtime, "");
        assert!(hook(&["check", "hook"]).is_none());
        assert!(hook(&["--spec", "hook", "check"]).is_none());
    }
}
