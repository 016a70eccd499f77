//! What a command substitution's producer prints, when the program says it without the
//! line's data: a file-name word (`$(date +%F)`), the processes a selection picks out
//! (`$(lsof -ti:3000)`, `$(cat app.pid)`), the parent of a path (`$(dirname "$f")`). A
//! substitution over a known producer is bounded by it: `mv a.log logs/$(date +%F).log`
//! names a file in `logs/`, not a path anywhere, and `kill $(lsof -ti:3000)` the processes on
//! one port, not every process. The working directory, the project and `mktemp` are
//! resolved by `flow` (they need the line's places).

use std::borrow::Cow;

/// What a producer's output stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Yields {
    /// One word with no directory separator (a date, a user, a host, a commit).
    Word,
    /// Process ids of the processes a selection picks out (a port, a pid file, a narrow
    /// pattern): a kill of them is a kill of those, not of every process.
    Pids,
    /// The directory that holds the path given (`dirname`).
    Parent,
    /// The user running the line, by name (`whoami`, `id -un`) or id (`id -u`): the shell's
    /// own spelling of it, `$USER` or `$UID`, which an owner operand reads as that user
    /// (`chown -R $(whoami) ~/.npm`) and a path resolves as the home says.
    User,
}

/// One producer: its program, the words one of which it must be given (empty: none
/// needed), and what it prints. Each is exercised by `examples` below.
struct Producer {
    program: &'static str,
    needs: &'static [&'static str],
    yields: Yields,
    /// A line that uses it, run by the tests (`examples_are_bounded_by_their_producer`).
    #[cfg_attr(not(test), allow(dead_code))]
    example: &'static str,
}

/// The producers whose output the model knows by their program alone.
const PRODUCERS: &[Producer] = &[
    Producer {
        program: "date",
        needs: &[],
        yields: Yields::Word,
        example: "mv server.log logs/$(date +%F).log",
    },
    Producer {
        program: "whoami",
        needs: &[],
        yields: Yields::User,
        example: "cp a.txt backup-$(whoami).txt",
    },
    Producer {
        program: "hostname",
        needs: &[],
        yields: Yields::Word,
        example: "mv out.log out-$(hostname).log",
    },
    Producer {
        program: "uname",
        needs: &[],
        yields: Yields::Word,
        example: "cp bin/tool dist/tool-$(uname -m)",
    },
    Producer {
        program: "uuidgen",
        needs: &[],
        yields: Yields::Word,
        example: "mkdir runs/$(uuidgen)",
    },
    Producer {
        program: "nproc",
        needs: &[],
        yields: Yields::Word,
        example: "mv build.log build-$(nproc).log",
    },
    Producer {
        program: "basename",
        needs: &[],
        yields: Yields::Word,
        example: "cp src/a.rs out/$(basename src/a.rs)",
    },
    Producer {
        program: "id",
        needs: &["-u", "-un", "-nu"],
        yields: Yields::User,
        example: "mv x.log x-$(id -un).log",
    },
    Producer {
        program: "id",
        needs: &["-g", "-gn", "-ng"],
        yields: Yields::Word,
        example: "mv x.log x-$(id -gn).log",
    },
    Producer {
        program: "git",
        needs: &["--short", "--show-current", "--abbrev-ref", "describe"],
        yields: Yields::Word,
        example: "mv app.tar app-$(git rev-parse --short HEAD).tar",
    },
    Producer {
        program: "lsof",
        needs: &[],
        yields: Yields::Pids,
        example: "kill -9 $(lsof -ti:3000)",
    },
    Producer {
        program: "cat",
        needs: &[],
        yields: Yields::Pids,
        example: "kill $(cat app.pid)",
    },
    Producer {
        program: "pgrep",
        needs: &[],
        yields: Yields::Pids,
        example: "kill $(pgrep -f 'node server.js')",
    },
    Producer {
        program: "pidof",
        needs: &[],
        yields: Yields::Pids,
        example: "kill $(pidof my-dev-server)",
    },
    Producer {
        program: "fuser",
        needs: &[],
        yields: Yields::Pids,
        example: "kill $(fuser 8080/tcp)",
    },
    Producer {
        program: "jobs",
        needs: &["-p"],
        yields: Yields::Pids,
        example: "kill $(jobs -p)",
    },
    Producer {
        program: "dirname",
        needs: &[],
        yields: Yields::Parent,
        example: "rm -rf \"$(dirname build/cache/x)\"",
    },
];

