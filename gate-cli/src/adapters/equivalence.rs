//! The borrowed-tree reading of payloads ([`super::normalize`]) against the previous reading
//! through a `serde_json::Value` ([`super::oracle`]): the same `Event` or the same error, on
//! every recorded payload, on generated variations of each (missing keys, wrong types,
//! escapes, repeated keys, `tool_input` as a JSON string, timestamps), on broken bytes and on
//! random payloads.

use super::oracle;
use super::*;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const RUNTIMES: [Runtime; 4] = [
    Runtime::ClaudeCode,
    Runtime::Codex,
    Runtime::Gemini,
    Runtime::Copilot,
];

/// Every key an adapter or the replay reader looks up, at the top level or one level down.
const KEYS: &[&str] = &[
    "hook_event_name",
    "hookEventName",
    "hookName",
    "tool_name",
    "toolName",
    "tool_input",
    "toolArgs",
    "toolInput",
    "tool_args",
    "tool_response",
    "toolResult",
    "tool_result",
    "timestamp",
    "session_id",
    "sessionId",
    "agent_id",
    "agentId",
    "agent_type",
    "agentType",
    "cwd",
    "permission_mode",
    "permissionMode",
    "prompt",
    "stop_hook_active",
    "stopHookActive",
    "tool_use_id",
    "toolUseId",
    "turn_id",
    "command",
    "cmd",
    "patch",
    "input",
    "file_path",
    "filePath",
    "notebook_path",
    "path",
    "dir_path",
    "workdir",
    "directory",
    "working_directory",
    "chars",
    "keys",
    "args",
    "commands",
    "script",
    "uri",
    "src",
    "dest",
    "paths",
    "name",
    "pattern",
    "url",
    "query",
    "is_error",
    "exit_code",
    "exitCode",
    "output",
    "error",
    "llmContent",
    "resultType",
    "result_type",
    "textResultForLlm",
    "text_result_for_llm",
];

/// Values of every JSON type, including the ones adapters treat specially.
fn odd_values() -> Vec<Value> {
    serde_json::from_str(
        r#"[null, true, false, 0, 1, -1, 1.5, -2.75, 1e20, 18446744073709551615,
            -9223372036854775808, 1700000000123, "", "  ", "Bash", "mcp__x__y", "PostToolUse",
            "preToolUse", "Stop", "2026-01-02T03:04:05.678Z", "2026-01-02T03:04:05+02:00",
            "2026-13-02T03:04:05Z", "Exit code: 3", "exited with code 0",
            "Success. Updated the following files:\nM a.txt",
            "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch",
            "with \"quotes\", \\ back\tslash, \u00e9, \ud83d\ude00 and \u0000",
            "{\"command\":\"ls -la\",\"path\":\"/p\"}", "[\"a\"]", "not json {",
            [], ["git", "status"], ["git", 1], [null], {}, {"is_error": true},
            {"exit_code": 2, "output": "x"}, {"exitCode": 0}, {"output": "Exit code: 1"},
            {"error": ""}, {"error": null}, {"error": "boom"}, {"llmContent": "Exit Code: 4"},
            {"resultType": "failure"}, {"result_type": "success",
            "text_result_for_llm": "exit code 9"}, {"command": ["ls", "-l"], "path": "/x"},
            {"file_path": "/f", "command": 3}, "file:///home/u/.claude/settings.json",
            "~/.ssh/id_rsa", ".claude", "see the notes", {"cwd": ".claude", "cmd": "rm -f x"},
            {"command": "git", "args": ["clean", "-fdx"]}, [{"command": "rm -rf .claude"}],
            {"a": {"b": {"c": ["/etc/passwd", 1, null]}}}]"#,
    )
    .expect("the odd values are JSON")
}

fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    // The payloads the real clients sent (recorded with the e2e harness, scrubbed).
    collect(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/payloads"),
        &mut files,
    );
    files.sort();
    files
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
}

