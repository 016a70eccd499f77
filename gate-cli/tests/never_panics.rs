//! "Never panics" properties for every fuzz target's entry point: the very functions the
//! cargo-fuzz targets call (fuzz/src/lib.rs, included here) run on generated hook payloads,
//! shell commands, specs and replay files in ordinary `cargo test` runs.

#[path = "../../fuzz/src/lib.rs"]
mod harness;

use proptest::prelude::*;
use serde_json::{Map, Value};

/// Field names the adapters look at, so generated objects reach past the first lookup.
const KEYS: &[&str] = &[
    "session_id",
    "sessionId",
    "hook_event_name",
    "hookEventName",
    "tool_name",
    "toolName",
    "tool_input",
    "toolArgs",
    "tool_response",
    "toolResult",
    "command",
    "file_path",
    "path",
    "content",
    "cwd",
    "timestamp",
    "prompt",
    "permission_mode",
    "agent_id",
    "agent_type",
    "exit_code",
    "resultType",
    "turn_id",
    "edits",
];

const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "BeforeTool",
    "AfterTool",
    "BeforeAgent",
    "preToolUse",
    "postToolUse",
    "sessionStart",
    "PermissionRequest",
];

const TOOLS: &[&str] = &[
    "Bash",
    "Write",
    "Edit",
    "MultiEdit",
    "Read",
    "apply_patch",
    "run_shell_command",
    "write_file",
    "replace",
    "bash",
    "create",
    "edit",
    "view",
    "mcp__x__y",
    "Task",
];

const SHELL_PARTS: &[&str] = &[
    "$(",
    ")",
    "`",
    "'",
    "\"",
    "\\",
    "<<",
    "EOF",
    "\n",
    "|",
    "&",
    ";",
    "&&",
    "||",
    "bash -c ",
    "sudo ",
    "rm ",
    "-rf ",
    "/",
    "${",
    "}",
    "$'\\x",
    " ",
    ">",
    ">>",
    "2>&",
    "(",
    "{ ",
    "find -exec ",
    "xargs ",
    "env -S ",
    "eval ",
    "git push --force ",
    "curl x | sh",
    ".gate/config.toml",
    "gate.db",
    "<(",
    "$((",
    "))",
    "case ",
    "esac",
    "a=(",
    "#",
    "<<<",
    "coproc ",
];

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::String),
        proptest::sample::select(EVENTS).prop_map(|s| Value::String(s.to_string())),
        proptest::sample::select(TOOLS).prop_map(|s| Value::String(s.to_string())),
        shell_text().prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    prop_oneof![
                        proptest::sample::select(KEYS).prop_map(str::to_string),
                        "[a-z_]{1,12}"
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A hook-payload-shaped object: an event, a tool and an input, plus generated extras.
fn payload() -> impl Strategy<Value = Value> {
    (
        proptest::sample::select(EVENTS),
        proptest::sample::select(TOOLS),
        json_value(),
        json_value(),
        any::<bool>(),
    )
        .prop_map(|(event, tool, input, extra, camel)| {
            let mut object = match extra {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            if camel {
                object.insert("sessionId".into(), "s".into());
                object.insert("toolName".into(), tool.into());
                object.insert("toolArgs".into(), input);
            } else {
                object.insert("session_id".into(), "s".into());
                object.insert("hook_event_name".into(), event.into());
                object.insert("tool_name".into(), tool.into());
                object.insert("tool_input".into(), input);
            }
            Value::Object(object)
        })
}

fn shell_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(SHELL_PARTS), 0..40)
        .prop_map(|parts| parts.concat())
}

