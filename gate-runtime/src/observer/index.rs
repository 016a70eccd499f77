//! The index a [`Classifier`](super::Classifier) derives on its second classification: the
//! literal bytes and path needs of the rules' globs and `raw:` patterns, the rules each tool
//! name and (phase, class) admit, and the command table's programs by hash. It only skips
//! work whose answer it knows.

use super::classify::HIT_COMMAND;
use crate::glob;
use gate_spec::commands::{CommandTable, Pattern, PatternRef};
use gate_spec::ir::{ActionClass, Phase, RuleId, Spec};
use std::cell::RefCell;

/// Most tool names whose rule acceptance an [`Index`] remembers.
const MAX_TOOL_NAMES: usize = 64;

/// A set of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct ByteSet(pub(super) [u64; 4]);

impl ByteSet {
    fn of(bytes: impl IntoIterator<Item = u8>) -> ByteSet {
        let mut set = ByteSet::default();
        for b in bytes {
            set.0[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        set
    }

    pub(super) fn has(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    pub(super) fn within(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }
}

/// A [`glob::PathNeed`] kept as a range of its glob's text, so that an [`Index`] borrows
/// nothing from the spec (a borrow in a cell would make the classifier invariant over the
/// spec's lifetime).
#[derive(Clone, Copy, Debug)]
pub(super) enum NeedAt {
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
    pub(super) fn get(self, glob_text: &str) -> glob::PathNeed<'_> {
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

/// What a [`Classifier`](super::Classifier) derives from its spec for repeated use.
#[derive(Debug)]
pub(super) struct Index {
    /// Per rule, the need of each of its `paths` globs and the bytes a path it matches holds
    /// ([`glob::PathNeed::literal_bytes`]).
    pub(super) paths: Vec<Vec<PathNeeds>>,
    /// Per rule, the same of each of its `except_paths` globs.
    pub(super) except_paths: Vec<Vec<PathNeeds>>,
    /// Per entry of the table's `always` list: for a `raw:` pattern, the bytes its literal
    /// characters need (a text glob matches only a line holding every one of them).
    pub(super) raw: Vec<Option<ByteSet>>,
    /// The `raw:` entries of `raw` grouped by one byte each needs (its least common literal
    /// byte), in byte order: a line lacking the byte skips the group. Every other entry of
    /// the `always` list is in the group of no byte (`None`), tried on every line.
    pub(super) raw_buckets: Vec<(Option<u8>, Vec<usize>)>,
    /// Per checkpoint, per target glob (matched as a text glob against the target and as a
    /// path glob against the paths): its path need and the bytes its literals need.
    pub(super) checkpoints: Vec<Vec<(NeedAt, ByteSet)>>,
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
    pub(super) fn build(spec: &Spec, table: &CommandTable) -> Index {
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
    pub(super) fn for_program<'t>(
        &self,
        table: &'t CommandTable,
        program: &str,
    ) -> &'t [PatternRef] {
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
    pub(super) fn candidates<R>(
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
pub(super) struct Candidates {
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
    /// (`hits` as [`Classifier::command_hits`](super::Classifier::command_hits) gives them;
    /// none when `None`). Every rule of the full candidate list that the rule loop would not
    /// skip for want of a command hit is among them (`tests/classify_cache.rs` compares with
    /// the unindexed loop).
    pub(super) fn visit<'a>(&'a self, hits: Option<&'a [u8]>) -> impl Iterator<Item = usize> + 'a {
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
pub(super) type Case = (Phase, Option<ActionClass>);

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
pub(super) fn rule_admits(
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
pub(super) type PathNeeds = (NeedAt, [u64; 4]);

#[cfg(test)]
mod tests {
    use super::*;

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
}
