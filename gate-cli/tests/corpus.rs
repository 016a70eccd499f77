//! The labelled command corpora (`tests/corpus/*.tsv`) through the default spec, one exact
//! expectation per row: every row must be answered as its label says, except a row labelled
//! `known_gap:`, which is knowingly wrong today and must still be wrong (so a fix turns up as a
//! failure that asks for the label to be dropped). Recall and the false-flag rate are printed.
//!
//! A row is `label<TAB>command`. Labels: `destructive` (asked or denied), `benign` (neither),
//! or an exact verdict, `deny`, `ask`, `steer` or `allow`; `known_gap:` before any of them
//! marks the row as a known miss. `GATE_BLESS=1` rewrites the files' `known_gap:` marks to
//! match what gate answers now, for review in the diff.

use gate_runtime::engine::{Context, Engine, ScopeState};
use gate_runtime::event::{Event, Runtime};
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{ActionClass, Phase};
use std::path::PathBuf;

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

/// What a row expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Asked or denied.
    Destructive,
    /// Neither asked nor denied.
    Benign,
    /// Exactly this verdict.
    Exactly(&'static str),
}

impl Expect {
    fn parse(label: &str) -> Option<Expect> {
        Some(match label {
            "destructive" => Expect::Destructive,
            "benign" => Expect::Benign,
            "deny" => Expect::Exactly("deny"),
            "ask" => Expect::Exactly("ask"),
            "steer" => Expect::Exactly("steer"),
            "allow" => Expect::Exactly("allow"),
            _ => return None,
        })
    }

    fn blocks(self) -> bool {
        match self {
            Expect::Destructive => true,
            Expect::Benign => false,
            Expect::Exactly(v) => matches!(v, "deny" | "ask"),
        }
    }

    fn holds(self, verdict: &Verdict) -> bool {
        match self {
            Expect::Destructive => verdict.blocks(),
            Expect::Benign => !verdict.blocks(),
            Expect::Exactly(v) => verdict_name(verdict) == v,
        }
    }
}

fn verdict_name(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Allow => "allow",
        Verdict::Steer { .. } => "steer",
        Verdict::Ask { .. } => "ask",
        Verdict::Deny { .. } => "deny",
    }
}

/// One corpus's outcome.
#[derive(Default)]
struct Figures {
    destructive: u32,
    benign: u32,
    /// Destructive rows that were not blocked, and benign rows that were (gaps included).
    misses: u32,
    flags: u32,
    /// Rows answered against their label that are not marked `known_gap:`.
    unexpected: Vec<String>,
    /// Rows marked `known_gap:` that are now answered as labelled.
    fixed: Vec<String>,
    /// Rows marked `known_gap:`.
    gaps: u32,
    /// The file with every row's `known_gap:` mark as it should be now.
    blessed: String,
}

/// Run a corpus through the default spec.
fn run(corpus: &str) -> Figures {
    let compiled = gate_specs::ALL
        .iter()
        .find(|s| s.name == "default")
        .expect("the default spec is compiled in");
    let engine = Engine::new(compiled.ir(), compiled.machine);
    let mut f = Figures::default();
    for (n, line) in corpus.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            f.blessed.push_str(line);
            f.blessed.push('\n');
            continue;
        }
        let (label, command) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("line {}: expected `label<TAB>command`", n + 1));
        let (gap, label) = match label.strip_prefix("known_gap:") {
            Some(rest) => (true, rest),
            None => (false, label),
        };
        let expect = Expect::parse(label)
            .unwrap_or_else(|| panic!("line {}: unknown label `{label}`", n + 1));
        let verdict = verdict_for(&engine, command);
        let held = expect.holds(&verdict);
        if expect.blocks() {
            f.destructive += 1;
            f.misses += u32::from(!verdict.blocks());
        } else {
            f.benign += 1;
            f.flags += u32::from(verdict.blocks());
        }
        f.gaps += u32::from(gap);
        let row = format!(
            "{}: {label} but {}: {command}",
            n + 1,
            verdict_name(&verdict)
        );
        match (gap, held) {
            (false, false) => f.unexpected.push(row),
            (true, true) => f.fixed.push(row),
            _ => {}
        }
        if !held {
            f.blessed.push_str("known_gap:");
        }
        f.blessed.push_str(label);
        f.blessed.push('\t');
        f.blessed.push_str(command);
        f.blessed.push('\n');
    }
    f
}

/// Check a corpus file row by row (or rewrite its marks under `GATE_BLESS=1`).
fn check(file: &str) -> Figures {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("the corpus is readable");
    let f = run(&text);
    let caught = f.destructive - f.misses;
    println!(
        "{file}: {} destructive, {} benign; caught {:.1}% ({caught}/{}), flagged {:.1}% ({}/{}); {} known gaps",
        f.destructive,
        f.benign,
        f64::from(caught) * 100.0 / f64::from(f.destructive.max(1)),
        f.destructive,
        f64::from(f.flags) * 100.0 / f64::from(f.benign.max(1)),
        f.flags,
        f.benign,
        f.gaps,
    );
    if std::env::var_os("GATE_BLESS").is_some() {
        std::fs::write(&path, &f.blessed).expect("the corpus is writable");
        return f;
    }
    assert!(
        f.unexpected.is_empty() && f.fixed.is_empty(),
        "{file}: rows answered against their label (fix gate, or mark `known_gap:`):\n  {}\n\
         known gaps now answered as labelled (drop their `known_gap:`):\n  {}\n\
         (GATE_BLESS=1 rewrites the marks)",
        f.unexpected.join("\n  "),
        f.fixed.join("\n  "),
    );
    f
}

#[test]
fn commands_corpus_row_by_row() {
    let f = check("commands.tsv");
    assert!(
        f.destructive >= 100 && f.benign >= 100,
        "the corpus is too small"
    );
}

/// The corpus grown by form (wrappers × effect families × path spellings).
#[test]
fn forms_corpus_row_by_row() {
    let f = check("forms.tsv");
    assert!(
        f.destructive >= 150 && f.benign >= 100,
        "the corpus is too small"
    );
}

/// Real command lines from public CI workflows, Dockerfiles, scripts and docs, the long tail
/// of real CLIs with the everyday commands of the same programs beside them.
#[test]
fn real_corpus_row_by_row() {
    let f = check("real.tsv");
    assert!(
        f.destructive >= 250 && f.benign >= 300,
        "the corpus is too small"
    );
}

/// A second corpus of real command lines (teardown, cleanup, reset, deploy and release
/// scripts), gathered apart from real.tsv.
#[test]
fn real2_corpus_row_by_row() {
    let f = check("real2.tsv");
    assert!(
        f.destructive >= 120 && f.benign >= 140,
        "the corpus is too small"
    );
}

/// A third corpus of real command lines (scripts, Makefiles, CI steps, Dockerfiles, READMEs and
/// dotfiles of public repositories), gathered after the first two and never tuned to.
#[test]
fn real3_corpus_row_by_row() {
    let f = check("real3.tsv");
    assert!(
        f.destructive >= 100 && f.benign >= 350,
        "the corpus is too small"
    );
}