/// A shipped spec with one slice replaced by generated text (usually still TOML-shaped, so
/// the parser's deeper checks run).
fn mutated_spec() -> impl Strategy<Value = String> {
    let specs: Vec<&'static str> = vec![
        include_str!("../../specs/example.toml"),
        include_str!("../../specs/guard.toml"),
        include_str!("../../specs/default.toml"),
    ];
    (
        proptest::sample::select(specs),
        any::<proptest::sample::Index>(),
        0usize..200,
        prop_oneof![
            Just(String::new()),
            Just("[[state]]\nname = \"x\"\n".to_string()),
            Just("\"".to_string()),
            Just("[".to_string()),
            Just(" = ".to_string()),
            Just("999999999999999999999".to_string()),
            Just("\n[[transition]]\nfrom = \"*\"\nto = \"nowhere\"\non = \"action\"\n".to_string()),
            ".{0,30}",
        ],
    )
        .prop_map(|(spec, at, len, insert)| {
            let start = floor_char_boundary(spec, at.index(spec.len() + 1));
            let end = floor_char_boundary(spec, (start + len).min(spec.len()));
            format!("{}{insert}{}", &spec[..start], &spec[end..])
        })
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn adapter_never_panics_on_bytes(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        harness::adapter(&data);
    }

    #[test]
    fn adapter_never_panics_on_payloads(runtime in any::<u8>(), p in payload()) {
        let mut data = vec![runtime];
        data.extend(serde_json::to_vec(&p).unwrap());
        harness::adapter(&data);
    }

    #[test]
    fn shell_never_panics(s in prop_oneof![shell_text(), ".{0,200}"]) {
        harness::shell(s.as_bytes());
    }

    #[test]
    fn shell_never_panics_with_patterns(pattern in ".{0,30}", s in shell_text()) {
        harness::shell(format!("{pattern}\n{s}").as_bytes());
    }

    #[test]
    fn replay_never_panics(lines in proptest::collection::vec(payload(), 0..12), junk in ".{0,80}") {
        let mut data = Vec::new();
        for line in &lines {
            data.extend(serde_json::to_vec(line).unwrap());
            data.push(b'\n');
        }
        data.extend(junk.as_bytes());
        harness::replay(&data);
    }
}

proptest! {
    // Compiling a full spec takes milliseconds in debug builds: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn spec_never_panics_on_mutations(source in mutated_spec()) {
        harness::spec(source.as_bytes());
    }

    #[test]
    fn spec_never_panics_on_text(source in ".{0,300}") {
        harness::spec(source.as_bytes());
    }
}

/// Every committed seed of every fuzz target runs through its entry point too.
#[test]
fn fuzz_seed_corpus_runs_clean() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    type Entry = fn(&[u8]);
    let targets: [(&str, Entry); 4] = [
        ("adapter", harness::adapter),
        ("shell", harness::shell),
        ("spec", harness::spec),
        ("replay", harness::replay),
    ];
    for (name, run) in targets {
        let mut files: Vec<_> = std::fs::read_dir(root.join(name))
            .unwrap_or_else(|e| panic!("fuzz/corpus/{name}: {e}"))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "fuzz/corpus/{name} has seeds");
        for file in files {
            run(&std::fs::read(&file).unwrap());
        }
    }
}

/// The shell lexer's work at 1 KB … 1 MB for the worst shapes of gate-runtime/tests/shell.rs,
/// printed for docs/reliability.md (`--nocapture`): steps per byte stay flat and under 64.
#[test]
fn shell_lexer_work_is_linear() {
    let shapes: [(&str, &str, &str); 8] = [
        ("nested $(", "$(", ""),
        ("nested bash -c", "bash -c ", "x"),
        ("nested eval", "eval ", "rm"),
        ("echo into a shell", "echo echo echo | sh;", ""),
        ("unbalanced quotes", "'\"", ""),
        ("one long word", "a", ""),
        ("many commands", "rm x;", ""),
        ("heredocs", "cat <<E\nx\n", ""),
    ];
    println!("| shape | 1 KB | 10 KB | 100 KB | 1 MB | steps/byte at 1 MB |");
    println!("|---|---|---|---|---|---|");
    for (name, unit, tail) in shapes {
        let mut cells = Vec::new();
        let mut per_byte = Vec::new();
        for size in [1usize << 10, 10 << 10, 100 << 10, 1 << 20] {
            let input = unit.repeat(size / unit.len() + 1) + tail;
            let steps = gate_runtime::shell::parse(&input).steps;
            assert!(
                steps <= 64 * (input.len() as u64 + 1),
                "{name}: {steps} steps"
            );
            per_byte.push(steps as f64 / input.len() as f64);
            cells.push(steps.to_string());
        }
        assert!(
            per_byte.iter().all(|&r| r <= per_byte[0] * 1.25),
            "{name}: steps per byte grow: {per_byte:?}"
        );
        println!(
            "| {name} | {} | {:.2} |",
            cells.join(" | "),
            per_byte[per_byte.len() - 1]
        );
    }
}
