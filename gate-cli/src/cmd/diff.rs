//! `gate diff OLD NEW`: what a change to a policy changes. First every relaxation (a rule
//! set to a lower tier, a tier given a weaker mode: `gate_spec::diff::relaxations`); then the
//! items of the spec text added, removed or changed (`gate_spec::diff`); the (role, state,
//! event) pairs whose answer differs, found by exploring both
//! (`gate_runtime::verify::compare`), grouped; and with recorded sessions, each event whose
//! answer would change. Exit 0 when the behaviour is the same, 1 when it differs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use gate_runtime::interp::Interpreter;
use gate_runtime::replay::Replayer;
use gate_runtime::verify::compare::{compare, Comparison, Difference};
use gate_runtime::verify::TooLarge;
use gate_spec::diff::{changes, relaxations, Change, ChangeKind, Relaxation};
use serde_json::json;

use crate::cli::{DiffArgs, Exit};
use crate::cmd::diff_beside::{compare_beside, Beside};
use crate::cmd::diff_classes::{compare as classify, sample, Moved};
use crate::cmd::policy::Policy;
use crate::cmd::{out, out_json};

/// Whether a command-line argument names a spec file (it ends in `.toml` or has a path
/// separator) rather than a compiled spec.
pub fn is_file(arg: &str) -> bool {
    arg.ends_with(".toml") || arg.contains('/') || arg.contains(std::path::MAIN_SEPARATOR)
}

fn load(arg: &str) -> Result<Policy> {
    if is_file(arg) {
        Policy::draft(Path::new(arg))
    } else {
        Policy::load(Some(arg), None)
    }
}

/// One recorded event whose answer changes.
#[derive(Debug, serde::Serialize)]
struct Changed {
    session: String,
    /// 1-based index of the event in the file.
    event: usize,
    phase: String,
    tool: Option<String>,
    target: Option<String>,
    before: &'static str,
    after: &'static str,
}

/// What the sessions and the generated sample of actions show.
struct Observed {
    /// Recorded events replayed, and those whose answer differs.
    replayed: usize,
    changed: Vec<Changed>,
    /// Tool calls classified (the sample, then the sessions'), and those whose tier or rule
    /// differs.
    classified: usize,
    moved: Vec<Moved>,
    /// The same actions classified by each machine beside both policies, by its spec name.
    beside_moved: Vec<(String, Vec<Moved>)>,
}

/// Every event of the sessions through both policies (each in memory, as `gate replay`),
/// with the ones whose answer differs; and the sample of actions with the sessions' tool
/// calls classified by both.
fn sessions(old: &Policy, new: &Policy, files: &[PathBuf]) -> Result<Observed> {
    let (mut slot_old, mut slot_new) = (None, None);
    let (engine_old, engine_new) = (old.engine(&mut slot_old), new.engine(&mut slot_new));
    let mut changed = Vec::new();
    let mut total = 0;
    let mut calls = sample([old.spec(), new.spec()]);
    for file in files {
        let events = crate::cmd::replay::read_session(file)?;
        calls.extend(events.iter().map(|(e, _)| e.clone()));
        let (mut before, mut after) = (Replayer::new(&engine_old), Replayer::new(&engine_new));
        for (i, (event, now)) in events.iter().enumerate() {
            total += 1;
            let a = before.feed(event, *now, None).decision.verdict.name();
            let b = after.feed(event, *now, None).decision.verdict.name();
            if a != b {
                changed.push(Changed {
                    session: file.display().to_string(),
                    event: i + 1,
                    phase: event.phase.map_or("other", |p| p.as_str()).to_string(),
                    tool: event.tool.clone(),
                    target: event
                        .target
                        .as_deref()
                        .map(|t| gate_runtime::redact::redact(t).into_owned()),
                    before: a,
                    after: b,
                });
            }
        }
    }
    let (classified, moved) = classify(&engine_old, &engine_new, &calls);
    let beside_moved = engine_old
        .alongside
        .iter()
        .filter_map(|a| {
            let b = engine_new
                .alongside
                .iter()
                .find(|b| b.spec.name == a.spec.name)?;
            Some((a.spec.name.to_string(), classify(a, b, &calls).1))
        })
        .collect();
    Ok(Observed {
        replayed: total,
        changed,
        classified,
        moved,
        beside_moved,
    })
}

const SHOWN_MOVES: usize = 12;

fn render_moved(classified: usize, moved: &[Moved]) -> String {
    let mut text = format!(
        "classification: {} of {classified} action(s) map to another tier or rule\n",
        moved.len()
    );
    for m in moved.iter().take(SHOWN_MOVES) {
        text.push_str(&format!(
            "  {} {}: {} -> {}\n",
            m.tool, m.target, m.before, m.after
        ));
    }
    if moved.len() > SHOWN_MOVES {
        text.push_str(&format!("  … and {} more\n", moved.len() - SHOWN_MOVES));
    }
    text
}

