//! The labelled command corpora (`tests/corpus/*.tsv`) through the default spec: recall on
//! destructive commands (asked or denied) and the false-positive rate on benign look-alikes,
//! printed; `commands.tsv` and `forms.tsv` are held to rates, `real.tsv` is only reported.

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

/// A corpus's figures: how many of each label, and which commands went the wrong way.
struct Figures {
    destructive: u32,
    benign: u32,
    misses: Vec<String>,
    false_positives: Vec<String>,
}

impl Figures {
    fn recall(&self) -> f64 {
        f64::from(self.destructive - self.misses.len() as u32) / f64::from(self.destructive.max(1))
    }

    fn fp_rate(&self) -> f64 {
        self.false_positives.len() as f64 / f64::from(self.benign.max(1))
    }

    fn print(&self, name: &str) {
        let caught = self.destructive - self.misses.len() as u32;
        println!(
            "{name}: {} destructive, {} benign; recall {:.1}% ({caught}/{}), false positives {:.1}% ({}/{})",
            self.destructive,
            self.benign,
            self.recall() * 100.0,
            self.destructive,
            self.fp_rate() * 100.0,
            self.false_positives.len(),
            self.benign
        );
        for m in &self.misses {
            println!("  missed: {m}");
        }
        for f in &self.false_positives {
            println!("  flagged: {f}");
        }
    }
}

/// Run a `label<TAB>command` corpus through the default spec.
fn run(corpus: &str) -> Figures {
    let compiled = gate_specs::ALL
        .iter()
        .find(|s| s.name == "default")
        .expect("the default spec is compiled in");
    let engine = Engine::new(compiled.ir(), compiled.machine);
    let mut f = Figures {
        destructive: 0,
        benign: 0,
        misses: Vec::new(),
        false_positives: Vec::new(),
    };
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
                f.destructive += 1;
                if !blocked {
                    f.misses.push(format!("{}: {command}", n + 1));
                }
            }
            "benign" => {
                f.benign += 1;
                if blocked {
                    f.false_positives.push(format!("{}: {command}", n + 1));
                }
            }
            other => panic!("line {}: unknown label `{other}`", n + 1),
        }
    }
    f
}

#[test]
fn corpus_recall_and_false_positive_rate() {
    let f = run(include_str!("../../tests/corpus/commands.tsv"));
    f.print("corpus");
    assert!(
        f.destructive >= 100 && f.benign >= 100,
        "the corpus is too small"
    );
    assert!(
        f.recall() >= 0.98,
        "recall {:.1}% is below 98%",
        f.recall() * 100.0
    );
    assert!(
        f.fp_rate() <= 0.02,
        "false-positive rate {:.1}% is above 2%",
        f.fp_rate() * 100.0
    );
}

/// The corpus grown by form (wrappers × effect families × path spellings).
#[test]
fn forms_recall_and_false_positive_rate() {
    let f = run(include_str!("../../tests/corpus/forms.tsv"));
    f.print("forms");
    assert!(
        f.destructive >= 150 && f.benign >= 100,
        "the corpus is too small"
    );
    assert!(
        f.recall() >= 0.95,
        "recall {:.1}% is below 95%",
        f.recall() * 100.0
    );
    assert!(
        f.fp_rate() <= 0.02,
        "false-positive rate {:.1}% is above 2%",
        f.fp_rate() * 100.0
    );
}

/// Real command lines from public repositories (`tests/corpus/real.tsv`), one exact expectation
/// per row. Its figures are printed, not held to a rate: the rows are to become per-row
/// expectations with known gaps marked, so this test checks only that every row is read.
#[test]
fn real_world_figures() {
    let f = run(include_str!("../../tests/corpus/real.tsv"));
    f.print("real");
    assert!(
        f.destructive >= 250 && f.benign >= 300,
        "the real-world corpus is too small"
    );
}
