//! The command-pattern language: patterns over tokenised shell commands, not raw strings.
//!
//! A pattern is one or more *stages* joined by `|`. A stage is whitespace-separated tokens:
//! the first matches the program (its basename, after wrappers such as `sudo`, `env`,
//! `command`, `bash -c`, `xargs` have been peeled by the runtime's tokenizer); each further
//! token must match a distinct argument, in order, with anything in between (a subsequence).
//! Stages joined by `|` must match adjacent commands of one pipeline, e.g. `curl * | sh`.
//!
//! Argument tokens:
//! - `-x` (one dash, one character) matches a short-flag cluster containing `x`
//!   (`-rf`, `-fr`, `-x`);
//! - `--name` matches `--name` or `--name=…`;
//! - anything else is a *text glob* over the whole argument, e.g. `/`, `~*`, `*.sql`, `+*`
//!   (a refspec force push).
//!
//! Two glob flavours exist in specs, and both are matched at run time without compiling
//! anything (no regex is built in a hook process):
//! - *text globs* (tool names, command tokens, `raw:` patterns, subagent types, prompt
//!   targets): `*` matches any run of characters including `/`, `?` one character; every
//!   other character is literal;
//! - *path globs* (`paths` of a rule, `targets` of a tool checkpoint): `*` stays within one
//!   path component, `**` crosses components, `?`, `[abc]`, `{a,b}` as usual.
//!
//! A pattern that starts with `raw:` is a glob over the whole command string instead; it is
//! for shapes that are not commands at all (a fork bomb `:(){ :|:& };:`).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::ir::{RuleId, Spec};

/// Text inside a parsed pattern: borrowed from the binary in a compiled spec (the code
/// generator emits the parsed patterns as statics), owned when parsed at run time.
pub type Text = Cow<'static, str>;

/// A list inside a parsed pattern, borrowed or owned like [`Text`].
pub type List<T> = Cow<'static, [T]>;

/// One argument matcher.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgPattern {
    /// `-x`: a short flag, alone or in a cluster.
    ShortFlag(char),
    /// `--name`: a long flag, bare or with `=value`.
    LongFlag(Text),
    /// A glob over the argument.
    Glob(Text),
}

/// One pipeline stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagePattern {
    /// Glob over the program's basename.
    pub program: Text,
    pub args: List<ArgPattern>,
}

/// A parsed command pattern.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandPattern {
    /// Stages of one pipeline.
    Stages(List<StagePattern>),
    /// A glob over the raw command string.
    Raw(Text),
}

/// Why a pattern does not compile, with the byte range inside the pattern text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    pub message: String,
    pub offset: usize,
    pub len: usize,
}

/// Check a text glob: only `*` and `?` are special, so the only failure is an empty glob.
pub fn check_glob(glob: &str) -> Result<(), String> {
    if glob.is_empty() {
        return Err("an empty glob matches nothing".to_string());
    }
    Ok(())
}

/// Check a path glob (where `*` stays within one path component and `**` crosses them).
pub fn check_path_glob(glob: &str) -> Result<(), String> {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map(|_| ())
        .map_err(|e| e.kind().to_string())
}

