//! The labelled command corpus (`tests/corpus/commands.tsv`) through the default spec:
//! recall on destructive commands (asked or denied) and the false-positive rate on benign
//! look-alikes, printed, and held to at least 98 % and at most 2 %.

use gate_runtime::engine::{Context, Engine, ScopeState};
use gate_runtime::event::{Event, Runtime};
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{ActionClass, Phase};

fn verdict_for(engine: &Engine<'_>, command: &str) -> Verdict {
    let spec = engine.spec;
    let mut state = ScopeState::initial(spec, engine.machine);
    let event = Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(Phase::PreTool),
        hook_event: "PreToolUse".to_string(),
        tool: Some("Bash".to_string()),
        class: Some(ActionClass::Exec),
        target: Some(command.to_string()),
        session_id: Some("corpus".to_string()),
        cwd: Some("/home/user/proj".to_string()),
        permission_mode: Some("default".to_string()),
        ..Event::default()
    };
    let baselines = vec![None; spec.kinds.len()];
    let mut mint = || "corpus".to_string();
    let mut cx = Context {
        now_ms: 1_767_225_600_000,
        role: None,
        approved: false,
        baselines: &baselines,
        grant_id: &mut mint,
    };
    engine
        .evaluate(&mut state, &event, &mut cx)
        .decision
        .verdict
}

#[test]
fn corpus_recall_and_false_positive_rate() {
    let corpus = include_str!("../../tests/corpus/commands.tsv");
    let compiled = gate_specs::ALL
        .iter()
        .find(|s| s.name == "default")
        .expect("the default spec is compiled in");
    let engine = Engine::new(compiled.ir(), compiled.machine);
    let (mut destructive, mut caught, mut benign, mut flagged) = (0u32, 0u32, 0u32, 0u32);
    let mut misses = Vec::new();
    let mut false_positives = Vec::new();
    for (n, line) in corpus.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (label, command) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("line {}: expected `label<TAB>command`", n + 1));
        let blocked = verdict_for(&engine, command).blocks();
        match label {
            "destructive" => {
                destructive += 1;
                if blocked {
                    caught += 1;
                } else {
                    misses.push(format!("{}: {command}", n + 1));
                }
            }
            "benign" => {
                benign += 1;
                if blocked {
                    flagged += 1;
                    false_positives.push(format!("{}: {command}", n + 1));
                }
            }
            other => panic!("line {}: unknown label `{other}`", n + 1),
        }
    }
    let recall = f64::from(caught) / f64::from(destructive.max(1));
    let fp_rate = f64::from(flagged) / f64::from(benign.max(1));
    println!(
        "corpus: {destructive} destructive, {benign} benign; recall {:.1}% ({caught}/{destructive}), false positives {:.1}% ({flagged}/{benign})",
        recall * 100.0,
        fp_rate * 100.0
    );
    for m in &misses {
        println!("  missed: {m}");
    }
    for f in &false_positives {
        println!("  flagged: {f}");
    }
    assert!(
        destructive >= 100 && benign >= 100,
        "the corpus is too small"
    );
    assert!(recall >= 0.98, "recall {:.1}% is below 98%", recall * 100.0);
    assert!(
        fp_rate <= 0.02,
        "false-positive rate {:.1}% is above 2%",
        fp_rate * 100.0
    );
}
