//! `gate-floor`: the least a hook process can do — read stdin, parse it as JSON, print one
//! JSON line — built with the same profile as `gate`, as the baseline the latency harness
//! divides by.

use std::io::{Read, Write};

fn main() {
    let mut input = Vec::new();
    if std::io::stdin().lock().read_to_end(&mut input).is_err() {
        return;
    }
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&input) else {
        return;
    };
    let event = value
        .get("hook_event_name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let answer = serde_json::json!({"hookSpecificOutput": {"hookEventName": event}});
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{answer}");
    let _ = stdout.flush();
}
