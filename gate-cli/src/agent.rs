//! Whether this process runs inside an agent's tool call: what `gate approve` checks so that
//! no agent approves its own ask.
//!
//! Two signs, either enough: an environment variable an agent CLI sets in the processes its
//! tools start, and an agent CLI among this process's ancestors (read from `/proc`, so it
//! holds however the command was spelled: a copied binary, `python -c subprocess…`,
//! `parallel`). Neither is proof against every trick (a process can clear its environment and
//! detach from its parent), which is why the hook also denies any spelling of `gate approve`
//! and why a grant needs its approval row in the audit chain.

use std::path::Path;

/// Variables the agent CLIs set in the environment of the commands their tools run.
const MARKERS: &[(&str, &str)] = &[
    ("CLAUDECODE", "Claude Code"),
    ("CLAUDE_CODE_ENTRYPOINT", "Claude Code"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("CODEX_SANDBOX", "Codex"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "Codex"),
    ("CODEX_THREAD_ID", "Codex"),
    ("COPILOT_CLI", "Copilot CLI"),
];

/// Names an agent CLI's process has, as a program or as the script node runs.
const PROGRAMS: &[(&str, &str)] = &[
    ("claude", "Claude Code"),
    ("@anthropic-ai/claude-code", "Claude Code"),
    ("codex", "Codex"),
    ("@openai/codex", "Codex"),
    ("gemini", "Gemini CLI"),
    ("@google/gemini-cli", "Gemini CLI"),
    ("copilot", "Copilot CLI"),
    ("@github/copilot", "Copilot CLI"),
];

/// Most ancestors looked at (a process tree deeper than this is not an agent's doing).
const MAX_ANCESTORS: usize = 64;

/// Why this process looks like part of an agent's tool call, or `None`.
pub fn inside_agent(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    agent_marker(env).or_else(|| agent_ancestor(Path::new("/proc"), std::process::id()))
}

/// The agent CLI whose marker variable `env` holds, with the variable, or `None`.
pub fn agent_marker(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    MARKERS
        .iter()
        .find(|(var, _)| env(var).is_some_and(|v| !v.is_empty()))
        .map(|(var, agent)| format!("{agent} sets {var} in its tools' environment"))
}

/// The first ancestor of `pid` (under a `/proc`-like `root`) that is an agent CLI.
pub fn agent_ancestor(root: &Path, pid: u32) -> Option<String> {
    let mut pid = parent_of(root, pid)?;
    for _ in 0..MAX_ANCESTORS {
        if pid <= 1 {
            return None;
        }
        if let Some(agent) = agent_named(root, pid) {
            return Some(format!(
                "process {pid}, an ancestor of this one, is {agent}"
            ));
        }
        pid = parent_of(root, pid)?;
    }
    None
}

fn parent_of(root: &Path, pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(root.join(pid.to_string()).join("stat")).ok()?;
    // `pid (comm) state ppid …`: the name may hold spaces and parentheses.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

fn agent_named(root: &Path, pid: u32) -> Option<&'static str> {
    let cmdline = std::fs::read(root.join(pid.to_string()).join("cmdline")).ok()?;
    // The program and, for an interpreter (`node …/cli.js`), the first few arguments.
    for arg in cmdline.split(|&b| b == 0).take(3) {
        let arg = String::from_utf8_lossy(arg);
        let base = arg.rsplit('/').next().unwrap_or(&arg);
        for (name, agent) in PROGRAMS {
            if base == *name || (name.starts_with('@') && arg.contains(name)) {
                return Some(agent);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc_tree(entries: &[(u32, u32, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (pid, ppid, cmdline) in entries {
            let p = dir.path().join(pid.to_string());
            std::fs::create_dir_all(&p).expect("dir");
            std::fs::write(p.join("stat"), format!("{pid} (x y)) S {ppid} 0 0")).expect("stat");
            std::fs::write(p.join("cmdline"), cmdline.replace(' ', "\0")).expect("cmdline");
        }
        dir
    }

    #[test]
    fn ancestors_are_followed_to_an_agent() {
        let tree = proc_tree(&[
            (40, 30, "gate approve x"),
            (30, 20, "bash -c gate"),
            (
                20,
                10,
                "node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js",
            ),
            (10, 1, "sshd"),
        ]);
        let found = agent_ancestor(tree.path(), 40).expect("found");
        assert!(
            found.contains("Claude Code") && found.contains("20"),
            "{found}"
        );
        let tree = proc_tree(&[(40, 30, "gate"), (30, 1, "/home/u/.local/bin/codex exec")]);
        assert!(agent_ancestor(tree.path(), 40).is_some_and(|f| f.contains("Codex")));
        let tree = proc_tree(&[(40, 30, "gate"), (30, 20, "zsh"), (20, 1, "tmux")]);
        assert_eq!(agent_ancestor(tree.path(), 40), None);
        // A user's own file named like an agent is not a process of one.
        let tree = proc_tree(&[(40, 30, "gate"), (30, 1, "vim notes/claude.md")]);
        assert_eq!(agent_ancestor(tree.path(), 40), None);
    }

    #[test]
    fn environment_markers() {
        let env = |k: &str| (k == "CLAUDECODE").then(|| "1".to_string());
        assert!(inside_agent(&env).is_some_and(|w| w.contains("CLAUDECODE")));
        let empty = |k: &str| (k == "GEMINI_CLI").then(String::new);
        // An empty marker is not a marker (the verdict then rests on the ancestors).
        let _ = inside_agent(&empty).map(|w| assert!(!w.contains("GEMINI_CLI"), "{w}"));
    }
}
