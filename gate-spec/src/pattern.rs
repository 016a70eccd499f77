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

use serde::{Deserialize, Serialize};

/// One argument matcher.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgPattern {
    /// `-x`: a short flag, alone or in a cluster.
    ShortFlag(char),
    /// `--name`: a long flag, bare or with `=value`.
    LongFlag(String),
    /// A glob over the argument.
    Glob(String),
}

/// One pipeline stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagePattern {
    /// Glob over the program's basename.
    pub program: String,
    pub args: Vec<ArgPattern>,
}

/// A parsed command pattern.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandPattern {
    /// Stages of one pipeline.
    Stages(Vec<StagePattern>),
    /// A glob over the raw command string.
    Raw(String),
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

/// Whether a path glob matches a path: the one path matcher of the spec language, used by
/// the hook (`gate_runtime::glob::path`) and by everything that checks or explains a spec.
/// `*` stays within one path component and `**` crosses them; `?`, `[…]` classes (`[!…]`
/// negated, `a-z` ranges), `{a,b}` alternatives, `\` escapes and a leading `!` negation.
pub fn path_glob(glob: &str, path: &str) -> bool {
    glob_match::glob_match(glob, path)
}

/// Check a path glob against the grammar [`path_glob`] reads: classes closed with ranges in
/// order, alternatives balanced, no `\` left dangling. What passes is matched as written.
pub fn check_path_glob(glob: &str) -> Result<(), String> {
    if glob.is_empty() {
        return Err("an empty glob matches nothing".to_string());
    }
    let b = glob.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 == b.len() => return Err("dangling '\\' at the end".to_string()),
            b'\\' => i += 1,
            b'[' => i = class_end(b, i)?,
            b'{' => depth += 1,
            b'}' if depth == 0 => return Err("'}' closes no '{'".to_string()),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    if depth > 0 {
        return Err("unclosed alternation; missing '}'".to_string());
    }
    Ok(())
}

/// The index of the `]` closing the class opened at `open`, its ranges checked.
fn class_end(b: &[u8], open: usize) -> Result<usize, String> {
    let mut j = open + 1;
    if matches!(b.get(j), Some(b'!' | b'^')) {
        j += 1;
    }
    let first = j;
    while j < b.len() && (b[j] != b']' || j == first) {
        if b[j] == b'-' && j > first && j + 1 < b.len() && b[j + 1] != b']' && b[j - 1] > b[j + 1] {
            return Err(format!(
                "invalid range; '{}' > '{}'",
                char::from(b[j - 1]),
                char::from(b[j + 1])
            ));
        }
        j += 1;
    }
    if j >= b.len() {
        return Err("unclosed character class; missing ']'".to_string());
    }
    Ok(j)
}

/// Parse a command pattern.
pub fn parse_command(text: &str) -> Result<CommandPattern, PatternError> {
    if let Some(raw) = text.strip_prefix("raw:") {
        check_glob(raw).map_err(|message| PatternError {
            message,
            offset: 4,
            len: raw.len(),
        })?;
        return Ok(CommandPattern::Raw(raw.to_string()));
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
                ArgPattern::LongFlag(long.to_string())
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
                ArgPattern::Glob(token.to_string())
            };
            args.push(arg);
        }
        stages.push(StagePattern {
            program: program.to_string(),
            args,
        });
    }
    Ok(CommandPattern::Stages(stages))
}

/// Is this text glob a plain literal (no `*`, no `?`), i.e. does it match only itself?
pub fn is_literal_glob(glob: &str) -> bool {
    !glob.contains(['*', '?'])
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
    fn path_globs_are_checked_by_the_grammar_their_matcher_reads() {
        for good in [
            "src/**",
            "**/*.{rs,toml}",
            "{a,{b,c}}/x",
            "[!.]*",
            "[a-z]?.rs",
            "[]]x",
            "a\\*b",
            "!tests/**",
        ] {
            assert_eq!(check_path_glob(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("src/[a-", "unclosed character class"),
            ("[unclosed", "unclosed character class"),
            ("[z-a]", "invalid range"),
            ("{a,b", "unclosed alternation"),
            ("a}", "closes no"),
            ("x\\", "dangling"),
            ("", "empty"),
        ] {
            let e = check_path_glob(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
        // What the check passes, the matcher reads as meant.
        assert!(path_glob("**/*.{rs,toml}", "a/b/Cargo.toml"));
        assert!(path_glob("[a-z]?.rs", "ab.rs"));
        assert!(!path_glob("src/*", "src/a/b.rs"));
        assert!(path_glob("src/**", "src/a/b.rs"));
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
