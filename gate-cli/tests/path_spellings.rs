//! Paths are locations: every shipped spec's path rules match a file however an action
//! spells it (`./`, `/./`, `//`, `x/../`, absolute, from a subdirectory, through `cd`), on
//! every tool surface (Claude Code's Write, Edit and Read, Gemini's `write_file`, Codex's
//! `apply_patch`, a shell redirect and a shell read), exactly as they match its plain
//! project-relative spelling.

use gate_cli::adapters::normalize;
use gate_runtime::event::Runtime;
use gate_runtime::observer::Classifier;
use serde_json::json;
use std::path::Path;

/// A file a path glob matches: wildcards filled with plain names, the first choice of a
/// brace or class; `None` for globs that name places outside the project.
fn sample(glob: &str) -> Option<String> {
    if glob.starts_with(['/', '~', '!']) || glob.contains('\\') {
        return None;
    }
    let mut out = String::new();
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    out.push_str("deep/");
                } else {
                    out.push_str("deep/file.txt");
                }
            }
            '*' => out.push_str("file"),
            '?' => out.push('q'),
            '{' => {
                let mut first = String::new();
                let mut in_first = true;
                for d in chars.by_ref() {
                    match d {
                        '}' => break,
                        ',' => in_first = false,
                        d if in_first => first.push(d),
                        _ => {}
                    }
                }
                out.push_str(&first);
            }
            '[' => {
                let mut class = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    class.push(d);
                }
                out.push(class.chars().find(|c| c.is_alphanumeric()).unwrap_or('a'));
            }
            c => out.push(c),
        }
    }
    let out = out.trim_end_matches('/').to_string();
    (!out.is_empty() && gate_runtime::glob::path(glob, &out)).then_some(out)
}

/// Spellings of `file` (project-relative) from the project root `root`, each with the
/// working directory it is written from.
fn spellings(file: &str, root: &str) -> Vec<(String, String)> {
    let (dir, name) = file.rsplit_once('/').unwrap_or(("", file));
    let mut out = vec![
        (format!("./{file}"), root.to_string()),
        (format!("other/../{file}"), root.to_string()),
        (format!("{root}/{file}"), root.to_string()),
        (format!("{root}//{file}"), root.to_string()),
        (format!("../{file}"), format!("{root}/sub")),
        (format!("{root}/sub/../{file}"), format!("{root}/sub")),
    ];
    if !dir.is_empty() {
        out.push((format!("{dir}/./{name}"), root.to_string()));
        out.push((format!("{dir}//{name}"), root.to_string()));
    }
    out
}

/// The payloads of each tool surface that touch `path` from `cwd`.
fn surfaces(path: &str, cwd: &str) -> Vec<(Runtime, &'static str, serde_json::Value)> {
    let claude = |tool: &str, input: serde_json::Value| {
        json!({"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
               "tool_name": tool, "tool_input": input})
    };
    vec![
        (
            Runtime::ClaudeCode,
            "Write",
            claude("Write", json!({"file_path": path, "content": "x"})),
        ),
        (
            Runtime::ClaudeCode,
            "Edit",
            claude(
                "Edit",
                json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            ),
        ),
        (
            Runtime::ClaudeCode,
            "Read",
            claude("Read", json!({"file_path": path})),
        ),
        (
            Runtime::ClaudeCode,
            "echo >",
            claude("Bash", json!({"command": format!("echo x > {path}")})),
        ),
        (
            Runtime::ClaudeCode,
            "cat",
            claude("Bash", json!({"command": format!("cat {path}")})),
        ),
        (
            Runtime::Gemini,
            "write_file",
            json!({"session_id": "s", "cwd": cwd, "hook_event_name": "BeforeTool",
                   "tool_name": "write_file", "tool_input": {"file_path": path, "content": "x"}}),
        ),
        (
            Runtime::Codex,
            "apply_patch",
            json!({"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
                   "tool_name": "apply_patch",
                   "tool_input": {"command": format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n")}}),
        ),
    ]
}

fn matches(
    classifier: &Classifier,
    rule: usize,
    runtime: Runtime,
    payload: &serde_json::Value,
) -> bool {
    let bytes = serde_json::to_vec(payload).unwrap();
    let event = normalize(runtime, &bytes, None).expect("a valid payload");
    classifier
        .classify(&event)
        .matched
        .iter()
        .any(|r| usize::from(*r) == rule)
}

#[test]
fn every_path_rule_matches_every_spelling_on_every_surface() {
    let tmp = tempfile::tempdir().unwrap();
    let root_path = tmp.path().join("proj");
    std::fs::create_dir_all(root_path.join(".git")).unwrap();
    std::fs::create_dir_all(root_path.join("sub")).unwrap();
    let root = root_path.to_str().unwrap().to_string();
    let mut checked = 0;
    let mut problems = Vec::new();
    for compiled in gate_specs::ALL {
        let spec = compiled.ir();
        let classifier = Classifier::new(spec);
        for (r, rule) in spec.rules.iter().enumerate() {
            for glob in &rule.paths {
                let Some(file) = sample(&glob.text) else {
                    continue;
                };
                let plain: Vec<bool> = surfaces(&file, &root)
                    .iter()
                    .map(|(rt, _, p)| matches(&classifier, r, *rt, p))
                    .collect();
                if !plain.iter().any(|m| *m) {
                    continue;
                }
                for (spelled, cwd) in spellings(&file, &root) {
                    for (i, (rt, name, payload)) in surfaces(&spelled, &cwd).iter().enumerate() {
                        checked += 1;
                        if matches(&classifier, r, *rt, payload) != plain[i] {
                            problems.push(format!(
                                "{}: rule `{}` ({}) on {name}: `{file}` {} but `{spelled}` from {} {}",
                                compiled.name,
                                rule.name,
                                glob.text,
                                if plain[i] { "matches" } else { "does not match" },
                                Path::new(&cwd).strip_prefix(&root).map_or("/", |p| p.to_str().unwrap_or("")),
                                if plain[i] { "does not" } else { "does" },
                            ));
                        }
                    }
                }
            }
        }
    }
    // `cd` in the line: the effect model resolves what the spelling alone does not.
    let spec = gate_specs::ALL
        .iter()
        .find(|c| c.name == "waypoints_phases")
        .unwrap()
        .ir();
    let classifier = Classifier::new(spec);
    let cd = json!({"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
                    "tool_name": "Bash", "tool_input": {"command": "cd sub && echo x > ../src/lib.rs"}});
    let plain = json!({"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "echo x > src/lib.rs"}});
    let matched = |p: &serde_json::Value| {
        let event = normalize(Runtime::ClaudeCode, &serde_json::to_vec(p).unwrap(), None).unwrap();
        classifier.classify(&event).matched
    };
    assert_eq!(matched(&cd), matched(&plain), "cd sub && … ../src/lib.rs");
    assert!(checked > 1000, "only {checked} spellings checked");
    assert!(
        problems.is_empty(),
        "{} of {checked}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn samples_match_their_globs() {
    assert_eq!(sample("src/**").as_deref(), Some("src/deep/file.txt"));
    assert_eq!(sample("**/*.rs").as_deref(), Some("deep/file.rs"));
    assert_eq!(
        sample("tests/**/*_test.{py,rs}").as_deref(),
        Some("tests/deep/file_test.py")
    );
    assert_eq!(sample("/etc/**"), None);
}
