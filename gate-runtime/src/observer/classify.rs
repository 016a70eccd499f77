//! Classification: the [`Classifier`] matches a tool event against the spec's rules (tools,
//! phases, classes, paths, command patterns, effects) into a [`Classification`].

use super::index::{rule_admits, ByteSet, Index, PathNeeds};
use crate::effects::{self, Effect, Where};
use crate::event::Event;
use crate::{glob, shell};
use gate_spec::commands::{CommandTable, Pattern, PatternRef};
use gate_spec::ir::{ActionClass, KindId, Phase, RoleId, RuleId, Spec, TierId};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};

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
            | "write_bash"
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
    /// Locations the action touches (file tools, patch paths, shell operands and redirects,
    /// the effects' resolved targets), normalised and relative to the project root where
    /// inside it ([`locations`](super::locations)).
    pub paths: Vec<String>,
    /// The shell parser stopped at a bound (the command was classified on what was parsed).
    pub truncated: bool,
    /// What the action does, and where ([`effects`](crate::effects)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Effect>,
    /// The digest of what the effects read from the disk in a live hook call (scripts,
    /// Makefiles, input files, git's configuration), `None` when nothing was read: a grant
    /// is bound to it (`driver::action_hash`), so that a changed file is asked about again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<String>,
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
    pub(super) index: OnceCell<Index>,
    /// A classification happened (the next one builds the index).
    used: Cell<bool>,
    /// Buffers one classification fills and the next reuses.
    scratch: RefCell<HitScratch>,
    /// Home and gate's own locations, read from the environment once.
    places: OnceCell<Where>,
    /// Whether effects may look at the file system ([`Where::disk`]).
    disk: Cell<bool>,
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
    /// Let effects look at the file system (a live hook call; see [`Where::disk`]).
    pub fn look_at_disk(&self) {
        self.disk.set(true);
    }

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
            places: OnceCell::new(),
            disk: Cell::new(false),
        }
    }

    /// A classifier whose home and gate locations are `at`'s (its `cwd` and `project` are
    /// replaced by each event's), instead of the environment's: for tests and replays of
    /// another machine's sessions.
    pub fn with_places(mut self, at: Where) -> Self {
        self.places = OnceCell::from(at);
        self
    }

    /// A classifier that counts `paths` (absolute files or directories) among gate's own
    /// locations, beside those the environment names: a policy read from a file (a draft)
    /// judges the agent, so the agent must not be able to edit it.
    pub fn with_gate_paths(mut self, paths: &[String]) -> Self {
        let mut at = self.places.take().unwrap_or_else(|| Where::from_env(""));
        at.gate.extend(
            paths
                .iter()
                .filter(|p| p.starts_with('/'))
                .map(|p| crate::effects::places::normalise(p)),
        );
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
        self.classify_as(event, None, out)
    }

    /// [`classify_into`](Self::classify_into) for an identity carrying `role`: a rule that
    /// names `roles` matches only an identity with one of them (an identity with no role
    /// never).
    pub fn classify_as(&self, event: &Event, role: Option<RoleId>, out: &mut Classification) {
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
        out.reads = None;
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
        // Every tool event is read into effects: for the rules over them and for gate's
        // self-protection, whatever the spec's rules say.
        let base = self.places.get_or_init(|| Where::from_env(""));
        let cwd = event.cwd.as_deref().unwrap_or("");
        let at = Where {
            cwd: cwd.to_string(),
            project: cwd.to_string(),
            home: base.home.clone(),
            gate: base.gate.clone(),
            disk: self.disk.get(),
        };
        if at.disk {
            effects::begin_reads();
            // A project's own command models (`.gate/commands/`), when it has them.
            effects::begin_project(&at.project);
            effects::effects_of_event_parsed(event, &at, parsed.as_ref(), &mut out.effects);
            effects::end_project();
            out.reads = effects::end_reads();
        } else {
            effects::effects_of_event_parsed(event, &at, parsed.as_ref(), &mut out.effects);
        }
        // Rules and checkpoints match the locations the paths name, however spelled.
        super::locations::locate(&mut out.paths, &out.effects, cwd, &base.home);
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
                    (event, role),
                    Some(index),
                    &mut have,
                    &mut rules.visit(hits),
                )
            }),
            None => self.match_rules(
                out,
                hits,
                (event, role),
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
        (event, role): (&Event, Option<RoleId>),
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
            if !rule.roles.is_empty() && !role.is_some_and(|r| rule.roles.contains(&r)) {
                continue;
            }
            if !rule.profiles.is_empty()
                && !rule
                    .profiles
                    .iter()
                    .any(|&p| event.profiles & 1u64.checked_shl(u32::from(p)).unwrap_or(0) != 0)
            {
                continue;
            }
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
