//! The engine driven by the tests: one scope's state on an interpreted (or compiled) machine,
//! evaluated event by event on an injected clock, and the pre-tool events the tests send it.

use gate_runtime::engine::{Context, Engine, Outcome, ScopeState};
use gate_runtime::event::{Event, Runtime};
use gate_runtime::interp::Interpreter;
use gate_runtime::observer::Baselines;
use gate_spec::exec::Machine;
use gate_spec::ir::{ActionClass, Phase, RoleId, Spec};

/// The tests' clock at its start (November 2023), in milliseconds since the epoch.
pub const T0: i64 = 1_700_000_000_000;

/// `event` evaluated on `engine` at `now_ms` as `role`, with no learned baselines; the grants
/// it mints are `grant1`, `grant2`, … (counted anew on each call).
pub fn evaluate(
    engine: &Engine<'_>,
    state: &mut ScopeState,
    event: &Event,
    now_ms: i64,
    role: Option<RoleId>,
    approved: bool,
) -> Outcome {
    let baselines: Baselines = vec![None; engine.spec.kinds.len()];
    let mut n = 0u32;
    let mut mint = || {
        n += 1;
        format!("grant{n}")
    };
    let mut cx = Context {
        now_ms,
        role,
        approved,
        baselines: &baselines,
        grant_id: &mut mint,
    };
    engine.evaluate(state, event, &mut cx)
}

/// One scope of a spec kept for the whole test: its engine and its state.
pub struct Scope {
    pub spec: &'static Spec,
    pub engine: Engine<'static>,
    pub state: ScopeState,
}

impl Scope {
    /// A new scope of `spec` on the reference interpreter.
    pub fn new(spec: &'static Spec) -> Scope {
        let machine: &'static Interpreter<'static> = Box::leak(Box::new(Interpreter::new(spec)));
        Scope::on(spec, machine)
    }

    /// A new scope of `spec` on `machine`.
    pub fn on(spec: &'static Spec, machine: &'static dyn Machine) -> Scope {
        Scope {
            spec,
            engine: Engine::new(spec, machine),
            state: ScopeState::initial(spec, machine),
        }
    }

    /// `event` evaluated at its own time, by no role, unapproved.
    pub fn evaluate(&mut self, event: &Event) -> Outcome {
        self.evaluate_as(event, None, false)
    }

    /// `event` evaluated at its own time as `role`, approved or not.
    pub fn evaluate_as(&mut self, event: &Event, role: Option<RoleId>, approved: bool) -> Outcome {
        let now = event.timestamp_ms.expect("a test event has a time");
        evaluate(&self.engine, &mut self.state, event, now, role, approved)
    }

    /// The name of the state the scope's machine is in.
    pub fn state_name(&self) -> &str {
        self.spec.state_name(self.state.machine.state)
    }
}

/// Claude Code's pre-tool event of session `s1` in `/repo`: `tool` (of `class`) on `target`
/// at `now_ms`.
pub fn pre_tool(tool: &str, class: ActionClass, target: &str, now_ms: i64) -> Event {
    Event {
        runtime: Some(Runtime::ClaudeCode),
        phase: Some(Phase::PreTool),
        hook_event: "pre_tool".to_string(),
        timestamp_ms: Some(now_ms),
        session_id: Some("s1".to_string()),
        cwd: Some("/repo".to_string()),
        tool: Some(tool.to_string()),
        class: Some(class),
        target: Some(target.to_string()),
        ..Event::default()
    }
}

/// [`pre_tool`] of the shell running `line`.
pub fn bash(line: &str, now_ms: i64) -> Event {
    pre_tool("Bash", ActionClass::Exec, line, now_ms)
}