/// The process id a pid producer stands for, as a kill target: one process (or the few a
/// selection picks out), never `-1`.
pub(super) const PID: &str = "4242";

/// What `program args` prints, when its program says it: a word, process ids, the parent
/// of a path. `None` when the producer is unknown or its selection is not bounded
/// (`lsof -t` with no `-i`, `pgrep node`, `cat list.txt`).
pub(super) fn value(program: &str, args: &[Cow<'_, str>]) -> Option<String> {
    let words: Vec<&str> = args.iter().map(|a| &**a).collect();
    let p = PRODUCERS.iter().find(|p| {
        p.program == program && (p.needs.is_empty() || words.iter().any(|w| p.needs.contains(w)))
    })?;
    match p.yields {
        Yields::Word => Some(match program {
            // A format's separators are kept: `+%Y/%m` is two levels, `+%F` one word.
            "date" => match words.iter().find_map(|w| w.strip_prefix('+')) {
                Some(format) => date_shape(format),
                None => "0".to_string(),
            },
            _ => "word".to_string(),
        }),
        Yields::Pids => bounded_pids(program, &words).then(|| PID.to_string()),
        // Another user named (`id -u jenkins`): their id, a word.
        Yields::User if words.iter().any(|w| !w.starts_with('-')) => Some("word".to_string()),
        Yields::User if program == "id" && !words.iter().any(|w| w.contains('n')) => {
            Some("$UID".to_string())
        }
        Yields::User => Some("$USER".to_string()),
        Yields::Parent => {
            let path = words.iter().rev().find(|w| !w.starts_with('-'))?;
            Some(format!("{}/..", path.trim_end_matches('/')))
        }
    }
}

/// A `date` format with each field printed as `0`: its separators (and so its directory
/// levels) as the real output has them.
fn date_shape(format: &str) -> String {
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            chars.next();
            if !out.ends_with('0') {
                out.push('0');
            }
        } else if c.is_whitespace() {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

/// Whether a pid producer selects particular processes: `lsof -t` with an `-i` address or a
/// file, a pid file, a narrow `pgrep`/`pidof` pattern, `fuser` on a port.
fn bounded_pids(program: &str, words: &[&str]) -> bool {
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    match program {
        // `-i` takes an optional value: attached (`-i:3000`, `-ti:3000`) or the next word.
        "lsof" => {
            let terse = words
                .iter()
                .any(|w| w.starts_with('-') && !w.starts_with("--") && lsof_flags(w).0);
            terse && lsof_address(words)
        }
        "cat" => {
            !operands.is_empty()
                && operands
                    .iter()
                    .all(|f| f.ends_with(".pid") || f.ends_with("/pid"))
        }
        "pgrep" | "pidof" => {
            !operands.is_empty()
                && !words
                    .iter()
                    .any(|w| matches!(*w, "-u" | "-U" | "-P" | "-g" | "-t"))
                && operands
                    .iter()
                    .all(|p| super::programs::narrow_process_pattern(p))
        }
        // The shell's own background jobs.
        "jobs" => true,
        "fuser" => {
            !operands.is_empty()
                && operands
                    .iter()
                    .all(|o| o.ends_with("/tcp") || o.ends_with("/udp") || o.parse::<u16>().is_ok())
        }
        _ => false,
    }
}

/// Where a process id stands in each line a stage passes on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PidAt {
    /// The line is a process id (`lsof -t`, `pgrep`).
    Whole,
    /// Field N (1-based, blank-separated) of a table row (`lsof -i:3000`: field 2).
    Field(usize),
}

/// What a pipeline of stages prints (`$(lsof -i:3000 | grep LISTEN | awk '{print $2}')`,
/// `$(pgrep -f 'node server.js' | head -1)`): the processes its first stage selects, when
/// that selection is bounded and every later stage only keeps some of its lines (`grep`,
/// `head`, `tail`, `sort`, `uniq`, `sed 1d`) or cuts a table's rows to the field that holds
/// the process id (`awk '{print $2}'` after `lsof -i`). `None` for any other pipeline: a
/// stage that changes what a line says, a table never cut to its ids, an unbounded source.
pub(super) fn pipeline<'c, 'a: 'c>(
    mut stages: impl Iterator<Item = (&'c str, &'c [Cow<'a, str>])>,
) -> Option<String> {
    let (program, args) = stages.next()?;
    let words: Vec<&str> = args.iter().map(|a| &**a).collect();
    let mut at = if value(program, args).as_deref() == Some(PID) {
        PidAt::Whole
    } else if program == "lsof" && lsof_address(&words) {
        // lsof's table: COMMAND PID USER …
        PidAt::Field(2)
    } else {
        return None;
    };
    for (program, args) in stages {
        let words: Vec<&str> = args.iter().map(|a| &**a).collect();
        if keeps_lines(program, &words) {
            continue;
        }
        let field = printed_field(program, &words)?;
        at = match at {
            PidAt::Whole if field == 1 => PidAt::Whole,
            PidAt::Field(f) if f == field => PidAt::Whole,
            _ => return None,
        };
    }
    (at == PidAt::Whole).then(|| PID.to_string())
}

/// Whether a filter passes on some of the lines it reads, each unchanged: one `grep`
/// pattern (no file, no `-o`), `head`/`tail` by lines, `sort`/`uniq` (no output file),
/// `sed 1d`.
fn keeps_lines(program: &str, words: &[&str]) -> bool {
    let line_count = |w: &&str| {
        let n = w
            .strip_prefix("-n")
            .or_else(|| w.strip_prefix("--lines="))
            .or_else(|| w.strip_prefix('-'))
            .unwrap_or(w);
        let n = n.strip_prefix('+').unwrap_or(n);
        *w == "-n" || (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    match program {
        "grep" | "egrep" | "fgrep" => {
            let (options, patterns): (Vec<&str>, Vec<&str>) =
                words.iter().partition(|w| w.starts_with('-'));
            patterns.len() == 1
                && options.iter().all(|o| {
                    o[1..]
                        .bytes()
                        .all(|b| matches!(b, b'E' | b'F' | b'i' | b'v' | b'w' | b'x'))
                })
        }
        "head" | "tail" => words.iter().all(line_count),
        "sort" => words
            .iter()
            .all(|w| w.len() > 1 && w[1..].bytes().all(|b| matches!(b, b'n' | b'u' | b'r'))),
        "uniq" => words.is_empty(),
        "sed" => matches!(words, ["1d"] | ["-e", "1d"]),
        // Runs of blanks squeezed to one: the same lines, fields as `cut -d ' '` reads them.
        "tr" => matches!(words, ["-s", " "]),
        _ => false,
    }
}

/// The field an `awk` program prints, when all it does is print one field of each line it
/// selects: `{print $2}`, `/LISTEN/ {print $2}`, `NR>1 {print $1}`.
fn printed_field(program: &str, words: &[&str]) -> Option<usize> {
    if program == "cut" {
        return cut_field(words);
    }
    if !matches!(program, "awk" | "gawk" | "mawk") {
        return None;
    }
    let [code] = words else {
        return None;
    };
    let body = code.trim().strip_suffix('}')?;
    let (pattern, action) = body.split_once('{')?;
    let pattern = pattern.trim();
    let selects = pattern.is_empty()
        || matches!(pattern, "NR>1" | "NR > 1")
        || (pattern.len() > 1
            && pattern.starts_with('/')
            && pattern.ends_with('/')
            && !pattern[1..pattern.len() - 1].contains('/'));
    let field = action
        .trim()
        .strip_prefix("print")?
        .trim()
        .strip_prefix('$')?;
    (selects && field.bytes().all(|b| b.is_ascii_digit()))
        .then(|| field.parse().ok())
        .flatten()
        .filter(|f| *f > 0)
}

/// The field `cut -d ' ' -f N` prints (`-d' '`, `-f2`, `--fields=2` alike): one field of
/// lines split at single blanks (after `tr -s ' '`).
fn cut_field(words: &[&str]) -> Option<usize> {
    let (mut delim, mut field) = (None, None);
    let mut k = 0;
    while let Some(w) = words.get(k) {
        k += 1;
        let mut value = |short: &str, long: &str| {
            if *w == short || *w == long {
                k += 1;
                words.get(k - 1).copied()
            } else {
                w.strip_prefix(short)
                    .filter(|v| !v.is_empty())
                    .or_else(|| w.strip_prefix(long).and_then(|v| v.strip_prefix('=')))
            }
        };
        if let Some(d) = value("-d", "--delimiter") {
            delim = Some(d);
        } else if let Some(f) = value("-f", "--fields") {
            field = f.parse::<usize>().ok();
        } else {
            return None;
        }
    }
    (delim == Some(" "))
        .then_some(field)
        .flatten()
        .filter(|f| *f > 0)
}

/// Whether `lsof` lists the files of one network address (`-i:3000`, `-i4TCP:3000`,
/// `-i tcp:8080`): the processes with it open, and no other.
fn lsof_address(words: &[&str]) -> bool {
    words.iter().enumerate().any(|(k, w)| {
        let (_, i, attached) = lsof_flags(w);
        i && (attached
            || words
                .get(k + 1)
                .is_some_and(|v| !v.starts_with('-') && v.contains(':')))
    })
}

/// An `lsof` short-option word: whether it has `-t`, `-i`, and a value attached to `-i`.
fn lsof_flags(w: &str) -> (bool, bool, bool) {
    let Some(body) = w.strip_prefix('-').filter(|b| !b.starts_with('-')) else {
        return (false, false, false);
    };
    match body.find('i') {
        Some(i) => (body[..i].contains('t'), true, i + 1 < body.len()),
        None => (body.contains('t'), false, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str) -> Option<String> {
        let words: Vec<Cow<'_, str>> = line.split(' ').skip(1).map(Cow::Borrowed).collect();
        value(line.split(' ').next().unwrap(), &words)
    }

    #[test]
    fn examples_are_bounded_by_their_producer() {
        use super::super::programs::testing::effects;
        for p in PRODUCERS {
            assert!(
                p.example.contains(&format!("$({}", p.program)),
                "{}",
                p.example
            );
            let e = effects(p.example);
            match p.yields {
                Yields::Pids => assert!(
                    e.contains(&"kill@none".to_string())
                        && !e.contains(&"kill_all@none".to_string()),
                    "{}: {e:?}",
                    p.example
                ),
                Yields::Word | Yields::Parent | Yields::User => assert!(
                    !e.is_empty() && !e.iter().any(|x| x.ends_with("@unknown")),
                    "{}: {e:?}",
                    p.example
                ),
            }
        }
    }

    #[test]
    fn backquotes_are_read_as_the_same_substitution() {
        use super::super::programs::testing::effects;
        for line in [
            "kill -9 `lsof -ti:3000`",
            "sudo kill `sudo lsof -t -i:3000`",
            "kill `cat app.pid`",
        ] {
            let e = effects(line);
            assert!(
                e.contains(&"kill@none".to_string()) && !e.contains(&"kill_all@none".to_string()),
                "{line}: {e:?}"
            );
        }
        assert!(effects("kill `pgrep node`").contains(&"kill_all@none".to_string()));
        assert!(effects("mv a.log `date +%F`.log").contains(&"move@source".to_string()));
    }

    #[test]
    fn a_name_filter_between_a_listing_and_xargs_bounds_the_set() {
        use super::super::programs::testing::effects;
        for line in [
            "git ls-files --others --exclude-standard | grep \\.orig$ | xargs rm -v",
            "git ls-files -o | grep -E '[.]rej$' | xargs rm -f",
            "find . -type f | grep '\\.pyc$' | xargs rm",
        ] {
            let e = effects(line);
            assert!(
                e.contains(&"delete@source".to_string())
                    && !e.iter().any(|x| x.starts_with("delete@project")),
                "{line}: {e:?}"
            );
        }
        for line in [
            "git ls-files --others --exclude-standard | xargs rm",
            "git ls-files -o | grep -v '\\.orig$' | xargs rm -f",
            "git ls-files -o | grep orig | xargs rm -f",
        ] {
            let e = effects(line);
            assert!(
                !e.contains(&"delete@source".to_string())
                    || e.iter().any(|x| x.starts_with("delete@project")),
                "{line}: {e:?}"
            );
        }
    }

    #[test]
    fn pipelines_keep_their_producers_processes() {
        use super::super::programs::testing::effects;
        let kill = |line: &str| effects(line).contains(&"kill@none".to_string());
        let kill_all = |line: &str| effects(line).contains(&"kill_all@none".to_string());
        // Lines kept or a table cut to its pid field: the processes on the port, no others,
        // in a substitution or through a variable assigned from one.
        for line in [
            "kill -9 $(lsof -n -i4TCP:3000 | grep LISTEN | awk '{print $2}')",
            "kill $(lsof -i:3000 | awk 'NR>1 {print $2}')",
            "kill $(lsof -i tcp:8080 | awk '/LISTEN/ {print $2}' | sort -u)",
            "kill -9 $(pgrep -f 'node server.js' | head -1)",
            "kill $(lsof -ti:3000 | head -n 1)",
            "kill $(lsof -ti:3000 | sed 1d | uniq)",
            "PID=$(lsof -n -i4TCP:3000 | grep LISTEN | awk '{print $2}'); if [[ $PID ]]; then kill -9 $PID; fi",
            "PID=$(pgrep -f uvicorn | tail -1); kill -9 $PID",
        ] {
            assert!(kill(line) && !kill_all(line), "{line}: {:?}", effects(line));
        }
        // Another field, a stage that rewrites lines, or an unbounded source: unknown.
        for line in [
            "kill -9 $(lsof -i:3000 | awk '{print $3}')",
            "kill -9 $(lsof -i:3000 | grep LISTEN)",
            "kill -9 $(ps aux | grep node | awk '{print $2}')",
            "kill -9 $(lsof -ti:3000 | sed s/^/-/)",
            "kill -9 $(lsof -ti:3000 | head -c 2)",
            "kill -9 $(pgrep node | head -1)",
            "PID=$(lsof -i:3000 | awk '{print $1}'); kill -9 $PID",
        ] {
            assert!(kill_all(line), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn words_pids_and_parents() {
        assert_eq!(of("date +%F").as_deref(), Some("0"));
        assert_eq!(of("date +%Y/%m/%d").as_deref(), Some("0/0/0"));
        assert_eq!(of("date").as_deref(), Some("0"));
        assert_eq!(of("whoami").as_deref(), Some("$USER"));
        assert_eq!(of("id -un").as_deref(), Some("$USER"));
        assert_eq!(of("id -u -n").as_deref(), Some("$USER"));
        assert_eq!(of("id -u").as_deref(), Some("$UID"));
        assert_eq!(of("id -u jenkins").as_deref(), Some("word"));
        assert_eq!(of("id -gn").as_deref(), Some("word"));
        assert_eq!(of("git rev-parse --short HEAD").as_deref(), Some("word"));
        assert_eq!(of("git status"), None);
        assert_eq!(of("lsof -ti:3000").as_deref(), Some(PID));
        assert_eq!(of("lsof -t -i:3000").as_deref(), Some(PID));
        assert_eq!(of("lsof -t -i tcp:8080").as_deref(), Some(PID));
        assert_eq!(of("lsof -t"), None);
        assert_eq!(of("lsof -ti"), None);
        assert_eq!(of("cat app.pid").as_deref(), Some(PID));
        assert_eq!(of("cat /run/nginx.pid").as_deref(), Some(PID));
        assert_eq!(of("cat pids.txt"), None);
        assert_eq!(of("pgrep -f node"), None);
        assert_eq!(of("pgrep -f uvicorn").as_deref(), Some(PID));
        assert_eq!(of("pgrep -u bob"), None);
        assert_eq!(of("pidof python3"), None);
        assert_eq!(of("fuser 8080/tcp").as_deref(), Some(PID));
        assert_eq!(of("fuser -m /mnt"), None);
        assert_eq!(of("dirname $d").as_deref(), Some("$d/.."));
        assert_eq!(of("basename src/a.rs").as_deref(), Some("word"));
        assert_eq!(of("dirname src/a/b.rs").as_deref(), Some("src/a/b.rs/.."));
    }
}
