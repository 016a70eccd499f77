//! The subcommands: each takes its parsed arguments and returns an exit code (or an error,
//! which `main` prints as one line and maps to an exit code).

pub mod backups;
pub mod diagram;
pub mod diff;
mod diff_beside;
mod diff_classes;
pub mod draft;
pub mod explain;
pub mod hook;
pub mod policy;
pub mod replay;
pub mod sink;
pub mod spectest;
pub mod store;
pub mod verify;

use crate::cli::{self, CheckArgs, CompletionsArgs, Exit, GlobalArgs};
use crate::config::{Config, Overrides};
use crate::InputError;
use anyhow::Result;
use gate_spec::compose::Sources;
use gate_spec::diag::{line_col, Diagnostic, Severity, SourceMap};
use gate_spec::exec::CompiledSpec;
use serde_json::json;
use std::io::Write;

/// Write text to stdout (a closed pipe surfaces as an `io::Error` that `main` treats as
/// success).
pub fn out(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Write one JSON value (pretty, with a final newline) to stdout.
pub fn out_json(value: &serde_json::Value) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    out(&text)
}

/// The specs compiled into this binary ([`crate::registry`]).
pub fn compiled_specs() -> &'static [&'static CompiledSpec] {
    crate::registry::compiled()
}

/// A compiled spec by name, or an input error listing the known names.
pub fn compiled_spec(name: &str) -> Result<&'static CompiledSpec> {
    compiled_specs()
        .iter()
        .copied()
        .find(|s| s.name == name)
        .ok_or_else(|| {
            let known: Vec<&str> = compiled_specs().iter().map(|s| s.name).collect();
            let meant = gate_spec::diag::did_you_mean(name, known.iter().copied())
                .map(|m| format!("; did you mean `{m}`?"))
                .unwrap_or_default();
            InputError::new(format!(
                "no compiled spec named `{name}` (compiled: {}){meant}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
            .into()
        })
}

/// A role name checked against `spec`: a name the spec does not define is an input error
/// that names where the role came from (`source`) and the spec's roles.
pub fn check_role(spec: &gate_spec::ir::Spec, role: &str, source: &str) -> Result<()> {
    if spec.roles.iter().any(|r| *r.name == *role) {
        return Ok(());
    }
    let known: Vec<&str> = spec.roles.iter().map(|r| &*r.name).collect();
    Err(InputError::new(format!(
        "role `{role}` ({source}) is not a role of spec `{}` ({})",
        spec.name,
        if known.is_empty() {
            "it defines none".to_string()
        } else {
            format!("its roles: {}", known.join(", "))
        }
    ))
    .into())
}

/// `gate config`.
pub fn config(global: &GlobalArgs) -> Result<i32> {
    let mut config = Config::resolve(&Overrides::from(global))?;
    if let Ok(spec) = compiled_spec(&config.spec.value) {
        let unknown = config.unknown_fail_closed_tiers(spec.ir());
        config.problems.extend(unknown);
        let beside: Vec<&gate_spec::ir::Spec> = crate::cmd::policy::compiled_alongside(spec)
            .0
            .iter()
            .map(|b| b.ir())
            .collect();
        let outliving = config.outlive_sessions_problems(spec.ir(), &beside);
        config.problems.extend(outliving);
    }
    if global.json {
        out_json(&serde_json::to_value(&config)?)?;
    } else {
        let mut text = config.to_text();
        for p in &config.problems {
            text.push_str(&format!("error: {p}\n"));
        }
        out(&text)?;
    }
    // A value that is set but cannot be used is a finding: the hook runs on its default.
    Ok(if config.problems.is_empty() {
        Exit::Ok.code()
    } else {
        Exit::Findings.code()
    })
}

/// `gate specs`.
pub fn specs(global: &GlobalArgs) -> Result<i32> {
    let specs = compiled_specs();
    if global.json {
        let list: Vec<serde_json::Value> = specs
            .iter()
            .map(|s| {
                let ir = s.ir();
                json!({
                    "name": s.name,
                    "hash": s.hash,
                    "path": s.path,
                    "description": ir.description,
                    "states": ir.states.len(),
                    "transitions": ir.transitions.len(),
                    "signals": ir.signals.len(),
                    "tiers": ir.tiers.iter().map(|t| t.name.as_ref()).collect::<Vec<_>>(),
                })
            })
            .collect();
        out_json(&json!(list))?;
        return Ok(Exit::Ok.code());
    }
    let mut text = String::new();
    if specs.is_empty() {
        text.push_str("no specs are compiled into this binary\n");
    }
    let width = specs.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in specs {
        let ir = s.ir();
        let description = ir.description.lines().next().unwrap_or("").trim();
        text.push_str(&format!(
            "{:width$}  {} states, {} transitions  {}  {}\n",
            s.name,
            ir.states.len(),
            ir.transitions.len(),
            &s.hash[..s.hash.len().min(12)],
            description,
        ));
    }
    out(&text)?;
    Ok(Exit::Ok.code())
}

/// One diagnostic as JSON; each location names its file (a composed spec's diagnostics may
/// lie in a base it extends).
fn diagnostic_json(sources: &Sources, d: &Diagnostic) -> serde_json::Value {
    let (file, source, span) = sources.locate(d.span);
    let (line, col) = line_col(source, span.start as usize);
    let (end_line, end_col) = line_col(source, span.end as usize);
    json!({
        "code": d.code.as_str(),
        "rule": d.code.slug(),
        "severity": d.severity,
        "message": d.message,
        "file": file,
        "line": line,
        "col": col,
        "end_line": end_line,
        "end_col": end_col,
        "labels": d.labels.iter().map(|l| {
            let (file, source, span) = sources.locate(l.span);
            let (line, col) = line_col(source, span.start as usize);
            json!({"message": l.message, "file": file, "line": line, "col": col})
        }).collect::<Vec<_>>(),
        "help": d.help,
    })
}

/// Compile a spec file with the specs it extends, naming files as given on the command line
/// (a base beside `specs/mine.toml` is `specs/guard.toml`).
pub fn compile_spec_file(path: &std::path::Path) -> Result<gate_spec::Compiled> {
    let shown = |p: &std::path::Path| p.display().to_string();
    gate_spec::compile_file(path, &shown)
        .map_err(|e| InputError::new(format!("cannot read {}: {e}", path.display())).into())
}

/// `gate check FILE...`.
pub fn check(args: &CheckArgs, global: &GlobalArgs) -> Result<i32> {
    let mut any_error = false;
    let mut reports = Vec::new();
    let mut text = String::new();
    for path in &args.files {
        let shown = path.display().to_string();
        let compiled = compile_spec_file(path)?;
        let (spec, diags) = (&compiled.spec, &compiled.diags);
        let errors = diags
            .items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let warnings = diags.items.len() - errors;
        any_error |= errors > 0;
        if global.json {
            reports.push(json!({
                "file": shown,
                "ok": errors == 0,
                "spec": spec.as_ref().map(|s| s.name.clone()),
                "errors": errors,
                "warnings": warnings,
                "diagnostics": diags.items.iter().map(|d| diagnostic_json(&compiled.sources, d)).collect::<Vec<_>>(),
            }));
        } else {
            if !diags.items.is_empty() {
                text.push_str(&compiled.render());
                text.push('\n');
            }
            match &spec {
                Some(s) => text.push_str(&format!(
                    "{shown}: ok: spec `{}`, {} states, {} transitions{}\n",
                    s.name,
                    s.states.len(),
                    s.transitions.len(),
                    if warnings > 0 {
                        format!(", {warnings} warning(s)")
                    } else {
                        String::new()
                    }
                )),
                None => text.push_str(&format!(
                    "{shown}: {errors} error(s), {warnings} warning(s)\n"
                )),
            }
        }
    }
    if global.json {
        out_json(&json!(reports))?;
    } else {
        out(&text)?;
    }
    Ok(if any_error {
        Exit::Findings.code()
    } else {
        Exit::Ok.code()
    })
}

/// `gate completions SHELL`.
pub fn completions(args: &CompletionsArgs) -> Result<i32> {
    let mut command = cli::command();
    let mut buffer = Vec::new();
    clap_complete::generate(args.shell, &mut command, "gate", &mut buffer);
    out(&String::from_utf8_lossy(&buffer))?;
    Ok(Exit::Ok.code())
}

/// `gate man`.
pub fn man() -> Result<i32> {
    let command = cli::command();
    let mut buffer = Vec::new();
    clap_mangen::Man::new(command).render(&mut buffer)?;
    out(&String::from_utf8_lossy(&buffer))?;
    Ok(Exit::Ok.code())
}
