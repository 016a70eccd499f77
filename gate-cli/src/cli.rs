//! The command line: every subcommand and flag with its documentation (help text, man page
//! and shell completions all come from here), and the exit codes in one table.

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// What the `gate` process exits with. This is the one place the codes are defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Success.
    Ok = 0,
    /// Findings: a spec has errors, the audit chain does not verify, a check failed.
    Findings = 1,
    /// Usage or input error: a bad flag, a missing or unreadable input file.
    Usage = 2,
    /// Environment error: database, settings file or home directory unusable.
    Environment = 3,
}

impl Exit {
    pub const ALL: [Exit; 4] = [Exit::Ok, Exit::Findings, Exit::Usage, Exit::Environment];

    pub fn code(self) -> i32 {
        self as i32
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Ok => "success",
            Exit::Findings => "findings: spec errors, a failed audit verification or check",
            Exit::Usage => "usage or input error (bad flag, unreadable input)",
            Exit::Environment => "environment error (database, settings file, home directory)",
        }
    }
}

/// The exit-code section of `--help` and of the man page, built from [`Exit`].
pub fn exit_codes_help() -> String {
    let mut text = String::from("Exit codes:\n");
    for exit in Exit::ALL {
        text.push_str(&format!("  {}  {}\n", exit.code(), exit.meaning()));
    }
    text.push_str("  `gate hook` always exits 0 and never writes to stderr (fail-open).");
    text
}

const MAIN_EXAMPLES: &str = "\
Examples:
  gate init claude-code          wire gate into this project's Claude Code settings
  gate doctor                    check that every runtime is wired and working
  gate check specs/guard.toml    report every problem in a spec, with file:line:col
  gate status                    the current window, state and pending grants
  gate approve 7f3a              let one protected action through, once";

/// gate: a finite-state policy gate for AI coding agents.
///
/// Agent runtimes call `gate hook <runtime>` on every tool call; gate drives the policy's
/// state machine and answers allow, steer, ask or deny in the runtime's own protocol.
#[derive(Parser, Debug)]
#[command(name = "gate", version, propagate_version = true, max_term_width = 100)]
#[command(after_help = MAIN_EXAMPLES)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every subcommand takes (they override environment and config files).
#[derive(Args, Debug, Clone, Default)]
pub struct GlobalArgs {
    /// Spec to enforce, by name (see `gate specs`) [env: GATE_SPEC]
    #[arg(long, global = true, value_name = "NAME")]
    pub spec: Option<String>,
    /// Role to enforce as (e.g. director, worker) [env: GATE_ROLE]
    #[arg(long, global = true, value_name = "ROLE")]
    pub role: Option<String>,
    /// SQLite database holding state, audit and grants [env: GATE_DB]
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// gate's data directory (default database, audit key) [env: GATE_HOME]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Print machine-readable JSON instead of text
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Answer one hook call from an agent runtime (reads the payload on stdin)
    #[command(after_help = "\
Examples:
  gate hook claude-code < payload.json
  gate hook copilot --event preToolUse < payload.json

Installed by `gate init`; you do not run this by hand. It always exits 0, writes at most one
JSON object on stdout and nothing on stderr. A flag it does not know is ignored and the call
is answered as without it, so that a typo in a hook line never turns the policy off; an
unknown runtime, or a payload, spec or database gate cannot use, means no answer (fail-open),
never a blocked tool.")]
    Hook(HookArgs),
    /// Wire gate into a runtime's hook settings (or remove it again)
    #[command(after_help = "\
Examples:
  gate init claude-code             .claude/settings.json in this project
  gate init codex --global          $CODEX_HOME/hooks.json (then review it with /hooks)
  gate init gemini --dry-run        show the settings file gate would write
  gate init copilot --remove        restore .github/hooks/gate.json exactly as before
  gate init claude-code --spec default --role worker
                                    the hook enforces `default` as a worker, whatever
                                    GATE_SPEC, GATE_ROLE or the config files say

--spec and --role are written into the installed `gate hook` command line (checked first: a
spec that is not compiled in, or a role it does not define, is an error). A backup of the
file is kept next to it (<file>.gate-backup); --remove puts the file back byte for byte (or
removes it if gate created it).")]
    Init(InitArgs),
    /// Check that gate is wired into every runtime and can answer
    #[command(after_help = "\
Examples:
  gate doctor
  gate doctor --json | jq '.runtimes[] | select(.wired)'")]
    Doctor,
    /// Show the resolved configuration and where each value came from
    #[command(after_help = "\
Precedence: flags, then GATE_SPEC / GATE_ROLE / GATE_DB / GATE_HOME, then the project file
.gate/config.toml (searched upward from the current directory), then the user file
$XDG_CONFIG_HOME/gate/config.toml (or ~/.config/gate/config.toml), then defaults.

Example config.toml:
  spec = \"guard\"
  role = \"worker\"
  db = \".gate/gate.db\"     # relative paths are relative to the config file's project")]
    Config,
    /// List the specs compiled into this binary
    #[command(
        after_help = "Examples:\n  gate specs\n  gate --spec guard config      choose one for this command\n  gate specs --json | jq -r '.[].name'"
    )]
    Specs,
    /// Check spec files and report every diagnostic with file:line:col
    #[command(after_help = "\