fn answers(list: &[gate_runtime::verify::Answer]) -> String {
    list.iter()
        .map(|a| a.as_str())
        .collect::<Vec<_>>()
        .join("/")
}

/// Differences grouped by role, state, first event and the change of answer.
fn groups(
    differences: &[Difference],
) -> BTreeMap<(String, String, bool, String, String), Vec<&Difference>> {
    let mut out: BTreeMap<_, Vec<&Difference>> = BTreeMap::new();
    for d in differences {
        out.entry((
            d.role.clone(),
            d.state.clone(),
            d.first,
            answers(&d.before),
            answers(&d.after),
        ))
        .or_default()
        .push(d);
    }
    out
}

/// One `RELAXED:` line per relaxation, so a lowering is the first thing a reviewer reads.
fn render_relaxations(list: &[Relaxation]) -> String {
    list.iter()
        .map(|r| {
            format!(
                "RELAXED: {} {}: {} {} -> {}\n",
                r.section, r.item, r.key, r.before, r.after
            )
        })
        .collect()
}

fn render_changes(list: &[Change]) -> String {
    if list.is_empty() {
        return "spec: no tier, rule, state, transition, signal, role or template differs\n"
            .to_string();
    }
    let mut text = format!("spec: {} item(s) differ\n", list.len());
    for c in list {
        let mark = match c.kind {
            ChangeKind::Added => "+",
            ChangeKind::Removed => "-",
            ChangeKind::Changed => "~",
        };
        text.push_str(&format!("  {mark} {} {}\n", c.section, c.item));
        if c.section == "transition" || c.section == "state" {
            if let Some(b) = &c.before {
                text.push_str(&format!("      before: {b}\n"));
            }
            if let Some(a) = &c.after {
                text.push_str(&format!("      after:  {a}\n"));
            }
        }
    }
    text
}

const SHOWN_EVENTS: usize = 6;

fn render_behaviour(c: &Comparison) -> String {
    let mut text = format!(
        "behaviour: {} of {} (role, state, event) pairs answer differently",
        c.differences.len(),
        c.compared
    );
    if c.only_before + c.only_after > 0 {
        text.push_str(&format!(
            " ({} met only by OLD, {} only by NEW)",
            c.only_before, c.only_after
        ));
    }
    if c.counters_abstracted {
        text.push_str(
            "; over abstracted counters (a side beyond the exact budget: every value of each \
             counter allowed, pairs compared per valuation of its counter conditions)",
        );
    }
    text.push('\n');
    text.push_str(&render_groups(&c.differences));
    if !c.unmatched_withheld.is_empty() {
        text.push_str(&format!(
            "  met by one side only, and not allowed there ({} event(s): a tier, role, \
             checkpoint or signal the other lacks):\n",
            c.unmatched_withheld.len()
        ));
        text.push_str(&render_groups(&c.unmatched_withheld));
    }
    text
}

/// Differences grouped by (role, state, answers), a few events of each and why.
fn render_groups(differences: &[Difference]) -> String {
    let mut text = String::new();
    let side = |a: &str, other: &str| {
        if a.is_empty() {
            format!("(not met by {other})")
        } else {
            a.to_string()
        }
    };
    for ((role, state, first, before, after), diffs) in groups(differences) {
        let when = if first {
            format!("{state}, as a new identity's first event")
        } else {
            state.clone()
        };
        text.push_str(&format!(
            "  role {role}, in {when}: {} -> {} on {} event(s)\n",
            side(&before, "OLD"),
            side(&after, "NEW"),
            diffs.len()
        ));
        for d in diffs.iter().take(SHOWN_EVENTS) {
            match &d.valuation {
                Some(v) if !v.is_empty() => {
                    text.push_str(&format!("      {} [counters {v}]\n", d.event))
                }
                _ => text.push_str(&format!("      {}\n", d.event)),
            }
        }
        if diffs.len() > SHOWN_EVENTS {
            text.push_str(&format!(
                "      … and {} more\n",
                diffs.len() - SHOWN_EVENTS
            ));
        }
        let d = diffs[0];
        let fired = |list: &[String]| {
            if list.is_empty() {
                "nothing fired".to_string()
            } else {
                format!("fired {}", list.join("; "))
            }
        };
        text.push_str(&format!(
            "      why: before, {}; after, {}\n",
            fired(&d.fired_before),
            fired(&d.fired_after)
        ));
    }
    text
}

