//! `gate explain --runtime R`: show, for one payload, the rules, tier, signals, transitions and
//! answer gate would give, writing nothing. The policy is a compiled spec or a draft
//! (`--spec-file`), the time `--at`, the payload's own or now, and the starting state
//! `--state`, the scope's stored state or the initial one; the output says which.

use crate::adapters;
use crate::cli::{Exit, ExplainArgs, GlobalArgs};
use crate::cmd::policy::Policy;
use crate::cmd::{out, out_json};
use crate::config::{Config, Overrides};
use crate::InputError;
use anyhow::Result;
use gate_runtime::engine::{Context, Engine, ScopeState};
use gate_runtime::event::Event;
use gate_runtime::store::Store;
use serde_json::json;
use std::io::Read;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The `--state` values split by machine: the spec's own (a plain `NAME`, or
/// `REGION.STATE` for one of its regions), and each machine beside it (`MACHINE.STATE`, by
/// its index in `alongside`). Each machine may be given one state per state variable (its
/// main state and one per region: `starting_state` checks that). A machine that does not
/// run beside the spec is an input error.
fn states_by_machine<'a>(
    engine: &Engine<'_>,
    given: &'a [String],
) -> Result<(Vec<&'a str>, Vec<Vec<&'a str>>)> {
    let spec = engine.spec;
    let mut own = Vec::new();
    let mut beside = vec![Vec::new(); engine.alongside.len()];
    let own_region = |r: &str| spec.regions.iter().any(|x| *x.name == *r);
    for value in given {
        let (slot, name) = match value.split_once('.') {
            None => (&mut own, value.as_str()),
            Some((machine, name)) if machine == &*spec.name => (&mut own, name),
            Some((region, _)) if own_region(region) => (&mut own, value.as_str()),
            Some((machine, name)) => {
                let names: Vec<&str> = engine.alongside.iter().map(|m| &*m.spec.name).collect();
                let Some(i) = names.iter().position(|n| *n == machine) else {
                    let hint = match gate_spec::diag::did_you_mean(machine, names.iter().copied()) {
                        Some(close) => format!("did you mean `{close}`? "),
                        None => String::new(),
                    };
                    return Err(InputError::new(format!(
                        "--state {value}: no machine `{machine}` runs beside spec `{}` ({hint}beside it: {})",
                        spec.name,
                        if names.is_empty() { "none".to_string() } else { names.join(", ") }
                    ))
                    .into());
                };
                (&mut beside[i], name)
            }
        };
        slot.push(name);
    }
    Ok((own, beside))
}

/// The state `--state` names in `spec` (`NAME`, or `REGION.STATE`), or an input error with
/// did-you-mean.
fn named_state(spec: &gate_spec::ir::Spec, name: &str) -> Result<gate_spec::ir::StateId> {
    let ids = 0..spec.states.len() as gate_spec::ir::StateId;
    let found = ids
        .clone()
        .find(|&s| spec.state_label(s) == name || *spec.states[s as usize].name == *name);
    if let Some(id) = found {
        return Ok(id);
    }
    let names: Vec<String> = ids.map(|s| spec.state_label(s)).collect();
    let hint = match gate_spec::diag::did_you_mean(name, names.iter().map(String::as_str)) {
        Some(close) => format!("did you mean `{close}`? "),
        None => String::new(),
    };
    Err(InputError::new(format!(
        "spec `{}` has no state `{name}` ({hint}its states: {})",
        spec.name,
        names.join(", ")
    ))
    .into())
}

/// Where the starting state came from.
struct Start {
    state: ScopeState,
    source: &'static str,
    /// Why a stored state could not be read.
    fault: Option<String>,
}

