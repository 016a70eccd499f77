//! A batch of audit rows in the sink's wire form: an OTLP `ExportLogsServiceRequest` in the
//! OTLP/HTTP JSON encoding, or JSON lines.
//!
//! OTLP/HTTP defines two encodings of the same messages, binary protobuf and JSON (the
//! protobuf JSON mapping with OTLP's rules: lowerCamelCase field names, 64-bit integers as
//! decimal strings, enums as numbers). The JSON form is written here with serde_json, so the
//! `gate` binary, which is also the hook, carries no protobuf code generation or
//! OpenTelemetry SDK; collectors accept both (`Content-Type: application/json`). The tests
//! decode what is sent with the `opentelemetry-proto` crate's message types.

use gate_runtime::store::AuditRow;
use serde_json::{json, Value};

/// The instrumentation scope of every record.
pub const SCOPE_NAME: &str = "gate.audit";

/// OTLP severity numbers (logs data model): INFO, WARN, ERROR.
const SEVERITY_INFO: i32 = 9;
const SEVERITY_WARN: i32 = 13;
const SEVERITY_ERROR: i32 = 17;

fn string(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

fn int(key: &str, value: i64) -> Value {
    json!({"key": key, "value": {"intValue": value.to_string()}})
}

/// The severity of a row: a fault is an error, a deny or an ask a warning.
fn severity(row: &AuditRow) -> (i32, &'static str) {
    use gate_runtime::store::AuditKind;
    match (row.record.kind, row.record.decision.as_deref()) {
        (AuditKind::Fault, _) => (SEVERITY_ERROR, "ERROR"),
        (_, Some("deny" | "ask")) | (AuditKind::Deny | AuditKind::Ask, _) => {
            (SEVERITY_WARN, "WARN")
        }
        _ => (SEVERITY_INFO, "INFO"),
    }
}

/// One audit row as an OTLP log record: the body a one-line summary, every column an
/// attribute under `gate.` (the detail as its stored JSON text), the time the row's.
fn log_record(row: &AuditRow) -> Value {
    let r = &row.record;
    let nanos = (r.ts_ms.max(0) as u64)
        .saturating_mul(1_000_000)
        .to_string();
    let (number, text) = severity(row);
    let mut body = format!("{} {}", r.kind, r.decision.as_deref().unwrap_or("-"));
    for part in [r.tool.as_deref(), r.target.as_deref()]
        .into_iter()
        .flatten()
    {
        body.push(' ');
        body.push_str(part);
    }
    let mut attributes = vec![
        int("gate.seq", row.seq),
        string("gate.kind", r.kind.as_str()),
        string("gate.session", &r.session),
        string("gate.scope", &r.scope),
        string("gate.spec", &r.spec),
        string("gate.runtime", &r.runtime),
        string("gate.phase", &r.phase),
        string("gate.detail", &r.detail.to_string()),
        string("gate.mac", &row.mac),
        string("gate.prev_mac", &row.prev_mac),
    ];
    for (key, value) in [
        ("gate.tool", &r.tool),
        ("gate.target", &r.target),
        ("gate.tier", &r.tier),
        ("gate.decision", &r.decision),
        ("gate.role", &r.role),
    ] {
        if let Some(v) = value {
            attributes.push(string(key, v));
        }
    }
    if let Some(error) = r.detail.get("error").and_then(Value::as_str) {
        attributes.push(string("gate.error", error));
    }
    if let Some(us) = r.latency_us {
        attributes.push(int("gate.latency_us", us));
    }
    json!({
        "timeUnixNano": nanos,
        "observedTimeUnixNano": nanos,
        "severityNumber": number,
        "severityText": text,
        "body": {"stringValue": body},
        "attributes": attributes,
    })
}

/// The rows as one `ExportLogsServiceRequest`, from the machine `host`.
pub fn otlp(rows: &[AuditRow], host: &str) -> Vec<u8> {
    let request = json!({
        "resourceLogs": [{
            "resource": {"attributes": [
                string("service.name", "gate"),
                string("service.version", env!("CARGO_PKG_VERSION")),
                string("host.name", host),
            ]},
            "scopeLogs": [{
                "scope": {"name": SCOPE_NAME, "version": env!("CARGO_PKG_VERSION")},
                "logRecords": rows.iter().map(log_record).collect::<Vec<_>>(),
            }],
        }],
    });
    request.to_string().into_bytes()
}

/// The rows as JSON lines, each as `gate audit export` writes it.
pub fn jsonl(rows: &[AuditRow]) -> Vec<u8> {
    let mut out = Vec::new();
    for row in rows {
        if let Ok(line) = serde_json::to_vec(row) {
            out.extend_from_slice(&line);
            out.push(b'\n');
        }
    }
    out
}

/// This machine's name (`host.name`), or `unknown`.
pub fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| {
            let name = std::fs::read_to_string(p).ok()?;
            let name = name.trim();
            (!name.is_empty()).then(|| name.to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}
