//! jwc requirements that only the store can show, driven as hooks drive them (one
//! `driver::run` per event against a real database): what closed each window (`closed_by`)
//! and what calibration learns from it (R8), when a background calibration becomes due, and
//! the one-shot grant through an approval the store chains (L8).

mod common;

use common::specs::shipped;
use common::store::persisting;
use gate_runtime::driver::{self, Options, CALIBRATE_EVERY};
use gate_runtime::engine::{Engine, ScopeState};
use gate_runtime::event::{Event, Runtime, Status};
use gate_runtime::store::{ClosedBy, Store};
use gate_runtime::verdict::Verdict;
use gate_spec::ir::{ActionClass, Phase};
use std::path::PathBuf;
use std::time::Duration;

const T0: i64 = 1_700_000_000_000;

/// One jwc session driven through a database, event by event.
struct Hooks {
    _dir: tempfile::TempDir,
    db: PathBuf,
    engine: Engine<'static>,
    now: i64,
    session: String,
}

impl Hooks {
    fn new() -> Hooks {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("gate.db");
        let c = shipped("jwc");
        Hooks {
            _dir: dir,
            db,
            engine: Engine::new(c.ir(), c.machine),
            now: T0,
            session: "s1".into(),
        }
    }

    fn run(&mut self, mut e: Event) -> driver::RunResult {
        e.runtime = Some(Runtime::ClaudeCode);
        e.hook_event = e.phase.unwrap().as_str().to_string();
        e.timestamp_ms = Some(self.now);
        e.session_id = Some(self.session.clone());
        e.cwd = Some("/repo".into());
        let r = driver::run(
            &self.engine,
            &e,
            &Options {
                busy_timeout: Duration::from_secs(5),
                ..persisting(&self.db, self.now)
            },
        );
        assert!(!r.degraded, "store fault: {:?}", r.faults);
        self.now += 1000;
        r
    }

    fn tool(&mut self, phase: Phase, tool: &str, target: &str) -> driver::RunResult {
        let class = match tool {
            "Bash" => ActionClass::Exec,
            "Read" => ActionClass::Read,
            _ => ActionClass::Write,
        };
        let e = Event {
            phase: Some(phase),
            tool: Some(tool.into()),
            class: Some(class),
            target: Some(target.into()),
            paths: if target.starts_with('/') {
                vec![target.into()]
            } else {
                vec![]
            },
            status: (phase == Phase::PostTool).then_some(Status::Success),
            ..Event::default()
        };
        self.run(e)
    }

    /// A pre-tool call and its successful result; the pre-tool answer.
    fn call(&mut self, tool: &str, target: &str) -> driver::RunResult {
        let r = self.tool(Phase::PreTool, tool, target);
        self.tool(Phase::PostTool, tool, target);
        r
    }

    fn lifecycle(&mut self, phase: Phase) -> driver::RunResult {
        self.run(Event {
            phase: Some(phase),
            ..Event::default()
        })
    }

    /// Whether the run's audit notes include the `record:` label.
    fn recorded(&self, r: &driver::RunResult, label: &str) -> bool {
        r.outcome
            .notes
            .iter()
            .any(|n| n.detail_json(self.engine.spec)["label"] == label)
    }

    /// The stored control state of the session's main agent.
    fn state(&self) -> String {
        let stored = self.store().read_state("s1:main", "jwc").unwrap().unwrap();
        let st: ScopeState = serde_json::from_slice(&stored.blob).unwrap();
        self.engine.spec.state_name(st.machine.state).to_string()
    }

    /// Evidence after the re-arm floor: the window is open again.
    fn reopen(&mut self) {
        self.now += 30_000;
        self.call("Edit", "/repo/src/again.rs");
        self.tool(Phase::PostTool, "Bash", "cargo test");
        // Evidence inside the re-arm floor parks in `assessed`: an action past the floor arms.
        for i in 0..3 {
            if self.state() != "assessed" {
                break;
            }
            self.call("Edit", &format!("/repo/src/again{i}.rs"));
        }
        assert_eq!(self.state(), "open");
    }

    fn store(&self) -> Store {
        Store::open(&self.db).unwrap()
    }

    fn closed_by(&self) -> Vec<ClosedBy> {
        let windows = self.store().windows(None, None, false).unwrap();
        windows.iter().map(|w| w.closed_by).collect()
    }

    /// Opens a window with an edit, then shifts to reading until the work-shift boundary
    /// closes it: one window closed by a real boundary.
    fn boundary_window(&mut self, edits: usize) {
        for i in 0..edits {
            self.call("Edit", &format!("/repo/src/e{i}.rs"));
        }
        for i in 0..3 {
            self.call("Read", &format!("/repo/src/r{i}.rs"));
        }
        // Evidence re-arms after the boundary's steer.
        self.tool(Phase::PostTool, "Bash", "cargo test");
        self.now += 30_000;
    }
}

