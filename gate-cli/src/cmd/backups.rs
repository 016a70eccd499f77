//! `gate undo <id>` and `gate backups`: restoring, listing and pruning what mode `reversible`
//! copied before letting an action through. Both are the user's, never an agent's: inside
//! an agent's tool call they refuse (as `gate approve` does), and each undo and prune is an
//! audit row.

use crate::cli::{BackupsArgs, GlobalArgs, UndoArgs};
use crate::cmd::store::{db_path, now_ms, open_write};
use crate::cmd::{out, out_json};
use crate::InputError;
use anyhow::Result;
use gate_runtime::backup::{self, Entry, Manifest};
use gate_runtime::store::{AuditKind, AuditRecord};
use serde_json::{json, Value};

/// Refuses inside an agent's tool call: restoring or pruning backups is the user's act.
fn refuse_inside_agent(what: &str) -> Result<()> {
    let env = |k: &str| std::env::var(k).ok();
    match crate::agent::inside_agent(&env) {
        Some(why) => Err(InputError::new(format!(
            "{what} is for the user, not for an agent: this runs inside an agent's tool call \
             ({why}); run it from your own terminal"
        ))
        .into()),
        None => Ok(()),
    }
}

/// The audit row of an undo or a prune.
fn record(kind: AuditKind, target: Option<String>, decision: &str, detail: Value) -> AuditRecord {
    AuditRecord {
        ts_ms: now_ms(),
        session: String::new(),
        scope: String::new(),
        spec: String::new(),
        kind,
        runtime: "user".to_string(),
        phase: kind.as_str().to_string(),
        tool: None,
        target,
        tier: None,
        decision: Some(decision.to_string()),
        detail,
        latency_us: None,
        role: None,
    }
}

/// Appends one audit row in its own transaction.
fn append(store: &mut gate_runtime::store::Store, rec: AuditRecord) -> Result<()> {
    store.transaction(|t| t.append_audit(&rec).map(|_| ()))?;
    Ok(())
}

/// `gate undo ID [--force]`.
pub fn undo(args: &UndoArgs, global: &GlobalArgs) -> Result<i32> {
    refuse_inside_agent("gate undo")?;
    let dir = backup::store_dir(&db_path(global)?);
    let id = args.id.trim();
    let Some(entry) = backup::list(&dir).into_iter().find(|e| e.manifest.id == id) else {
        return Err(InputError::new(format!(
            "no backup `{id}` in {} (`gate backups` lists them)",
            dir.display()
        ))
        .into());
    };
    // The audit row is written after the restore; a store that cannot take it is found first.
    let mut store = open_write(global)?;
    let m = &entry.manifest;
    match backup::undo(&entry, args.force) {
        Ok(done) => {
            append(
                &mut store,
                record(
                    AuditKind::Undo,
                    Some(m.id.clone()),
                    "restored",
                    json!({"backup": m.id, "action": m.action, "restored": done.restored,
                       "created_removed": done.created, "forced": args.force}),
                ),
            )?;
            if global.json {
                out_json(&json!({"id": m.id, "restored": done.restored,
                                 "created_removed": done.created}))?;
            } else {
                let mut text = format!("restored backup {}: {}\n", m.id, done.restored.join(", "));
                for c in &done.created {
                    text.push_str(&format!("removed (the action created it): {c}\n"));
                }
                out(&text)?;
            }
            Ok(0)
        }
        Err(e) => {
            append(
                &mut store,
                record(
                    AuditKind::Undo,
                    Some(m.id.clone()),
                    "refused",
                    json!({"backup": m.id, "why": e.to_string()}),
                ),
            )?;
            Err(InputError::new(format!("gate undo {}: {e}", m.id)).into())
        }
    }
}

/// `gate backups [--prune [--older-than AGE] [--max-size SIZE]]`.
pub fn backups(args: &BackupsArgs, global: &GlobalArgs) -> Result<i32> {
    let dir = backup::store_dir(&db_path(global)?);
    let now = now_ms();
    if !args.prune {
        return list(&backup::list(&dir), now, global.json);
    }
    refuse_inside_agent("gate backups --prune")?;
    let older = match &args.older_than {
        Some(t) => Some(crate::time::duration_ms(t).ok_or_else(|| {
            InputError::new(format!(
                "--older-than `{t}` is not a duration like 12h or 7d"
            ))
        })?),
        None => None,
    };
    let max = match &args.max_size {
        Some(t) => Some(crate::config::parse_size(t).ok_or_else(|| {
            InputError::new(format!("--max-size `{t}` is not a size like 500M or 2G"))
        })?),
        None => None,
    };
    if older.is_none() && max.is_none() {
        return Err(InputError::new("--prune needs --older-than, --max-size or both").into());
    }
    let mut store = open_write(global)?;
    let pruned = backup::prune(&dir, now, older, max)?;
    let ids: Vec<&str> = pruned.removed.iter().map(|m| m.id.as_str()).collect();
    let bytes: u64 = pruned.removed.iter().map(|m| m.bytes).sum();
    let leftovers = json!({"unfinished": pruned.unfinished, "pending": pruned.pending,
        "vault_backups": pruned.vault_backups, "vaults": pruned.vaults});
    append(
        &mut store,
        record(
            AuditKind::Prune,
            None,
            "pruned",
            json!({"removed": ids, "bytes": bytes, "older_than_ms": older, "max_size": max,
                   "leftovers": leftovers}),
        ),
    )?;
    if global.json {
        out_json(&json!({"removed": ids, "bytes": bytes, "leftovers": leftovers}))?;
    } else {
        let mut text = format!("removed {} backup(s), {bytes} bytes\n", ids.len());
        if !pruned.vault_backups.is_empty() {
            text.push_str(&format!(
                "dropped the git commits of {} backup(s) from gate's vaults ({} vault(s) removed)\n",
                pruned.vault_backups.len(),
                pruned.vaults.len()
            ));
        }
        if !pruned.pending.is_empty() || !pruned.unfinished.is_empty() {
            text.push_str(&format!(
                "removed {} note(s) of calls that never ended and {} unfinished backup(s)\n",
                pruned.pending.len(),
                pruned.unfinished.len()
            ));
        }
        out(&text)?;
    }
    Ok(0)
}

fn list(entries: &[Entry], now: i64, json: bool) -> Result<i32> {
    if json {
        let rows: Vec<Value> = entries.iter().map(|e| row(&e.manifest, now)).collect();
        out_json(&Value::Array(rows))?;
        return Ok(0);
    }
    if entries.is_empty() {
        out("no backups\n")?;
        return Ok(0);
    }
    let mut text = String::new();
    for e in entries {
        let m = &e.manifest;
        text.push_str(&format!(
            "{}  {:>10} bytes  {:>5} entries  {:>8} ago  {}\n",
            m.id,
            m.bytes,
            m.files,
            age(now - m.created_ms),
            m.action
        ));
    }
    let total: u64 = entries.iter().map(|e| e.manifest.bytes).sum();
    text.push_str(&format!("{} backup(s), {total} bytes\n", entries.len()));
    out(&text)?;
    Ok(0)
}

fn row(m: &Manifest, now: i64) -> Value {
    json!({
        "id": m.id,
        "created_ms": m.created_ms,
        "age_secs": (now - m.created_ms).max(0) / 1000,
        "bytes": m.bytes,
        "files": m.files,
        "action": m.action,
        "tool": m.tool,
        "cwd": m.cwd,
        "session": m.session,
        "roots": m.roots,
    })
}

/// `42s`, `5m`, `3h`, `2d`.
fn age(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}
