//! Option grammars of programs, as static data, and a getopt_long reader over them: short
//! bundles (`-rf`), short options with attached or separate values (`-n5`, `-n 5`), long
//! options with `=value` or a separate value, unambiguous prefixes of long options
//! (`--rec` for `--recursive`, as getopt_long and git accept), and `--` ending options.

use std::borrow::Cow;

/// One program's options. Long names are written without dashes.
#[derive(Clone, Copy, Debug)]
pub struct Grammar {
    /// Short options that take no value.
    pub short: &'static str,
    /// Short options that take a value (`-o FILE`, `-oFILE`).
    pub short_value: &'static str,
    /// Long options that take no value.
    pub long: &'static [&'static str],
    /// Long options that take a value (`--output FILE`, `--output=FILE`).
    pub long_value: &'static [&'static str],
    /// Options after the first operand are operands (POSIX order, as `find`, `ssh`, `sh`,
    /// interpreters and wrappers read them); otherwise options may follow operands (GNU).
    pub posix: bool,
}

/// An option found on a command line: its canonical name (one character for a short option,
/// the full long name for a long one, even when it was abbreviated) and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt<'a> {
    pub name: Cow<'static, str>,
    pub value: Option<Cow<'a, str>>,
}

/// A command line read through a [`Grammar`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args<'a> {
    pub opts: Vec<Opt<'a>>,
    pub operands: Vec<Cow<'a, str>>,
    /// Options the grammar does not know (kept, by their spelling without dashes). Unknown
    /// short options are taken as flags; an unknown long option as a flag, its `=value` kept.
    pub unknown: Vec<Cow<'a, str>>,
    /// What the options carry, as a command model's data says (`("body", "d|data")`): the
    /// roles an analyser reads options by (see [`Args::role`]).
    pub roles: &'static [(&'static str, &'static str)],
}

impl<'a> Args<'a> {
    /// Whether option `name` (a short letter or a full long name) was given.
    pub fn has(&self, name: &str) -> bool {
        self.opts.iter().any(|o| o.name == name)
    }

    /// Whether any of the names was given.
    pub fn any(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.has(n))
    }

    /// The last value of option `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.opts
            .iter()
            .rev()
            .find(|o| o.name == name)
            .and_then(|o| o.value.as_deref())
    }

    /// The role the data gives option `name` (`body` for `data`), when it gives one.
    pub fn role_of(&self, name: &str) -> Option<&'static str> {
        self.roles
            .iter()
            .find(|(_, names)| names.split('|').any(|n| n == name))
            .map(|(role, _)| *role)
    }

    /// Every option given that carries `role`, in order.
    pub fn role<'s>(&'s self, role: &'s str) -> impl Iterator<Item = &'s Opt<'a>> + 's {
        self.opts
            .iter()
            .filter(move |o| self.role_of(&o.name) == Some(role))
    }

    /// Whether an option carrying `role` was given.
    pub fn has_role(&self, role: &str) -> bool {
        self.role(role).next().is_some()
    }

    /// Every value of the options carrying `role`, in order.
    pub fn role_values<'s>(&'s self, role: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.role(role).filter_map(|o| o.value.as_deref())
    }

    /// The last value of the options carrying `role`.
    pub fn role_value<'s>(&'s self, role: &'s str) -> Option<&'s str> {
        self.role_values(role).last()
    }

    /// Every value of options named in `names`, in order.
    pub fn values<'s>(&'s self, names: &'s [&'s str]) -> impl Iterator<Item = &'s str> + 's {
        self.opts
            .iter()
            .filter(move |o| names.contains(&&*o.name))
            .filter_map(|o| o.value.as_deref())
    }
}

/// How a program's option parser reads its words, beyond what its [`Grammar`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// getopt_long: short bundles, and a long option may be abbreviated to any unambiguous
    /// prefix (`--rec` for `--recursive`): coreutils, git.
    Gnu,
    /// Short bundles, long options spelled in full only: Go's cobra/pflag (kubectl, helm,
    /// docker, gh), Python's argparse with `allow_abbrev=False`, most modern CLIs.
    Exact,
    /// Go's `flag` package: one or two dashes before every option name (`-chdir=x`,
    /// `--chdir x`), no bundles, no abbreviations (terraform, nomad, vault).
    Go,
}

/// The long option a spelling stands for: an exact name, else (when `abbrev`) the only name
/// it is a prefix of. `None` when unknown or ambiguous (getopt_long refuses both).
fn long_name_as(g: &Grammar, spelled: &str, abbrev: bool) -> Option<(&'static str, bool)> {
    let all = g
        .long
        .iter()
        .map(|n| (*n, false))
        .chain(g.long_value.iter().map(|n| (*n, true)));
    let mut found = None;
    for (name, takes) in all {
        if name == spelled {
            return Some((name, takes));
        }
        if abbrev && name.starts_with(spelled) && !spelled.is_empty() {
            if found.is_some() {
                // Ambiguous: still, when every candidate agrees on taking a value, treat it
                // as the first (the effect is read from the set of names anyway).
                return None;
            }
            found = Some((name, takes));
        }
    }
    found
}