/// New and old readings agree on `bytes` for every runtime and a few event hints.
fn same(bytes: &[u8], what: &str) {
    same_with(
        bytes,
        what,
        &[None, Some("preToolUse"), Some(" PostToolUse "), Some("  ")],
    );
}

fn same_with(bytes: &[u8], what: &str, hints: &[Option<&str>]) {
    for runtime in RUNTIMES {
        for &hint in hints {
            assert_eq!(
                normalize(runtime, bytes, hint),
                oracle::normalize(runtime, bytes, hint),
                "{what}, {runtime:?}, hint {hint:?}: {}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

fn same_value(value: &Value, what: &str) {
    same_with(
        &serde_json::to_vec(value).unwrap(),
        what,
        &[None, Some(" PostToolUse ")],
    );
}

/// Variations of one payload object the adapters read differently. Each (key, odd value)
/// pair is tried on every fourth payload (`seed` rotates which), so that the recorded
/// payloads together try every pair several times and a debug test run stays short.
fn variations(object: &Map<String, Value>, seed: usize) -> Vec<(String, Value)> {
    let picked = |key: usize, value: usize| (seed + key + value).is_multiple_of(4);
    let odd = odd_values();
    let mut out = Vec::new();
    for key in object.keys() {
        let mut v = object.clone();
        v.shift_remove(key);
        out.push((format!("without {key}"), Value::Object(v)));
    }
    for (k, key) in KEYS.iter().enumerate() {
        for (i, value) in odd.iter().enumerate().filter(|(i, _)| picked(k, *i)) {
            let mut v = object.clone();
            v.insert(key.to_string(), value.clone());
            out.push((format!("{key} = odd value {i}"), Value::Object(v)));
        }
    }
    // Inside the tool's input and response: missing and odd members.
    for outer in [
        "tool_input",
        "toolArgs",
        "toolInput",
        "tool_args",
        "tool_response",
        "toolResult",
        "tool_result",
    ] {
        let Some(Value::Object(inner)) = object.get(outer) else {
            continue;
        };
        let mut as_string = object.clone();
        as_string.insert(
            outer.to_string(),
            Value::String(serde_json::to_string(inner).unwrap()),
        );
        out.push((
            format!("{outer} as a JSON string"),
            Value::Object(as_string),
        ));
        for key in inner.keys() {
            let mut i = inner.clone();
            i.shift_remove(key);
            let mut v = object.clone();
            v.insert(outer.to_string(), Value::Object(i));
            out.push((format!("{outer} without {key}"), Value::Object(v)));
        }
        for (k, key) in KEYS.iter().enumerate() {
            for (n, value) in odd.iter().enumerate().filter(|(n, _)| picked(k, *n)) {
                let mut i = inner.clone();
                i.insert(key.to_string(), value.clone());
                let mut v = object.clone();
                v.insert(outer.to_string(), Value::Object(i));
                out.push((format!("{outer}.{key} = odd value {n}"), Value::Object(v)));
            }
        }
    }
    out
}

/// Variations written as text: repeated keys, escaped keys and strings, broken bytes.
fn text_variations(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let compact = serde_json::to_string(&serde_json::from_slice::<Value>(bytes).unwrap()).unwrap();
    let body = compact.trim_end_matches('}');
    let mut out = vec![
        ("truncated".to_string(), bytes[..bytes.len() / 2].to_vec()),
        (
            "trailing text".to_string(),
            format!("{compact} x").into_bytes(),
        ),
        (
            "trailing comma".to_string(),
            format!("{body},}}").into_bytes(),
        ),
        (
            "as an array".to_string(),
            format!("[{compact}]").into_bytes(),
        ),
        ("invalid UTF-8".to_string(), {
            let mut b = compact.clone().into_bytes();
            let at = b.iter().rposition(|&c| c == b'"').unwrap_or(0);
            b.insert(at, 0xff);
            b
        }),
        (
            "lone surrogate".to_string(),
            format!("{body},\"x\":\"\\ud800\"}}").into_bytes(),
        ),
        (
            "number out of range".to_string(),
            format!("{body},\"x\":1e400}}").into_bytes(),
        ),
        ("nested too deep".to_string(), {
            format!("{body},\"x\":{}{}}}", "[".repeat(200), "]".repeat(200)).into_bytes()
        }),
        ("nested 100 deep".to_string(), {
            format!("{body},\"x\":{}{}}}", "[".repeat(100), "]".repeat(100)).into_bytes()
        }),
    ];
    for key in KEYS {
        let quoted = format!("\"{key}\"");
        if !compact.contains(&quoted) {
            continue;
        }
        // The key spelled with an escape (an owned key in the borrowed tree).
        let escaped = format!("\"\\u{:04x}{}\"", key.as_bytes()[0], &key[1..]);
        out.push((
            format!("{key} escaped"),
            compact.replacen(&quoted, &escaped, 1).into_bytes(),
        ));
        // The key given twice: the last value counts.
        for value in ["\"Stop\"", "null", "{\"command\":\"rm -rf /\"}", "7"] {
            out.push((
                format!("{key} repeated as {value}"),
                format!("{body},{quoted}:{value}}}").into_bytes(),
            ));
            out.push((
                format!("{key} first given as {value}"),
                format!("{{{quoted}:{value},{}", &compact[1..]).into_bytes(),
            ));
        }
    }
    // Every string value with its characters escaped.
    out.push((
        "escaped slashes".to_string(),
        text.replace('/', "\\/").into_bytes(),
    ));
    out.push((
        "escaped spaces".to_string(),
        text.replace(' ', "\\u0020").into_bytes(),
    ));
    out
}

#[test]
fn every_recorded_payload_and_its_variations_read_the_same() {
    let files = fixture_files();
    assert!(
        files.len() >= 40,
        "only {} recorded payloads found",
        files.len()
    );
    let mut checked = 0usize;
    for (seed, file) in files.iter().enumerate() {
        let bytes = std::fs::read(file).unwrap();
        let what = file.display().to_string();
        same(&bytes, &what);
        checked += 1;
        for (name, text) in text_variations(&bytes) {
            same(&text, &format!("{what}: {name}"));
            checked += 1;
        }
        let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        for (name, value) in variations(&object, seed) {
            same_value(&value, &format!("{what}: {name}"));
            checked += 1;
        }
    }
    assert!(checked > 10_000, "only {checked} payloads compared");
}

#[test]
fn non_objects_and_empty_input_give_the_same_errors() {
    for text in [
        &b""[..],
        b"   ",
        b"null",
        b"[]",
        b"\"PreToolUse\"",
        b"12",
        b"{",
        b"{}",
        b"{\"hook_event_name\":\"PreToolUse\"}",
    ] {
        same(text, "small input");
    }
}

/// Any JSON value, with object keys mostly from the adapters' vocabulary.
fn arb_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        4 => proptest::sample::select(KEYS).prop_map(str::to_string),
        1 => "[a-z_]{0,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        proptest::sample::select(odd_values()),
        "\\PC{0,12}".prop_map(Value::String),
        proptest::sample::select(KEYS).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key.clone(), inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn random_payloads_read_the_same(value in arb_value()) {
        let bytes = serde_json::to_vec(&value).unwrap();
        for runtime in RUNTIMES {
            for hint in [None, Some("postToolUse")] {
                prop_assert_eq!(
                    normalize(runtime, &bytes, hint),
                    oracle::normalize(runtime, &bytes, hint)
                );
            }
        }
    }

    #[test]
    fn damaged_payloads_give_the_same_answer(
        value in arb_value(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        cut in any::<bool>(),
    ) {
        let mut bytes = serde_json::to_vec(&value).unwrap();
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] = byte;
        }
        for runtime in RUNTIMES {
            prop_assert_eq!(
                normalize(runtime, &bytes, Some("preToolUse")),
                oracle::normalize(runtime, &bytes, Some("preToolUse"))
            );
        }
    }
}
