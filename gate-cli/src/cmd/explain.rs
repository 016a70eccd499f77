//! `gate explain --runtime R`: show, for one payload, the rules, tier, signals, transitions and
//! answer gate would give — evaluated against the scope's stored state but writing nothing.

use crate::adapters;
use crate::cli::{Exit, ExplainArgs, GlobalArgs};
use crate::cmd::{compiled_spec, out, out_json};
use crate::config::{Config, Overrides};
use crate::InputError;
use anyhow::Result;
use gate_runtime::driver::{self, Options};
use gate_runtime::engine::Engine;
use serde_json::json;
use std::io::Read;
use std::time::{SystemTime, UNIX_EPOCH};

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
    let event = adapters::normalize(runtime, &payload, args.event.as_deref())
        .map_err(|e| InputError::new(format!("the payload cannot be read: {e}")))?;
    let config = Config::resolve(&Overrides::from(global))?;
    let compiled = compiled_spec(&config.spec.value)?;
    let spec = compiled.ir();
    let engine = Engine::new(spec, compiled.machine);
    // What the hook would answer: it looks at the disk too.
    engine.look_at_disk();
    let env = |name: &str| std::env::var(name).ok();
    let now = event.timestamp_ms.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    });
    let opts = Options {
        db_path: Some(config.db.value.clone()),
        role: config.role.as_ref().map(|r| r.value.as_str()),
        env: &env,
        now_ms: now,
        persist: false,
        busy_timeout: driver::BUSY_TIMEOUT,
        defer_checkpoint: false,
        exits_after: false,
    };
    let result = driver::run(&engine, &event, &opts);
    let o = &result.outcome;
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
    let answer = adapters::render(runtime, &event, &result.decision);
    let role = engine.resolve_role(&event, &env, opts.role);
    if json_out {
        out_json(&json!({
            "spec": spec.name,
            "event": event,
            "class": class.class,
            "tier": spec.tier_name(class.tier),
            "kind": spec.kinds[class.kind as usize].name,
            "commands": commands,
            "effects": class.effects,
            "rules": rules,
            "reason": class.reason,
            "role": role.map(|r| spec.roles[r as usize].name.clone()),
            "mode": o.mode,
            "signals": signals,
            "transitions": fired,
            "proposed": o.proposed,
            "decision": result.decision,
            "answer": answer,
            "faults": result.faults,
        }))?;
        return Ok(Exit::Ok.code());
    }
    let mut t = String::new();
    t.push_str(&format!(
        "spec      {}\nevent     {} ({})\n",
        spec.name,
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
        t.push_str(&format!("effect    {} at {}{target}\n", e.act, e.place));
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
        "proposed  {}\nverdict   {}\nanswer    {}\n",
        o.proposed.name(),
        result.decision.verdict.name(),
        answer.as_deref().unwrap_or("(no output)")
    ));
    for f in &result.faults {
        t.push_str(&format!(
            "note      state unavailable ({f}); evaluated from a fresh state\n"
        ));
    }
    out(&t)?;
    Ok(Exit::Ok.code())
}