/// Read `words` (the arguments after the program name) through `g`.
pub fn read<'a>(g: &Grammar, words: &[Cow<'a, str>]) -> Args<'a> {
    read_as(g, Style::Gnu, words)
}

/// Read `words` through `g` as a parser of `style` does.
pub fn read_as<'a>(g: &Grammar, style: Style, words: &[Cow<'a, str>]) -> Args<'a> {
    read_with(g, style, words, Extras::default())
}

/// What a few programs' parsers read beyond getopt's grammar.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extras<'e> {
    /// Characters that, after one dash and alone, make an operand, not options (`chmod -x
    /// f`: the mode `-x`).
    pub dash_operands: &'e str,
    /// Short options whose value is optional and only ever attached (getopt's `p::`:
    /// `mysql -pSECRET`; `-p` alone asks).
    pub optional: &'e str,
}

/// Whether `w` is one dash and then only characters of `chars` (`-x`, `-rwx` for chmod's
/// `rwxXstugo,+-=`): an operand spelled like options.
fn dash_operand(w: &str, chars: &str) -> bool {
    !chars.is_empty()
        && w.len() > 1
        && w.starts_with('-')
        && !w.starts_with("--")
        && w[1..].chars().all(|c| chars.contains(c))
}

/// Read `words` through `g` as a parser of `style` does, with the program's [`Extras`].
pub fn read_with<'a>(
    g: &Grammar,
    style: Style,
    words: &[Cow<'a, str>],
    extras: Extras<'_>,
) -> Args<'a> {
    let Extras {
        dash_operands,
        optional,
    } = extras;
    let mut out = Args::default();
    let abbrev = style == Style::Gnu;
    let mut k = 0;
    let mut only_operands = false;
    while let Some(word) = words.get(k) {
        k += 1;
        if only_operands {
            out.operands.push(word.clone());
            continue;
        }
        let w: &str = word;
        if w == "--" {
            only_operands = true;
            continue;
        }
        if dash_operand(w, dash_operands) {
            out.operands.push(word.clone());
            if g.posix {
                only_operands = true;
            }
            continue;
        }
        let long = match style {
            Style::Go if w.len() > 1 => w.strip_prefix("--").or_else(|| w.strip_prefix('-')),
            _ => w.strip_prefix("--"),
        };
        if let Some(long) = long {
            let (spelled, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let found = long_name_as(g, spelled, abbrev).or_else(|| {
                // Go's flag package reads `-n` as the option `n` too.
                let mut one = spelled.chars();
                match (style, one.next(), one.next()) {
                    (Style::Go, Some(c), None) if g.short_value.contains(c) => {
                        Some((short_name(g, c)?, true))
                    }
                    (Style::Go, Some(c), None) if g.short.contains(c) => {
                        Some((short_name(g, c)?, false))
                    }
                    _ => None,
                }
            });
            match found {
                Some((name, true)) => {
                    let value = match inline {
                        Some(v) => Some(slice(word, w.len() - v.len())),
                        None => {
                            k += 1;
                            words.get(k - 1).cloned()
                        }
                    };
                    out.opts.push(Opt {
                        name: Cow::Borrowed(name),
                        value,
                    });
                }
                Some((name, false)) => out.opts.push(Opt {
                    name: Cow::Borrowed(name),
                    value: inline.map(|v| slice(word, w.len() - v.len())),
                }),
                None => out.unknown.push(slice(word, w.len() - long.len())),
            }
            continue;
        }
        if w.len() > 1 && w.starts_with('-') {
            let bytes: Vec<char> = w[1..].chars().collect();
            let mut i = 0;
            while let Some(&c) = bytes.get(i) {
                i += 1;
                if optional.contains(c) {
                    let rest: String = bytes[i..].iter().collect();
                    out.opts.push(Opt {
                        name: Cow::Owned(c.to_string()),
                        value: (!rest.is_empty()).then_some(Cow::Owned(rest)),
                    });
                    break;
                }
                if g.short_value.contains(c) {
                    let rest: String = bytes[i..].iter().collect();
                    let value = if rest.is_empty() {
                        k += 1;
                        words.get(k - 1).cloned()
                    } else {
                        Some(Cow::Owned(rest))
                    };
                    out.opts.push(Opt {
                        name: Cow::Owned(c.to_string()),
                        value,
                    });
                    break;
                }
                if !g.short.contains(c) {
                    out.unknown.push(Cow::Owned(c.to_string()));
                }
                out.opts.push(Opt {
                    name: Cow::Owned(c.to_string()),
                    value: None,
                });
            }
            continue;
        }
        out.operands.push(word.clone());
        if g.posix {
            only_operands = true;
        }
    }
    out
}