/// R8: every close reason is stored as what it is, and calibration learns only from the
/// windows a real boundary closed: not from the one `over_budget` (the backstop in signal
/// form) closed after 2,800 s, nor from those a stop or a new session ended.
#[test]
fn jwc_r8_backstop_windows_excluded() {
    let mut h = Hooks::new();
    h.boundary_window(3);
    assert_eq!(h.closed_by(), [ClosedBy::Boundary]);
    // over_budget: a window left open for 2,800 s.
    h.call("Edit", "/repo/src/slow.rs");
    h.now += 2_800_000;
    h.call("Edit", "/repo/src/late.rs");
    let closed = h.closed_by();
    assert_eq!(closed.last(), Some(&ClosedBy::Backstop), "{closed:?}");
    // The turn ends with a window open, then a new session starts on one.
    h.reopen();
    h.lifecycle(Phase::Stop);
    assert_eq!(h.closed_by().last(), Some(&ClosedBy::Stop));
    h.reopen();
    h.lifecycle(Phase::SessionStart);
    assert_eq!(h.closed_by().last(), Some(&ClosedBy::SessionEnd));
    h.reopen();
    h.boundary_window(5);

    let windows = h.store().windows(None, None, false).unwrap();
    let boundary: Vec<_> = windows
        .iter()
        .filter(|w| w.closed_by == ClosedBy::Boundary)
        .collect();
    assert_eq!(boundary.len(), 2, "{windows:?}");
    assert!(windows
        .iter()
        .any(|w| w.closed_by == ClosedBy::Backstop && w.secs >= 2_800));
    let longest_boundary = boundary.iter().map(|w| w.secs).max().unwrap();
    assert!(longest_boundary < 100, "{boundary:?}");

    let learned = h.store().calibrate(1, 100, h.now).unwrap();
    let edit = learned
        .iter()
        .find(|b| b.kind == "edit")
        .expect("edit learned");
    assert_eq!(edit.repo, "/repo");
    assert_eq!(edit.samples, 2, "only the boundary windows: {learned:?}");
    assert_eq!(edit.secs, longest_boundary);
    assert!(learned.iter().all(|b| b.secs < 2_800), "{learned:?}");
}

/// R8: a calibration becomes due by itself once `CALIBRATE_EVERY` windows closed by a real
/// boundary were stored since the last one (windows the backstop closed do not count), and
/// the hook says so on the run that stored the last of them; calibrating resets the count.
#[test]
fn jwc_r8_calibration_due_after_enough_boundary_windows() {
    let mut h = Hooks::new();
    // Backstop-closed windows never make it due.
    for i in 0..CALIBRATE_EVERY + 2 {
        h.call("Edit", &format!("/repo/src/slow{i}.rs"));
        h.now += 2_800_000;
    }
    assert!(!h.store().calibration_due(CALIBRATE_EVERY).unwrap());
    let mut due_at = None;
    for i in 0..CALIBRATE_EVERY {
        for e in 0..3 {
            h.call("Edit", &format!("/repo/src/w{i}e{e}.rs"));
        }
        let mut any_due = false;
        for r in 0..3 {
            let res = h.tool(Phase::PreTool, "Read", &format!("/repo/src/w{i}r{r}.rs"));
            any_due |= res.calibration_due.is_some();
            let res = h.tool(Phase::PostTool, "Read", &format!("/repo/src/w{i}r{r}.rs"));
            any_due |= res.calibration_due.is_some();
        }
        h.tool(Phase::PostTool, "Bash", "cargo test");
        if any_due {
            due_at.get_or_insert(i);
        }
        h.now += 30_000;
    }
    let boundary = h
        .closed_by()
        .iter()
        .filter(|c| **c == ClosedBy::Boundary)
        .count();
    assert_eq!(boundary, CALIBRATE_EVERY);
    assert_eq!(
        due_at,
        Some(CALIBRATE_EVERY - 1),
        "due with the last window"
    );
    assert!(h.store().calibration_due(CALIBRATE_EVERY).unwrap());
    h.store().calibrate(5, 90, h.now).unwrap();
    assert!(!h.store().calibration_due(CALIBRATE_EVERY).unwrap());
}

/// L8: the one manual act, through the store. A protected action asks; approving the grant
/// (a chained approval row) lets exactly that action run once; the same action then asks
/// again, and a grant set by hand in the table approves nothing.
#[test]
fn jwc_l8_grant_is_one_shot() {
    let mut h = Hooks::new();
    h.call("Edit", "/repo/src/a.rs");
    let ask = |r: &driver::RunResult| match &r.decision.verdict {
        Verdict::Ask { grant_id, .. } => grant_id.clone(),
        v => panic!("expected an ask, got {v:?}"),
    };
    let id = ask(&h.tool(Phase::PreTool, "Bash", "npm publish"));
    h.store().approve_grant(&id, h.now).unwrap();
    let r = h.tool(Phase::PreTool, "Bash", "npm publish");
    assert!(!r.decision.verdict.blocks(), "{:?}", r.decision);
    assert!(h.recorded(&r, "grant_used"), "{:?}", r.outcome.notes);
    // Spent: the same action asks again.
    let again = ask(&h.tool(Phase::PreTool, "Bash", "npm publish"));
    assert_ne!(again, id);
    // Approved by hand in the table, without the chained row: still asks.
    let conn = rusqlite::Connection::open(&h.db).unwrap();
    conn.execute(
        "UPDATE grants SET approved_at = ?2 WHERE id = ?1",
        rusqlite::params![again, h.now],
    )
    .unwrap();
    drop(conn);
    ask(&h.tool(Phase::PreTool, "Bash", "npm publish"));
}
