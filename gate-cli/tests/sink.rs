//! The audit sink end to end: hooks write rows, a flush (started by the hooks in the
//! background, or `gate sink flush`) POSTs them to a test receiver, a std `TcpListener`
//! HTTP server that decodes each OTLP request with the `opentelemetry-proto` crate's message
//! types; an endpoint that is down keeps the backlog, says so, and a later flush delivers it.

mod common;

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request the receiver got.
#[derive(Clone, Debug)]
struct Request {
    path: String,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

/// A minimal HTTP/1.1 server: reads each request (Content-Length or chunked body), keeps it,
/// answers 200 with an empty body and closes the connection.
fn receiver(listener: TcpListener) -> Arc<Mutex<Vec<Request>>> {
    let got = Arc::new(Mutex::new(Vec::new()));
    let keep = got.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let mut headers = BTreeMap::new();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let mut body = Vec::new();
            if let Some(n) = headers.get("content-length").and_then(|n| n.parse().ok()) {
                body.resize(n, 0);
                reader.read_exact(&mut body).unwrap();
            } else if headers
                .get("transfer-encoding")
                .is_some_and(|t| t == "chunked")
            {
                loop {
                    let mut size = String::new();
                    reader.read_line(&mut size).unwrap();
                    let n = usize::from_str_radix(size.trim(), 16).unwrap();
                    let mut chunk = vec![0; n + 2];
                    reader.read_exact(&mut chunk).unwrap();
                    if n == 0 {
                        break;
                    }
                    body.extend_from_slice(&chunk[..n]);
                }
            }
            keep.lock().unwrap().push(Request {
                path,
                headers,
                body,
            });
            let mut stream = reader.into_inner();
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    got
}

/// The scratch project every test here runs in.
type World = common::Project;

impl World {
    fn sink(&self, port: u16, extra: &str) {
        self.config(&format!(
            "[sink]\nendpoint = \"http://127.0.0.1:{port}/v1/logs\"\nbatch = 2\n\
             timeout_secs = 5\nheaders = {{ authorization = \"Bearer t0ken\" }}\n{extra}"
        ));
    }

