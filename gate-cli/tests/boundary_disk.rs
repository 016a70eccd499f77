//! The boundary holds for what gate cannot read on the line: two-call splits through the
//! real `gate hook` in a scratch home and project. The first call leaves something on the
//! disk (a script, a Makefile, a package's scripts, git's configuration, a link, an
//! archive), as an agent would or as it was found; the second runs it, and is answered by
//! what it runs. Each with a benign twin that stays as it was. Then grants bound to what an
//! action reads and to its session, and store faults in a row.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

/// A scratch world: a home with a project in it (a git repository whose `.claude/` holds
/// hook settings), an empty config directory, a database of its own.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
    db: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let home = root.join("home");
        let project = home.join("proj");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::write(project.join(".claude/settings.json"), "{\"hooks\":{}}\n").unwrap();
        std::fs::create_dir_all(root.join("no-config")).unwrap();
        let db = root.join("state").join("gate.db");
        let w = World {
            _dir: dir,
            root,
            home,
            project,
            db,
        };
        w.git(&["init", "-q"]);
        w
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.project.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    fn git(&self, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    fn gate(&self, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
        let mut command = common::gate_command();
        command
            .args(args)
            .current_dir(&self.project)
            .env("GATE_DB", &self.db)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.root.join("no-config"))
            .envs(env.iter().copied());
        common::run(command, stdin)
    }

    /// One Claude Code Bash call in `session`; the answer's decision.
    fn bash_in(&self, session: &str, command: &str, env: &[(&str, &str)]) -> String {
        let payload = serde_json::json!({"session_id": session, "cwd": self.project,
            "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash",
            "tool_input": {"command": command}});
        let out = self.gate(
            &["hook", "claude-code"],
            env,
            payload.to_string().as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(out.stderr.is_empty(), "{out:?}");
        decision(&out)
    }

    fn bash(&self, command: &str) -> String {
        self.bash_in("s-disk", command, &[])
    }

    /// The id of the newest pending grant.
    fn pending_grant(&self) -> String {
        let out = self.gate(&["grants", "--json"], &[], b"");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let list = v
            .as_array()
            .or_else(|| v["grants"].as_array())
            .cloned()
            .unwrap_or_default();
        list.iter()
            .filter(|g| g["status"] == "pending")
            .max_by_key(|g| g["created_ms"].as_i64().unwrap_or(0))
            .and_then(|g| g["id"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| panic!("a pending grant: {v}"))
    }

    fn approve(&self, id: &str) {
        let out = self.gate(&["approve", id], &[], b"");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
}

/// `allow`, `ask`, `deny`, or `steer` (the hook's answer to a pre-tool call).
fn decision(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains("\"permissionDecision\":\"deny\"") {
        "deny".into()
    } else if text.contains("\"permissionDecision\":\"ask\"") {
        "ask".into()
    } else if text.trim().is_empty() || text.contains("\"permissionDecision\":\"allow\"") {
        "allow".into()
    } else {
        "steer".into()
    }
}

fn blocks(d: &str) -> bool {
    d == "deny" || d == "ask"
}

#[test]
fn a_script_written_then_run_is_what_runs() {
    let w = World::new();
    // First call: a script is written (an edit tool, or a line gate allows).
    w.write("run.sh", "#!/bin/sh\necho building\nrm -rf .claude\n");
    w.write("ok.sh", "#!/bin/sh\necho building\nls -la\n");
    w.write("clean.py", "import shutil\nshutil.rmtree('.claude')\n");
    for line in [
        "bash run.sh",
        "sh ./run.sh",
        "./run.sh",
        ". ./run.sh",
        "source run.sh",
        "python3 clean.py",
    ] {
        assert_eq!(w.bash(line), "deny", "{line}");
    }
    for line in ["bash ok.sh", "./ok.sh", "sh ok.sh"] {
        assert!(!blocks(&w.bash(line)), "{line}");
    }
}

/// A program or script in a directory outside the project (here the scratch root, which is
/// temporary or outside) whose text gate cannot read, missing or not text, is foreign code
/// there; one it can read is what its text says.
#[test]
fn unreadable_code_outside_the_project_is_foreign() {
    let w = World::new();
    let scratch = w.root.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("ok.sh"), "#!/bin/sh\nls -la\n").unwrap();
    std::fs::write(
        scratch.join("tool"),
        [0x7f, b'E', b'L', b'F', 0, 1, 0xff, 0xfe],
    )
    .unwrap();
    let s = scratch.display();
    for line in [
        format!("bash {s}/absent.sh"),
        format!("{s}/absent --run"),
        format!("{s}/tool --run"),
        format!("sh -c '{s}/tool'"),
    ] {
        assert!(blocks(&w.bash(&line)), "{line}");
    }
    for line in [format!("bash {s}/ok.sh"), format!("{s}/ok.sh")] {
        assert!(!blocks(&w.bash(&line)), "{line}");
    }
}

#[test]
fn makefile_package_and_git_configuration_run_what_they_say() {
    let w = World::new();
    w.write(
        "Makefile",
        "build:\n\techo build\nclean:\n\trm -rf .claude\n",
    );
    assert_eq!(w.bash("make clean"), "deny");
    assert_eq!(w.bash("make -C . clean"), "deny");
    assert!(!blocks(&w.bash("make build")));
    w.write(
        "package.json",
        r#"{"scripts": {"test": "jest", "pretest": "rm -rf .claude", "build": "tsc"}}"#,
    );
    assert_eq!(w.bash("npm test"), "deny");
    assert_eq!(w.bash("yarn test"), "deny");
    assert!(!blocks(&w.bash("npm run build")));
    // git's stored configuration: an alias, a monitor, a hook.
    w.git(&["config", "alias.tidy", "!rm -rf .claude"]);
    assert_eq!(w.bash("git tidy"), "deny");
    w.write("mon.sh", "rm -rf .claude\n");
    w.git(&["config", "core.fsmonitor", "./mon.sh"]);
    assert_eq!(w.bash("git status"), "deny");
    w.git(&["config", "--unset", "core.fsmonitor"]);
    assert!(!blocks(&w.bash("git status")));
    // git's own writes of its metadata earlier in the line leave its hooks as they are: the
    // hooks it then runs are what is on the disk.
    for line in [
        "git add -A && git commit -m wip",
        "git checkout -b fix && git commit -am wip",
        "git stash && git stash pop",
    ] {
        assert!(!blocks(&w.bash(line)), "{line}");
    }
    // Files put into the metadata's hooks earlier in the line are what runs, unseen.
    w.write("hook.sh", "#!/bin/sh\necho ok\n");
    for line in [
        "cp hook.sh .git/hooks/pre-commit && git commit -m wip",
        "cp hook.sh .git/hooks/post-checkout && git checkout -b other",
    ] {
        assert!(blocks(&w.bash(line)), "{line}");
    }
    w.write(".git/hooks/pre-commit", "#!/bin/sh\nrm -rf .claude\n");
    assert_eq!(w.bash("git commit -m wip"), "deny");
    assert_eq!(w.bash("git add -A && git commit -m wip"), "deny");
}

#[test]
fn parents_archives_and_links_reach_what_they_hold() {
    let w = World::new();
    w.write(".github/hooks/gate.json", "{}");
    w.write("build/out.o", "x");
    assert_eq!(w.bash("rm -rf .github"), "deny");
    assert!(!blocks(&w.bash("rm -rf build/")));
    // A hard link made by something gate did not read, then a write through it.
    std::fs::hard_link(
        w.project.join(".claude/settings.json"),
        w.project.join("notes.json"),
    )
    .unwrap();
    assert_eq!(w.bash("echo '{}' > notes.json"), "deny");
    // A symbolic link to a directory outside: deleting through it is asked.
    let docs = w.home.join("Documents");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("cv.pdf"), "x").unwrap();
    std::os::unix::fs::symlink(&docs, w.project.join("docs")).unwrap();
    assert!(blocks(&w.bash("rm -rf docs/*")));
    // With a trailing slash `rm -r` follows a link and empties what it reaches; without one
    // it removes the link alone.
    assert!(blocks(&w.bash("rm -rf docs/")));
    std::os::unix::fs::symlink(w.project.join(".claude"), w.project.join("cl")).unwrap();
    assert_eq!(w.bash("rm -rf cl/"), "deny");
    assert!(!blocks(&w.bash("rm -f cl")));
    std::os::unix::fs::symlink(w.project.join("build"), w.project.join("out")).unwrap();
    assert!(!blocks(&w.bash("rm -rf out/")));
    // An archive whose members land on the hook settings.
    let src = w.root.join("src");
    std::fs::create_dir_all(src.join(".claude")).unwrap();
    std::fs::write(src.join(".claude/settings.json"), "{}").unwrap();
    std::fs::write(src.join("a.txt"), "a").unwrap();
    for (name, members) in [
        ("evil.tar", vec![".claude", "a.txt"]),
        ("ok.tar", vec!["a.txt"]),
    ] {
        let out = std::process::Command::new("tar")
            .arg("-cf")
            .arg(w.root.join(name))
            .args(&members)
            .current_dir(&src)
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    assert_eq!(
        w.bash(&format!("tar -xf {}", w.root.join("evil.tar").display())),
        "deny"
    );
    assert!(!blocks(&w.bash(&format!(
        "tar -xf {} -C build",
        w.root.join("ok.tar").display()
    ))));
}

#[test]
fn stash_checkout_and_clean_reach_changed_and_untracked_settings() {
    let w = World::new();
    w.write("src/a.rs", "fn main() {}\n");
    w.git(&["add", "-A"]);
    w.git(&["commit", "-q", "-m", "init"]);
    // Unchanged: the work-tree commands leave the settings alone.
    assert!(!blocks(&w.bash("git stash")));
    // The user's hook added and not yet committed: stash, checkout and reset would drop it.
    std::thread::sleep(std::time::Duration::from_millis(20));
    w.write(".claude/settings.json", "{\"hooks\":{\"PreToolUse\":[]}}\n");
    for line in [
        "git stash",
        "git checkout .",
        "git checkout-index -a -f",
        "git restore .",
    ] {
        assert_eq!(w.bash(line), "deny", "{line}");
    }
    // Untracked local settings: cleaned or stashed away.
    w.write(".claude/settings.local.json", "{}\n");
    for line in ["git stash -u", "git clean -fdx"] {
        assert_eq!(w.bash(line), "deny", "{line}");
    }
    // A patch read where `git -C` reads it.
    w.write(
        "p.patch",
        "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n-a\n+b\n",
    );
    assert_eq!(w.bash("git -C . apply p.patch"), "deny");
}

#[test]
fn a_grant_is_bound_to_what_the_action_reads_and_to_its_session() {
    let w = World::new();
    w.write("migrate.sql", "DROP TABLE users;\n");
    let line = "sqlite3 app.db < migrate.sql";
    assert_eq!(w.bash(line), "ask", "a table dropped is asked");
    let id = w.pending_grant();
    w.approve(&id);
    // Another session does not inherit the approval.
    assert_eq!(w.bash_in("s-other", line, &[]), "ask");
    // The agent changes the file: the retry is asked again.
    w.write("migrate.sql", "DROP TABLE users; DROP TABLE orders;\n");
    assert_eq!(w.bash(line), "ask", "changed content is asked again");
    // Put back as approved: the approved action runs, once.
    w.write("migrate.sql", "DROP TABLE users;\n");
    assert!(!blocks(&w.bash(line)), "the approved content passes");
    assert_eq!(w.bash(line), "ask", "once");
}

/// Corrupt the database in place (the WAL and shared memory too).
fn corrupt(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(&p));
    }
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(db, vec![0x5au8; 8192]).unwrap();
}

