//! The observer: classifies each event from the spec's rules and keeps the window context
//! from which every signal's raw sample and every checkpoint's evidence are computed.
//!
//! Everything here is deterministic and bounded: the context keeps at most a fixed number of
//! scopes, targets and timestamps, so a long session cannot grow the per-call state without
//! limit. Time comes from the event (or the caller's clock); a clock that goes backwards
//! counts as no time elapsed.

use crate::effects::{self, Effect, Where};
use crate::event::{Event, Runtime, Status};
use crate::{glob, shell};
use gate_spec::commands::{CommandTable, Pattern, PatternRef};
use gate_spec::ir::{
    ActionClass, Family, KindId, Phase, RuleId, Spec, StatusFilter, Telemetry, TierId,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;

/// Bounds on the per-scope context.
const MAX_SCOPES: usize = 64;
const MAX_TARGETS: usize = 32;
const MAX_RECENT: usize = 1024;

/// Tool names whose target is a shell command.
pub fn is_shell_tool(tool: &str) -> bool {
    matches!(
        tool,
        "Bash"
            | "bash"
            | "run_shell_command"
            | "exec_command"
            | "shell"
            | "local_shell"
            | "unified_exec"
            | "write_stdin"
    )
}

/// The result of classifying one tool event.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    pub class: Option<ActionClass>,
    pub tier: TierId,
    pub kind: KindId,
    /// The rule that set the tier (the highest-tier match), if any.
    pub rule: Option<RuleId>,
    pub reason: String,
    /// Every rule that matched, in declaration order.
    pub matched: Vec<RuleId>,
    /// Paths the action touches (file tools, patch paths, shell operands and redirects).
    pub paths: Vec<String>,
    /// The shell parser stopped at a bound (the command was classified on what was parsed).
    pub truncated: bool,
    /// What the action does, and where ([`effects`](crate::effects)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Effect>,
}

/// Classifies tool events against a spec's rules.
///
/// Command patterns come parsed and indexed by program ([`CommandTable`]): a generated
/// machine carries its table as a static built at compile time, so a hook process parses no
/// pattern; an interpreted spec builds the table once here.
///
/// A classifier used for more than one event (replay, explain, tests) derives an [`Index`]
/// on its second classification: the literal needs of the rules' path globs and of the
/// `raw:` patterns, which rules accept each tool name seen (and of those, which have no
/// command patterns, so that a line visits only those and the rules its commands hit), and
/// the programs of the command table by hash. A hook process classifies
/// one event and builds nothing. The index only skips work whose answer it knows; every
/// answer is the one the plain evaluation gives (`tests/classify_cache.rs`).
#[derive(Debug)]
pub struct Classifier<'s> {
    spec: &'s Spec,
    table: Cow<'s, CommandTable>,
    index: OnceCell<Index>,
    /// A classification happened (the next one builds the index).
    used: Cell<bool>,
    /// Buffers one classification fills and the next reuses.
    scratch: RefCell<HitScratch>,
    /// Each tool event is read into effects (for the rules that match them and for gate's
    /// self-protection).
    uses_effects: bool,
    /// Home and gate's own locations, read from the environment once.
    places: OnceCell<Where>,
}

/// The per-line buffers of [`Classifier::classify`] (cleared before each use).
#[derive(Debug, Default)]
struct HitScratch {
    hits: Vec<u8>,
    facts: Vec<shell::Facts>,
    /// The bytes of each of the event's paths ([`glob::path_bytes`]), once an index exists.
    path_bytes: Vec<[u64; 4]>,
    /// The vectors of the previous line's parse.
    parse: shell::ParseRoom,
}

/// Most tool names whose rule acceptance an [`Index`] remembers.
const MAX_TOOL_NAMES: usize = 64;

/// A set of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn of(bytes: impl IntoIterator<Item = u8>) -> ByteSet {
        let mut set = ByteSet::default();
        for b in bytes {
            set.0[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        set
    }

    fn has(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    fn within(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }
}

/// A [`glob::PathNeed`] kept as a range of its glob's text, so that an [`Index`] borrows
/// nothing from the spec (a borrow in a cell would make the classifier invariant over the
/// spec's lifetime).
#[derive(Clone, Copy, Debug)]
enum NeedAt {
    Suffix(usize, usize),
    Contains(usize, usize),
    Unknown,
}

impl NeedAt {
    fn of(glob_text: &str) -> NeedAt {
        let at = |s: &str| (s.as_ptr() as usize - glob_text.as_ptr() as usize, s.len());
        match glob::PathNeed::of(glob_text) {
            glob::PathNeed::Suffix(s) => {
                let (start, len) = at(s);
                NeedAt::Suffix(start, len)
            }
            glob::PathNeed::Contains(s) => {
                let (start, len) = at(s);
                NeedAt::Contains(start, len)
            }
            glob::PathNeed::Unknown => NeedAt::Unknown,
        }
    }

    /// The need, read from the glob text it was derived from.
    fn get(self, glob_text: &str) -> glob::PathNeed<'_> {
        let text = |start: usize, len: usize| glob_text.get(start..start + len);
        match self {
            NeedAt::Suffix(start, len) => {
                text(start, len).map_or(glob::PathNeed::Unknown, glob::PathNeed::Suffix)
            }
            NeedAt::Contains(start, len) => {
                text(start, len).map_or(glob::PathNeed::Unknown, glob::PathNeed::Contains)
            }
            NeedAt::Unknown => glob::PathNeed::Unknown,
        }
    }
}

/// What a [`Classifier`] derives from its spec for repeated use.
#[derive(Debug)]
struct Index {
    /// Per rule, the need of each of its `paths` globs and the bytes a path it matches holds
    /// ([`glob::PathNeed::literal_bytes`]).
    paths: Vec<Vec<PathNeeds>>,
    /// Per rule, the same of each of its `except_paths` globs.
    except_paths: Vec<Vec<PathNeeds>>,
    /// Per entry of the table's `always` list: for a `raw:` pattern, the bytes its literal
    /// characters need (a text glob matches only a line holding every one of them).
    raw: Vec<Option<ByteSet>>,
    /// The `raw:` entries of `raw` grouped by one byte each needs (its least common literal
    /// byte), in byte order: a line lacking the byte skips the group. Every other entry of
    /// the `always` list is in the group of no byte (`None`), tried on every line.
    raw_buckets: Vec<(Option<u8>, Vec<usize>)>,
    /// Per checkpoint, per target glob (matched as a text glob against the target and as a
    /// path glob against the paths): its path need and the bytes its literals need.
    checkpoints: Vec<Vec<(NeedAt, ByteSet)>>,
    /// Tool names seen, each with the rules admitting it per (phase, class) seen.
    tools: RefCell<Vec<ToolRules>>,
    /// The table's programs as (hash of the name, index in `by_program`), sorted: a lookup
    /// compares integers and then one name, where the table's own search compares names.
    programs: Vec<(u64, u32)>,
}

