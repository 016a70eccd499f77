//! The static check of quiet periods (`[template]` `quiet_actions`/`quiet_secs`): a quiet
//! period suppresses guidance only, so a template that has one may not ask or deny (G026).

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Effect, Spec, TemplateId};

/// G026 for every `ask:`/`deny:` effect and every `withhold` whose template is quiet.
pub fn check(spec: &Spec, diags: &mut Diagnostics) {
    let quiet = |t: TemplateId| {
        spec.templates
            .get(t as usize)
            .is_some_and(|t| t.quiet.is_some())
    };
    let error = |t: TemplateId, span, what: &str| {
        let template = &spec.templates[t as usize];
        Diagnostic::error(
            Code::QuietBlocks,
            span,
            format!(
                "template `{}` has a quiet period and is used to {what}: an ask or a deny is never quieted",
                template.name
            ),
        )
        .with_label(template.span, "the quiet template")
        .with_help("give the ask or deny a template of its own without `quiet_actions`/`quiet_secs`")
    };
    for state in &spec.states {
        if let Some(w) = state.withhold.as_ref().filter(|w| quiet(w.template)) {
            diags.push(error(w.template, w.span, "withhold"));
        }
    }
    for t in &spec.transitions {
        for e in &t.effects {
            let (tmpl, what) = match e {
                Effect::Ask { template } => (*template, "ask"),
                Effect::Deny { template } => (*template, "deny"),
                _ => continue,
            };
            if quiet(tmpl) {
                diags.push(error(tmpl, t.span, what));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::Code;

    /// A steer from a quiet template, whose effect the test swaps.
    const BASE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/specs/quiet_nudge.toml"
    ));

    fn codes(effect: &str) -> Vec<Code> {
        let (_, diags) = crate::compile(&BASE.replace("steer:nudge", effect));
        diags.items.iter().map(|d| d.code).collect()
    }

    #[test]
    fn a_quiet_template_may_steer_but_not_ask_or_deny() {
        assert!(!codes("steer:nudge").contains(&Code::QuietBlocks));
        assert!(codes("ask:nudge").contains(&Code::QuietBlocks));
        assert!(codes("deny:nudge").contains(&Code::QuietBlocks));
    }
}
