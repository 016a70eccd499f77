//! Necessary conditions of staged command patterns, read once per pattern ([`Need`]) and once
//! per command of a line ([`Facts`]), so that a line tried against the many patterns of its
//! program (a hundred `rm` patterns on any `rm` line) runs the matcher only on the patterns
//! whose flags and literal words the line can satisfy.
//!
//! A pattern's first stage must match some command of the line ([`super::matches_in`]). That
//! command then holds every short flag the stage names (in a cluster, or through the
//! program's long equivalent), every long flag (`--name`, `--name=…`, or a cluster character
//! equivalent to it), every literal word the stage names (a glob without `*` or `?`
//! matches only the equal word), and among its words every byte of the stage's globs other
//! than `*` and `?` (a text glob's other bytes are literal). [`Need::admits`] is true
//! whenever some command has all of them: sets of ASCII flag characters, of the equivalent
//! long names and of bytes are exact, other long names and literal words are tested through
//! a 64-bit Bloom filter (no false "absent").
//! So a pattern that [`Need::admits`] rejects cannot match (proptest below; the table-wide
//! agreement is `tests/classify_index.rs`).

use gate_spec::commands::{Arg, Pattern};

use super::matching::{cluster, long_name};
use super::SimpleCommand;

/// The long names [`long_name`] gives equivalents for, each a bit of a name set.
const LONG_NAMES: [&str; 5] = ["recursive", "force", "symbolic", "in-place", "insecure"];

/// The short flags some program treats as equivalent to a long name.
const ALIASED: [char; 6] = ['r', 'R', 'f', 's', 'i', 'k'];

fn name_bit(name: &str) -> u8 {
    LONG_NAMES
        .iter()
        .position(|n| *n == name)
        .map_or(0, |i| 1 << i)
}

/// Two bits of a 64-bit Bloom filter for `text` in domain `tag` (FNV-1a).
fn bloom(tag: u8, text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in std::iter::once(tag).chain(text.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (1 << (h & 63)) | (1 << ((h >> 6) & 63))
}

/// Adds each byte to a 256-bit set.
fn add_bytes(set: &mut [u64; 4], bytes: impl Iterator<Item = u8>) {
    for b in bytes {
        set[usize::from(b >> 6)] |= 1 << (b & 63);
    }
}

const LONG: u8 = 1;
const WORD: u8 = 2;

/// What one simple command offers the flag and word tokens of a stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// ASCII short flags the command's options satisfy (in a cluster, or through the long
    /// equivalent of the flag for this program).
    short: u128,
    /// [`LONG_NAMES`] its options satisfy.
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
                        out.names |= name_bit(name);
                    }
                }
            } else if let Some(rest) = a.strip_prefix("--") {
                let name = rest.split_once('=').map_or(rest, |(n, _)| n);
                out.names |= name_bit(name);
                out.words |= bloom(LONG, name);
            }
        }
        for c in ALIASED {
            if long_name(&cmd.program, c).is_some_and(|n| out.names & name_bit(n) != 0) {
                out.short |= 1 << (c as u32);
            }
        }
        for a in &cmd.args {
            out.words |= bloom(WORD, a);
            add_bytes(&mut out.bytes, a.bytes());
        }
        out
    }
}

/// What the first stage of a staged pattern needs of the command it matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Need {
    short: u128,
    names: u8,
    words: u64,
    /// The literal bytes of its glob words: a text glob matches only a word holding each of
    /// its bytes other than `*` and `?`, so some word of the command holds each.
    bytes: [u64; 4],
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

    fn of_args<'a>(args: impl Iterator<Item = Arg<'a>>) -> Need {
        let mut need = Need::default();
        for token in args {
            match token {
                Arg::ShortFlag(c) if c.is_ascii() => need.short |= 1 << (c as u32),
                Arg::ShortFlag(_) => {}
                Arg::LongFlag(name) => match name_bit(name) {
                    0 if !name.contains('=') => need.words |= bloom(LONG, name),
                    0 => {}
                    bit => need.names |= bit,
                },
                Arg::Glob(g) => {
                    if !g.contains(['*', '?']) {
                        need.words |= bloom(WORD, g);
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

    /// Some command (its [`Facts`]) has everything the stage needs.
    pub fn admits(&self, facts: &[Facts]) -> bool {
        facts.iter().any(|f| {
            self.short & !f.short == 0
                && self.names & !f.names == 0
                && self.words & !f.words == 0
                && self.bytes.iter().zip(&f.bytes).all(|(n, h)| n & !h == 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::stage_matches;
    use super::*;
    use proptest::prelude::*;

    fn command(program: &str, args: &[&str]) -> SimpleCommand {
        SimpleCommand {
            program: program.to_string(),
            program_path: program.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            wrappers: Vec::new(),
            writes: Vec::new(),
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
        assert!(!need.admits(&[rm]));
        let rm_rf = Facts::of(&command("rm", &["--recursive", "-f", "/"]));
        assert!(need.admits(&[rm, rm_rf]));
        assert!(!need.admits(&[]));
        // A glob's literal bytes: `rm -rf build` holds no `/` for `rm -r /*`.
        let build = Facts::of(&command("rm", &["-rf", "build"]));
        let slash_star = Need::of_args(["-r", "/*"].map(token).into_iter());
        assert!(!slash_star.admits(&[build]));
        let tmp = Facts::of(&command("rm", &["-rf", "/tmp"]));
        assert!(slash_star.admits(&[tmp]));
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
                prop_assert!(need.admits(&[Facts::of(&cmd)]), "{:?} on {:?}", tokens, words);
            }
        }
    }
}
