//! `gate verify`: explore a policy's whole control space and report, for every invariant
//! (gate's built-in ones and the spec's own `[[invariant]]`s), that it is proven or the
//! shortest event sequence from a new identity that breaks it.

use anyhow::Result;
use gate_runtime::interp::Interpreter;
use gate_runtime::verify::{self, Report, TooLarge};
use serde_json::json;

use crate::cli::{Exit, VerifyArgs};
use crate::cmd::policy::Policy;
use crate::cmd::{out, out_json};
use crate::InputError;

/// The policies a verify run names: the FILEs, else `--spec-file`, else `--spec` (or the
/// configured spec).
fn policies(args: &VerifyArgs) -> Result<Vec<Policy>> {
    let given = usize::from(!args.files.is_empty())
        + usize::from(args.spec_file.is_some())
        + usize::from(args.spec.is_some());
    if given > 1 {
        return Err(InputError::new(
            "give one of --spec NAME, --spec-file PATH or spec FILEs, not several",
        )
        .into());
    }
    if !args.files.is_empty() {
        return args.files.iter().map(|f| Policy::draft(f)).collect();
    }
    Ok(vec![Policy::load(
        args.spec.as_deref(),
        args.spec_file.as_deref(),
    )?])
}

/// Verifies one policy: a compiled machine beside the interpreter of its IR, or a draft
/// interpreted; `Err` when its space is too large to explore.
pub fn verify_policy(policy: &Policy) -> Result<Report, TooLarge> {
    let spec = policy.spec();
    let interp = Interpreter::new(spec);
    match policy {
        Policy::Compiled(c) => verify::verify(spec, c.machine, Some(&interp)),
        Policy::Draft { .. } => verify::verify(spec, &interp, None),
    }
}

/// Verifies each machine beside a policy's own on its own (`[machine] alongside`), labelled
/// `NAME (beside LABEL)`, in the policy's order.
pub fn verify_beside(policy: &Policy) -> Vec<(String, Result<Report, TooLarge>)> {
    let label = |name: &str| format!("{name} (beside {})", policy.label());
    match policy {
        Policy::Compiled(c) => crate::cmd::policy::compiled_alongside(c)
            .0
            .into_iter()
            .map(|b| {
                let interp = Interpreter::new(b.ir());
                (
                    label(b.name),
                    verify::verify(b.ir(), b.machine, Some(&interp)),
                )
            })
            .collect(),
        Policy::Draft { beside, .. } => beside
            .iter()
            .map(|b| {
                let interp = Interpreter::new(b);
                (label(&b.name), verify::verify(b, &interp, None))
            })
            .collect(),
    }
}

/// What a composed policy's report adds: why its machines' proofs carry over to it.
pub const COMPOSITION: &str = "the machines run side by side, each proven on its own above; \
the answer is the strictest of theirs (deny > ask > steer > allow) and a grant lifts only an \
ask, so an action any machine withholds stays withheld: forbidden_never_allowed holds for the \
composition";

/// The text report of one policy.
pub fn render(label: &str, report: &Report) -> String {
    let mut text = format!(
        "{label}: explored {} control nodes and {} steps ({} abstract events; roles: {}); debouncers: {} states, {} steps\n",
        report.nodes,
        report.steps,
        report.letters,
        report.roles.join(", "),
        report.debouncer_states,
        report.debouncer_steps,
    );
    if report.counters_abstracted {
        text.push_str(
            "  its exact space is beyond the explorer's budget: explored with the counters \
             abstracted (the reference interpreter, every value of each counter allowed on \
             every event; a compiled machine checked on each step at one value of its \
             valuation)\n",
        );
    }
    for f in &report.invariants {
        let origin = if f.builtin { "built-in" } else { "spec" };
        let abstracted = if f.counters_abstracted {
            " (counters abstracted: every value of each counter allowed)"
        } else {
            ""
        };
        if f.holds() {
            text.push_str(&format!(
                "  proven  {} ({origin}, {} checks){abstracted}: {}\n",
                f.name, f.checked, f.statement
            ));
        } else if f.counters_abstracted {
            text.push_str(&format!(
                "  NOT PROVEN {} ({origin}){abstracted}: {}\n",
                f.name, f.statement
            ));
            if let Some(why) = &f.undecided {
                text.push_str(&format!("          {why}\n"));
            }
        } else {
            text.push_str(&format!(
                "  FALSE   {} ({origin}): {}\n",
                f.name, f.statement
            ));
        }
        if let Some(note) = &f.note {
            text.push_str(&format!("          {note}\n"));
        }
        if let Some(c) = &f.counterexample {
            text.push_str(if f.counters_abstracted {
                "          abstract trace, possibly spurious (the counters' values along it \
                 may be ones no real run has), "
            } else {
                "          counterexample, "
            });
            text.push_str(c.render("          ").trim_start());
        }
    }
    text
}