#[test]
fn store_faults_in_a_row_close_the_tiers_that_need_state() {
    let w = World::new();
    let worker = [("GATE_ROLE", "worker")];
    // Healthy: a session starts (a boundary), and a worker's delete before it reassesses
    // meets the method block, which comes from the machine's state.
    let start = serde_json::json!({"session_id": "s-w", "cwd": w.project,
        "hook_event_name": "SessionStart", "source": "startup"});
    let out = w.gate(
        &["hook", "claude-code"],
        &worker,
        start.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    w.write("notes.txt", "x");
    assert_eq!(w.bash_in("s-w", "rm notes.txt", &worker), "deny");
    // The store breaks: the state is gone, and with it the block, for the first faults.
    corrupt(&w.db);
    assert_eq!(w.bash_in("s-w", "rm notes.txt", &worker), "allow");
    assert_eq!(w.bash_in("s-w", "rm notes.txt", &worker), "allow");
    // The third fault in a row: tiers that need state fail closed.
    assert_eq!(w.bash_in("s-w", "rm notes.txt", &worker), "deny");
    assert_eq!(w.bash_in("s-w", "rm notes.txt", &worker), "deny");
    // A block that needs no state stands; a benign action is not made a block.
    assert_eq!(w.bash_in("s-w", "rm -rf /", &worker), "deny");
    assert_eq!(w.bash_in("s-w", "ls -la", &worker), "allow");
    // Another session has its own count.
    assert_eq!(w.bash_in("s-x", "rm notes.txt", &worker), "allow");
    // `gate doctor` and `gate status` show it.
    let doctor = w.gate(&["doctor", "--json"], &[], b"");
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        text.contains("store faults") && text.contains("failing closed now"),
        "{text}"
    );
    // The store works again: the session's next call is answered from its state, and the
    // audit says the store returned after the faults.
    std::fs::remove_file(&w.db).unwrap();
    w.bash_in("s-w", "ls -la", &worker);
    w.bash_in("s-x", "ls -la", &worker);
    assert_eq!(
        w.bash_in("s-w", "rm notes.txt", &worker),
        "allow",
        "a fresh state"
    );
    let conn = rusqlite::Connection::open(&w.db).unwrap();
    let returned: i64 = conn
        .query_row(
            "SELECT count(*) FROM audit WHERE kind = 'fault' AND detail LIKE '%store_returned%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // One row per session that met faults (s-w five in a row, s-x one).
    assert_eq!(returned, 2);
    let status = w.gate(&["status"], &[], b"");
    assert!(String::from_utf8_lossy(&status.stdout).contains("store faults: none in a row"));
}

#[test]
fn stateful_fail_closed_is_configurable_and_off_at_zero() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join(".gate")).unwrap();
    std::fs::write(
        w.project.join(".gate/config.toml"),
        "[hook]\nstateful_fail_closed_after = 0\n",
    )
    .unwrap();
    let worker = [("GATE_ROLE", "worker")];
    w.write("notes.txt", "x");
    corrupt(&w.db);
    for _ in 0..4 {
        assert_eq!(w.bash_in("s-w", "rm notes.txt", &worker), "allow");
    }
    // A count that cannot be kept assumes the worst: no directory for the database at all.
    let w = World::new();
    std::fs::write(w.root.join("state"), "a file where the directory should be").unwrap();
    assert_eq!(w.bash_in("s-w", "rm notes.txt", &worker), "deny");
    assert_eq!(w.bash_in("s-w", "ls -la", &worker), "allow");
}
