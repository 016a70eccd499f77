//! Every command pattern of a spec, parsed, flattened and indexed by program: what the
//! classifier matches shell commands against.
//!
//! The code generator builds a [`CommandTable`] at compile time and emits it as a static, so a
//! hook process parses no pattern. The table is *flat*: one string holding every text, and
//! arrays of plain records that refer to it and to each other by index. Such arrays contain
//! no pointers, so the static needs no load-time relocation and sits in read-only data, of
//! which a process touches only the pages it reads (the table of the spec in use, and of that
//! only the entries for the programs it sees). An interpreted spec builds the same table once
//! with [`CommandTable::build`]. The patterns as written are not here: the IR carries them
//! (in a compiled spec as literals, see `gate_spec::exec::CompiledSpec::build_ir`).
//!
//! The index makes classification cost depend on the patterns for the programs a command line
//! runs, not on the total: a pattern whose first stage names a program literally (`rm -r /`,
//! `curl * | sh`) can only match a line that runs that program.
//!
//! Beside each staged pattern the table holds its [`Need`]: the flags and literal words its
//! first stage needs of the command it matches. The classifier tests it against what each
//! command of a line offers (`gate_runtime::shell::Facts`) and tries the matcher only on the
//! patterns the line can satisfy; computing it here means a hook computes none.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::ir::{self, RuleId, Spec};
use crate::pattern::{is_literal_glob, parse_command, ArgPattern, CommandPattern};

/// A list of a table: borrowed from the binary in a compiled spec, owned when built at run
/// time.
pub type List<T> = Cow<'static, [T]>;

/// A range of [`CommandTable::text`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Str {
    pub start: u32,
    pub len: u32,
}

/// A range of one of a table's lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Slice {
    pub start: u32,
    pub len: u32,
}

impl Slice {
    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

/// One argument matcher (see [`ArgPattern`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ArgRec {
    ShortFlag(char),
    LongFlag(Str),
    Glob(Str),
}

/// One pipeline stage: a program glob and a range of [`CommandTable::args`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StageRec {
    pub program: Str,
    pub args: Slice,
}

/// One parsed pattern: a range of [`CommandTable::stages`], or a `raw:` glob.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PatternRec {
    Stages(Slice),
    Raw(Str),
}

/// The patterns of one rule: ranges of [`CommandTable::patterns`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RuleRec {
    pub commands: Slice,
    pub except_commands: Slice,
}

/// The patterns whose first stage names `program`: a range of [`CommandTable::refs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramRec {
    pub program: Str,
    pub refs: Slice,
}

/// One pattern of a rule: `commands[index]` of rule `rule`, or `except_commands[index]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PatternRef {
    pub rule: RuleId,
    pub except: bool,
    pub index: u16,
}

/// See the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandTable {
    /// Every text of the table, concatenated.
    pub text: Cow<'static, str>,
    /// Per rule, indexed by [`RuleId`].
    pub rules: List<RuleRec>,
    /// Per checkpoint, indexed by `CheckpointId`: the patterns of its `commands` and
    /// `except_commands` (not in the program index: a checkpoint's few patterns are tried on
    /// the command a tool result reports, see [`CommandTable::checkpoint_patterns`]).
    pub checkpoints: List<RuleRec>,
    pub patterns: List<PatternRec>,
    pub stages: List<StageRec>,
    pub args: List<ArgRec>,
    /// Sorted by program (byte order), for a binary search.
    pub by_program: List<ProgramRec>,
    pub refs: List<PatternRef>,
    /// `raw:` patterns and patterns whose first program is a glob: tried on every line.
    pub always: Slice,
    /// Parallel to [`patterns`](Self::patterns): the [`Need`] of each staged pattern
    /// (`Need::default()` for a `raw:` one, which has none; see [`CommandTable::need`]).
    /// An empty list means no need is known, and every candidate pattern is tried.
    pub needs: List<Need>,
}

/// The long names some program treats as equivalent to a short flag (`rm -r` and
/// `rm --recursive`), each a bit of [`Need::names`]; see [`long_name_bit`].
pub const LONG_NAMES: [&str; 5] = ["recursive", "force", "symbolic", "in-place", "insecure"];

/// The bit of `name` in a set of [`LONG_NAMES`] (0 for any other name).
pub fn long_name_bit(name: &str) -> u8 {
    LONG_NAMES
        .iter()
        .position(|n| *n == name)
        .map_or(0, |i| 1 << i)
}

/// [`bloom`] domain of long option names.
pub const BLOOM_LONG: u8 = 1;
/// [`bloom`] domain of words (arguments as written).
pub const BLOOM_WORD: u8 = 2;