/// FNV-1a of a program name (the key of [`Index::programs`]).
fn program_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in name.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Index {
    fn build(spec: &Spec, table: &CommandTable) -> Index {
        let needs = |globs: &[gate_spec::ir::Pattern]| {
            globs
                .iter()
                .map(|g| (NeedAt::of(&g.text), glob::PathNeed::literal_bytes(&g.text)))
                .collect::<Vec<_>>()
        };
        Index {
            paths: spec.rules.iter().map(|r| needs(&r.paths)).collect(),
            except_paths: spec.rules.iter().map(|r| needs(&r.except_paths)).collect(),
            raw: table
                .always()
                .iter()
                .map(|&at| match table.pattern(at) {
                    Some(Pattern::Raw(g)) => {
                        Some(ByteSet::of(g.bytes().filter(|b| !matches!(b, b'*' | b'?'))))
                    }
                    _ => None,
                })
                .collect(),
            raw_buckets: raw_buckets(table),
            checkpoints: spec
                .checkpoints
                .iter()
                .map(|c| {
                    c.targets
                        .iter()
                        .map(|g| {
                            let bytes = g.text.bytes().filter(|b| !matches!(b, b'*' | b'?'));
                            (NeedAt::of(&g.text), ByteSet::of(bytes))
                        })
                        .collect()
                })
                .collect(),
            tools: RefCell::new(Vec::new()),
            programs: {
                let mut programs: Vec<(u64, u32)> = table
                    .by_program
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (program_hash(table.str(p.program)), i as u32))
                    .collect();
                programs.sort_unstable();
                programs
            },
        }
    }

    /// [`CommandTable::for_program`] of `table` (the table this index was built from).
    fn for_program<'t>(&self, table: &'t CommandTable, program: &str) -> &'t [PatternRef] {
        let hash = program_hash(program);
        let from = self.programs.partition_point(|&(h, _)| h < hash);
        for &(h, i) in self.programs.get(from..).unwrap_or_default() {
            if h != hash {
                break;
            }
            if let Some(rec) = table.by_program.get(i as usize) {
                if table.str(rec.program) == program {
                    let start = rec.refs.start as usize;
                    let end = start + rec.refs.len as usize;
                    return table.refs.get(start..end).unwrap_or(&[]);
                }
            }
        }
        &[]
    }

    /// The rules whose phases, tools and classes admit an event of this phase, tool and
    /// class, in declaration order (remembered per tool name and (phase, class) seen).
    fn candidates<R>(
        &self,
        spec: &Spec,
        tool: &str,
        case: Case,
        then: impl FnOnce(&Candidates) -> R,
    ) -> R {
        let mut tools = self.tools.borrow_mut();
        let at = match tools.iter().position(|t| t.name == tool) {
            Some(at) => Some(at),
            None if tools.len() < MAX_TOOL_NAMES => {
                tools.push(ToolRules {
                    name: tool.to_string(),
                    cases: Vec::new(),
                });
                Some(tools.len() - 1)
            }
            None => None,
        };
        let Some(entry) = at.and_then(|at| tools.get_mut(at)) else {
            return then(&Candidates::of(spec, admitting_rules(spec, tool, case)));
        };
        let at = match entry.cases.iter().position(|(c, _)| *c == case) {
            Some(at) => at,
            None => {
                let rules = Candidates::of(spec, admitting_rules(spec, tool, case));
                entry.cases.push((case, rules));
                entry.cases.len() - 1
            }
        };
        then(&entry.cases[at].1)
    }
}

/// The rules admitting one (tool, phase, class), split for the rule loop: a rule with
/// command patterns can only match a line one of them hit, so the loop visits the rules
/// without any (`free`) and, of the others, only those the line hit (`admits` tells).
#[derive(Debug)]
struct Candidates {
    /// The admitting rules with no command patterns, in declaration order.
    free: Vec<RuleId>,
    /// Bit per rule id: the rule admits the event.
    admits: Vec<u64>,
}

impl Candidates {
    fn of(spec: &Spec, rules: Vec<RuleId>) -> Candidates {
        let mut admits = vec![0u64; spec.rules.len().div_ceil(64)];
        for &r in &rules {
            if let Some(w) = admits.get_mut(usize::from(r) / 64) {
                *w |= 1 << (r % 64);
            }
        }
        let free = rules
            .into_iter()
            .filter(|&r| {
                spec.rules
                    .get(usize::from(r))
                    .is_some_and(|rule| rule.commands.is_empty())
            })
            .collect();
        Candidates { free, admits }
    }

    fn admits(&self, rule: usize) -> bool {
        self.admits
            .get(rule / 64)
            .is_some_and(|w| w & (1 << (rule % 64)) != 0)
    }

    /// In declaration order: the free rules and the admitting rules whose commands hit
    /// (`hits` as [`Classifier::command_hits`] gives them; none when `None`). Every rule of
    /// the full candidate list that the rule loop would not skip for want of a command hit
    /// is among them (`tests/classify_cache.rs` compares with the unindexed loop).
    fn visit<'a>(&'a self, hits: Option<&'a [u8]>) -> impl Iterator<Item = usize> + 'a {
        let free = self.free.iter().map(|&r| usize::from(r));
        let hit = hits
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|&(r, h)| h & HIT_COMMAND != 0 && self.admits(r))
            .map(|(r, _)| r);
        Merge {
            a: free.peekable(),
            b: hit.peekable(),
        }
    }
}

/// Two ascending sequences of distinct numbers merged into one ascending sequence.
struct Merge<A: Iterator<Item = usize>, B: Iterator<Item = usize>> {
    a: std::iter::Peekable<A>,
    b: std::iter::Peekable<B>,
}

impl<A: Iterator<Item = usize>, B: Iterator<Item = usize>> Iterator for Merge<A, B> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match (self.a.peek(), self.b.peek()) {
            (Some(x), Some(y)) if x < y => self.a.next(),
            (Some(_), None) => self.a.next(),
            _ => self.b.next(),
        }
    }
}

/// The phase and class of an event, as far as rule admission goes.
type Case = (Phase, Option<ActionClass>);

/// The rules of [`Index::candidates`] for one tool name.
#[derive(Debug)]
struct ToolRules {
    name: String,
    /// Per (phase, class): the admitting rules. Bounded by the number of phases × classes.
    cases: Vec<(Case, Candidates)>,
}

/// The rules whose phases, tools and classes admit an event of this tool, phase and class.
fn admitting_rules(
    spec: &Spec,
    tool: &str,
    (phase, class): (Phase, Option<ActionClass>),
) -> Vec<RuleId> {
    spec.rules
        .iter()
        .enumerate()
        .filter(|(_, rule)| rule_admits(rule, tool, phase, class))
        .map(|(i, _)| i as RuleId)
        .collect()
}

/// The rule's phases, tools and classes admit the event (the checks before paths and
/// commands).
fn rule_admits(
    rule: &gate_spec::ir::Rule,
    tool: &str,
    phase: Phase,
    class: Option<ActionClass>,
) -> bool {
    (rule.phases.is_empty() || rule.phases.contains(&phase))
        && rule_accepts_tool(rule, tool)
        && (rule.classes.is_empty() || class.is_some_and(|c| rule.classes.contains(&c)))
}

/// How common a byte is in command lines (lower is rarer): the group key of a `raw:` pattern
/// is its rarest literal byte. Only a heuristic: any byte the pattern needs is a sound key.
fn commonness(b: u8) -> u8 {
    const LETTERS: &[u8] = b"zqjxkvbpygfwmucldrhsnioate";
    match b {
        b' ' => 40,
        b'-' | b'/' | b'.' => 35,
        b'a'..=b'z' => LETTERS
            .iter()
            .position(|&c| c == b)
            .map_or(30, |i| i as u8 + 4),
        b'0'..=b'9' => 3,
        _ => 0,
    }
}