/// The machines beside either policy: added, removed, or compared as the spec's own is.
fn render_beside(list: &[Beside], classified: usize) -> String {
    let mut text = String::new();
    for b in list {
        match (b.status, &b.behaviour) {
            ("both", Some(c)) => {
                text.push_str(&format!(
                    "beside {}:
",
                    b.spec
                ));
                for part in [
                    render_relaxations(&b.relaxations),
                    render_changes(&b.changes),
                    render_behaviour(c),
                    render_moved(classified, &b.moved),
                ] {
                    for line in part.lines() {
                        text.push_str(&format!(
                            "  {line}
"
                        ));
                    }
                }
            }
            ("both", None) => text.push_str(&format!(
                "beside {}: behaviour not compared; {}\n",
                b.spec,
                b.not_explored.as_deref().unwrap_or("")
            )),
            (status, _) => text.push_str(&format!(
                "beside {}: {status} (its machine runs beside {} only)\n",
                b.spec,
                if status == "added" { "NEW" } else { "OLD" }
            )),
        }
    }
    text
}

/// The behaviour section when a side is too large to explore.
fn render_unexplored(e: &TooLarge) -> String {
    format!("behaviour: not compared; {e}\n")
}

/// `gate diff`; exit 1 when the behaviour differs (or could not be explored).
pub fn run(args: &DiffArgs, json_out: bool) -> Result<i32> {
    let old = load(&args.old)?;
    let new = load(&args.new)?;
    let list = changes(old.spec(), new.spec());
    let relaxed = relaxations(old.spec(), new.spec());
    // Both sides run on the reference interpreter: a compiled machine equals it on every
    // explored step (`gate verify`), and a draft has no other.
    let (ia, ib) = (Interpreter::new(old.spec()), Interpreter::new(new.spec()));
    // A side too large to explore leaves the behaviour uncompared, said as such; the
    // spec text, the classification and the sessions are still compared.
    let explored = compare((old.spec(), &ia), (new.spec(), &ib));
    let empty = Comparison::default();
    let comparison = explored.as_ref().unwrap_or(&empty);
    let Observed {
        replayed,
        changed,
        classified,
        moved,
        beside_moved,
    } = sessions(&old, &new, &args.sessions)?;
    let beside = compare_beside(&old.beside(), &new.beside(), beside_moved);
    let beside_same = beside.iter().all(Beside::same);
    let same = explored.is_ok()
        && comparison.differences.is_empty()
        && changed.is_empty()
        && moved.is_empty()
        && beside_same;
    if json_out {
        out_json(&json!({
            "old": old.label(),
            "new": new.label(),
            "same_behaviour": same,
            "relaxations": relaxed,
            "changes": list,
            "behaviour": explored.as_ref().ok(),
            "behaviour_not_explored": explored.as_ref().err().map(ToString::to_string),
            "sessions": {"events": replayed, "changed": changed},
            "classification": {"actions": classified, "moved": moved},
            "beside": beside,
        }))?;
    } else {
        let mut text = format!("{} -> {}\n", old.label(), new.label());
        text.push_str(&render_relaxations(&relaxed));
        text.push_str(&render_changes(&list));
        match &explored {
            Ok(c) => text.push_str(&render_behaviour(c)),
            Err(e) => text.push_str(&render_unexplored(e)),
        }
        text.push_str(&render_moved(classified, &moved));
        text.push_str(&render_beside(&beside, classified));
        if !args.sessions.is_empty() {
            text.push_str(&format!(
                "sessions: {} of {replayed} recorded event(s) answered differently\n",
                changed.len()
            ));
            for c in &changed {
                text.push_str(&format!(
                    "  {}:{} {} {} {}: {} -> {}\n",
                    c.session,
                    c.event,
                    c.phase,
                    c.tool.as_deref().unwrap_or("-"),
                    c.target.as_deref().unwrap_or(""),
                    c.before,
                    c.after
                ));
            }
        }
        let behaves = comparison.differences.is_empty()
            && changed.is_empty()
            && beside.iter().all(Beside::behaves);
        let classes_same = moved.is_empty() && beside.iter().all(|b| b.moved.is_empty());
        text.push_str(match (behaves, classes_same) {
            (true, true) if explored.is_err() => {
                "no answer differs where compared, but the behaviour was not explored\n"
            }
            (true, false) if explored.is_err() => {
                "the classification differs; the behaviour was not explored\n"
            }
            (true, true) => "the behaviour is the same\n",
            (true, false) => "the classification differs\n",
            (false, _) => "the behaviour differs\n",
        });
        out(&text)?;
    }
    Ok(if same { Exit::Ok } else { Exit::Findings }.code())
}
