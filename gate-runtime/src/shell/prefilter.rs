//! Necessary conditions of staged command patterns: the [`Need`] of each pattern (computed
//! when its spec's command table is built, `gate_spec::commands`) against the [`Facts`] of
//! each command of a line, so that a line tried against the many patterns of its program (a
//! hundred `rm` patterns on any `rm` line) runs the matcher only on the patterns whose flags
//! and literal words the line can satisfy.
//!
//! A pattern's first stage must match some command of the line ([`super::matches_in`]). That
//! command then holds every short flag the stage names (in a cluster, or through the
//! program's long equivalent), every long flag (`--name`, `--name=…`, or a cluster character
//! equivalent to it), every literal word the stage names (a glob without `*` or `?`
//! matches only the equal word), and among its words every byte of the stage's globs other
//! than `*` and `?` (a text glob's other bytes are literal). [`admits`] is true whenever
//! some command has all of them: sets of ASCII flag characters, of the equivalent long names
//! and of bytes are exact, other long names and literal words are tested through a 64-bit
//! Bloom filter (no false "absent"). So a pattern that [`admits`] rejects cannot match
//! (proptest below; the table-wide agreement is `tests/classify_index.rs` and
//! `tests/classify_needs.rs`).

pub use gate_spec::commands::Need;
use gate_spec::commands::{add_bytes, bloom, long_name_bit, BLOOM_LONG, BLOOM_WORD};

use super::matching::{cluster, long_name};
use super::{Parsed, SimpleCommand};

/// The short flags some program treats as equivalent to a long name.
const ALIASED: [char; 6] = ['r', 'R', 'f', 's', 'i', 'k'];

/// What one simple command offers the flag and word tokens of a stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// ASCII short flags the command's options satisfy (in a cluster, or through the long
    /// equivalent of the flag for this program).
    short: u128,
    /// [`gate_spec::commands::LONG_NAMES`] its options satisfy.
    names: u8,
    /// Bloom filter of its long option names (`--name[=…]` before a `--`) and of its words.
    words: u64,
    /// Every byte of its words (a set of 256 bits).
    bytes: [u64; 4],
}

impl Facts {
    pub fn of(cmd: &SimpleCommand) -> Facts {
        let end = cmd
            .args
            .iter()
            .position(|a| a == "--")
            .unwrap_or(cmd.args.len());
        let mut out = Facts::default();
        for a in &cmd.args[..end] {
            if let Some(flags) = cluster(a) {
                for f in flags.chars() {
                    if f.is_ascii() {
                        out.short |= 1 << (f as u32);
                    }
                    if let Some(name) = long_name(&cmd.program, f) {
                        out.names |= long_name_bit(name);
                    }
                }
            } else if let Some(rest) = a.strip_prefix("--") {
                let name = rest.split_once('=').map_or(rest, |(n, _)| n);
                out.names |= long_name_bit(name);
                out.words |= bloom(BLOOM_LONG, name);
            }
        }
        // An alias adds a flag only through a long name the options satisfy.
        for c in ALIASED.into_iter().filter(|_| out.names != 0) {
            if long_name(&cmd.program, c).is_some_and(|n| out.names & long_name_bit(n) != 0) {
                out.short |= 1 << (c as u32);
            }
        }
        for a in &cmd.args {
            out.words |= bloom(BLOOM_WORD, a);
            add_bytes(&mut out.bytes, a.bytes());
        }
        out
    }

    /// The command has everything `need` asks for.
    #[inline]
    pub fn has(&self, need: &Need) -> bool {
        need.short & !self.short == 0
            && need.names & !self.names == 0
            && need.words & !self.words == 0
            && need.bytes.iter().zip(&self.bytes).all(|(n, h)| n & !h == 0)
    }
}

/// Some command (its [`Facts`]) has everything the stage needs.
#[inline]
pub fn admits(need: &Need, facts: &[Facts]) -> bool {
    facts.iter().any(|f| f.has(need))
}

/// The [`Facts`] of a line's commands, read the first time a pattern's need is tested (a
/// line with no candidate pattern reads none), then kept for its other patterns. They are
/// kept in a caller's vector, so a classifier in repeated use allocates them once.
#[derive(Debug)]
pub struct LineFacts<'p, 'r> {
    commands: &'p [SimpleCommand<'p>],
    facts: &'r mut Vec<Facts>,
    read: bool,
}

impl<'p, 'r> LineFacts<'p, 'r> {
    /// The facts of `parsed`'s commands, to be read into `room` (cleared first) when needed.
    pub fn new(parsed: &'p Parsed, room: &'r mut Vec<Facts>) -> LineFacts<'p, 'r> {
        LineFacts {
            commands: &parsed.commands,
            facts: room,
            read: false,
        }
    }

