//! Command-pattern matching (semantics in `gate_spec::pattern`) over a [`Parsed`] line.
//!
//! A stage matches a simple command when its program glob matches the command's basename and
//! its argument tokens match:
//! - glob tokens match distinct arguments in order (a subsequence, anything in between);
//! - flag tokens (`-x`, `--name`) are checked against the command's options wherever they
//!   stand before a `--`, so `rm -r -f` matches `rm -rf`, `rm -fr`, `rm -f -r`; one cluster
//!   may satisfy several short flags. For a few programs the usual long spelling of a short
//!   flag is equivalent (`rm -r` ≙ `--recursive` ≙ `-R`, `-f` ≙ `--force`; `git -f` ≙
//!   `--force`), so `rm -r -f` also matches `rm --recursive --force`. `--force` never
//!   matches `--force-with-lease`.
//!
//! Multi-stage patterns match a chain of commands linked by pipes; `raw:` patterns are a
//! text glob over the whole raw command string.

use gate_spec::commands::{Arg, Pattern};
use gate_spec::pattern::CommandPattern;

use super::{Parsed, SimpleCommand};
use crate::glob;

/// Does `pattern` match the command line (`parsed` is `parse(raw)`)?
pub fn matches(pattern: &CommandPattern, parsed: &Parsed, raw: &str) -> bool {
    match pattern {
        CommandPattern::Raw(g) => glob::text(g, raw),
        CommandPattern::Stages(stages) => stages_match(
            stages
                .iter()
                .map(|s| (s.program.as_ref(), s.args.iter().map(Arg::from))),
            parsed,
        ),
    }
}

/// [`matches`] for a pattern of a [`CommandTable`](gate_spec::commands::CommandTable).
pub fn matches_in(pattern: Pattern<'_>, parsed: &Parsed, raw: &str) -> bool {
    match pattern {
        Pattern::Raw(g) => glob::text(g, raw),
        Pattern::Stages(..) => {
            stages_match(pattern.stages().map(|s| (s.program, s.args())), parsed)
        }
    }
}

/// The first stage matches some command, and each further stage the command the previous
/// one pipes into.
fn stages_match<'a, S, A>(mut stages: S, parsed: &Parsed) -> bool
where
    S: Iterator<Item = (&'a str, A)> + Clone,
    A: Iterator<Item = Arg<'a>> + Clone,
{
    let Some((program, args)) = stages.next() else {
        return false;
    };
    parsed.commands.iter().enumerate().any(|(i, cmd)| {
        stage_matches(program, args.clone(), cmd) && chain_matches(stages.clone(), i, parsed)
    })
}

fn chain_matches<'a, S, A>(stages: S, from: usize, parsed: &Parsed) -> bool
where
    S: Iterator<Item = (&'a str, A)>,
    A: Iterator<Item = Arg<'a>>,
{
    let mut at = from;
    for (program, args) in stages {
        let Some(next) = parsed.commands.get(at).and_then(|c| c.pipe_to) else {
            return false;
        };
        match parsed.commands.get(next) {
            Some(cmd) if stage_matches(program, args, cmd) => at = next,
            _ => return false,
        }
    }
    true
}

/// Does one pipeline stage (a program glob and its argument tokens) match one simple
/// command?
pub fn stage_matches<'a>(
    program: &str,
    args: impl Iterator<Item = Arg<'a>>,
    cmd: &SimpleCommand,
) -> bool {
    if !glob::text(program, &cmd.program) {
        return false;
    }
    let options_end = cmd
        .args
        .iter()
        .position(|a| a == "--")
        .unwrap_or(cmd.args.len());
    let options = &cmd.args[..options_end];
    let mut next_arg = 0;
    for token in args {
        match token {
            Arg::ShortFlag(c) => {
                if !options.iter().any(|a| short_matches(&cmd.program, c, a)) {
                    return false;
                }
            }
            Arg::LongFlag(name) => {
                if !options.iter().any(|a| long_matches(&cmd.program, name, a)) {
                    return false;
                }
            }
            Arg::Glob(g) => {
                let Some(found) = cmd.args[next_arg..].iter().position(|a| glob::text(g, a)) else {
                    return false;
                };
                next_arg += found + 1;
            }
        }
    }
    true
}

/// Known equivalent long names of short flags, per program.
pub(super) fn long_name(program: &str, c: char) -> Option<&'static str> {
    Some(match (program, c) {
        ("rm" | "cp" | "chmod" | "chown" | "chgrp" | "grep" | "scp", 'r' | 'R') => "recursive",
        ("rm" | "cp" | "mv" | "ln" | "git", 'f') => "force",
        ("ln", 's') => "symbolic",
        ("sed", 'i') => "in-place",
        ("curl", 'k') => "insecure",
        _ => return None,
    })
}

pub(super) fn cluster(arg: &str) -> Option<&str> {
    (arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--")).then(|| &arg[1..])
}

fn long_value_matches(name: &str, arg: &str) -> bool {
    arg.strip_prefix("--").is_some_and(|rest| {
        rest == name || rest.strip_prefix(name).is_some_and(|v| v.starts_with('='))
    })
}

fn short_matches(program: &str, c: char, arg: &str) -> bool {
    let alias = long_name(program, c);
    if let Some(flags) = cluster(arg) {
        return flags
            .chars()
            .any(|f| f == c || (alias.is_some() && long_name(program, f) == alias));
    }
    alias.is_some_and(|name| long_value_matches(name, arg))
}

fn long_matches(program: &str, name: &str, arg: &str) -> bool {
    if long_value_matches(name, arg) {
        return true;
    }
    cluster(arg).is_some_and(|flags| flags.chars().any(|f| long_name(program, f) == Some(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_flags_in_clusters_and_long_equivalents() {
        assert!(short_matches("rm", 'r', "-fr"));
        assert!(short_matches("rm", 'r', "-R"));
        assert!(short_matches("rm", 'r', "--recursive"));
        assert!(short_matches("rm", 'f', "--force"));
        assert!(!short_matches("rm", 'r', "--force"));
        assert!(
            !short_matches("ls", 'r', "-R"),
            "no equivalence outside the table"
        );
        assert!(!short_matches("rm", 'r', "--"));
        assert!(!short_matches("rm", 'r', "-"));
        assert!(!short_matches("rm", 'r', "r"));
    }

    #[test]
    fn long_flags_bare_or_with_value() {
        assert!(long_matches("git", "force", "--force"));
        assert!(long_matches("git", "force", "--force=true"));
        assert!(long_matches("git", "force", "-f"));
        assert!(!long_matches("git", "force", "--force-with-lease"));
        assert!(!long_matches("git", "force", "--forced"));
        assert!(!long_matches("tar", "force", "-f"));
    }
}
