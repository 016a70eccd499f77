//! Buffers reused from one event to the next change no answer: an outcome written over the
//! previous event's ([`Engine::evaluate_into`], what the in-memory replay does) equals the
//! fresh one [`Engine::evaluate`] returns, with the same scope state after, for every shipped
//! spec over a long mixed stream; a classification written over a used one
//! ([`Classifier::classify_into`]) equals a fresh classification; the paths of a line written
//! over a used vector ([`shell::paths_into`]) equal [`shell::paths`]; a parse in the room
//! of earlier parses ([`shell::parse_in`]) equals a fresh [`shell::parse`].

use gate_runtime::engine::{Context, Engine, Outcome, ScopeState};
use gate_runtime::event::{Event, Runtime, Status};
use gate_runtime::observer::{Classification, Classifier};
use gate_runtime::shell;
use gate_spec::ir::{ActionClass, Phase};
use proptest::prelude::*;

mod common;
use common::lines::{corpus, line_strategy};

fn bash(cmd: &str, session: usize) -> Event {
    Event {
        // Gemini answers carry no guidance before a tool: its steers wait (carried over).
        runtime: Some(if session % 2 == 1 {
            Runtime::Gemini
        } else {
            Runtime::ClaudeCode
        }),
        phase: Some(Phase::PreTool),
        tool: Some("Bash".into()),
        class: Some(ActionClass::Exec),
        target: Some(cmd.into()),
        cwd: Some("/home/u/proj".into()),
        session_id: Some(format!("s{session}")),
        ..Event::default()
    }
}

/// Shell lines from the labelled corpus, with file tools, failures, prompts and session
/// ends between them, so that windows arm and close, signals rise and fall and every verdict
/// occurs.
fn stream() -> Vec<Event> {
    let mut out = Vec::new();
    for (i, cmd) in corpus().iter().enumerate() {
        let session = i / 61;
        out.push(bash(cmd, session));
        match i % 7 {
            0 => out.push(Event {
                phase: Some(Phase::PostTool),
                status: Some(if i % 2 == 0 {
                    Status::Failure
                } else {
                    Status::Success
                }),
                ..bash(cmd, session)
            }),
            1 => {
                let path = format!("src/m{}/f{}.rs", i % 5, i % 3);
                out.push(Event {
                    tool: Some("Edit".into()),
                    class: Some(ActionClass::Write),
                    target: Some(path.clone()),
                    paths: vec![path, "README.md".into()],
                    ..bash("", session)
                });
            }
            2 => out.push(Event {
                phase: Some(Phase::Prompt),
                tool: None,
                target: None,
                prompt: Some(format!("now do step {i}")),
                ..bash("", session)
            }),
            3 if i % 61 == 60 => out.push(Event {
                phase: Some(Phase::SessionEnd),
                tool: None,
                target: None,
                ..bash("", session)
            }),
            _ => {}
        }
    }
    out
}

#[test]
fn an_outcome_written_over_the_last_one_is_a_fresh_outcome() {
    let events = stream();
    assert!(events.len() > 400, "{} events", events.len());
    let mut verdicts = std::collections::BTreeSet::new();
    let mut carried = 0;
    for compiled in gate_specs::ALL {
        let spec = compiled.ir();
        let fresh = Engine::new(spec, compiled.machine);
        let reusing = Engine::new(spec, compiled.machine);
        let mut state_a = ScopeState::initial(spec, compiled.machine);
        let mut state_b = ScopeState::initial(spec, compiled.machine);
        let baselines = vec![None; spec.kinds.len()];
        let mut reused = Outcome::empty();
        let mut notes = 0;
        for (i, e) in events.iter().enumerate() {
            let now_ms = 1_700_000_000_000 + i as i64 * 4_000;
            let mut n = 0;
            let mut mint = || {
                n += 1;
                format!("g-{i}-{n}")
            };
            let mut cx = Context {
                now_ms,
                role: None,
                approved: i % 11 == 0,
                baselines: &baselines,
                grant_id: &mut mint,
            };
            let want = fresh.evaluate(&mut state_a, e, &mut cx);
            let mut m = 0;
            let mut mint = || {
                m += 1;
                format!("g-{i}-{m}")
            };
            cx.grant_id = &mut mint;
            reusing.evaluate_into(&mut state_b, e, &mut cx, &mut reused);
            assert_eq!(
                format!("{reused:?}"),
                format!("{want:?}"),
                "spec `{}`, event {i}: {e:?}",
                compiled.name
            );
            assert_eq!(state_b, state_a, "spec `{}`, event {i}", compiled.name);
            verdicts.insert(want.decision.verdict.name());
            notes += want.notes.len();
            carried += want.notes.iter().filter(|n| n.kind == "carry").count();
        }
        assert!(notes > 0, "spec `{}`: no notes at all", compiled.name);
    }
    assert!(
        verdicts.len() == 4,
        "not every verdict occurred: {verdicts:?}"
    );
    assert!(carried > 0, "no guidance was carried over");
}

#[test]
fn a_classification_written_over_a_used_one_is_a_fresh_one() {
    let events = stream();
    for compiled in gate_specs::ALL {
        let spec = compiled.ir();
        let plain = Classifier::with_table(spec, compiled.machine.commands());
        let reusing = Classifier::with_table(spec, compiled.machine.commands());
        let mut reused = Classification::default();
        for e in &events {
            reusing.classify_into(e, &mut reused);
            assert_eq!(reused, plain.classify(e), "spec `{}`: {e:?}", compiled.name);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Lines one after another into one vector, the longer paths after shorter ones and
    /// back.
    #[test]
    fn paths_into_a_used_vector_are_the_paths(
        lines in proptest::collection::vec(line_strategy(), 1..6),
        extra in proptest::collection::vec("[a-z./]{1,12}", 0..20),
    ) {
        let mut used: Vec<String> = extra;
        for line in &lines {
            let parsed = shell::parse(line);
            shell::paths_into(&parsed, &mut used);
            prop_assert_eq!(&used, &shell::paths(&parsed), "line {:?}", line);
        }
    }

    /// Lines parsed one after another in one room, each kept after it is compared.
    #[test]
    fn a_parse_in_the_room_of_earlier_ones_is_a_fresh_parse(
        lines in proptest::collection::vec(line_strategy(), 1..8),
    ) {
        let mut room = shell::ParseRoom::default();
        for line in &lines {
            let parsed = shell::parse_in(line, &mut room);
            prop_assert_eq!(&parsed, &shell::parse(line), "line {:?}", line);
            room.keep(parsed);
        }
    }
}

#[test]
fn corpus_lines_parsed_in_one_room_are_fresh_parses() {
    let mut room = shell::ParseRoom::default();
    let lines = corpus();
    for line in lines.iter().chain(lines.iter().rev()) {
        let parsed = shell::parse_in(line, &mut room);
        assert_eq!(parsed, shell::parse(line), "line {line:?}");
        room.keep(parsed);
    }
}