    /// The line may satisfy a pattern with this need (always, for a pattern without one).
    #[inline]
    pub fn admit(&mut self, need: Option<&Need>) -> bool {
        let Some(need) = need else {
            return true;
        };
        if !self.read {
            self.read_facts();
        }
        admits(need, self.facts)
    }

    #[inline(never)]
    fn read_facts(&mut self) {
        self.facts.clear();
        self.facts.extend(self.commands.iter().map(Facts::of));
        self.read = true;
    }
}

#[cfg(test)]
mod tests {
    use super::super::stage_matches;
    use super::*;
    use gate_spec::commands::Arg;
    use proptest::prelude::*;

    fn command(program: &str, args: &[&str]) -> SimpleCommand<'static> {
        SimpleCommand {
            program: program.to_string().into(),
            program_path: program.to_string().into(),
            args: args.iter().map(|a| a.to_string().into()).collect(),
            wrappers: Vec::new(),
            writes: Vec::new(),
            stdin: None,
            env: Vec::new(),
            background: false,
            depth: 0,
            pipe_to: None,
        }
    }

    const PROGRAMS: [&str; 12] = [
        "rm", "cp", "mv", "ln", "git", "sed", "curl", "chmod", "grep", "scp", "ls", "tar",
    ];
    const WORDS: [&str; 34] = [
        "-rf",
        "-fr",
        "-R",
        "-r",
        "-f",
        "-s",
        "-i",
        "-k",
        "-x",
        "-é",
        "-fé",
        "-",
        "--",
        "--recursive",
        "--force",
        "--force=1",
        "--force-with-lease",
        "--forced",
        "--in-place=.bak",
        "--symbolic",
        "--insecure",
        "--name",
        "--name=v",
        "--a=b",
        "file",
        "r",
        "push",
        "origin",
        "/",
        "--=",
        "/tmp/x",
        "~/a.gate",
        "x.gate",
        "é.d",
    ];
    const TOKENS: [&str; 30] = [
        "-r",
        "-R",
        "-f",
        "-s",
        "-i",
        "-k",
        "-x",
        "-é",
        "--recursive",
        "--force",
        "--in-place",
        "--insecure",
        "--symbolic",
        "--name",
        "--force-with-lease",
        "--a=b",
        "file",
        "push",
        "origin",
        "/",
        "*",
        "p*",
        "?",
        "--",
        "/*",
        "~/*",
        "*.gate",
        "?.d",
        "*/x",
        "é*",
    ];

    fn token(t: &str) -> Arg<'_> {
        if let Some(name) = t.strip_prefix("--").filter(|n| !n.is_empty()) {
            Arg::LongFlag(name)
        } else if let Some(c) = t.strip_prefix('-').and_then(|f| f.chars().next()) {
            Arg::ShortFlag(c)
        } else {
            Arg::Glob(t)
        }
    }

    #[test]
    fn a_need_rejects_what_the_line_lacks() {
        let rm = Facts::of(&command("rm", &["foo.txt"]));
        let need = Need::of_args(["-r", "-f", "/"].map(token).into_iter());
        assert!(!admits(&need, &[rm]));
        let rm_rf = Facts::of(&command("rm", &["--recursive", "-f", "/"]));
        assert!(admits(&need, &[rm, rm_rf]));
        assert!(!admits(&need, &[]));
        // A glob's literal bytes: `rm -rf build` holds no `/` for `rm -r /*`.
        let build = Facts::of(&command("rm", &["-rf", "build"]));
        let slash_star = Need::of_args(["-r", "/*"].map(token).into_iter());
        assert!(!admits(&slash_star, &[build]));
        let tmp = Facts::of(&command("rm", &["-rf", "/tmp"]));
        assert!(admits(&slash_star, &[tmp]));
    }

    proptest! {
        /// Whenever the matcher says a stage matches a command, the stage's need admits the
        /// command's facts.
        #[test]
        fn a_need_never_rejects_a_match(
            program in proptest::sample::select(PROGRAMS.to_vec()),
            words in proptest::collection::vec(proptest::sample::select(WORDS.to_vec()), 0..7),
            tokens in proptest::collection::vec(proptest::sample::select(TOKENS.to_vec()), 0..4),
        ) {
            let cmd = command(program, &words);
            let args: Vec<Arg<'_>> = tokens.iter().map(|t| token(t)).collect();
            if stage_matches(program, args.iter().copied(), &cmd) {
                let need = Need::of_args(args.iter().copied());
                prop_assert!(admits(&need, &[Facts::of(&cmd)]), "{:?} on {:?}", tokens, words);
            }
        }
    }
}
