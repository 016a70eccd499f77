//! The `[sink]` table of `.gate/config.toml`: where audit rows are streamed, in which form,
//! how many per request and how often.

use serde::Serialize;
use std::collections::BTreeMap;

/// The wire form of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SinkFormat {
    /// OpenTelemetry logs over OTLP/HTTP, JSON encoding (`application/json`): one
    /// `ExportLogsServiceRequest` per batch, one log record per audit row.
    Otlp,
    /// JSON lines (`application/x-ndjson`): each row as `gate audit export` writes it.
    Jsonl,
}

/// A configured audit sink.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SinkConfig {
    /// `http://` or `https://` URL the batches are POSTed to (for OTLP, the logs path, e.g.
    /// `https://collector:4318/v1/logs`).
    pub endpoint: String,
    pub format: SinkFormat,
    /// Rows per request.
    pub batch: usize,
    /// Least time between two flushes a hook starts (seconds): rows written meanwhile go in
    /// the next batch.
    pub interval_secs: u64,
    /// Time allowed for one request (seconds).
    pub timeout_secs: u64,
    /// Extra request headers (e.g. `authorization`); shown by name only.
    #[serde(serialize_with = "header_names")]
    pub headers: BTreeMap<String, String>,
}

fn header_names<S: serde::Serializer>(
    headers: &BTreeMap<String, String>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(headers.keys())
}

pub const DEFAULT_BATCH: usize = 500;
pub const MAX_BATCH: usize = 10_000;
pub const DEFAULT_INTERVAL_SECS: u64 = 5;
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;

impl SinkConfig {
    /// Reads a `[sink]` table; every problem is said in full.
    pub fn from_toml(value: &toml::Value) -> Result<SinkConfig, String> {
        let table = value
            .as_table()
            .ok_or("`sink` must be a table ([sink] with endpoint = \"…\")")?;
        let mut endpoint = None;
        let mut format = SinkFormat::Otlp;
        let mut batch = DEFAULT_BATCH;
        let mut interval_secs = DEFAULT_INTERVAL_SECS;
        let mut timeout_secs = DEFAULT_TIMEOUT_SECS;
        let mut headers = BTreeMap::new();
        let int = |key: &str, v: &toml::Value, range: std::ops::RangeInclusive<i64>| {
            v.as_integer().filter(|n| range.contains(n)).ok_or(format!(
                "`{key}` must be a whole number in {}..={}, not {v}",
                range.start(),
                range.end()
            ))
        };
        for (key, v) in table {
            match key.as_str() {
                "endpoint" => {
                    let url = v.as_str().ok_or("`endpoint` must be a string")?.trim();
                    if !(url.starts_with("http://") || url.starts_with("https://")) {
                        return Err(format!(
                            "`endpoint` must be an http:// or https:// URL, not `{url}`"
                        ));
                    }
                    endpoint = Some(url.to_string());
                }
                "format" => {
                    format = match v.as_str() {
                        Some("otlp") => SinkFormat::Otlp,
                        Some("jsonl") => SinkFormat::Jsonl,
                        _ => {
                            return Err(format!("`format` must be \"otlp\" or \"jsonl\", not {v}"))
                        }
                    }
                }
                "batch" => batch = int(key, v, 1..=MAX_BATCH as i64)? as usize,
                "interval_secs" => interval_secs = int(key, v, 0..=3600)? as u64,
                "timeout_secs" => timeout_secs = int(key, v, 1..=300)? as u64,
                "headers" => {
                    let t = v
                        .as_table()
                        .ok_or("`headers` must be a table of header names to strings")?;
                    for (name, value) in t {
                        let value = value
                            .as_str()
                            .ok_or(format!("header `{name}` must be a string"))?;
                        headers.insert(name.to_ascii_lowercase(), value.to_string());
                    }
                }
                other => {
                    return Err(format!(
                        "unknown key `{other}` (known: endpoint, format, batch, interval_secs, \
                         timeout_secs, headers)"
                    ))
                }
            }
        }
        Ok(SinkConfig {
            endpoint: endpoint.ok_or("`endpoint` is required")?,
            format,
            batch,
            interval_secs,
            timeout_secs,
            headers,
        })
    }

    /// One line for `gate config`.
    pub fn describe(&self) -> String {
        format!(
            "{} {} (batch {}, every {} s at most, timeout {} s{})",
            match self.format {
                SinkFormat::Otlp => "otlp",
                SinkFormat::Jsonl => "jsonl",
            },
            self.endpoint,
            self.batch,
            self.interval_secs,
            self.timeout_secs,
            if self.headers.is_empty() {
                String::new()
            } else {
                format!(
                    ", headers {}",
                    self.headers.keys().cloned().collect::<Vec<_>>().join(", ")
                )
            }
        )
    }

    /// What the cursor is kept under: a sink that changes its endpoint or format starts
    /// from the first row again.
    pub fn identity(&self) -> String {
        format!("{:?} {}", self.format, self.endpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SinkConfig, String> {
        let table: toml::Table = text.parse().unwrap();
        SinkConfig::from_toml(&table["sink"])
    }

    #[test]
    fn reads_every_key_and_says_what_is_wrong() {
        let c = parse(
            "[sink]\nendpoint = \"https://c:4318/v1/logs\"\nformat = \"jsonl\"\nbatch = 20\n\
             interval_secs = 0\ntimeout_secs = 3\nheaders = { Authorization = \"Bearer x\" }\n",
        )
        .unwrap();
        assert_eq!(c.format, SinkFormat::Jsonl);
        assert_eq!((c.batch, c.interval_secs, c.timeout_secs), (20, 0, 3));
        assert_eq!(c.headers["authorization"], "Bearer x");
        assert!(!serde_json::to_string(&c).unwrap().contains("Bearer"));
        let defaults = parse("[sink]\nendpoint = \"http://h/v1/logs\"\n").unwrap();
        assert_eq!(defaults.format, SinkFormat::Otlp);
        assert_eq!(defaults.batch, DEFAULT_BATCH);
        for (bad, says) in [
            ("[sink]\nformat = \"otlp\"\n", "`endpoint` is required"),
            ("[sink]\nendpoint = \"ftp://h\"\n", "http:// or https://"),
            (
                "[sink]\nendpoint = \"http://h\"\nbatch = 0\n",
                "`batch` must be",
            ),
            (
                "[sink]\nendpoint = \"http://h\"\nformat = \"xml\"\n",
                "`format` must be",
            ),
            (
                "[sink]\nendpoint = \"http://h\"\nurl = 1\n",
                "unknown key `url`",
            ),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