/// The static spelling of the short option `c` in `g` (for Go's one-letter flags).
fn short_name(g: &Grammar, c: char) -> Option<&'static str> {
    let at = g.short.find(c).map(|i| &g.short[i..i + c.len_utf8()]);
    at.or_else(|| {
        g.short_value
            .find(c)
            .map(|i| &g.short_value[i..i + c.len_utf8()])
    })
}

fn slice<'a>(word: &Cow<'a, str>, from: usize) -> Cow<'a, str> {
    match word {
        Cow::Borrowed(s) => Cow::Borrowed(&s[from..]),
        Cow::Owned(s) => Cow::Owned(s[from..].to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RM: Grammar = Grammar {
        short: "fiIrRdv",
        short_value: "",
        long: &[
            "force",
            "interactive",
            "recursive",
            "dir",
            "verbose",
            "no-preserve-root",
            "preserve-root",
            "one-file-system",
        ],
        long_value: &[],
        posix: false,
    };

    fn words(s: &str) -> Vec<Cow<'static, str>> {
        s.split_whitespace()
            .map(|w| Cow::Owned(w.to_string()))
            .collect()
    }

    #[test]
    fn bundles_prefixes_and_double_dash() {
        let a = read(&RM, &words("-rf --no-pres x -- -y"));
        assert!(a.has("r") && a.has("f") && a.has("no-preserve-root"));
        assert_eq!(a.operands, vec!["x", "-y"]);
        let a = read(&RM, &words("--rec --forc dir"));
        assert!(a.has("recursive") && a.has("force"));
        assert_eq!(a.operands, vec!["dir"]);
        // `--pre` is a prefix of one name only: preserve-root.
        assert!(read(&RM, &words("--pre")).has("preserve-root"));
        // Ambiguous prefixes are unknown, as getopt_long refuses them.
        let a = read(&RM, &words("--in x"));
        assert!(a.has("interactive"));
        let a = read(&RM, &words("--xyz x"));
        assert_eq!(a.unknown, vec!["xyz"]);
        const TWO: Grammar = Grammar {
            short: "",
            short_value: "",
            long: &["force", "format"],
            long_value: &[],
            posix: false,
        };
        assert_eq!(read(&TWO, &words("--fo")).unknown, vec!["fo"]);
        assert!(read(&TWO, &words("--forc")).has("force"));
    }

    #[test]
    fn values_attached_separate_and_inline() {
        const SORT: Grammar = Grammar {
            short: "nru",
            short_value: "ok",
            long: &["numeric-sort", "reverse", "unique"],
            long_value: &["output", "key"],
            posix: false,
        };
        let a = read(&SORT, &words("-nofile in"));
        assert_eq!(a.value("o"), Some("file"));
        assert_eq!(a.operands, vec!["in"]);
        let a = read(&SORT, &words("-o out in --out=x --k 2"));
        assert_eq!(a.value("o"), Some("out"));
        assert_eq!(a.value("output"), Some("x"));
        assert_eq!(a.value("key"), Some("2"));
        assert_eq!(a.operands, vec!["in"]);
    }

    #[test]
    fn posix_order_stops_at_the_first_operand() {
        const SH: Grammar = Grammar {
            short: "ceix",
            short_value: "o",
            long: &[],
            long_value: &[],
            posix: true,
        };
        let a = read(&SH, &words("-e script.sh -c x"));
        assert_eq!(a.operands, vec!["script.sh", "-c", "x"]);
    }

    #[test]
    fn optional_values_are_attached_or_absent() {
        const MYSQL: Grammar = Grammar {
            short: "vB",
            short_value: "eu",
            long: &[],
            long_value: &[],
            posix: false,
        };
        const P: Extras<'static> = Extras {
            dash_operands: "",
            optional: "p",
        };
        let a = read_with(&MYSQL, Style::Gnu, &words("-uroot -psecret shop"), P);
        assert_eq!(a.value("p"), Some("secret"));
        assert_eq!(a.value("u"), Some("root"));
        assert_eq!(a.operands, vec!["shop"]);
        let a = read_with(&MYSQL, Style::Gnu, &words("-p shop -vpx"), P);
        assert!(a.has("p") && a.has("v"));
        assert_eq!(a.operands, vec!["shop"]);
        assert_eq!(a.value("p"), Some("x"));
        // Without it, `-psecret` is a bundle whose `e` takes `cret`.
        assert_eq!(read(&MYSQL, &words("-psecret")).value("e"), Some("cret"));
    }
}