/// Two bits of a 64-bit Bloom filter for `text` in domain `tag` (FNV-1a).
pub fn bloom(tag: u8, text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in std::iter::once(tag).chain(text.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (1 << (h & 63)) | (1 << ((h >> 6) & 63))
}

/// What the first stage of a staged pattern needs of the command it matches: every short
/// flag it names (an ASCII bit set), every long flag with a short equivalent somewhere
/// ([`LONG_NAMES`]), and, through a 64-bit Bloom filter ([`bloom`]), every other long flag
/// (without `=`) and every literal word (a glob without `*` or `?`).
///
/// A command can satisfy the stage only if it offers all of them; the runtime's `Facts` of a
/// command are exact for the first two sets and never miss a word in the third, so a need a
/// line's facts do not admit is a pattern that cannot match the line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Need {
    /// ASCII short flags (bit `c as u32`).
    pub short: u128,
    /// [`LONG_NAMES`] named as long flags.
    pub names: u8,
    /// Bloom filter of the other long names ([`BLOOM_LONG`]) and literal words
    /// ([`BLOOM_WORD`]).
    pub words: u64,
    /// The literal bytes of its glob words (a set of 256 bits): a text glob matches only a
    /// word holding each of its bytes other than `*` and `?`, so some word of the command
    /// holds each.
    pub bytes: [u64; 4],
}

/// Adds each byte to a 256-bit set (bit `b & 63` of word `b >> 6`).
pub fn add_bytes(set: &mut [u64; 4], bytes: impl Iterator<Item = u8>) {
    for b in bytes {
        set[usize::from(b >> 6)] |= 1 << (b & 63);
    }
}

impl Need {
    /// The need of a staged pattern; `None` for a `raw:` one (or one without stages).
    pub fn of(pattern: Pattern<'_>) -> Option<Need> {
        let Pattern::Stages(..) = pattern else {
            return None;
        };
        let stage = pattern.stages().next()?;
        Some(Need::of_args(stage.args()))
    }

    /// The need of a stage with these argument matchers.
    pub fn of_args<'a>(args: impl Iterator<Item = Arg<'a>>) -> Need {
        let mut need = Need::default();
        for token in args {
            match token {
                Arg::ShortFlag(c) if c.is_ascii() => need.short |= 1 << (c as u32),
                Arg::ShortFlag(_) => {}
                Arg::LongFlag(name) => match long_name_bit(name) {
                    0 if !name.contains('=') => need.words |= bloom(BLOOM_LONG, name),
                    0 => {}
                    bit => need.names |= bit,
                },
                Arg::Glob(g) => {
                    if !g.contains(['*', '?']) {
                        need.words |= bloom(BLOOM_WORD, g);
                    }
                    add_bytes(
                        &mut need.bytes,
                        g.bytes().filter(|b| !matches!(b, b'*' | b'?')),
                    );
                }
            }
        }
        need
    }
}

/// One argument matcher, borrowed from a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg<'t> {
    ShortFlag(char),
    LongFlag(&'t str),
    Glob(&'t str),
}

impl<'t> From<&'t ArgPattern> for Arg<'t> {
    fn from(a: &'t ArgPattern) -> Self {
        match a {
            ArgPattern::ShortFlag(c) => Arg::ShortFlag(*c),
            ArgPattern::LongFlag(s) => Arg::LongFlag(s),
            ArgPattern::Glob(s) => Arg::Glob(s),
        }
    }
}

/// One pipeline stage, borrowed from a table.
#[derive(Clone, Copy, Debug)]
pub struct Stage<'t> {
    pub program: &'t str,
    table: &'t CommandTable,
    args: Slice,
}

impl<'t> Stage<'t> {
    pub fn args(&self) -> impl Iterator<Item = Arg<'t>> + Clone + 't {
        let table = self.table;
        table.args[self.args.range()].iter().map(move |a| match *a {
            ArgRec::ShortFlag(c) => Arg::ShortFlag(c),
            ArgRec::LongFlag(s) => Arg::LongFlag(table.str(s)),
            ArgRec::Glob(s) => Arg::Glob(table.str(s)),
        })
    }
}