/// Parse a command pattern.
pub fn parse_command(text: &str) -> Result<CommandPattern, PatternError> {
    if let Some(raw) = text.strip_prefix("raw:") {
        check_glob(raw).map_err(|message| PatternError {
            message,
            offset: 4,
            len: raw.len(),
        })?;
        return Ok(CommandPattern::Raw(raw.to_string().into()));
    }
    let mut stages = Vec::new();
    let mut offset = 0;
    for stage_text in text.split('|') {
        let stage_start = offset;
        offset += stage_text.len() + 1;
        // A token's offset is its distance from the start of the stage (it is a subslice), so
        // no substring search runs per token: hook processes parse every pattern at start-up.
        let base = stage_text.as_ptr() as usize;
        let tokens: Vec<(usize, &str)> = stage_text
            .split_whitespace()
            .map(|token| (stage_start + (token.as_ptr() as usize - base), token))
            .collect();
        let Some(&(program_at, program)) = tokens.first() else {
            return Err(PatternError {
                message: "empty pipeline stage: a stage needs at least a program".to_string(),
                offset: stage_start,
                len: stage_text.len().max(1),
            });
        };
        check_glob(program).map_err(|message| PatternError {
            message,
            offset: program_at,
            len: program.len(),
        })?;
        let mut args = Vec::new();
        for &(at, token) in &tokens[1..] {
            let arg = if let Some(long) = token.strip_prefix("--").filter(|l| !l.is_empty()) {
                ArgPattern::LongFlag(long.to_string().into())
            } else if let Some(short) = token
                .strip_prefix('-')
                .filter(|s| s.chars().count() == 1 && *s != "-")
            {
                ArgPattern::ShortFlag(short.chars().next().unwrap_or('-'))
            } else {
                check_glob(token).map_err(|message| PatternError {
                    message,
                    offset: at,
                    len: token.len(),
                })?;
                ArgPattern::Glob(token.to_string().into())
            };
            args.push(arg);
        }
        stages.push(StagePattern {
            program: program.to_string().into(),
            args: args.into(),
        });
    }
    Ok(CommandPattern::Stages(stages.into()))
}

/// Is this text glob a plain literal (no `*`, no `?`), i.e. does it match only itself?
pub fn is_literal_glob(glob: &str) -> bool {
    !glob.contains(['*', '?'])
}

/// Every command pattern of a spec, parsed, with an index by program name.
///
/// The code generator builds this at compile time and emits it as a static, so a hook
/// process parses no pattern; an interpreted spec builds it once with [`CommandTable::build`].
/// The index makes classification cost depend on the patterns for the programs a command line
/// actually runs, not on the total number of patterns: a pattern whose first stage names one
/// program literally (`rm -r /`, `curl * | sh`) can only match a line that runs that program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandTable {
    /// Per rule (indexed by [`RuleId`]): its `commands` and `except_commands`, parsed.
    pub rules: List<RuleCommands>,
    /// Patterns whose first stage names a program literally, grouped by that program and
    /// sorted by it (byte order), for a binary search.
    pub by_program: List<ProgramPatterns>,
    /// `raw:` patterns and patterns whose first program is a glob: tried on every line.
    pub always: List<PatternRef>,
}

/// The parsed command patterns of one rule, and the patterns as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleCommands {
    pub commands: List<CommandPattern>,
    pub except_commands: List<CommandPattern>,
    /// `Rule::commands` as written (text and span).
    pub command_sources: List<crate::ir::Pattern>,
    /// `Rule::except_commands` as written.
    pub except_sources: List<crate::ir::Pattern>,
}

/// The patterns whose first stage names `program`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramPatterns {
    pub program: Text,
    pub patterns: List<PatternRef>,
}

/// One pattern of a [`CommandTable`]: `rules[rule].commands[index]`, or
/// `rules[rule].except_commands[index]` when `except` is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PatternRef {
    pub rule: RuleId,
    pub except: bool,
    pub index: u16,
}

impl CommandTable {
    /// Parses every command pattern of `spec` and indexes it. A pattern that does not parse
    /// is left out (specs are checked before they are compiled, so none does).
    pub fn build(spec: &Spec) -> CommandTable {
        let parse_all = |list: &[crate::ir::Pattern]| -> Vec<CommandPattern> {
            list.iter()
                .filter_map(|p| parse_command(&p.text).ok())
                .collect()
        };
        let rules: Vec<RuleCommands> = spec
            .rules
            .iter()
            .map(|r| RuleCommands {
                commands: parse_all(&r.commands).into(),
                except_commands: parse_all(&r.except_commands).into(),
                command_sources: r.commands.clone().into(),
                except_sources: r.except_commands.clone().into(),
            })
            .collect();
        let mut by_program: std::collections::BTreeMap<&str, Vec<PatternRef>> =
            std::collections::BTreeMap::new();
        let mut always = Vec::new();
        for (rule, commands) in rules.iter().enumerate() {
            let lists = [
                (false, &commands.commands),
                (true, &commands.except_commands),
            ];
            for (except, list) in lists {
                for (index, pattern) in list.iter().enumerate() {
                    let at = PatternRef {
                        rule: rule as RuleId,
                        except,
                        index: index as u16,
                    };
                    match pattern {
                        CommandPattern::Stages(stages)
                            if stages.first().is_some_and(|s| is_literal_glob(&s.program)) =>
                        {
                            by_program.entry(&stages[0].program).or_default().push(at);
                        }
                        _ => always.push(at),
                    }
                }
            }
        }
        let by_program: Vec<ProgramPatterns> = by_program
            .into_iter()
            .map(|(program, patterns)| ProgramPatterns {
                program: program.to_string().into(),
                patterns: patterns.into(),
            })
            .collect();
        CommandTable {
            rules: rules.into(),
            by_program: by_program.into(),
            always: always.into(),
        }
    }