/// [`Index::raw_buckets`] of a table's `always` list.
fn raw_buckets(table: &CommandTable) -> Vec<(Option<u8>, Vec<usize>)> {
    let mut buckets: std::collections::BTreeMap<Option<u8>, Vec<usize>> = Default::default();
    for (k, &at) in table.always().iter().enumerate() {
        let key = match table.pattern(at) {
            Some(Pattern::Raw(g)) => g
                .bytes()
                .filter(|b| !matches!(b, b'*' | b'?'))
                .min_by_key(|&b| (commonness(b), b)),
            _ => None,
        };
        buckets.entry(key).or_default().push(k);
    }
    buckets.into_iter().collect()
}

/// A rule with no `tools` accepts every tool; else one of its globs must match the name.
fn rule_accepts_tool(rule: &gate_spec::ir::Rule, tool: &str) -> bool {
    rule.tools.is_empty() || rule.tools.iter().any(|g| glob::text(&g.text, tool))
}

/// What an [`Index`] knows of one path glob: its need and its literal bytes.
type PathNeeds = (NeedAt, [u64; 4]);

/// A path test for the glob `g` (at `j` of its list), called with a path and its index in
/// the event's paths: with an index, the glob's literal bytes first (a subset test against
/// the path's bytes, `have`, computed once per event), then the need (the index's, or
/// derived now), then the glob matcher. The same answer as the matcher alone: a path
/// lacking a literal byte or the need is one the glob cannot match.
fn path_test<'g>(
    g: &'g gate_spec::ir::Pattern,
    j: usize,
    needs: Option<&'g [PathNeeds]>,
    have: &'g [[u64; 4]],
    cwd: &'g str,
) -> impl Fn(usize, &str) -> bool + 'g {
    let known = needs.and_then(|n| n.get(j));
    let need = known.map_or_else(|| glob::PathNeed::of(&g.text), |(n, _)| n.get(&g.text));
    move |k: usize, path: &str| {
        known.is_none_or(|(_, bytes)| match have.get(k) {
            Some(have) => glob::bytes_within(bytes, have),
            None => glob::holds_bytes(bytes, path),
        }) && need.admits(path)
            && path_matches_plain(&g.text, path, cwd)
    }
}

/// Some glob of `globs` matches some path; `needs` are what an index knows of the globs,
/// `have` the paths' bytes (empty when not computed).
fn any_path_matches(
    globs: &[gate_spec::ir::Pattern],
    needs: Option<&[PathNeeds]>,
    paths: &[String],
    have: &[[u64; 4]],
    cwd: &str,
) -> bool {
    globs.iter().enumerate().any(|(j, g)| {
        let test = path_test(g, j, needs, have, cwd);
        paths.iter().enumerate().any(|(k, p)| test(k, p))
    })
}

/// Every path is matched by some glob of `globs`.
fn all_paths_match(
    globs: &[gate_spec::ir::Pattern],
    needs: Option<&[PathNeeds]>,
    paths: &[String],
    have: &[[u64; 4]],
    cwd: &str,
) -> bool {
    paths.iter().enumerate().all(|(k, p)| {
        globs
            .iter()
            .enumerate()
            .any(|(j, g)| path_test(g, j, needs, have, cwd)(k, p))
    })
}

/// The byte sets of an event's paths ([`glob::path_bytes`]), gathered when first read.
struct PathBytes<'v> {
    sets: &'v mut Vec<[u64; 4]>,
    /// `sets` holds what it will hold (the sets, or nothing when there is no index).
    filled: bool,
}

impl PathBytes<'_> {
    fn get(&mut self, paths: &[String]) -> &[[u64; 4]] {
        if !self.filled {
            self.sets.clear();
            self.sets.extend(paths.iter().map(|p| glob::path_bytes(p)));
            self.filled = true;
        }
        self.sets
    }
}

/// Flag of [`Classifier::command_hits`]: one of the rule's `commands` matches the line.
pub const HIT_COMMAND: u8 = 1;
/// Flag of [`Classifier::command_hits`]: one of the rule's `except_commands` matches.
pub const HIT_EXCEPT: u8 = 2;

impl<'s> Classifier<'s> {
    /// A classifier that parses the spec's command patterns now.
    pub fn new(spec: &'s Spec) -> Self {
        Classifier::with_table(spec, None)
    }

    /// A classifier over a prebuilt table (a generated machine's
    /// [`Machine::commands`](gate_spec::exec::Machine::commands)); `None` builds one from
    /// `spec`. A prebuilt table must have been built from this same spec.
    pub fn with_table(spec: &'s Spec, table: Option<&'s CommandTable>) -> Self {
        let table = match table {
            Some(t) if t.rules.len() == spec.rules.len() => Cow::Borrowed(t),
            _ => Cow::Owned(CommandTable::build(spec)),
        };
        Classifier {
            spec,
            table,
            index: OnceCell::new(),
            used: Cell::new(false),
            scratch: RefCell::new(HitScratch::default()),
            // Always: gate's self-protection reads every tool event's effects, whatever the
            // spec's rules say.
            uses_effects: true,
            places: OnceCell::new(),
        }
    }

    /// A classifier whose home and gate locations are `at`'s (its `cwd` and `project` are
    /// replaced by each event's), instead of the environment's: for tests and replays of
    /// another machine's sessions.
    pub fn with_places(mut self, at: Where) -> Self {
        self.places = OnceCell::from(at);
        self
    }

    /// The index, once this classifier has classified before (see [`Classifier`]).
    fn index(&self) -> Option<&Index> {
        if let Some(index) = self.index.get() {
            return Some(index);
        }
        if !self.used.replace(true) {
            return None;
        }
        Some(
            self.index
                .get_or_init(|| Index::build(self.spec, &self.table)),
        )
    }

    /// The parsed, indexed command patterns.
    pub fn table(&self) -> &CommandTable {
        &self.table
    }

    /// Which rules' command patterns ([`HIT_COMMAND`]) and exception patterns
    /// ([`HIT_EXCEPT`]) match the line, per rule. Only the patterns indexed under the
    /// programs the line runs, plus the few that name no program literally, are tried.
    /// `parsed` is `shell::parse(raw)`.
    pub fn command_hits(&self, parsed: &shell::Parsed, raw: &str) -> Vec<u8> {
        let mut hits = Vec::new();
        self.command_hits_into(parsed, raw, &mut hits, &mut Vec::new());
        hits
    }