/// The scope's starting state: `--state NAME` in a fresh scope, else the state stored in
/// `db` for this version of the spec, else the initial state.
fn starting_state(engine: &Engine<'_>, event: &Event, named: &[&str], db: &Path) -> Result<Start> {
    let spec = engine.spec;
    let mut state = ScopeState::initial(spec, engine.machine);
    if !named.is_empty() {
        // One state per state variable: the main machine's, each region's.
        let mut given = vec![false; 1 + spec.regions.len()];
        for name in named {
            let id = named_state(spec, name)?;
            let var = spec.var_of(id);
            if std::mem::replace(&mut given[var], true) {
                return Err(InputError::new(format!(
                    "--state {name}: {} of spec `{}` is already given a state",
                    match var {
                        0 => "the machine".to_string(),
                        v => format!("region `{}`", spec.regions[v - 1].name),
                    },
                    spec.name
                ))
                .into());
            }
            match var {
                0 => state.machine.state = id,
                v => state.machine.regions[v - 1] = id,
            }
        }
        return Ok(Start {
            state,
            source: "--state",
            fault: None,
        });
    }
    if !db.exists() {
        return Ok(Start {
            state,
            source: "initial",
            fault: None,
        });
    }
    let scope = gate_runtime::driver::scope_key(spec.scope, event);
    let stored = Store::open_read_only(db).and_then(|s| s.read_state(&scope, &spec.name));
    Ok(match stored {
        Ok(Some(stored)) if stored.spec_hash == spec.hash => {
            match serde_json::from_slice::<ScopeState>(&stored.blob) {
                Ok(loaded) if loaded.fits(spec) => Start {
                    state: loaded,
                    source: "stored",
                    fault: None,
                },
                _ => Start {
                    state,
                    source: "initial",
                    fault: Some("the stored state does not fit the spec".to_string()),
                },
            }
        }
        Ok(_) => Start {
            state,
            source: "initial",
            fault: None,
        },
        Err(e) => Start {
            state,
            source: "initial",
            fault: Some(e.to_string()),
        },
    })
}

