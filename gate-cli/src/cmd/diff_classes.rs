//! `gate diff`'s classification comparison: the tier and rule each action of a sample maps to
//! under the old and the new spec. The sample is generated from both specs' rules (every
//! command pattern, every tool name they give) and a table of everyday actions, plus every
//! tool call of the sessions given; an action that moves shows how a rule change reaches
//! actions no state exploration names (a rule with no criteria would move `ls`).

use gate_runtime::engine::Engine;
use gate_runtime::event::{Event, Runtime};
use gate_spec::ir::{Phase, Spec};
use serde::Serialize;

/// Everyday actions every comparison includes: (tool, target).
const EVERYDAY: &[(&str, &str)] = &[
    ("Bash", "ls"),
    ("Bash", "ls -la src"),
    ("Bash", "cat README.md"),
    ("Bash", "git status"),
    ("Bash", "git diff"),
    ("Bash", "git log --oneline"),
    ("Bash", "cargo build"),
    ("Bash", "cargo test"),
    ("Bash", "npm test"),
    ("Bash", "make"),
    ("Bash", "grep -rn TODO src"),
    ("Bash", "rm target/tmp.txt"),
    ("Read", "/home/user/proj/src/main.rs"),
    ("Edit", "/home/user/proj/src/main.rs"),
    ("Write", "/home/user/proj/notes.md"),
    ("Grep", "TODO"),
    ("Glob", "**/*.rs"),
    ("WebFetch", "https://example.com"),
    ("TodoWrite", ""),
    ("Task", "review the change"),
];

/// The working directory of sample actions.
const CWD: &str = "/home/user/proj";

/// One action whose tier or rule differs.
#[derive(Debug, Serialize)]
pub struct Moved {
    pub tool: String,
    pub target: String,
    pub before: String,
    pub after: String,
}

/// A tool call of the sample.
fn action(tool: &str, target: &str) -> Event {
    Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(Phase::PreTool),
        hook_event: "PreToolUse".to_string(),
        tool: Some(tool.to_string()),
        class: Some(crate::adapters::class_of_tool(tool)),
        target: Some(target.to_string()),
        paths: if target.starts_with('/') {
            vec![target.to_string()]
        } else {
            Vec::new()
        },
        session_id: Some("diff".to_string()),
        cwd: Some(CWD.to_string()),
        ..Event::default()
    }
}

/// The generated sample: everyday actions, then each command pattern of either spec's rules
/// (a `*` standing for a word) and each tool name they give, once each.
pub fn sample(specs: [&Spec; 2]) -> Vec<Event> {
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut add = |tool: &str, target: &str| {
        let key = (tool.to_string(), target.to_string());
        if !seen.contains(&key) {
            seen.push(key);
        }
    };
    for (tool, target) in EVERYDAY {
        add(tool, target);
    }
    for spec in specs {
        for rule in &spec.rules {
            for p in &rule.commands {
                add("Bash", &p.text.replace('*', "x"));
            }
            for t in &rule.tools {
                if !t.text.contains(['*', '?', '[']) {
                    add(&t.text, &format!("{CWD}/src/main.rs"));
                }
            }
        }
    }
    seen.iter()
        .map(|(tool, target)| action(tool, target))
        .collect()
}

/// How `engine` classifies `event`: `tier T (rule R)`.
fn class_text(engine: &Engine<'_>, event: &Event) -> String {
    let c = engine.classify(event);
    let spec = engine.spec;
    match c.rule {
        Some(r) => format!(
            "tier {} (rule {})",
            spec.tier_name(c.tier),
            spec.rules[r as usize].name
        ),
        None => format!("tier {} (no rule)", spec.tier_name(c.tier)),
    }
}

/// Every tool call of `events` (the sample and the sessions' calls) classified by both
/// engines: how many were compared, and those whose tier or rule differs.
pub fn compare(old: &Engine<'_>, new: &Engine<'_>, events: &[Event]) -> (usize, Vec<Moved>) {
    let mut moved = Vec::new();
    let mut compared = 0;
    for event in events.iter().filter(|e| e.phase == Some(Phase::PreTool)) {
        compared += 1;
        let (before, after) = (class_text(old, event), class_text(new, event));
        if before != after {
            moved.push(Moved {
                tool: event.tool.clone().unwrap_or_default(),
                target: event
                    .target
                    .as_deref()
                    .map(|t| gate_runtime::redact::redact(t).into_owned())
                    .unwrap_or_default(),
                before,
                after,
            });
        }
    }
    (compared, moved)
}