    /// [`command_hits`](Self::command_hits) into `hits`, with `facts` as room for the
    /// commands' [`shell::Facts`] (both cleared first: a caller reuses them across lines).
    fn command_hits_into(
        &self,
        parsed: &shell::Parsed,
        raw: &str,
        hits: &mut Vec<u8>,
        facts: &mut Vec<shell::Facts>,
    ) {
        let table = &*self.table;
        hits.clear();
        hits.resize(table.rules.len(), 0);
        // Each command's flags and words are read once, when a first pattern is a candidate,
        // and the patterns whose first stage needs what no command has (their
        // `shell::Need`, computed with the table) are skipped.
        let index = self.index.get();
        let mut facts = shell::LineFacts::new(parsed, facts);
        let for_program = |program: &str| match index {
            Some(index) => index.for_program(table, program),
            None => table.for_program(program),
        };
        let mut try_pattern = |at: PatternRef| {
            let bit = if at.except { HIT_EXCEPT } else { HIT_COMMAND };
            let Some(slot) = hits.get_mut(usize::from(at.rule)) else {
                return;
            };
            if *slot & bit == 0
                && table
                    .candidate(at)
                    .is_some_and(|(p, need)| facts.admit(need) && shell::matches_in(p, parsed, raw))
            {
                *slot |= bit;
            }
        };
        // Each program once (a pattern tried twice gives the same answer; this saves the work).
        // Short lines, the common case, need no allocation for it.
        let commands = &parsed.commands;
        if commands.len() <= 8 {
            for (k, c) in commands.iter().enumerate() {
                let program = c.program.as_ref();
                if commands[..k].iter().any(|d| d.program == program) {
                    continue;
                }
                for &at in for_program(program) {
                    try_pattern(at);
                }
            }
        } else {
            let mut programs: Vec<&str> = commands.iter().map(|c| c.program.as_ref()).collect();
            programs.sort_unstable();
            programs.dedup();
            for program in programs {
                for &at in for_program(program) {
                    try_pattern(at);
                }
            }
        }
        let always = table.always();
        match index {
            Some(index) => {
                let line = ByteSet(glob::byte_set(raw.as_bytes()));
                for (key, entries) in &index.raw_buckets {
                    if key.is_some_and(|b| !line.has(b)) {
                        continue;
                    }
                    for &k in entries {
                        let admitted = index
                            .raw
                            .get(k)
                            .copied()
                            .flatten()
                            .is_none_or(|need| need.within(&line));
                        if let (true, Some(&at)) = (admitted, always.get(k)) {
                            try_pattern(at);
                        }
                    }
                }
            }
            None => {
                // Without an index, each `raw:` pattern's literal bytes are checked in place,
                // the same test as the index's `raw` sets: a raw glob matches only a line
                // holding every one of its bytes other than `*` and `?`. Most fail on their
                // first letters, before the glob matcher would run.
                let line = ByteSet(glob::byte_set(raw.as_bytes()));
                for &at in always {
                    let admitted = match table.pattern(at) {
                        Some(Pattern::Raw(g)) => {
                            g.bytes().all(|b| matches!(b, b'*' | b'?') || line.has(b))
                        }
                        _ => true,
                    };
                    if admitted {
                        try_pattern(at);
                    }
                }
            }
        }
    }

    /// Classify a tool event. Non-tool events get the default tier and kind.
    pub fn classify(&self, event: &Event) -> Classification {
        let mut out = Classification::default();
        self.classify_into(event, &mut out);
        out
    }

    /// [`classify`](Self::classify) written into `out`, whose contents are replaced: its
    /// reason, rule list and paths keep their room, so that a caller that reuses one
    /// classification (the replay) allocates little per event (`tests/classify_cache.rs`).
    pub fn classify_into(&self, event: &Event, out: &mut Classification) {
        let spec = self.spec;
        let index = self.index();
        // `Classification { class, tier, kind, ..Classification::default() }`, in place.
        out.class = event.class;
        out.tier = spec.default_tier;
        out.kind = spec.default_kind;
        out.rule = None;
        out.reason.clear();
        out.matched.clear();
        out.truncated = false;
        out.effects.clear();
        let phase = event.phase.unwrap_or(Phase::Other);
        let Some(tool) = event.tool.as_deref().filter(|_| phase.is_tool()) else {
            out.paths.clear();
            return;
        };
        // The classifier's buffers, unless a classification is using them (not possible
        // today: nothing here calls back out); then fresh ones.
        let mut scratch = self.scratch.try_borrow_mut();
        let mut fresh = HitScratch::default();
        let HitScratch {
            hits,
            facts,
            path_bytes,
            parse: room,
        } = match scratch.as_deref_mut() {
            Ok(s) => s,
            Err(_) => &mut fresh,
        };
        let parsed = match (is_shell_tool(tool), event.target.as_deref()) {
            (true, Some(cmd)) => {
                let parsed = shell::parse_in(cmd, room);
                out.class = Some(shell::classify(&parsed));
                out.truncated = parsed.truncated;
                shell::paths_into(&parsed, &mut out.paths);
                Some(parsed)
            }
            _ => {
                out.paths.clear();
                None
            }
        };
        out.paths.extend(event.paths.iter().cloned());
        if self.uses_effects {
            let base = self.places.get_or_init(|| Where::from_env(""));
            let cwd = event.cwd.as_deref().unwrap_or("");
            let at = Where {
                cwd: cwd.to_string(),
                project: cwd.to_string(),
                home: base.home.clone(),
                gate: base.gate.clone(),
            };
            effects::effects_of_event_parsed(event, &at, parsed.as_ref(), &mut out.effects);
        }
        let hits = match (&parsed, event.target.as_deref()) {
            (Some(parsed), Some(raw)) if !self.table.is_empty() => {
                self.command_hits_into(parsed, raw, hits, facts);
                Some(hits.as_slice())
            }
            _ => None,
        };
        let class = out.class;
        // With an index, each path's bytes are gathered once for the path globs' literal
        // tests, when a first path glob is tested.
        let mut have = PathBytes {
            sets: path_bytes,
            filled: index.is_none(),
        };
        if index.is_none() {
            have.sets.clear();
        }
        match index {
            Some(index) => index.candidates(spec, tool, (phase, class), |rules| {
                self.match_rules(
                    out,
                    hits,
                    event,
                    Some(index),
                    &mut have,
                    &mut rules.visit(hits),
                )
            }),
            None => self.match_rules(
                out,
                hits,
                event,
                None,
                &mut have,
                &mut (0..spec.rules.len())
                    .filter(|&i| rule_admits(&spec.rules[i], tool, phase, class)),
            ),
        }
        // A classifier used once (a hook) keeps nothing: its parse is freed here, where the
        // allocator can hand the room to what the process allocates next.
        if let (Some(parsed), Some(_)) = (parsed, index) {
            room.keep(parsed);
        }
    }

    /// The rule loop of [`classify`](Self::classify) over `rules`: the indices, in order, of
    /// the rules whose phases, tools and classes admit the event.
    fn match_rules(
        &self,
        out: &mut Classification,
        hits: Option<&[u8]>,
        event: &Event,
        index: Option<&Index>,
        have: &mut PathBytes<'_>,
        rules: &mut dyn Iterator<Item = usize>,
    ) {
        let spec = self.spec;
        let cwd = event.cwd.as_deref().unwrap_or("");
        let mut best: Option<(TierId, RuleId)> = None;
        let mut kind_set = false;
        for i in rules {
            let Some(rule) = spec.rules.get(i) else {
                continue;
            };
            if !rule.paths.is_empty()
                && !any_path_matches(
                    &rule.paths,
                    index.and_then(|x| x.paths.get(i)).map(Vec::as_slice),
                    &out.paths,
                    have.get(&out.paths),
                    cwd,
                )
            {
                continue;
            }
            let hit = hits.and_then(|h| h.get(i)).copied().unwrap_or(0);
            if !rule.commands.is_empty() && hit & HIT_COMMAND == 0 {
                continue;
            }
            if hit & HIT_EXCEPT != 0 {
                continue;
            }
            if (!rule.effects.is_empty() || !rule.locations.is_empty())
                && !out.effects.iter().any(|e| {
                    (rule.effects.is_empty() || rule.effects.contains(&e.act))
                        && (rule.locations.is_empty() || rule.locations.contains(&e.place))
                })
            {
                continue;
            }
            if !rule.except_paths.is_empty()
                && !out.paths.is_empty()
                && all_paths_match(
                    &rule.except_paths,
                    index.and_then(|x| x.except_paths.get(i)).map(Vec::as_slice),
                    &out.paths,
                    have.get(&out.paths),
                    cwd,
                )
            {
                continue;
            }
            let id = i as RuleId;
            out.matched.push(id);
            if let Some(t) = rule.tier {
                if best.is_none_or(|(bt, _)| t > bt) {
                    best = Some((t, id));
                }
            }
            if let (Some(k), false) = (rule.kind, kind_set) {
                out.kind = k;
                kind_set = true;
            }
        }
        if let Some((t, id)) = best {
            out.tier = t;
            out.rule = Some(id);
            out.reason.clear();
            out.reason.push_str(&spec.rules[id as usize].reason);
        }
    }
}

