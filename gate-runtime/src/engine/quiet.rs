//! Quiet periods: whether a steer from a template with `quiet_actions`/`quiet_secs` is shown
//! now, and the per-scope marks of when each quiet template last spoke.

use crate::observer::{ObserverState, QuietMark};
use gate_spec::ir::{Spec, TemplateId};

/// Whether a steer rendered from template `t` is shown at `now_ms`: always for a template
/// without a quiet period; for one with, unless its quiet period since it was last shown in
/// this scope still holds. A shown quiet template's mark moves to now (and to this scope's
/// action count, which counts the current action).
pub(super) fn speaks(
    spec: &Spec,
    observer: &mut ObserverState,
    t: TemplateId,
    now_ms: i64,
) -> bool {
    let Some(template) = spec.templates.get(t as usize) else {
        return true;
    };
    let Some(quiet) = template.quiet else {
        return true;
    };
    let name: &str = &template.name;
    let action = observer.actions;
    match observer.quiet.iter_mut().find(|m| m.template == name) {
        Some(mark) if quiet.holds(mark.shown_ms, mark.shown_action, now_ms, action) => false,
        Some(mark) => {
            mark.shown_ms = now_ms;
            mark.shown_action = action;
            true
        }
        None => {
            // Marks of templates this spec no longer makes quiet go first (the spec changed).
            observer.quiet.retain(|m| {
                spec.templates
                    .iter()
                    .any(|t| t.quiet.is_some() && *t.name == *m.template)
            });
            observer.quiet.push(QuietMark {
                template: name.to_string(),
                shown_ms: now_ms,
                shown_action: action,
            });
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gate_spec::ir::Quiet;

    fn spec(quiet: Quiet) -> Spec {
        let source = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/specs/quiet_nudge.toml"
        ));
        let (spec, diags) = gate_spec::compile(source);
        let mut spec = spec.unwrap_or_else(|| panic!("{diags:?}"));
        spec.templates[0].quiet = Some(quiet);
        spec
    }

    /// Speaks at each of `actions` pre-tool actions, `step_ms` apart.
    fn pattern(quiet: Quiet, actions: u64, step_ms: i64) -> String {
        let spec = spec(quiet);
        let mut observer = ObserverState::default();
        (1..=actions)
            .map(|i| {
                observer.actions = i;
                if speaks(&spec, &mut observer, 0, i as i64 * step_ms) {
                    'S'
                } else {
                    '.'
                }
            })
            .collect()
    }

    #[test]
    fn quiet_actions_skips_that_many_actions_after_each_shown_one() {
        let q = Quiet {
            actions: Some(5),
            secs: None,
        };
        assert_eq!(pattern(q, 13, 1000), "S.....S.....S");
    }

    #[test]
    fn quiet_secs_skips_until_that_many_seconds_passed() {
        let q = Quiet {
            actions: None,
            secs: Some(10),
        };
        // Actions 3 s apart: shown at 3 s, quiet at 6, 9, 12 s, shown at 15 s (12 s later).
        assert_eq!(pattern(q, 9, 3000), "S...S...S");
    }

    #[test]
    fn with_both_the_first_limit_reached_ends_the_quiet() {
        let q = Quiet {
            actions: Some(5),
            secs: Some(10),
        };
        assert_eq!(pattern(q, 7, 4000), "S..S..S");
        assert_eq!(pattern(q, 7, 1000), "S.....S");
    }
}