/// Explain one payload; returns the exit code.
pub fn run(args: &ExplainArgs, global: &GlobalArgs) -> Result<i32> {
    let json_out = global.json;
    let runtime = args.runtime.runtime();
    let payload = match &args.payload {
        Some(path) => std::fs::read(path)
            .map_err(|e| InputError::new(format!("cannot read {}: {e}", path.display())))?,
        None => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf)?;
            buf
        }
    };
    let mut event = adapters::normalize(runtime, &payload, args.event.as_deref())
        .map_err(|e| InputError::new(format!("the payload cannot be read: {e}")))?;
    let config = Config::resolve(&Overrides::from(global))?;
    let policy = Policy::load(global.spec.as_deref(), args.spec_file.as_deref())?;
    let mut interp = None;
    // Machines the configuration keeps across sessions, as the hook has them.
    let outliving = config
        .outlive_sessions
        .as_ref()
        .map_or(&[][..], |o| &o.value[..]);
    let engine = policy.engine(&mut interp).with_outliving(outliving);
    let spec = engine.spec;
    // What the hook would answer: it looks at the disk too, and finds the project profiles.
    engine.look_at_disk();
    let named = config.profile.as_ref().map(|p| p.value.as_str());
    event.profiles =
        crate::profile::active(crate::profile::owner(&engine), event.cwd.as_deref(), named);
    let env = |name: &str| std::env::var(name).ok();
    let explicit_role = config.role.as_ref().map(|r| r.value.as_str());
    if let (Some(role), Some(resolved)) = (explicit_role, &config.role) {
        crate::cmd::check_role(spec, role, &resolved.source.to_string())?;
    }
    let (now, time_source) = match (args.at, event.timestamp_ms) {
        (Some(at), _) => (at, "--at"),
        (None, Some(ts)) => (ts, "payload"),
        (None, None) => (
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            "now",
        ),
    };
    let (own_named, beside_named) = states_by_machine(&engine, &args.state)?;
    let Start {
        mut state,
        source: state_source,
        fault,
    } = starting_state(&engine, &event, &own_named, &config.db.value)?;
    let state_before = state.machine.state;
    let regions_before = state.machine.regions.clone();
    let role = engine.resolve_role(&event, &env, explicit_role);
    let baselines = vec![None; spec.kinds.len()];
    let mut mint = || "(explain)".to_string();
    let mut cx = Context {
        now_ms: now,
        role,
        approved: false,
        baselines: &baselines,
        grant_id: &mut mint,
    };
    // Where each effect comes from, when a command model written as data made it.
    gate_runtime::effects::provenance::begin_sources();
    let mut outcome = engine.evaluate(&mut state, &event, &mut cx);
    let sources = gate_runtime::effects::provenance::end_sources();
    // A project's own command models that cannot be read (the hook skips them silently).
    let command_faults = event
        .cwd
        .as_deref()
        .map(gate_runtime::effects::project_faults)
        .unwrap_or_default();
    let state_after = state.machine.state;
    // Each region's state before and after, by region (`[[region]]`).
    let regions: Vec<(&str, &str, &str)> = (spec.regions.iter())
        .zip(regions_before.iter().zip(&state.machine.regions))
        .map(|(r, (a, b))| (&*r.name, spec.state_name(*a), spec.state_name(*b)))
        .collect();
    let mut faults: Vec<String> = fault.into_iter().collect();
    // The machines beside it, each from its own stored (or initial) state, and the answers
    // combined as the hook combines them.
    let own_verdict = outcome.decision.verdict.clone();
    let mut beside_from = Vec::new();
    gate_runtime::driver::beside(&engine, &mut outcome, |i, m| {
        let start = starting_state(m, &event, &beside_named[i - 1], &config.db.value)?;
        faults.extend(start.fault);
        let mut state = start.state;
        beside_from.push((
            m.spec.state_name(state.machine.state).to_string(),
            start.source,
        ));
        let baselines = vec![None; m.spec.kinds.len()];
        let mut mint = || "(explain)".to_string();
        let mut cx = Context {
            now_ms: now,
            role: m.resolve_role(&event, &env, explicit_role),
            approved: false,
            baselines: &baselines,
            grant_id: &mut mint,
        };
        let o = m.evaluate(&mut state, &event, &mut cx);
        Ok::<_, anyhow::Error>((o, state.machine.state))
    })?;
    let beside: Vec<serde_json::Value> = outcome
        .alongside
        .iter()
        .zip(&engine.alongside)
        .zip(&beside_from)
        .map(|((a, m), (from, source))| {
            let c = &a.outcome.classification;
            json!({
                "spec": a.spec,
                "state": {"from": from, "to": m.spec.state_name(a.state), "source": source},
                "tier": m.spec.tier_name(c.tier),
                "rule": c.rule.map(|r| m.spec.rules[r as usize].name.clone()),
                "transitions": a.outcome.fired.iter().map(|t| {
                    let tr = &m.spec.transitions[*t as usize];
                    format!("{} --{}--> {}", m.spec.state_name(tr.from), m.spec.trigger_text(tr.trigger), m.spec.state_name(tr.to))
                }).collect::<Vec<_>>(),
                "verdict": a.outcome.decision.verdict.name(),
            })
        })
        .collect();
    let o = &outcome;
    let class = &o.classification;
    let rules: Vec<&str> = class
        .matched
        .iter()
        .map(|r| spec.rules[*r as usize].name.as_ref())
        .collect();
    let signals: Vec<serde_json::Value> = spec
        .signals
        .iter()
        .enumerate()
        .map(|(i, s)| {
            json!({
                "signal": s.name,
                "family": s.family.name(),
                "on": o.rising.contains(&(i as u8)),
                "off": o.falling.contains(&(i as u8)),
            })
        })
        .collect();
    let fired: Vec<serde_json::Value> = o
        .fired
        .iter()
        .map(|t| {
            let tr = &spec.transitions[*t as usize];
            json!({
                "from": spec.state_name(tr.from),
                "trigger": spec.trigger_text(tr.trigger),
                "to": spec.state_name(tr.to),
            })
        })
        .collect();
    // The simple commands the parser read (after wrappers were peeled), for a shell tool.
    let commands: Vec<serde_json::Value> = match (&event.tool, &event.target) {
        (Some(tool), Some(line)) if gate_runtime::observer::is_shell_tool(tool) => {
            gate_runtime::shell::parse(line)
                .commands
                .iter()
                .map(|c| {
                    json!({
                        "program": c.program,
                        "args": c.args,
                        "wrappers": c.wrappers,
                    })
                })
                .collect()
        }
        _ => Vec::new(),
    };
    let answer = adapters::render(runtime, &event, &o.decision);
    let time = crate::time::rfc3339(o.now_ms);
    if json_out {
        out_json(&json!({
            "spec": spec.name,
            "policy": policy.label(),
            "time": time,
            "time_source": time_source,
            "state": {
                "from": spec.state_name(state_before),
                "to": spec.state_name(state_after),
                "source": state_source,
            },
            "regions": regions
                .iter()
                .map(|(r, from, to)| json!({"region": r, "from": from, "to": to}))
                .collect::<Vec<_>>(),
            "event": event,
            "class": class.class,
            "tier": spec.tier_name(class.tier),
            "kind": spec.kinds[class.kind as usize].name,
            "commands": commands,
            "effects": class.effects,
            "effect_sources": class
                .effects
                .iter()
                .map(|e| gate_runtime::effects::provenance::source_of(e, &sources))
                .collect::<Vec<_>>(),
            "command_faults": command_faults,
            "rules": rules,
            "reason": class.reason,
            "role": role.map(|r| spec.roles[r as usize].name.clone()),
            "mode": o.mode,
            "signals": signals,
            "transitions": fired,
            "proposed": o.proposed,
            "decision": o.decision,
            "alongside": beside,
            "answer": answer,
            "faults": faults,
        }))?;
        return Ok(Exit::Ok.code());
    }
    let mut t = String::new();
    t.push_str(&format!(
        "spec      {}{}\ntime      {time} ({})\nevent     {} ({})\n",
        spec.name,
        match &policy {
            Policy::Draft { path, .. } => format!(" (draft {})", path.display()),
            Policy::Compiled(_) => String::new(),
        },
        match time_source {
            "--at" => "from --at",
            "payload" => "the payload's timestamp",
            _ => "now: the payload has no timestamp",
        },
        event.hook_event,
        event.phase.map_or("other", |p| p.as_str())
    ));
    if let Some(tool) = &event.tool {
        t.push_str(&format!(
            "tool      {tool}: {}\n",
            gate_runtime::redact::redact(event.target.as_deref().unwrap_or(""))
        ));
    }
    t.push_str(&format!(
        "class     {}\ntier      {}\nkind      {}\nrules     {}\n",
        class.class.map_or("none", |c| c.as_str()),
        spec.tier_name(class.tier),
        spec.kinds[class.kind as usize].name,
        if rules.is_empty() {
            "none".to_string()
        } else {
            rules.join(", ")
        }
    ));
    for c in &commands {
        let words: Vec<&str> = c["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str())
            .collect();
        t.push_str(&format!(
            "command   {} {}\n",
            c["program"].as_str().unwrap_or(""),
            gate_runtime::redact::redact(&words.join(" "))
        ));
    }
    for e in &class.effects {
        let target = if e.target.is_empty() {
            String::new()
        } else {
            format!(" ({})", gate_runtime::redact::redact(&e.target))
        };
        let from = match gate_runtime::effects::provenance::source_of(e, &sources) {
            Some(source) => format!("  from {source}"),
            None => String::new(),
        };
        t.push_str(&format!(
            "effect    {} at {}{target}{from}\n",
            e.act, e.place
        ));
    }
    if !class.reason.is_empty() {
        t.push_str(&format!("reason    {}\n", class.reason));
    }
    t.push_str(&format!(
        "role      {}\nmode      {:?}\n",
        role.map_or("none", |r| spec.roles[r as usize].name.as_ref()),
        o.mode
    ));
    for s in &o.rising {
        t.push_str(&format!(
            "signal    {} turned on\n",
            spec.signals[*s as usize].name
        ));
    }
    for s in &o.falling {
        t.push_str(&format!(
            "signal    {} turned off\n",
            spec.signals[*s as usize].name
        ));
    }
    for f in &fired {
        t.push_str(&format!(
            "fired     {} --{}--> {}\n",
            f["from"].as_str().unwrap_or(""),
            f["trigger"].as_str().unwrap_or(""),
            f["to"].as_str().unwrap_or("")
        ));
    }
    t.push_str(&format!(
        "state     {} → {} (starting state: {})\n",
        spec.state_name(state_before),
        spec.state_name(state_after),
        match state_source {
            "--state" => "from --state, in a fresh scope",
            "stored" => "the scope's, stored in the database",
            _ => "the spec's initial state",
        }
    ));
    for (r, from, to) in &regions {
        t.push_str(&format!("region    {r}: {from} → {to}\n"));
    }
    if !beside.is_empty() {
        t.push_str(&format!("own       {}\n", own_verdict.name()));
    }
    for b in &beside {
        t.push_str(&format!(
            "beside    {}: {} → {}{}, tier {}, {}{}\n",
            b["spec"].as_str().unwrap_or(""),
            b["state"]["from"].as_str().unwrap_or(""),
            b["state"]["to"].as_str().unwrap_or(""),
            if b["state"]["source"] == "--state" {
                " (from --state)"
            } else {
                ""
            },
            b["tier"].as_str().unwrap_or(""),
            b["verdict"].as_str().unwrap_or(""),
            b["rule"]
                .as_str()
                .map_or(String::new(), |r| format!(" (rule {r})")),
        ));
    }
    t.push_str(&format!(
        "proposed  {}\nverdict   {}\nanswer    {}\n",
        o.proposed.name(),
        o.decision.verdict.name(),
        answer.as_deref().unwrap_or("(no output)")
    ));
    for f in &command_faults {
        t.push_str(&format!("note      command model skipped: {f}\n"));
    }
    for f in &faults {
        t.push_str(&format!(
            "note      state unavailable ({f}); evaluated from a fresh state\n"
        ));
    }
    out(&t)?;
    Ok(Exit::Ok.code())
}
