//! `gate sink flush` and `gate sink status`: send the audit backlog to the configured
//! collector now, or show how far it got.

use crate::cli::{Exit, GlobalArgs, SinkFlushArgs};
use crate::cmd::store::format_ms;
use crate::cmd::{out, out_json};
use crate::config::{Config, Overrides};
use crate::sink::{flush, SinkConfig, SinkStatus};
use anyhow::Result;
use std::time::{SystemTime, UNIX_EPOCH};

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis().min(i64::MAX as u128) as i64)
}

/// The configuration and its sink; no sink (or an unusable one) is an error that says how
/// to configure it.
fn configured(global: &GlobalArgs) -> Result<(Config, SinkConfig)> {
    let config = Config::resolve(&Overrides::from(global))?;
    if let Some(problem) = config.problems.iter().find(|p| p.contains("[sink]")) {
        anyhow::bail!("{problem}");
    }
    let Some(sink) = config.sink.clone() else {
        anyhow::bail!(
            "no audit sink is configured: add a [sink] table with an endpoint to \
             .gate/config.toml (see `gate sink --help`)"
        );
    };
    if !config.db.value.exists() {
        anyhow::bail!(
            "no gate database at {} (nothing recorded yet, or set --db / GATE_DB)",
            config.db.value.display()
        );
    }
    Ok((config, sink.value))
}

/// `gate sink flush`: exit 0 when the backlog is sent (or another flush is sending it), 1
/// when the endpoint refused or could not be reached (the rows stay for the next flush).
pub fn flush(args: &SinkFlushArgs, global: &GlobalArgs) -> Result<i32> {
    let (config, sink) = configured(global)?;
    let report = flush::flush(&config.db.value, &sink, now_ms)?;
    if !args.quiet {
        if global.json {
            out_json(&serde_json::to_value(&report)?)?;
        } else if report.busy {
            out("another `gate sink flush` is sending the backlog\n")?;
        } else {
            let mut text = format!(
                "sent {} row(s) to {}; {} waiting\n",
                report.sent, sink.endpoint, report.backlog
            );
            if let Some(e) = &report.error {
                text.push_str(&format!("error: {e} (kept for the next flush)\n"));
            }
            out(&text)?;
        }
    }
    Ok(if report.error.is_some() {
        Exit::Findings.code()
    } else {
        Exit::Ok.code()
    })
}

/// `gate sink status`.
pub fn status(global: &GlobalArgs) -> Result<i32> {
    let (config, sink) = configured(global)?;
    let status = SinkStatus::read(&config.db.value, &sink)?;
    if global.json {
        out_json(&serde_json::to_value(&status)?)?;
    } else {
        let when = |ms: Option<i64>| ms.map_or("never".to_string(), format_ms);
        out(&format!(
            "sink {}\n{}\nlast success {}, last attempt {}, next flush from {}\n",
            sink.describe(),
            status.summary(),
            when(status.last_ok_ms),
            when(status.last_attempt_ms),
            format_ms(status.next_flush_ms.max(0)),
        ))?;
    }
    Ok(Exit::Ok.code())
}