/// `gate verify`; exit 1 when an invariant is false.
pub fn run(args: &VerifyArgs, json_out: bool) -> Result<i32> {
    let policies = policies(args)?;
    let mut reports: Vec<(String, Result<Report, TooLarge>)> = Vec::new();
    let mut composed: Vec<String> = Vec::new();
    for p in &policies {
        reports.push((p.label(), verify_policy(p)));
        let beside = verify_beside(p);
        if !beside.is_empty() {
            composed.push(p.label());
        }
        reports.extend(beside);
    }
    let holds = reports
        .iter()
        .all(|(_, r)| r.as_ref().is_ok_and(Report::holds));
    if json_out {
        out_json(&json!({
            "holds": holds,
            "specs": reports
                .iter()
                .map(|(label, r)| match r {
                    Ok(r) => json!({"policy": label, "report": r}),
                    Err(e) => json!({"policy": label, "too_large": e, "message": e.to_string()}),
                })
                .collect::<Vec<_>>(),
            "compositions": composed
                .iter()
                .map(|label| json!({"policy": label, "argument": COMPOSITION}))
                .collect::<Vec<_>>(),
        }))?;
    } else {
        let mut text = String::new();
        for (label, r) in &reports {
            match r {
                Ok(r) => text.push_str(&render(label, r)),
                Err(e) => text.push_str(&format!("{e}\n")),
            }
        }
        for label in &composed {
            text.push_str(&format!("{label}: {COMPOSITION}\n"));
        }
        let false_count: usize = reports
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok())
            .map(|r| {
                r.invariants
                    .iter()
                    .filter(|f| !f.holds() && !f.counters_abstracted)
                    .count()
            })
            .sum();
        let unproven: usize = reports
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok())
            .map(|r| {
                r.invariants
                    .iter()
                    .filter(|f| !f.holds() && f.counters_abstracted)
                    .count()
            })
            .sum();
        let abstracted = reports
            .iter()
            .any(|(_, r)| r.as_ref().is_ok_and(|r| r.counters_abstracted));
        let refused = reports.iter().filter(|(_, r)| r.is_err()).count();
        text.push_str(&if holds && abstracted {
            "every invariant is proven over the abstract alphabet (counters abstracted where \
             the exact space is beyond the budget)\n"
                .to_string()
        } else if holds {
            "every invariant is proven over the abstract alphabet\n".to_string()
        } else if unproven > 0 {
            format!(
                "{false_count} invariant(s) false; {unproven} not proven with the counters \
                 abstracted{}\n",
                if refused > 0 {
                    format!("; {refused} too large to explore")
                } else {
                    String::new()
                }
            )
        } else if refused > 0 {
            format!(
                "{false_count} invariant(s) false; {refused} {} too large to explore, nothing proven of {}\n",
                if refused == 1 { "policy" } else { "policies" },
                if refused == 1 { "it" } else { "them" },
            )
        } else {
            format!("{false_count} invariant(s) false\n")
        });
        out(&text)?;
    }
    Ok(if holds { Exit::Ok } else { Exit::Findings }.code())
}