    /// Removes what the table carries from `spec`: the command patterns as written. A
    /// compiled spec embeds its IR this way, so a hook process decodes none of the (many)
    /// pattern texts; [`CommandTable::restore_sources`] puts them back without copying text.
    pub fn strip_sources(spec: &mut Spec) {
        for rule in &mut spec.rules {
            rule.commands.clear();
            rule.except_commands.clear();
        }
    }

    /// Undoes [`CommandTable::strip_sources`] on a spec decoded from stripped bytes: the
    /// pattern texts are borrowed from the table (a static in a compiled spec).
    pub fn restore_sources(&'static self, spec: &mut Spec) {
        let borrowed = |list: &'static [crate::ir::Pattern]| -> Vec<crate::ir::Pattern> {
            list.iter()
                .map(|p| crate::ir::Pattern {
                    text: Cow::Borrowed(p.text.as_ref()),
                    span: p.span,
                })
                .collect()
        };
        for (rule, commands) in spec.rules.iter_mut().zip(self.rules.iter()) {
            rule.commands = borrowed(&commands.command_sources);
            rule.except_commands = borrowed(&commands.except_sources);
        }
    }

    /// The patterns whose first stage names `program` literally.
    pub fn for_program(&self, program: &str) -> &[PatternRef] {
        match self
            .by_program
            .binary_search_by(|e| e.program.as_ref().cmp(program))
        {
            Ok(i) => &self.by_program[i].patterns,
            Err(_) => &[],
        }
    }

    /// The pattern `at` refers to.
    pub fn pattern(&self, at: PatternRef) -> Option<&CommandPattern> {
        let rule = self.rules.get(usize::from(at.rule))?;
        let list = if at.except {
            &rule.except_commands
        } else {
            &rule.commands
        };
        list.get(usize::from(at.index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_globs() {
        let p = parse_command("rm -r --force /*").unwrap();
        let CommandPattern::Stages(stages) = p else {
            panic!("expected stages")
        };
        assert_eq!(stages[0].program, "rm");
        assert_eq!(
            *stages[0].args,
            [
                ArgPattern::ShortFlag('r'),
                ArgPattern::LongFlag("force".into()),
                ArgPattern::Glob("/*".into())
            ]
        );
    }

    #[test]
    fn pipeline_stages() {
        let p = parse_command("curl * | sh").unwrap();
        let CommandPattern::Stages(stages) = p else {
            panic!("expected stages")
        };
        assert_eq!(stages.len(), 2);
        assert_eq!(stages[1].program, "sh");
    }

    #[test]
    fn bad_pattern_points_inside_the_pattern() {
        let e = parse_command("curl | ").unwrap_err();
        assert_eq!(e.offset, 6);
        assert!(e.message.contains("empty"));
    }

    #[test]
    fn double_dash_is_a_literal_argument() {
        let p = parse_command("git checkout -- *").unwrap();
        let CommandPattern::Stages(stages) = p else {
            panic!("expected stages")
        };
        assert_eq!(
            *stages[0].args,
            [
                ArgPattern::Glob("checkout".into()),
                ArgPattern::Glob("--".into()),
                ArgPattern::Glob("*".into())
            ]
        );
    }

    #[test]
    fn raw_patterns() {
        assert_eq!(
            parse_command("raw:*:(){*").unwrap(),
            CommandPattern::Raw("*:(){*".into())
        );
    }
}