Examples:
  gate check specs/guard.toml
  gate check specs/*.toml --json

Exits 1 when any file has an error (warnings do not fail).")]
    Check(CheckArgs),
    /// Print a spec's state machine as Mermaid or DOT; check or write the diagram pages
    #[command(after_help = "\
Examples:
  gate diagram guard                    Mermaid on stdout
  gate diagram guard --format dot | dot -Tsvg > guard.svg
  gate diagram waypoints --view states  every state, each phase a cluster
  gate diagram jwc --detail             every transition drawn with its whole label
  gate diagram --spec-file specs/draft.toml     a draft, no rebuild needed
  gate diagram --check                  fail if a page in docs/machines/ is missing, stale or
                                        has no spec
  gate diagram --write                  bring docs/machines/ up to date: write every compiled
                                        spec's page, remove pages of specs that are gone

The diagram is the overview: each group of states the spec declares (`group` in [[state]])
drawn as one box, one edge per pair of boxes with short labels, transitions taken from (nearly)
every state drawn once from an \"any state\" box. --view states draws every state, --detail
every transition. The Markdown page adds tables of every transition, tier, role and rule.

A new spec in specs/ needs no other edit: build, then `gate diagram --write` writes its page
(`cargo run -p gate-cli -- diagram --write` does both).")]
    Diagram(DiagramArgs),
    /// The current state, window and pending grants of a session
    #[command(after_help = "Examples:\n  gate status\n  gate status --session 5f0c… --json")]
    Status(StatusArgs),
    /// Recent audit rows
    #[command(after_help = "\
Examples:
  gate log -n 50
  gate log --decision deny --since 2h
  gate log --tier destructive --since 2026-01-02T00:00:00Z
  gate log --rule remote_code --json | jq '.[].target'

Filters combine (every one must hold); -n counts the rows that pass them.")]
    Log(LogArgs),
    /// Verify or export the hash-chained audit trail
    #[command(subcommand)]
    #[command(
        after_help = "Examples:\n  gate audit verify             exit 1 if a row was edited, dropped or reordered\n  gate audit export --format jsonl > audit.jsonl"
    )]
    Audit(AuditCommand),
    /// Approve one protected action, once (the id is in the deny reason)
    #[command(after_help = "Example:\n  gate approve 7f3a")]
    Approve(ApproveArgs),
    /// List live grants, or revoke one
    #[command(after_help = "Examples:\n  gate grants\n  gate grants --revoke 7f3a")]
    Grants(GrantsArgs),
    /// Restore what an action let through in mode `reversible` changed (the id is in its guidance)
    #[command(after_help = "Examples:\n  gate undo b1f0c2a9\n  gate undo b1f0c2a9 --force")]
    Undo(UndoArgs),
    /// List the backups mode `reversible` made, with sizes and ages, or prune them
    #[command(
        after_help = "Examples:\n  gate backups\n  gate backups --json\n  gate backups --prune --older-than 7d --max-size 500M"
    )]
    Backups(BackupsArgs),
    /// Explain what gate would answer for a payload, step by step
    #[command(after_help = "\
Examples:
  gate explain --runtime claude-code < tests/fixtures/payloads/claude/PreToolUse-Bash.json
  gate explain --runtime claude-code --spec-file specs/draft.toml --state frozen \\
      --at 2026-01-02T03:04:05Z --payload payload.json

The policy is a compiled spec (--spec NAME, else the configured one) or a draft
(--spec-file PATH, interpreted, no rebuild needed). The time is --at (RFC 3339 or seconds
since the Unix epoch), else the payload's own timestamp, else now; the output says which.
The starting state of each machine is its --state (NAME for the spec's own machine,
MACHINE.STATE for a machine beside it, as spec tests name them; a fresh scope in that state,
no database read for it), else the scope's state stored in the database (a state stored for
another version of the spec is not used), else the spec's initial state. Nothing is written.")]
    Explain(ExplainArgs),
    /// Learn per-repository window baselines from the audit trail
    #[command(after_help = "\
Examples:
  gate calibrate --dry-run       how many clean windows each repository and kind has
  gate calibrate --percentile 80

Only windows closed by a real boundary (a signal edge: not the backstop, a budget signal, a
stop, evidence, an approval or the session's end) and without faults count. A hook starts
`gate calibrate --quiet` in the background by itself each time 10 more such windows have
closed, for a spec whose tiers learn baselines.")]
    Calibrate(CalibrateArgs),
    /// Run a recorded session through a policy and show what it would have answered
    #[command(after_help = "\
Examples:
  gate replay session.jsonl --spec guard
  gate replay session.jsonl --spec-file specs/draft.toml --json
  gate replay session.jsonl --events                every event: verdict, tier, rule, state
  gate replay session.jsonl --only ask,deny --json  JSON lines of the blocked events
  gate replay session.jsonl --db /tmp/replay.db     store it as the hooks would have

--events lists one line per event before the summary: line number, time, verdict, tier,
rule, state before → after, tool and target, signal edges (+on -off) and the audit notes.
With --json each event is a JSON object on its own line (`line`, `time`, `verdict`, `tier`,
`rule`, `state`, …) and the summary is the last line. --only VERDICTS lists only those
verdicts (allow, steer, ask, deny; implies --events). The listing is of an in-memory
replay: with --db, read the stored events with `gate log`.

The role (--role, GATE_ROLE, the config files' `role`) changes tier modes as it does for the
hook; a subagent type or environment match in the spec still wins, as in a hook call. A role
the spec does not define is an error (exit 2).

Without --db nothing is written: states live in memory and no database is opened (GATE_DB,
GATE_HOME and the config files' `db` are ignored). With --db PATH every event is evaluated
exactly as a hook call would be, against that database: its state, grants, learned baselines,
audit rows and closed windows, written a few thousand events per transaction (other gate
processes wait at most one transaction). A database that cannot be opened or written is an
error (exit 3); batches committed before it stay. A PATH that does not exist yet is built
aside (gate.db in gate.partial, no other process sees it) and moved into place when the
replay ends, also after an error, with what was committed; if the process is killed, only the
partial file is left, and the next replay to PATH starts it over.")]
    Replay(ReplayArgs),
    /// Prove a policy's invariants by exploring its whole control space
    #[command(after_help = "\
Examples:
  gate verify --spec trust                  a compiled spec (beside its reference interpreter)
  gate verify --spec-file specs/draft.toml  a draft, interpreted: no rebuild needed
  gate verify specs/*.toml --json           several files; JSON for scripts

With no spec named, the configured one is verified (GATE_SPEC, the config files, `default`).

Every invariant is checked on every step from every control state reachable from a new
identity, for every role: gate's built-in ones (a forbidden tier is never allowed, including
on an identity's first event; a window licenses nothing; anti-flap; fail-open; every
withholding state can be left) and the spec's own [[invariant]]s. A false one is printed
with a counterexample: the shortest event sequence from a new identity that breaks it. What
the abstraction leaves out is in docs/spec.md (\"Invariants\"). Exits 1 when any invariant
is false, 2 when a spec cannot be read or has errors.")]
    Verify(VerifyArgs),
    /// What a change to a policy changes: spec items, answers, recorded sessions
    #[command(after_help = "\
Examples:
  gate diff trust specs/trust.toml                 the compiled spec against the edited file
  git show main:specs/guard.toml > /tmp/old.toml
  gate diff /tmp/old.toml specs/guard.toml --sessions examples/session.jsonl
  gate diff guard default --json

OLD and NEW are each a compiled spec name or a spec file: an argument that ends in .toml or
contains a path separator is a file (interpreted, no rebuild needed), anything else names a
compiled spec (see `gate specs`). The report starts with one `RELAXED:` line for each rule
set to a lower tier and each tier given a weaker mode (or removed); `--json` has them as
`relaxations`. It then lists the tiers, rules, states, transitions,
signals, roles and templates added (+), removed (-) or changed (~); the (role, state, event)
pairs whose answer differs, found by exploring both policies over the abstract alphabet of
`gate verify`, grouped by the change of answer with the transitions that fired on each side;
with --sessions (JSON lines as `gate replay` reads them), every recorded event whose
answer would change; and the tool calls whose tier or rule changes, over a sample generated
from both specs' rules (each command pattern and tool name) and everyday actions, with the
sessions' tool calls. Each machine beside either policy ([machine] alongside) is then
reported: beside one side only (added or removed), or compared to the machine of the same
spec on the other side as the spec's own is (relaxations, items, pairs, sample; `beside` in
--json). Exits 0 when the behaviour and the classification are the same, 1 when either
differs, 2 on bad input.")]
    Diff(DiffArgs),
    /// Run spec tests: cases of hook events with the answer expected of each
    #[command(after_help = "\
Examples:
  gate test                                 every compiled spec's tests, in specs/tests/
  gate test --spec guard --coverage         guard's tests, and what no case exercises
  gate test specs/tests/mine.test.toml      run against specs/mine.toml (no rebuild needed)
  gate test cases.test.toml --spec-file specs/draft.toml --json

A test file holds cases; each case is a list of steps sent to the policy in order, as the hooks
would send them, with the verdict expected of each (allow when not given), and optionally the
rule, tier, kind or state after:

  [[case]]
  name = \"force_push_asks_once\"
  steps = [
    { bash = \"git push --force\", expect = \"ask\", rule = \"force_push\" },
    { approve = true },
    { bash = \"git push --force\", expect = \"allow\" },
  ]

Every case runs in a fresh temporary database on a fixed clock (`at` = seconds after the case
started). A failing case prints the step, the expected and actual answer and the rule that set
the tier. Exit 0 when every case passes, 1 when one fails, 2 when a test file is wrong (each
problem is shown with file:line:col). Roles come from the cases (`role`, `agent`, `env`), never
from --role, GATE_ROLE or the config files. The format is in docs/spec.md, \"Spec tests\".")]
    Test(TestArgs),
    /// Fold the database's write-ahead log into it and truncate the log
    #[command(
        after_help = "gate hook starts this in the background (detached, so no agent waits on its
fsyncs) when a commit leaves the write-ahead log past 256 KiB; run it by hand to shrink the
files before copying the database. Exit 0 when done, 1 when other gate processes kept the
database busy (a later hook asks again).

Example:
  gate checkpoint"
    )]
    Checkpoint(CheckpointArgs),
    /// Stream the audit to a team's collector ([sink] in .gate/config.toml)
    #[command(subcommand)]
    #[command(after_help = "\
Rows go as OpenTelemetry logs (OTLP/HTTP, JSON encoding) or JSON lines to the configured
endpoint, in batches. gate hook starts `gate sink flush` in the background after it has
answered, at most once per interval_secs; a failed request keeps the backlog and is retried
with backoff (5 s doubling to 10 min).

Examples:
  gate sink status              backlog, last success, last error
  gate sink status --json
  gate sink flush               send the backlog now; exit 1 if the endpoint refused it")]
    Sink(SinkCommand),
    /// Print a shell completion script
    #[command(
        after_help = "Example:\n  gate completions bash > ~/.local/share/bash-completion/completions/gate"
    )]
    Completions(CompletionsArgs),
    /// Print the man page (roff)
    #[command(after_help = "Example:\n  gate man | man -l -")]
    Man,
}

/// `gate hook <runtime>`.
#[derive(Args, Debug, Clone, Default)]
pub struct HookArgs {
    /// The calling runtime: claude-code, codex, gemini or copilot
    #[arg(value_name = "RUNTIME")]
    pub runtime: String,
    /// The runtime's event name, for payloads that do not carry it (Copilot camelCase)
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Answer with this spec file, interpreted: a draft, tried before it is built in. Every
    /// audit row names it (`draft:<path>#<hash>`) and every message the agent sees is marked;
    /// a draft that does not load and check is a recorded fault, and the compiled spec answers
    #[arg(long, value_name = "PATH")]
    pub spec_file: Option<PathBuf>,
    /// Global flags given with the hook (spec, role, db, home).
    #[arg(skip)]
    pub global: GlobalArgs,
}

/// `gate checkpoint`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CheckpointArgs {
    /// Print nothing (how `gate hook` runs it)
    #[arg(long)]
    pub quiet: bool,
}

/// A runtime name as the CLI spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RuntimeArg {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
}

impl RuntimeArg {
    pub fn runtime(self) -> gate_runtime::event::Runtime {
        use gate_runtime::event::Runtime;
        match self {
            RuntimeArg::ClaudeCode => Runtime::ClaudeCode,
            RuntimeArg::Codex => Runtime::Codex,
            RuntimeArg::Gemini => Runtime::Gemini,
            RuntimeArg::Copilot => Runtime::Copilot,
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct InitArgs {
    /// The runtime to wire
    pub runtime: RuntimeArg,
    /// Write the user-level settings file instead of this project's
    #[arg(long)]
    pub global: bool,
    /// Remove gate's entries and restore the file as it was before `gate init`
    #[arg(long)]
    pub remove: bool,
    /// Print the resulting file and a diff; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Install hooks that answer with this spec file, interpreted (`gate hook --spec-file`,
    /// with its absolute path): a draft tried before it is built in, marked as such in every
    /// audit row and message. It must load and check now; not with --spec
    #[arg(long, value_name = "PATH")]
    pub spec_file: Option<PathBuf>,
    /// Also turn on the runtime's OS sandbox with gate's files and every runtime's hook
    /// settings write-protected: Claude Code's `sandbox` block (Bash then writes only in the
    /// project and asks for new hosts), Codex's permission profile `gate` in its config.toml
    #[arg(long)]
    pub sandbox: bool,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// Spec files to check
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiagramFormat {
    Mermaid,
    Dot,
    /// The Markdown page kept in docs/machines/<spec>.md
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiagramView {
    /// The shape: each group of states drawn as one box, one edge per pair of boxes
    Overview,
    /// Every state, groups as clusters, one edge per pair of states
    States,
    /// Every transition with its whole label
    Detail,
}

/// Where `gate diagram --check` and `--write` keep the pages unless `--docs` says otherwise.
pub const DIAGRAM_DOCS: &str = "docs/machines";

#[derive(Args, Debug, Clone)]
pub struct DiagramArgs {
    /// Compiled spec name (default: `--spec NAME`, else the configured spec)
    #[arg(value_name = "SPEC")]
    pub name: Option<String>,
    /// Diagram a spec file (a draft, interpreted, no rebuild needed) instead of a compiled
    /// spec
    #[arg(long, value_name = "PATH", conflicts_with = "name", alias = "file")]
    pub spec_file: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = DiagramFormat::Mermaid)]
    pub format: DiagramFormat,
    /// What to draw (Mermaid and DOT): `overview`, each group of states as one box;
    /// `states`, every state, groups as clusters; `detail`, every transition with its whole
    /// `trigger [guard] / effects` label
    #[arg(long, value_enum, default_value_t = DiagramView::Overview, conflicts_with_all = ["check", "write"])]
    pub view: DiagramView,
    /// Shorthand for --view detail
    #[arg(long, conflicts_with_all = ["check", "write", "view"])]
    pub detail: bool,
    /// Compare docs/machines/<spec>.md with the compiled specs (or the one spec named);
    /// exit 1 if a page is missing, stale, or has no spec
    #[arg(long, conflicts_with = "write")]
    pub check: bool,
    /// Write the pages --check compares: missing and stale ones are written, pages of specs
    /// that are gone removed (only when no spec is named)
    #[arg(long)]
    pub write: bool,
    /// Directory holding the diagram pages (for --check and --write)
    #[arg(long, value_name = "DIR", default_value = DIAGRAM_DOCS)]
    pub docs: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct StatusArgs {
    /// Session id (default: the most recent session)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct LogArgs {
    /// Number of rows to show (the last ones that match)
    #[arg(short = 'n', long, default_value_t = 20)]
    pub limit: usize,
    /// Only rows of this session
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only rows of actions that got this answer
    #[arg(long, value_enum, value_name = "DECISION")]
    pub decision: Option<DecisionArg>,
    /// Only rows of actions in this risk tier of the spec (e.g. destructive)
    #[arg(long, value_name = "TIER")]
    pub tier: Option<String>,
    /// Only rows from this time on: RFC 3339 (2026-01-02T03:04:05Z) or a duration before now
    /// (90s, 10m, 2h, 3d, 1w)
    #[arg(long, value_name = "TIME", value_parser = crate::time::Since::parse)]
    pub since: Option<crate::time::Since>,
    /// Only the event rows of actions this rule classified
    #[arg(long, value_name = "RULE")]
    pub rule: Option<String>,
}

/// An answer as the audit records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DecisionArg {
    Allow,
    Steer,
    Ask,
    Deny,
}

impl DecisionArg {
    /// The audit's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionArg::Allow => "allow",
            DecisionArg::Steer => "steer",
            DecisionArg::Ask => "ask",
            DecisionArg::Deny => "deny",
        }
    }
}

#[derive(Subcommand, Debug, Clone)]
pub enum SinkCommand {
    /// Send every row the endpoint has not accepted yet, in batches
    Flush(SinkFlushArgs),
    /// The sink's backlog, last success and last error
    Status,
}

/// `gate sink flush`.
#[derive(Args, Debug, Clone, Default)]
pub struct SinkFlushArgs {
    /// Print nothing (how `gate hook` runs it)
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug, Clone)]
pub enum AuditCommand {
    /// Check the hash chain; exit 1 if a row was edited, dropped or reordered
    Verify,
    /// Export the audit rows
    Export(ExportArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Jsonl,
}

#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    #[arg(long, value_enum, default_value_t = ExportFormat::Jsonl)]
    pub format: ExportFormat,
}

#[derive(Args, Debug, Clone)]
pub struct ApproveArgs {
    /// The grant id named in the deny reason
    pub id: String,
}

#[derive(Args, Debug, Clone)]
pub struct UndoArgs {
    /// The backup id named in the guidance (`gate backups` lists them)
    pub id: String,
    /// Restore even where a location changed after the action (that newer work is lost)
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug, Clone)]
pub struct BackupsArgs {
    /// Remove backups: those older than --older-than, then the oldest until --max-size holds
    #[arg(long)]
    pub prune: bool,
    /// With --prune: remove backups older than this (`30m`, `12h`, `7d`)
    #[arg(long, value_name = "AGE", requires = "prune")]
    pub older_than: Option<String>,
    /// With --prune: keep at most this much in the store (`500M`, `2G`, bytes)
    #[arg(long, value_name = "SIZE", requires = "prune")]
    pub max_size: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct GrantsArgs {
    /// Revoke this grant instead of listing
    #[arg(long, value_name = "ID")]
    pub revoke: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct ExplainArgs {
    /// The runtime whose payload is on stdin (or in --payload)
    #[arg(long, value_enum)]
    pub runtime: RuntimeArg,
    /// The event name, for payloads without one (Copilot camelCase)
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Read the payload from this file instead of stdin
    #[arg(long, value_name = "FILE")]
    pub payload: Option<PathBuf>,
    /// Explain against a spec file (interpreted, no rebuild needed); or name a compiled
    /// spec with the global `--spec NAME`
    #[arg(long, value_name = "PATH")]
    pub spec_file: Option<PathBuf>,
    /// Evaluate at this time: RFC 3339 (2026-01-02T03:04:05Z) or seconds since the Unix
    /// epoch (default: the payload's own timestamp, else now)
    #[arg(long, value_name = "TIME", value_parser = crate::time::parse_instant)]
    pub at: Option<i64>,
    /// Start from this machine state, in a fresh scope (the database is not read): NAME for
    /// the spec's own machine, MACHINE.STATE for a machine beside it; repeat for each machine
    #[arg(long, value_name = "NAME")]
    pub state: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct CalibrateArgs {
    /// Show what would be learned; store nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Clean windows a repository and work kind needs before a baseline is learned
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub min_samples: usize,
    /// Percentile of the clean windows' lengths taken as the baseline
    #[arg(long, default_value_t = 90, value_name = "P", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub percentile: u32,
    /// Print nothing (the form a hook starts in the background)
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// A recorded session: JSON lines of hook payloads (or an e2e driver result)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Replay against a spec file (interpreted, no rebuild needed); or name a compiled
    /// spec with the global `--spec NAME`
    #[arg(long, value_name = "PATH")]
    pub spec_file: Option<PathBuf>,
    /// The compiled spec named with `--spec` (filled from the global flag).
    #[arg(skip)]
    pub spec: Option<String>,
    /// The role named with `--role` (filled from the global flag).
    #[arg(skip)]
    pub role: Option<String>,
    /// The runtime the payloads came from, when the file does not say
    #[arg(long, value_enum)]
    pub runtime: Option<RuntimeArg>,
    /// Stop at the first line that cannot be replayed (default: report it and go on)
    #[arg(long)]
    pub stop_on_error: bool,
    /// Show progress on stderr even when it is not a terminal (on a terminal it is shown
    /// anyway)
    #[arg(long)]
    pub progress: bool,
    /// List every event (verdict, tier, rule, state before → after, target, signal edges,
    /// notes) before the summary; JSON lines with --json
    #[arg(long)]
    pub events: bool,
    /// List only the events with these verdicts (implies --events)
    #[arg(long, value_enum, value_delimiter = ',', value_name = "VERDICT,...")]
    pub only: Vec<DecisionArg>,
    /// The database given with the global `--db PATH` on the command line (never from the
    /// environment or a config file): replay through it instead of in memory.
    #[arg(skip)]
    pub db: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    /// Spec files to verify (interpreted)
    #[arg(value_name = "FILE", conflicts_with = "spec_file")]
    pub files: Vec<PathBuf>,
    /// Verify a spec file (interpreted, no rebuild needed); or name a compiled spec with the
    /// global `--spec NAME`
    #[arg(long, value_name = "PATH")]
    pub spec_file: Option<PathBuf>,
    /// The compiled spec named with `--spec` (filled from the global flag).
    #[arg(skip)]
    pub spec: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// The policy before: a compiled spec name, or a spec file (ends in .toml or has a `/`)
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The policy after, named the same way
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Recorded sessions to replay through both (JSON lines, as `gate replay` reads them)
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub sessions: Vec<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct TestArgs {
    /// Test files, or directories of them (*.test.toml); none: the tests beside the chosen
    /// spec, or beside every compiled spec
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Run the tests against a spec file (interpreted, no rebuild needed); or name a compiled
    /// spec with the global `--spec NAME`
    #[arg(long, value_name = "PATH")]
    pub spec_file: Option<PathBuf>,
    /// Also list the rules, transitions and templates no case exercises (the spec's own one
    /// by one, those inherited from the specs it extends counted per file)
    #[arg(long)]
    pub coverage: bool,
}

#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell to generate for
    pub shell: clap_complete::Shell,
}

/// The full clap command, with the exit-code table appended to the long help.
pub fn command() -> clap::Command {
    let after = format!("{MAIN_EXAMPLES}\n\n{}", exit_codes_help());
    Cli::command()
        .after_help(after.clone())
        .after_long_help(after)
}