/// A path glob matches the path as given, or relative to the working directory.
///
/// The glob's literal need ([`glob::PathNeed`]) is tested first: a path that lacks it cannot
/// match, and neither can its working-directory-relative form (a suffix of it).
pub fn path_matches(glob_text: &str, path: &str, cwd: &str) -> bool {
    glob::PathNeed::of(glob_text).admits(path) && path_matches_plain(glob_text, path, cwd)
}

/// [`path_matches`] without the literal test: the glob matcher on both forms of the path.
pub fn path_matches_plain(glob_text: &str, path: &str, cwd: &str) -> bool {
    if glob::path(glob_text, path) {
        return true;
    }
    if !cwd.is_empty() {
        if let Some(rel) = path.strip_prefix(cwd) {
            let rel = rel.trim_start_matches('/');
            if !rel.is_empty() && glob::path(glob_text, rel) {
                return true;
            }
        }
    }
    false
}

/// The span of work since the last arm (or since the scope started).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    pub opened_ms: Option<i64>,
    pub actions: u32,
    /// Actions per work kind.
    pub kind_counts: Vec<u32>,
    /// Digests of the path prefixes seen (sorted, bounded).
    pub scopes: Vec<String>,
    /// Recent targets with their counts (bounded, most recent last). Targets are kept as
    /// digests ([`target_key`]): a command may carry a secret, and state is stored as is.
    pub targets: Vec<(String, u32)>,
    /// The highest tier acted at (risk-proportional backstops).
    pub max_tier: Option<TierId>,
}

impl Segment {
    /// The kind with the most actions (ties: the lowest id), if any action happened.
    pub fn dominant_kind(&self) -> Option<KindId> {
        let mut best: Option<(u32, KindId)> = None;
        for (k, n) in self.kind_counts.iter().enumerate() {
            if *n > 0 && best.is_none_or(|(bn, _)| *n > bn) {
                best = Some((*n, k as KindId));
            }
        }
        best.map(|(_, k)| k)
    }
}

/// `a == b` for two digests of [`target_key`], comparing their first eight bytes inline first
/// (digests that differ almost always differ there).
fn same_key(a: &str, b: &Key) -> bool {
    let head = |s: &[u8]| {
        s.get(..8)
            .map(|h| u64::from_ne_bytes(h.try_into().unwrap_or_default()))
    };
    let (a, b) = (a.as_bytes(), &b.0[..]);
    head(a) == head(b) && a == b
}

/// The digest a target is remembered by: fixed size, and no secret it carries is stored.
pub fn target_key(target: &str) -> String {
    Key::of(target.as_bytes()).as_str().to_string()
}

/// A [`target_key`] held inline: the first 24 hex digits of a SHA-256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key([u8; 24]);

impl Key {
    /// The key of `data`.
    fn of(data: &[u8]) -> Key {
        use sha2::{Digest, Sha256};
        Key::hex(&Sha256::digest(data))
    }

    /// The key of the parts joined by `/` (what `Key::of(parts.join("/"))` gives, without
    /// building the joined text).
    fn of_joined<'a>(parts: impl Iterator<Item = &'a str>) -> Key {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for (i, part) in parts.enumerate() {
            if i > 0 {
                hasher.update(b"/");
            }
            hasher.update(part.as_bytes());
        }
        Key::hex(&hasher.finalize())
    }

    /// The first 12 bytes of `digest` in lowercase hex (`sha256_hex` truncated).
    fn hex(digest: &[u8]) -> Key {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [b'0'; 24];
        for (k, &b) in digest.iter().take(12).enumerate() {
            hex[2 * k] = HEX[usize::from(b >> 4)];
            hex[2 * k + 1] = HEX[usize::from(b & 15)];
        }
        Key(hex)
    }

    fn as_str(&self) -> &str {
        // Hex digits are ASCII.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// The digests of one event's target and path scopes ([`target_key`]), each computed once and
/// shared by [`observe_with`] and [`update_with`] (a digest is the costliest part of both).
///
/// Keys used for many events ([`remember`](Self::remember), what the engine does from its
/// second evaluation on) also keep the digests of recent texts ([`DigestMemo`]): a replay
/// sees the same commands and directories again and again.
#[derive(Clone, Debug, Default)]
pub struct EventKeys {
    target: Option<Key>,
    /// (path index, depth, digest of the scope; `None` for an empty scope).
    scopes: Vec<(usize, usize, Option<Key>)>,
    /// Digests of earlier events' texts, once [`remember`](Self::remember) was called; not
    /// cleared between events.
    memo: Option<Box<DigestMemo>>,
}

impl EventKeys {
    /// Forget the digests (for the next event), keeping the room and the memo.
    pub fn clear(&mut self) {
        self.target = None;
        self.scopes.clear();
    }

    /// Keep recent texts' digests from now on (across [`clear`](Self::clear)), for keys that
    /// serve many events.
    pub fn remember(&mut self) {
        if self.memo.is_none() {
            self.memo = Some(Box::default());
        }
    }

    /// The digest of `target` (the event's target; the same text on every call).
    fn target(&mut self, target: &str) -> Key {
        let memo = &mut self.memo;
        *self.target.get_or_insert_with(|| match memo {
            Some(memo) => memo.key(target.as_bytes()),
            None => Key::of(target.as_bytes()),
        })
    }

    /// The digest of the scope of `class.paths[i]` at `depth`, or `None` when it is empty.
    fn scope(&mut self, i: usize, path: &str, cwd: &str, depth: usize) -> Option<Key> {
        let at = match self
            .scopes
            .iter()
            .position(|(pi, d, _)| *pi == i && *d == depth)
        {
            Some(at) => at,
            None => {
                let key = match &mut self.memo {
                    Some(memo) => memo.scope_key(path, cwd, depth),
                    None => scope_key(path, cwd, depth),
                };
                self.scopes.push((i, depth, key));
                self.scopes.len() - 1
            }
        };
        self.scopes[at].2
    }
}

/// Most texts a [`DigestMemo`] keeps, and most bytes of text.
const MEMO_ENTRIES: usize = 4096;
const MEMO_BYTES: usize = 1 << 20;
/// Longest text whose digest a [`DigestMemo`] keeps.
const MEMO_MAX_BYTES: usize = 4096;

/// The digests ([`Key::of`]) of recently digested texts, by the texts' bytes: a map that is
/// emptied when it is full ([`MEMO_ENTRIES`], [`MEMO_BYTES`]). An entry answers only for the
/// very bytes it was computed from, so a digest from the memo is always the digest of the
/// text asked for (`tests::a_memo_digest_is_the_digest`).
#[derive(Clone, Debug, Default)]
struct DigestMemo {
    /// Hashed with foldhash, seeded per process (a crafted stream cannot pick colliding
    /// texts in advance).
    digests: HashMap<Box<[u8]>, Key, foldhash::fast::RandomState>,
    /// The bytes of the texts in `digests`.
    bytes: usize,
    /// A scope's text, joined here before it is looked up (reused).
    joined: Vec<u8>,
}

impl DigestMemo {
    /// `Key::of(data)`, from the memo when `data` was digested recently.
    fn key(&mut self, data: &[u8]) -> Key {
        if data.len() > MEMO_MAX_BYTES {
            return Key::of(data);
        }
        if let Some(key) = self.digests.get(data) {
            return *key;
        }
        let key = Key::of(data);
        if self.digests.len() >= MEMO_ENTRIES || self.bytes + data.len() > MEMO_BYTES {
            self.digests.clear();
            self.bytes = 0;
        }
        self.digests.insert(data.into(), key);
        self.bytes += data.len();
        key
    }

    /// [`scope_key`], from the memo when the scope's text was digested recently.
    fn scope_key(&mut self, path: &str, cwd: &str, depth: usize) -> Option<Key> {
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        for (i, part) in scope_parts(path, cwd, depth).enumerate() {
            if i > 0 {
                joined.push(b'/');
            }
            joined.extend_from_slice(part.as_bytes());
        }
        // An empty scope has no parts (parts are never empty).
        let key = (!joined.is_empty()).then(|| self.key(&joined));
        self.joined = joined;
        key
    }
}

/// Everything the observer remembers for one scope.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObserverState {
    pub window_open: bool,
    pub segment: Segment,
    /// Consecutive failed tool results.
    pub failures: u32,
    pub last_arm_ms: Option<i64>,
    /// Pre-tool action times, for rate signals (bounded).
    pub recent_ms: Vec<i64>,
    /// The previous pre-tool verdict withheld the action.
    pub last_blocked: bool,
    /// Disabled signals were already reported for this scope.
    pub disabled_reported: bool,
    pub events: u64,
    /// The latest time this scope has seen: time never runs backwards within a scope (a
    /// clock step back, or hooks that read the clock before queueing for the lock).
    #[serde(default)]
    pub last_ms: Option<i64>,
}

