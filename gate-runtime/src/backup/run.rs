//! Running git for a backup or an undo within a deadline: the hook's backup must be done
//! inside the hook's own deadline, so a git that has not finished by then (a slow remote, a
//! huge repository, a hung transport) is killed and the backup fails, which leaves the action
//! to the tier's next mode. Every run turns off what a repository's configuration could make
//! git run inside the hook (fsmonitor, hooks, automatic gc, credential helpers, a configured
//! ssh command, transports other than file, ssh and http(s)).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Configuration every git run starts with (`-c name=value`): no program the repository's
/// own configuration names (an fsmonitor, hooks, an automatic gc) is run by gate.
const SAFE_CONFIG: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "gc.auto=0",
    "maintenance.auto=false",
];

/// Configuration added inside the hook, where a remote may be read: no credential helper or
/// password prompt, and only the file, ssh and http(s) transports.
const HOOK_CONFIG: &[&str] = &[
    "credential.helper=",
    "core.askPass=",
    "protocol.allow=never",
    "protocol.file.allow=always",
    "protocol.ssh.allow=always",
    "protocol.https.allow=always",
    "protocol.http.allow=always",
];

/// The ssh command gate's own remote reads use (never the repository's `core.sshCommand`),
/// unless the user's environment names one: no prompt can hold the hook.
const SSH: &str = "core.sshCommand=ssh -o BatchMode=yes";

/// How often a running git is looked at: short against the hook's budget, long enough not to
/// spin.
const POLL: Duration = Duration::from_millis(2);

/// Runs `git -C dir <args>` and returns its standard output; an error says why not: git could
/// not be started, failed (with its message), or was still running at `deadline` (killed).
pub fn git(dir: &str, args: &[&str], deadline: Instant) -> Result<String, String> {
    run(dir, args, deadline, true)
}

/// How long the user's own `gate undo` lets one git run take (it may push to a slow remote).
const USER_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs git for the user (`gate undo`): the user's credentials and ssh setup are used for a
/// remote, the repository's programs still are not.
pub fn git_as_user(dir: &str, args: &[&str]) -> Result<String, String> {
    run(dir, args, Instant::now() + USER_TIMEOUT, false)
}

fn run(dir: &str, args: &[&str], deadline: Instant, hook: bool) -> Result<String, String> {
    let (ok, out, err) = output(dir, args, deadline, hook)?;
    if !ok {
        return Err(format!("`git {}` failed: {}", args.join(" "), err.trim()));
    }
    Ok(out)
}

/// Runs git as [`git`] (inside the hook) or [`git_as_user`] do, whatever its exit status:
/// whether it succeeded, its standard output and its standard error.
pub fn output(
    dir: &str,
    args: &[&str],
    deadline: Instant,
    hook: bool,
) -> Result<(bool, String, String), String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir);
    for c in SAFE_CONFIG {
        cmd.args(["-c", c]);
    }
    if hook {
        for c in HOOK_CONFIG {
            cmd.args(["-c", c]);
        }
        if std::env::var_os("GIT_SSH_COMMAND").is_none() {
            cmd.args(["-c", SSH]);
        }
    }
    cmd.args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (status, out, err) = wait(cmd, deadline).map_err(|e| match e {
        Wait::Late => format!(
            "`git {}` did not finish within the deadline (stopped)",
            args.join(" ")
        ),
        Wait::Start(e) => format!("git could not be run: {e}"),
    })?;
    Ok((
        status.success(),
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    ))
}

/// Why a run did not finish.
enum Wait {
    Start(std::io::Error),
    Late,
}

/// Spawns `cmd` and collects its exit status and output; kills it at `deadline`. The output
/// is read on two threads (a child filling a pipe nobody reads would never exit); after a kill
/// they are left to end with the pipes, never waited for.
fn wait(
    mut cmd: Command,
    deadline: Instant,
) -> Result<(std::process::ExitStatus, Vec<u8>, Vec<u8>), Wait> {
    if Instant::now() >= deadline {
        return Err(Wait::Late);
    }
    let mut child = cmd.spawn().map_err(Wait::Start)?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let out = out.join().unwrap_or_default();
                let err = err.join().unwrap_or_default();
                return Ok((status, out, err));
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Wait::Late);
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_run_past_its_deadline_is_killed_and_fails_promptly() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "exec sleep 30"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let start = Instant::now();
        let r = wait(cmd, start + Duration::from_millis(200));
        assert!(matches!(r, Err(Wait::Late)));
        assert!(start.elapsed() < Duration::from_secs(5));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let Ok((status, out, err)) = wait(cmd, Instant::now() + Duration::from_secs(30)) else {
            panic!("a quick run finishes");
        };
        assert!(status.success());
        assert_eq!((out, err), (b"out\n".to_vec(), b"err\n".to_vec()));
    }
}
