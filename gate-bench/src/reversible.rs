//! The director's backups timed through the real hook (mode `reversible`): a small file, a
//! 100 MB tree, a git reset, a rebase and a force push to a local bare remote, each call with
//! a fresh gate home so every call makes a whole backup (for git, a new vault in the store
//! and the repository's commits fetched into it). Used by `gate-latency`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Makes a series' project in the directory given.
pub type Make = fn(&Path) -> Result<(), String>;

/// The series: name, command, how its project is made.
pub const SERIES: &[(&str, &str, Make)] = &[
    ("small file", "rm notes.txt", small_file),
    ("100 MB tree", "rm -rf big/", big_tree),
    ("git reset", "git reset --hard HEAD~1", git_repo),
    ("git rebase", "git rebase main", topic_repo),
    ("force push", "git push --force origin main", pushed_repo),
];

/// Files of the 100 MB tree: 100 files of 1 MiB in 10 directories.
const BIG_FILES: usize = 100;
const BIG_FILE_BYTES: usize = 1024 * 1024;

fn small_file(dir: &Path) -> Result<(), String> {
    std::fs::write(dir.join("notes.txt"), b"the only copy of my notes\n").map_err(|e| e.to_string())
}

fn big_tree(dir: &Path) -> Result<(), String> {
    let block: Vec<u8> = (0..BIG_FILE_BYTES).map(|i| (i * 31 % 251) as u8).collect();
    for n in 0..BIG_FILES {
        let sub = dir.join("big").join(format!("d{}", n % 10));
        std::fs::create_dir_all(&sub).map_err(|e| e.to_string())?;
        std::fs::write(sub.join(format!("f{n}")), &block).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Runs git in `dir` with a fixed identity, quietly.
fn git_in(dir: &Path, args: &[&str]) -> Result<(), String> {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "b")
        .env("GIT_AUTHOR_EMAIL", "b@example.com")
        .env("GIT_COMMITTER_NAME", "b")
        .env("GIT_COMMITTER_EMAIL", "b@example.com")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("git: {e}"))?
        .success();
    ok.then_some(()).ok_or(format!("git {args:?} failed"))
}

/// The git series' repository with `main` pushed to a bare remote beside it (`origin`), then
/// its last commit replaced: `git push --force origin main` rewrites the remote's history.
fn pushed_repo(dir: &Path) -> Result<(), String> {
    git_repo(dir)?;
    let bare = dir.with_extension("remote.git");
    let bare = bare.to_str().ok_or("a path that is not UTF-8")?;
    git_in(dir, &["init", "-q", "--bare", bare])?;
    git_in(dir, &["remote", "add", "origin", bare])?;
    git_in(dir, &["branch", "-M", "main"])?;
    git_in(dir, &["push", "-q", "origin", "main"])?;
    git_in(dir, &["commit", "-q", "--amend", "-m", "two, rewritten"])
}

/// A repository with `main` and a branch `topic` from its first commit, one commit of its
/// own, checked out: `git rebase main` rewrites it.
fn topic_repo(dir: &Path) -> Result<(), String> {
    let git = |args: &[&str]| git_in(dir, args);
    git(&["init", "-q", "-b", "main"])?;
    std::fs::write(dir.join("a.txt"), b"one\n").map_err(|e| e.to_string())?;
    git(&["add", "a.txt"])?;
    git(&["commit", "-q", "-m", "one"])?;
    std::fs::write(dir.join("a.txt"), b"two\n").map_err(|e| e.to_string())?;
    git(&["commit", "-q", "-am", "two"])?;
    git(&["checkout", "-q", "-b", "topic", "HEAD~1"])?;
    std::fs::write(dir.join("t.txt"), b"topic\n").map_err(|e| e.to_string())?;
    git(&["add", "t.txt"])?;
    git(&["commit", "-q", "-m", "topic"])
}

fn git_repo(dir: &Path) -> Result<(), String> {
    let git = |args: &[&str]| git_in(dir, args);
    git(&["init", "-q"])?;
    std::fs::write(dir.join("a.txt"), b"one\n").map_err(|e| e.to_string())?;
    git(&["add", "a.txt"])?;
    git(&["commit", "-q", "-m", "one"])?;
    std::fs::write(dir.join("a.txt"), b"two\n").map_err(|e| e.to_string())?;
    git(&["commit", "-q", "-am", "two"])?;
    std::fs::write(dir.join("a.txt"), b"uncommitted\n").map_err(|e| e.to_string())?;
    std::fs::write(dir.join("new.txt"), b"untracked\n").map_err(|e| e.to_string())
}

/// `calls` hook calls of the director's `command` in `project` (below `work`), each with a
/// new gate home; the sorted wall times and whether every answer named a backup.
pub fn time_series(
    gate: &Path,
    work: &Path,
    project: &Path,
    command: &str,
    calls: usize,
) -> Result<(Vec<Duration>, bool), String> {
    let payload = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "b",
        "cwd": project, "tool_name": "Bash", "tool_input": {"command": command}})
    .to_string();
    let mut times = Vec::with_capacity(calls);
    let mut all_backed_up = true;
    for i in 0..calls {
        let home = work.join(format!("gate-home-{i}"));
        let mut child = Command::new(gate)
            .args(["hook", "claude-code"])
            .current_dir(project)
            .env("GATE_HOME", &home)
            .env("HOME", work.join("home"))
            .env("GATE_ROLE", "director")
            .env_remove("GATE_DB")
            .env_remove("GATE_SPEC")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", gate.display()))?;
        let start = Instant::now();
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, payload.as_bytes()).map_err(|e| e.to_string())?;
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        times.push(start.elapsed());
        all_backed_up &= String::from_utf8_lossy(&out.stdout).contains("gate undo");
        std::fs::remove_dir_all(&home).map_err(|e| e.to_string())?;
    }
    times.sort();
    Ok((times, all_backed_up))
}