/// Learned window baselines for the current repository, per kind: (actions, secs).
pub type Baselines = Vec<Option<(u32, u32)>>;

/// What the observer saw on one event: the machine's inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    pub raw: Vec<bool>,
    pub enabled: Vec<bool>,
    pub checkpoints: Vec<bool>,
    pub backstop: bool,
    pub rearm_secs_ok: bool,
}

/// Which signals can run on this runtime (R12).
pub fn enabled_signals(spec: &Spec, runtime: Option<Runtime>) -> Vec<bool> {
    spec.signals
        .iter()
        .map(|s| match runtime {
            Some(r) => s.requires.iter().all(|t| r.provides(*t)),
            None => s.requires.is_empty(),
        })
        .collect()
}

/// The components of the prefix of a path that names its scope: the first `depth`
/// directories under cwd, in order (the scope is their `/`-joined text).
fn scope_parts<'a>(path: &'a str, cwd: &str, depth: usize) -> impl Iterator<Item = &'a str> {
    let rel = path
        .strip_prefix(cwd)
        .filter(|_| !cwd.is_empty())
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(path);
    let parts = || rel.split('/').filter(|p| !p.is_empty());
    let n = parts().count();
    // The last component is the file itself; a scope is its directory prefix.
    let dirs = if n > 1 { n - 1 } else { n };
    parts().take(dirs.min(depth.max(1)))
}

/// The digest of the scope of `path` ([`scope_parts`] joined by `/`), or `None` when the
/// scope is empty; the scope text is not built.
fn scope_key(path: &str, cwd: &str, depth: usize) -> Option<Key> {
    let mut parts = scope_parts(path, cwd, depth).peekable();
    parts.peek()?;
    Some(Key::of_joined(parts))
}

/// The effective backstop of the open window: the tightest over the tiers acted at, with a
/// learned baseline (clamped) replacing a tier's static limits when the tier asks for one.
pub fn effective_backstop(
    spec: &Spec,
    segment: &Segment,
    baselines: &Baselines,
) -> (Option<u32>, Option<u32>) {
    backstop_of(spec, segment, segment.dominant_kind(), baselines)
}

/// [`effective_backstop`] with the segment's dominant kind already known.
fn backstop_of(
    spec: &Spec,
    segment: &Segment,
    dominant: Option<KindId>,
    baselines: &Baselines,
) -> (Option<u32>, Option<u32>) {
    let top = segment.max_tier.unwrap_or(spec.default_tier);
    let mut actions: Option<u32> = None;
    let mut secs: Option<u32> = None;
    let learned = dominant.and_then(|k| baselines.get(k as usize).copied().flatten());
    for tier in spec
        .tiers
        .iter()
        .take(top as usize + 1)
        .skip(spec.default_tier.min(top) as usize)
    {
        let b = &tier.backstop;
        let (mut a, mut s) = (b.max_actions, b.max_secs);
        if let (Some(clamp), Some((la, ls))) = (&b.baseline, learned) {
            a = Some(la.clamp(clamp.min_actions, clamp.max_actions));
            s = Some(ls.clamp(clamp.min_secs, clamp.max_secs));
        }
        actions = match (actions, a) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        secs = match (secs, s) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
    }
    (actions, secs)
}

fn elapsed_secs(since: Option<i64>, now_ms: i64) -> u64 {
    since.map_or(0, |t| (now_ms.saturating_sub(t)).max(0) as u64 / 1000)
}

/// Compute the machine inputs for one event, before the context is updated with it.
pub fn observe(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    enabled: &[bool],
    baselines: &Baselines,
    now_ms: i64,
) -> Observation {
    let mut keys = EventKeys::default();
    observe_with(
        spec, state, event, class, enabled, baselines, now_ms, &mut keys, None,
    )
}

/// [`observe`] with the event's digests kept in `keys` (pass the same `keys` to
/// [`update_with`] for this event), and what `classifier` (of this spec) derived from the
/// checkpoints' target globs once it was used for several events.
#[allow(clippy::too_many_arguments)]
pub fn observe_with(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    enabled: &[bool],
    baselines: &Baselines,
    now_ms: i64,
    keys: &mut EventKeys,
    classifier: Option<&Classifier<'_>>,
) -> Observation {
    let mut raw = Vec::new();
    let mut checkpoints = Vec::new();
    let (backstop, rearm_secs_ok) = observe_into(
        spec,
        state,
        event,
        class,
        baselines,
        now_ms,
        keys,
        classifier,
        &mut raw,
        &mut checkpoints,
    );
    Observation {
        raw,
        enabled: enabled.to_vec(),
        checkpoints,
        backstop,
        rearm_secs_ok,
    }
}

/// [`observe_with`] writing the raw samples and the checkpoint evidence into `raw` and
/// `checkpoints` (cleared first: a caller reuses them across events); returns `(backstop,
/// rearm_secs_ok)`. The enabled signals are the caller's (they depend only on the runtime).
#[allow(clippy::too_many_arguments)]
pub fn observe_into(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    baselines: &Baselines,
    now_ms: i64,
    keys: &mut EventKeys,
    classifier: Option<&Classifier<'_>>,
    raw: &mut Vec<bool>,
    checkpoints: &mut Vec<bool>,
) -> (bool, bool) {
    let dominant = state.segment.dominant_kind();
    observe_in(
        spec,
        state,
        event,
        class,
        baselines,
        now_ms,
        keys,
        classifier,
        raw,
        checkpoints,
        dominant,
    )
}