/// One parsed pattern, borrowed from a table.
#[derive(Clone, Copy, Debug)]
pub enum Pattern<'t> {
    Stages(&'t CommandTable, Slice),
    Raw(&'t str),
}

impl<'t> Pattern<'t> {
    /// The stages of a stages pattern (none for a `raw:` one).
    pub fn stages(&self) -> impl Iterator<Item = Stage<'t>> + Clone + 't {
        let (table, slice) = match *self {
            Pattern::Stages(table, slice) => (Some(table), slice),
            Pattern::Raw(_) => (None, Slice::default()),
        };
        table.into_iter().flat_map(move |table| {
            table.stages[slice.range()].iter().map(move |s| Stage {
                program: table.str(s.program),
                table,
                args: s.args,
            })
        })
    }
}

/// Appends to the table under construction.
struct Builder {
    text: String,
    /// Offsets of texts already in `text`, so repeated words are stored once.
    interned: BTreeMap<String, Str>,
    patterns: Vec<PatternRec>,
    stages: Vec<StageRec>,
    args: Vec<ArgRec>,
}

impl Builder {
    fn str(&mut self, s: &str) -> Str {
        if let Some(&at) = self.interned.get(s) {
            return at;
        }
        let at = Str {
            start: self.text.len() as u32,
            len: s.len() as u32,
        };
        self.text.push_str(s);
        self.interned.insert(s.to_string(), at);
        at
    }

    fn pattern(&mut self, p: &CommandPattern) {
        let rec = match p {
            CommandPattern::Raw(g) => PatternRec::Raw(self.str(g)),
            CommandPattern::Stages(stages) => {
                let start = self.stages.len() as u32;
                for stage in stages {
                    let program = self.str(&stage.program);
                    let args_start = self.args.len() as u32;
                    for a in &stage.args {
                        let rec = match a {
                            ArgPattern::ShortFlag(c) => ArgRec::ShortFlag(*c),
                            ArgPattern::LongFlag(s) => ArgRec::LongFlag(self.str(s)),
                            ArgPattern::Glob(s) => ArgRec::Glob(self.str(s)),
                        };
                        self.args.push(rec);
                    }
                    self.stages.push(StageRec {
                        program,
                        args: Slice {
                            start: args_start,
                            len: self.args.len() as u32 - args_start,
                        },
                    });
                }
                PatternRec::Stages(Slice {
                    start,
                    len: stages.len() as u32,
                })
            }
        };
        self.patterns.push(rec);
    }

    /// Parses and appends a rule's list; returns the range of its parsed patterns.
    fn list(&mut self, list: &[ir::Pattern]) -> Slice {
        let start = self.patterns.len() as u32;
        for source in list {
            // The spec was checked before it got here; a pattern that does not parse
            // cannot match and is left out of the parsed list.
            if let Ok(parsed) = parse_command(&source.text) {
                self.pattern(&parsed);
            }
        }
        Slice {
            start,
            len: self.patterns.len() as u32 - start,
        }
    }
}

/// The text `s` of a table's `text` (empty for a range outside it).
fn text_of(text: &str, s: Str) -> &str {
    let start = s.start as usize;
    text.get(start..start + s.len as usize).unwrap_or("")
}

impl CommandTable {
    /// Parses, flattens and indexes every command pattern of `spec`.
    pub fn build(spec: &Spec) -> CommandTable {
        let mut b = Builder {
            text: String::new(),
            interned: BTreeMap::new(),
            patterns: Vec::new(),
            stages: Vec::new(),
            args: Vec::new(),
        };
        let mut rules = Vec::with_capacity(spec.rules.len());
        for rule in &spec.rules {
            let commands = b.list(&rule.commands);
            let except_commands = b.list(&rule.except_commands);
            rules.push(RuleRec {
                commands,
                except_commands,
            });
        }
        // After the rules' patterns, so the rules' indices do not depend on checkpoints.
        let checkpoints: Vec<RuleRec> = spec
            .checkpoints
            .iter()
            .map(|c| RuleRec {
                commands: b.list(&c.commands),
                except_commands: b.list(&c.except_commands),
            })
            .collect();
        let mut by_program: BTreeMap<String, Vec<PatternRef>> = BTreeMap::new();
        let mut always = Vec::new();
        for (rule, rec) in rules.iter().enumerate() {
            for (except, slice) in [(false, rec.commands), (true, rec.except_commands)] {
                for (index, pattern) in b.patterns[slice.range()].iter().enumerate() {
                    let at = PatternRef {
                        rule: rule as RuleId,
                        except,
                        index: index as u16,
                    };
                    let program = match *pattern {
                        PatternRec::Stages(stages) if stages.len > 0 => {
                            let s = b.stages[stages.start as usize].program;
                            Some(&b.text[s.start as usize..(s.start + s.len) as usize])
                        }
                        _ => None,
                    };
                    match program.filter(|p| is_literal_glob(p)) {
                        Some(p) => by_program.entry(p.to_string()).or_default().push(at),
                        None => always.push(at),
                    }
                }
            }
        }
        let mut refs = Vec::new();
        let mut programs = Vec::with_capacity(by_program.len());
        for (program, list) in by_program {
            let start = refs.len() as u32;
            refs.extend(list);
            programs.push(ProgramRec {
                program: b.str(&program),
                refs: Slice {
                    start,
                    len: refs.len() as u32 - start,
                },
            });
        }
        let always_start = refs.len() as u32;
        refs.extend(always);
        let needs: Vec<Need> = b
            .patterns
            .iter()
            .map(|p| match *p {
                PatternRec::Stages(stages) => {
                    let first = b
                        .stages
                        .get(stages.start as usize)
                        .filter(|_| stages.len > 0);
                    first.map_or_else(Need::default, |s| {
                        Need::of_args(b.args[s.args.range()].iter().map(|a| match *a {
                            ArgRec::ShortFlag(c) => Arg::ShortFlag(c),
                            ArgRec::LongFlag(s) => Arg::LongFlag(text_of(&b.text, s)),
                            ArgRec::Glob(s) => Arg::Glob(text_of(&b.text, s)),
                        }))
                    })
                }
                PatternRec::Raw(_) => Need::default(),
            })
            .collect();
        CommandTable {
            text: Cow::Owned(b.text),
            rules: rules.into(),
            checkpoints: checkpoints.into(),
            patterns: b.patterns.into(),
            stages: b.stages.into(),
            args: b.args.into(),
            by_program: programs.into(),
            always: Slice {
                start: always_start,
                len: refs.len() as u32 - always_start,
            },
            refs: refs.into(),
            needs: needs.into(),
        }
    }

    /// A text of the table (empty for a range outside it, which a built table never has).
    pub fn str(&self, s: Str) -> &str {
        text_of(&self.text, s)
    }

    /// The index in [`patterns`](Self::patterns) of the pattern `at` refers to.
    fn pattern_index(&self, at: PatternRef) -> Option<usize> {
        let rule = self.rules.get(usize::from(at.rule))?;
        let list = if at.except {
            rule.except_commands
        } else {
            rule.commands
        };
        (u32::from(at.index) < list.len).then_some((list.start + u32::from(at.index)) as usize)
    }

    /// The [`Need`] of the staged pattern `at` refers to; `None` for a `raw:` pattern, for
    /// one without stages, or when the table holds no needs.
    pub fn need(&self, at: PatternRef) -> Option<&Need> {
        self.candidate(at)?.1
    }

    /// The pattern `at` refers to and its [`Need`] (see [`need`](Self::need)), found once.
    pub fn candidate(&self, at: PatternRef) -> Option<(Pattern<'_>, Option<&Need>)> {
        let i = self.pattern_index(at)?;
        Some(match *self.patterns.get(i)? {
            PatternRec::Stages(stages) => (
                Pattern::Stages(self, stages),
                self.needs.get(i).filter(|_| stages.len > 0),
            ),
            PatternRec::Raw(g) => (Pattern::Raw(self.str(g)), None),
        })
    }

    /// The patterns whose first stage names `program` literally.
    pub fn for_program(&self, program: &str) -> &[PatternRef] {
        match self
            .by_program
            .binary_search_by(|e| self.str(e.program).cmp(program))
        {
            Ok(i) => self
                .refs
                .get(self.by_program[i].refs.range())
                .unwrap_or(&[]),
            Err(_) => &[],
        }
    }

    /// The patterns that are tried on every line.
    pub fn always(&self) -> &[PatternRef] {
        self.refs.get(self.always.range()).unwrap_or(&[])
    }

    /// The pattern `at` refers to.
    pub fn pattern(&self, at: PatternRef) -> Option<Pattern<'_>> {
        Some(match *self.patterns.get(self.pattern_index(at)?)? {
            PatternRec::Stages(stages) => Pattern::Stages(self, stages),
            PatternRec::Raw(g) => Pattern::Raw(self.str(g)),
        })
    }

    /// Every pattern of one rule's `commands` (or `except_commands`), in order.
    pub fn rule_patterns(&self, rule: RuleId, except: bool) -> impl Iterator<Item = Pattern<'_>> {
        let len = self.rules.get(usize::from(rule)).map_or(0, |r| {
            if except {
                r.except_commands.len
            } else {
                r.commands.len
            }
        });
        (0..len).filter_map(move |index| {
            self.pattern(PatternRef {
                rule,
                except,
                index: index as u16,
            })
        })
    }

    /// Every pattern of one checkpoint's `commands` (or `except_commands`), in order.
    pub fn checkpoint_patterns(
        &self,
        checkpoint: ir::CheckpointId,
        except: bool,
    ) -> impl Iterator<Item = Pattern<'_>> {
        let list = self
            .checkpoints
            .get(usize::from(checkpoint))
            .map_or(Slice::default(), |c| {
                if except {
                    c.except_commands
                } else {
                    c.commands
                }
            });
        list.range().filter_map(move |i| {
            Some(match *self.patterns.get(i)? {
                PatternRec::Stages(stages) => Pattern::Stages(self, stages),
                PatternRec::Raw(g) => Pattern::Raw(self.str(g)),
            })
        })
    }

    /// No rule has a (parsed) command or exception pattern.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(rules: &str) -> Spec {
        let source = format!(
            "[machine]\nname = \"t\"\ninitial = \"idle\"\nkinds = [\"work\"]\n\n[[tier]]\nname = \"low\"\nmode = \"observe\"\n\n[[state]]\nname = \"idle\"\n\n{rules}"
        );
        let (spec, diags) = crate::compile(&source);
        spec.unwrap_or_else(|| panic!("test spec does not compile: {diags:?}\n{source}"))
    }

    #[test]
    fn checkpoint_patterns_are_parsed_into_the_table_after_the_rules() {
        let rules = "[[rule]]\nname = \"a\"\ntier = \"low\"\ncommands = [\"rm -r /\"]\n\n";
        let checkpoints = "[[checkpoint]]\nname = \"tagged\"\ncommands = [\"git tag v*\", \"raw:*release*\"]\nexcept_commands = [\"git tag -d *\"]\n";
        let with = CommandTable::build(&spec(&format!("{rules}{checkpoints}")));
        let without = CommandTable::build(&spec(rules));
        assert_eq!(
            with.rules, without.rules,
            "the rules' patterns keep their indices"
        );
        assert_eq!(
            with.for_program("git"),
            [],
            "checkpoints are not in the program index"
        );
        let texts = |except| {
            with.checkpoint_patterns(0, except)
                .map(|p| match p {
                    Pattern::Stages(..) => "stages",
                    Pattern::Raw(g) => g,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(false), ["stages", "*release*"]);
        assert_eq!(texts(true), ["stages"]);
        assert_eq!(with.checkpoint_patterns(1, false).count(), 0);
    }

    #[test]
    fn patterns_are_indexed_by_their_literal_program() {
        let spec = spec(
            "[[rule]]\nname = \"a\"\ntier = \"low\"\ncommands = [\"rm -r /\", \"git push --force\", \"rm -f x\"]\n\n\
             [[rule]]\nname = \"b\"\ntier = \"low\"\ncommands = [\"*sh -c *\", \"raw:*:(){*\"]\nexcept_commands = [\"git push --dry-run\"]\n",
        );
        let t = CommandTable::build(&spec);
        let at = |rule, except, index| PatternRef {
            rule,
            except,
            index,
        };
        assert_eq!(t.for_program("rm"), [at(0, false, 0), at(0, false, 2)]);
        assert_eq!(t.for_program("git"), [at(0, false, 1), at(1, true, 0)]);
        assert_eq!(t.for_program("sh"), []);
        assert_eq!(t.always(), [at(1, false, 0), at(1, false, 1)]);
        let Some(Pattern::Stages(..)) = t.pattern(at(0, false, 1)) else {
            panic!("a stages pattern")
        };
        let p = t.pattern(at(0, false, 1)).expect("in range");
        let stage = p.stages().next().expect("one stage");
        assert_eq!(stage.program, "git");
        assert_eq!(
            stage.args().collect::<Vec<_>>(),
            [Arg::Glob("push"), Arg::LongFlag("force")]
        );
        assert!(matches!(
            t.pattern(at(1, false, 1)),
            Some(Pattern::Raw("*:(){*"))
        ));
        assert!(t.pattern(at(1, false, 2)).is_none());
        assert!(t.pattern(at(7, false, 0)).is_none());
    }

    #[test]
    fn repeated_words_are_stored_once() {
        let spec =
            spec("[[rule]]\nname = \"a\"\ntier = \"low\"\ncommands = [\"rm -r /\", \"rm -f /\"]\n");
        let t = CommandTable::build(&spec);
        // `rm` names the first stage of both patterns and the program index's entry.
        assert_eq!(t.text.matches("rm").count(), 1, "{}", t.text);
        assert_eq!(t.text.matches('/').count(), 1, "{}", t.text);
    }
}