    /// Three hook calls: a destructive ask as the director, a post-tool failure with a
    /// secret in its error, a benign call.
    fn hooks(&self) {
        let calls = [
            (
                vec!["hook", "claude-code", "--role", "director"],
                r#"{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}"#,
            ),
            (
                vec!["hook", "claude-code"],
                r#"{"hook_event_name":"PostToolUseFailure","session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"command":"make"},"error":"Exit code 2\nauth ghp_abcdefghijklmnopqrstuvwxyz0123456789 failed"}"#,
            ),
            (
                vec!["hook", "claude-code"],
                r#"{"hook_event_name":"PreToolUse","session_id":"s2","cwd":"/p","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
            ),
        ];
        for (args, payload) in calls {
            let out = self.gate(&args, &[], payload.as_bytes());
            assert_eq!(out.status.code(), Some(0));
            assert!(
                out.stderr.is_empty(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let out = self.gate(args, &[], b"");
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: {e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }
}

fn attr<'a>(record: &'a LogRecord, key: &str) -> Option<&'a Any> {
    record
        .attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn text<'a>(record: &'a LogRecord, key: &str) -> Option<&'a str> {
    match attr(record, key)? {
        Any::StringValue(s) => Some(s),
        _ => None,
    }
}

/// Every log record of every request, decoded as OTLP, by `gate.seq`.
fn decode(requests: &[Request]) -> BTreeMap<i64, LogRecord> {
    let mut records = BTreeMap::new();
    for request in requests {
        assert_eq!(request.path, "/v1/logs");
        assert_eq!(request.headers["content-type"], "application/json");
        assert_eq!(request.headers["authorization"], "Bearer t0ken");
        let decoded: ExportLogsServiceRequest = serde_json::from_slice(&request.body)
            .unwrap_or_else(|e| {
                panic!(
                    "not an OTLP request: {e}: {}",
                    String::from_utf8_lossy(&request.body)
                )
            });
        assert_eq!(decoded.resource_logs.len(), 1);
        let resource = decoded.resource_logs[0].resource.as_ref().unwrap();
        assert!(resource.attributes.iter().any(|kv| kv.key == "service.name"
            && kv.value.as_ref().and_then(|v| v.value.as_ref())
                == Some(&Any::StringValue("gate".into()))));
        let scope_logs = &decoded.resource_logs[0].scope_logs[0];
        assert_eq!(scope_logs.scope.as_ref().unwrap().name, "gate.audit");
        assert!(scope_logs.log_records.len() <= 2, "batch = 2");
        for record in &scope_logs.log_records {
            let Some(Any::IntValue(seq)) = attr(record, "gate.seq") else {
                panic!("no gate.seq in {record:?}");
            };
            assert!(
                records.insert(*seq, record.clone()).is_none(),
                "row {seq} sent twice"
            );
        }
    }
    records
}

/// The decoded records carry every row of `gate log --json`, field for field.
fn check_against_log(world: &World, records: &BTreeMap<i64, LogRecord>) {
    let rows = world.json(&["log", "-n", "1000", "--json"]);
    let rows = rows.as_array().unwrap();
    assert_eq!(records.len(), rows.len());
    for row in rows {
        let seq = row["seq"].as_i64().unwrap();
        let record = &records[&seq];
        assert_eq!(
            record.time_unix_nano,
            row["ts_ms"].as_u64().unwrap() * 1_000_000,
            "row {seq}"
        );
        for (key, column) in [
            ("gate.kind", "kind"),
            ("gate.session", "session"),
            ("gate.spec", "spec"),
            ("gate.runtime", "runtime"),
            ("gate.mac", "mac"),
            ("gate.decision", "decision"),
            ("gate.role", "role"),
            ("gate.target", "target"),
        ] {
            assert_eq!(text(record, key), row[column].as_str(), "row {seq}: {key}");
        }
        let detail: serde_json::Value =
            serde_json::from_str(text(record, "gate.detail").unwrap()).unwrap();
        assert_eq!(detail, row["detail"], "row {seq}");
        if row["decision"] == "ask" {
            assert_eq!(record.severity_number, 13, "row {seq}: WARN");
        }
    }
    let events: Vec<&LogRecord> = records
        .values()
        .filter(|r| text(r, "gate.kind") == Some("event"))
        .collect();
    // Three per round of hooks (a test may run more than one round).
    assert!(
        !events.is_empty() && events.len().is_multiple_of(3),
        "{}",
        events.len()
    );
    assert_eq!(text(events[0], "gate.role"), Some("director"));
    let error = text(events[1], "gate.error").unwrap();
    assert!(error.contains("auth [REDACTED] failed"), "{error}");
    for r in records.values() {
        assert!(!format!("{r:?}").contains("ghp_abcdefghij"));
    }
}

/// Hooks start the flush themselves, after answering: the rows arrive without any command.
#[test]
fn hooks_stream_their_rows_as_otlp_logs() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let got = receiver(listener);
    let world = World::new();
    world.sink(port, "interval_secs = 0\n");
    world.hooks();
    // The background flushes deliver everything (the last hook's own flush may still run).
    let started = Instant::now();
    loop {
        let total = world
            .json(&["log", "-n", "1000", "--json"])
            .as_array()
            .unwrap()
            .len();
        let status = world.json(&["sink", "status", "--json"]);
        if status["backlog"] == 0 {
            assert!(status["last_error"].is_null(), "{status}");
            assert_eq!(status["sent_seq"], total as u64);
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "backlog never drained: {status}"
        );
        // A hook-started flush that lost a race to the lock leaves the rest to the next
        // hook; so does this test.
        world.hooks();
        std::thread::sleep(Duration::from_millis(200));
    }
    let requests = got.lock().unwrap().clone();
    let records = decode(&requests);
    check_against_log(&world, &records);
}

/// The endpoint down: nothing is lost, the backlog and the error are shown, and once the
/// endpoint is up a flush delivers every row, in order and once.
#[test]
fn an_endpoint_that_is_down_keeps_the_backlog_for_a_later_flush() {
    // A port with nothing listening on it.
    let port = {
        let probe = TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let world = World::new();
    // Rows written before the sink is configured are sent too.
    world.hooks();
    world.sink(port, "");
    let out = world.gate(&["sink", "flush"], &[], b"");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("kept for the next flush"));
    let rows = world
        .json(&["log", "-n", "1000", "--json"])
        .as_array()
        .unwrap()
        .len() as i64;
    let status = world.json(&["sink", "status", "--json"]);
    assert_eq!(status["backlog"], rows, "{status}");
    assert_eq!(status["sent_seq"], 0);
    assert_eq!(status["failures"], 1);
    assert!(status["last_error"].as_str().is_some(), "{status}");
    assert!(
        status["next_flush_ms"].as_i64().unwrap() > status["last_attempt_ms"].as_i64().unwrap()
    );
    let doctor = world.json(&["doctor", "--json"]);
    let check = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "sink")
        .unwrap()
        .clone();
    assert_eq!(check["ok"], false, "{check}");
    assert!(check["detail"]
        .as_str()
        .unwrap()
        .contains(&format!("{rows} row(s) waiting")));
    let status_text =
        String::from_utf8_lossy(&world.gate(&["status"], &[], b"").stdout).into_owned();
    assert!(
        status_text.contains("audit sink:") && status_text.contains("last error"),
        "{status_text}"
    );
    // A second failure backs off further.
    assert_eq!(
        world.gate(&["sink", "flush"], &[], b"").status.code(),
        Some(1)
    );
    assert_eq!(world.json(&["sink", "status", "--json"])["failures"], 2);

    // The endpoint comes up: the next flush delivers the whole backlog.
    let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
    let got = receiver(listener);
    let report = world.json(&["sink", "flush", "--json"]);
    assert_eq!(report["sent"], rows, "{report}");
    assert_eq!(report["backlog"], 0);
    let status = world.json(&["sink", "status", "--json"]);
    assert_eq!(status["backlog"], 0);
    assert!(status["last_error"].is_null());
    assert_eq!(status["failures"], 0);
    let requests = got.lock().unwrap().clone();
    assert_eq!(requests.len() as i64, (rows + 1) / 2, "batches of 2");
    let records = decode(&requests);
    assert_eq!(
        records.keys().copied().collect::<Vec<_>>(),
        (1..=rows).collect::<Vec<_>>()
    );
    check_against_log(&world, &records);
}

/// JSON lines: each row as `gate audit export` writes it.
#[test]
fn jsonl_sends_the_rows_as_the_export_writes_them() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let got = receiver(listener);
    let world = World::new();
    world.hooks();
    world.sink(port, "format = \"jsonl\"\n");
    assert_eq!(
        world
            .gate(&["sink", "flush", "--quiet"], &[], b"")
            .status
            .code(),
        Some(0)
    );
    let export = world
        .gate(&["audit", "export", "--format", "jsonl"], &[], b"")
        .stdout;
    let requests = got.lock().unwrap().clone();
    let lines = export.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(requests.len(), lines.div_ceil(2), "batches of 2");
    assert!(requests
        .iter()
        .all(|r| r.headers["content-type"] == "application/x-ndjson"));
    let sent: Vec<u8> = requests.iter().flat_map(|r| r.body.clone()).collect();
    assert_eq!(
        String::from_utf8(sent).unwrap(),
        String::from_utf8(export).unwrap()
    );
}