/// [`observe_into`] with the segment's dominant kind ([`Segment::dominant_kind`]) already
/// counted by the caller (the engine reads it for its templates too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn observe_in(
    spec: &Spec,
    state: &ObserverState,
    event: &Event,
    class: &Classification,
    baselines: &Baselines,
    now_ms: i64,
    keys: &mut EventKeys,
    classifier: Option<&Classifier<'_>>,
    raw: &mut Vec<bool>,
    checkpoints: &mut Vec<bool>,
    dominant: Option<KindId>,
) -> (bool, bool) {
    let phase = event.phase.unwrap_or(Phase::Other);
    let cwd = event.cwd.as_deref().unwrap_or("");
    let seg = &state.segment;
    let target = event.target.as_deref().unwrap_or("");
    let failed = matches!(event.status, Some(Status::Failure)) || phase == Phase::PostToolFailure;
    let (max_actions, max_secs) = backstop_of(spec, seg, dominant, baselines);
    let window_secs = elapsed_secs(seg.opened_ms, now_ms);
    let over_budget = |a: Option<u32>, s: Option<u32>| {
        a.is_some_and(|a| seg.actions >= a) || s.is_some_and(|s| window_secs >= u64::from(s))
    };
    raw.clear();
    raw.extend(spec.signals.iter().map(|signal| {
        match &signal.family {
            Family::KindShift => {
                phase == Phase::PreTool && dominant.is_some_and(|k| k != class.kind)
            }
            Family::TierAtLeast { tier } => phase == Phase::PreTool && class.tier >= *tier,
            Family::FailureStreak { count } => failed && state.failures + 1 >= u32::from(*count),
            Family::RepeatedTarget { count } => {
                phase == Phase::PreTool && !target.is_empty() && {
                    // No digest is needed while nothing was remembered.
                    let seen = if seg.targets.is_empty() {
                        0
                    } else {
                        let key = keys.target(target);
                        seg.targets
                            .iter()
                            .find(|(t, _)| same_key(t, &key))
                            .map_or(0, |(_, n)| *n)
                    };
                    seen + 1 >= u32::from(*count)
                }
            }
            Family::ScopeChange { depth } => {
                phase == Phase::PreTool
                    && !seg.scopes.is_empty()
                    && class.paths.iter().enumerate().any(|(i, p)| {
                        keys.scope(i, p, cwd, *depth as usize).is_some_and(|k| {
                            // Hex digits are ASCII: byte order is text order.
                            seg.scopes
                                .binary_search_by(|s| s.as_bytes().cmp(&k.0[..]))
                                .is_err()
                        })
                    })
            }
            Family::Lifecycle { events } => events.contains(&phase),
            Family::Budget {
                max_actions: a,
                max_secs: s,
            } => {
                let (a, s) = if a.is_none() && s.is_none() {
                    (max_actions, max_secs)
                } else {
                    (*a, *s)
                };
                phase == Phase::PreTool && over_budget(a, s)
            }
            Family::Rate { max, per_secs } => {
                let from = now_ms.saturating_sub(i64::from(*per_secs) * 1000);
                let n = state
                    .recent_ms
                    .iter()
                    .filter(|t| **t > from && **t <= now_ms)
                    .count();
                phase == Phase::PreTool && n as u64 + 1 > u64::from(*max)
            }
            Family::Denied => phase == Phase::PreTool && state.last_blocked,
        }
    }));
    // What a used classifier knows of the checkpoints' targets (see `Index::checkpoints`).
    let needs = classifier
        .and_then(|c| c.index.get())
        .map(|index| &index.checkpoints);
    let target_bytes = OnceCell::new();
    checkpoints.clear();
    checkpoints.extend(spec.checkpoints.iter().enumerate().map(|(ci, c)| {
        let by_tool = !c.tools.is_empty()
            && matches!(phase, Phase::PostTool | Phase::PostToolFailure)
            && event
                .tool
                .as_deref()
                .is_some_and(|t| c.tools.iter().any(|g| glob::text(&g.text, t)))
            && match c.status {
                StatusFilter::Any => true,
                StatusFilter::Success => !failed,
                StatusFilter::Failure => failed,
            }
            && (c.targets.is_empty()
                || c.targets.iter().enumerate().any(|(j, g)| {
                    let known = needs.and_then(|n| n.get(ci)).and_then(|n| n.get(j));
                    let text_possible = known.is_none_or(|(_, bytes)| {
                        bytes.within(
                            target_bytes.get_or_init(|| ByteSet(glob::byte_set(target.as_bytes()))),
                        )
                    });
                    let need = known.map_or_else(
                        || glob::PathNeed::of(&g.text),
                        |(need, _)| need.get(&g.text),
                    );
                    (text_possible && glob::text(&g.text, target))
                        || class
                            .paths
                            .iter()
                            .any(|p| need.admits(p) && path_matches_plain(&g.text, p, cwd))
                }));
        let text = event.prompt.as_deref().unwrap_or(target);
        let by_event = c.events.contains(&phase)
            && (c.targets.is_empty() || c.targets.iter().any(|g| glob::text(&g.text, text)));
        by_tool || by_event
    }));
    let backstop =
        state.window_open && phase == Phase::PreTool && over_budget(max_actions, max_secs);
    let rearm_secs_ok = state
        .last_arm_ms
        .is_none_or(|t| now_ms.saturating_sub(t) >= i64::from(spec.rearm.min_secs) * 1000);
    (backstop, rearm_secs_ok)
}

/// Start a new segment (a window was armed, or one closed).
pub fn reset_segment(spec: &Spec, state: &mut ObserverState, now_ms: i64) {
    // The new segment is `Segment { opened_ms: Some(now_ms), kind_counts: vec![0; kinds],
    // ..Segment::default() }`, written in place so that its vectors keep their room.
    let Segment {
        opened_ms,
        actions,
        kind_counts,
        scopes,
        targets,
        max_tier,
    } = &mut state.segment;
    *opened_ms = Some(now_ms);
    *actions = 0;
    kind_counts.clear();
    kind_counts.resize(spec.kinds.len(), 0);
    scopes.clear();
    targets.clear();
    *max_tier = None;
}

/// Fold one event into the context (after the machine stepped).
pub fn update(
    spec: &Spec,
    state: &mut ObserverState,
    event: &Event,
    class: &Classification,
    now_ms: i64,
) {
    update_with(spec, state, event, class, now_ms, &mut EventKeys::default());
}

/// [`update`] with the event's digests taken from `keys` (filled by [`observe_with`]).
pub fn update_with(
    spec: &Spec,
    state: &mut ObserverState,
    event: &Event,
    class: &Classification,
    now_ms: i64,
    keys: &mut EventKeys,
) {
    let phase = event.phase.unwrap_or(Phase::Other);
    state.events += 1;
    if state.segment.opened_ms.is_none() {
        state.segment.opened_ms = Some(now_ms);
    }
    match phase {
        Phase::PreTool => {
            let seg = &mut state.segment;
            seg.actions = seg.actions.saturating_add(1);
            if seg.kind_counts.len() != spec.kinds.len() {
                seg.kind_counts.resize(spec.kinds.len(), 0);
            }
            if let Some(n) = seg.kind_counts.get_mut(class.kind as usize) {
                *n = n.saturating_add(1);
            }
            seg.max_tier = Some(seg.max_tier.map_or(class.tier, |t| t.max(class.tier)));
            let cwd = event.cwd.as_deref().unwrap_or("");
            let depth = spec
                .signals
                .iter()
                .filter_map(|s| match s.family {
                    Family::ScopeChange { depth } => Some(depth as usize),
                    _ => None,
                })
                .max()
                .unwrap_or(1);
            for (i, p) in class.paths.iter().enumerate() {
                // Kept as a digest, like targets: a path operand may be a URL with a password.
                let Some(s) = keys.scope(i, p, cwd, depth) else {
                    continue;
                };
                if let Err(at) = seg.scopes.binary_search_by(|x| x.as_bytes().cmp(&s.0[..])) {
                    if seg.scopes.len() < MAX_SCOPES {
                        seg.scopes.insert(at, s.as_str().to_string());
                    }
                }
            }
            if let Some(target) = event.target.as_deref().filter(|t| !t.is_empty()) {
                let key = keys.target(target);
                if let Some(pos) = seg.targets.iter().position(|(t, _)| same_key(t, &key)) {
                    let (t, n) = seg.targets.remove(pos);
                    seg.targets.push((t, n.saturating_add(1)));
                } else if seg.targets.len() >= MAX_TARGETS {
                    // The oldest goes; its text's room holds the new digest.
                    let (mut t, _) = seg.targets.remove(0);
                    t.clear();
                    t.push_str(key.as_str());
                    seg.targets.push((t, 1));
                } else {
                    seg.targets.push((key.as_str().to_string(), 1));
                }
            }
            state.recent_ms.push(now_ms);
            let horizon = spec
                .signals
                .iter()
                .filter_map(|s| match s.family {
                    Family::Rate { per_secs, .. } => Some(i64::from(per_secs) * 1000),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            state
                .recent_ms
                .retain(|t| *t > now_ms.saturating_sub(horizon) && *t <= now_ms);
            if state.recent_ms.len() > MAX_RECENT {
                let extra = state.recent_ms.len() - MAX_RECENT;
                state.recent_ms.drain(..extra);
            }
        }
        Phase::PostTool | Phase::PostToolFailure => {
            let failed =
                matches!(event.status, Some(Status::Failure)) || phase == Phase::PostToolFailure;
            state.failures = if failed {
                state.failures.saturating_add(1)
            } else {
                0
            };
        }
        _ => {}
    }
}

/// Telemetry names a signal needs that this runtime lacks (for the audit's "disabled" row).
pub fn missing_telemetry(spec: &Spec, runtime: Option<Runtime>) -> Vec<(String, Vec<Telemetry>)> {
    spec.signals
        .iter()
        .filter_map(|s| {
            let missing: Vec<Telemetry> = s
                .requires
                .iter()
                .copied()
                .filter(|t| runtime.is_none_or(|r| !r.provides(*t)))
                .collect();
            (!missing.is_empty()).then(|| (s.name.to_string(), missing))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digest a target is remembered by is the first 24 hex digits of its SHA-256, as
    /// stored states have always held it.
    #[test]
    fn target_key_is_the_truncated_sha256_hex() {
        for t in ["", "ls -la", "rm -rf /", "über ✓", &"x".repeat(200)] {
            let mut want = gate_spec::hash::sha256_hex(t.as_bytes());
            want.truncate(24);
            assert_eq!(target_key(t), want, "{t:?}");
        }
    }

    /// The index's hashed program lookup gives the table's own answer, for every program
    /// of every shipped spec's table and for names it does not hold.
    #[test]
    fn indexed_program_lookup_is_the_tables() {
        for compiled in gate_specs::ALL {
            let spec = compiled.ir();
            let table = CommandTable::build(spec);
            let index = Index::build(spec, &table);
            let mut names: Vec<&str> = table
                .by_program
                .iter()
                .map(|p| table.str(p.program))
                .collect();
            names.extend(["", "nope", "rmx", "r", "git2", "ls -la", "/bin/rm"]);
            for name in names {
                assert_eq!(
                    index.for_program(&table, name),
                    table.for_program(name),
                    "{}: {name:?}",
                    compiled.name
                );
            }
        }
    }

    /// A segment reset in place equals a new one.
    #[test]
    fn reset_segment_is_a_new_segment() {
        let spec = gate_specs::ALL[0].ir();
        let mut state = ObserverState {
            segment: Segment {
                opened_ms: Some(5),
                actions: 9,
                kind_counts: vec![3; spec.kinds.len() + 2],
                scopes: vec!["a".into(), "b".into()],
                targets: vec![("t".into(), 2)],
                max_tier: Some(1),
            },
            ..ObserverState::default()
        };
        reset_segment(spec, &mut state, 77);
        let fresh = Segment {
            opened_ms: Some(77),
            kind_counts: vec![0; spec.kinds.len()],
            ..Segment::default()
        };
        assert_eq!(state.segment, fresh);
    }

    /// The scope text as it was first built: components under cwd, the file dropped, the
    /// first `depth` kept, joined by `/`.
    fn scope_of(path: &str, cwd: &str, depth: usize) -> String {
        let rel = path
            .strip_prefix(cwd)
            .filter(|_| !cwd.is_empty())
            .map(|r| r.trim_start_matches('/'))
            .unwrap_or(path);
        let mut parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
        if parts.len() > 1 {
            parts.pop();
        }
        parts.truncate(depth.max(1));
        parts.join("/")
    }

    proptest::proptest! {
        /// The streamed scope digest is the digest of the joined scope text, and is absent
        /// exactly when that text is empty.
        #[test]
        fn scope_key_is_the_digest_of_the_scope_text(
            path in "[a-c/.]{0,12}",
            cwd in "(/?[a-c/]{0,6})?",
            depth in 0usize..4,
        ) {
            let text = scope_of(&path, &cwd, depth);
            let want = (!text.is_empty()).then(|| target_key(&text));
            let got = scope_key(&path, &cwd, depth).map(|k| k.as_str().to_string());
            proptest::prop_assert_eq!(got, want);
        }

        /// A memo asked for the same few texts again and again, and for many others between
        /// (so that slots are shared and replaced), answers every text with its digest, and
        /// every scope with [`scope_key`].
        #[test]
        fn a_memo_digest_is_the_digest(
            texts in proptest::collection::vec("[a-c/.]{0,6}|[ -~]{0,40}", 1..24),
            others in 0usize..4200,
            long in 4090usize..4100,
            cwd in "(/?[a-c/]{0,6})?",
            depth in 0usize..4,
        ) {
            let mut memo = DigestMemo::default();
            let long = "y".repeat(long);
            for round in 0..3 {
                for (i, t) in texts.iter().enumerate() {
                    proptest::prop_assert_eq!(memo.key(t.as_bytes()), Key::of(t.as_bytes()));
                    proptest::prop_assert_eq!(
                        memo.scope_key(t, &cwd, depth),
                        scope_key(t, &cwd, depth)
                    );
                    let other = format!("{round}-{i}-{}", others * (i + 1));
                    proptest::prop_assert_eq!(
                        memo.key(other.as_bytes()),
                        Key::of(other.as_bytes())
                    );
                }
                for k in 0..others {
                    let other = format!("other {k}");
                    proptest::prop_assert_eq!(
                        memo.key(other.as_bytes()),
                        Key::of(other.as_bytes())
                    );
                }
                proptest::prop_assert_eq!(memo.key(long.as_bytes()), Key::of(long.as_bytes()));
            }
        }
    }

    /// An engine's keys remember digests from its second evaluation on, and a remembered
    /// digest is the digest.
    #[test]
    fn remembered_keys_are_the_keys() {
        let mut keys = EventKeys::default();
        let mut plain = EventKeys::default();
        for round in 0..2 {
            for (i, t) in ["ls", "git status", "src/a/b.rs", "", "a/b/c/d"]
                .iter()
                .enumerate()
            {
                keys.clear();
                plain.clear();
                assert_eq!(keys.target(t), plain.target(t), "round {round}, {t:?}");
                for depth in 0..4 {
                    assert_eq!(
                        keys.scope(i, t, "/w", depth),
                        plain.scope(i, t, "/w", depth),
                        "round {round}, {t:?} at {depth}"
                    );
                }
            }
            keys.remember();
        }
        assert!(keys.memo.as_ref().is_some_and(|m| !m.digests.is_empty()));
    }
}
