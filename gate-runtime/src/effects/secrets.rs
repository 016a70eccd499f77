//! Secrets as data, and what a line does with one: which programs print a secret, which
//! variables hold one and which service a credential belongs to (tables with examples), and,
//! along a shell line, whether a secret a command reads reaches the transcript (`reveal`)
//! or the network by any carrier (a pipe, a substitution, an argument or header, a variable,
//! a file the line wrote from it: `send` at `secrets`).

use gate_spec::effect::{Act, Place};

use super::shell::in_substitution;
use super::Effect;
use crate::shell::{Parsed, SimpleCommand};

mod tables;

use tables::{
    Printer, HOST_VARIABLE_PARTS, LOOPBACK, NOT_SECRET_VARIABLES, PRINTERS, QUIET, QUIET_WITH,
    SECRET_VARIABLE_PARTS, SECRET_VARIABLE_WORDS, SHOWS_FILES, TO_STDOUT, TRANSMITTERS, UPLOADS,
    VARIABLE_HOMES,
};

use super::places::{self, Where};

/// What a dump of the whole environment is called in an effect.
const ENVIRONMENT: &str = "environment";

/// A secret a command holds: what it is, and the service it is a credential for.
#[derive(Clone, Debug)]
struct Secret {
    /// A path, `$NAME`, `environment`, or the command that prints it.
    what: String,
    /// The hosts it is used with, when gate knows them.
    home: &'static [&'static str],
    /// A secret-named variable of the environment whose service gate does not know.
    variable: bool,
}

/// What a line has done with secrets so far.
#[derive(Default)]
pub(super) struct Line {
    /// Per command (by index), the secret it reads or is fed.
    held: Vec<(usize, Secret)>,
    /// Files the line wrote from a secret (a copy, an archive, a redirect).
    files: Vec<String>,
    /// Variables the line set from a secret.
    vars: Vec<(String, Secret)>,
}

/// How many files and variables a line tracks (a bound).
const MAX_TRACKED: usize = 32;

impl Line {
    /// After command `i`'s effects (from `from` in `out`) are in: what it reads of secrets,
    /// whether that reaches the transcript (`reveal`) or the network (`send` at `secrets`,
    /// or `reveal` at `remote` for a credential gate cannot place), and what it passes on
    /// (files it writes, variables it sets, its output).
    pub(super) fn after(
        &mut self,
        parsed: &Parsed<'_>,
        i: usize,
        (cwd, oldpwd, at): (&str, Option<&str>, &Where),
        from: usize,
        out: &mut Vec<Effect>,
    ) {
        let cmd = &parsed.commands[i];
        uploads(cmd, cwd, oldpwd, at, out);
        // A public key or certificate a model sends (`send@$*` of `id_rsa.pub`) is no secret.
        for e in &mut out[from..] {
            if e.act == Act::Send && e.place == Place::Secrets && is_public(&e.target) {
                e.place = Place::Remote;
            }
        }
        // A file the line wrote from a secret is one.
        let copies: Vec<Effect> = out[from..]
            .iter()
            .filter(|e| matches!(e.act, Act::Read | Act::Send) && self.files.contains(&e.target))
            .map(|e| Effect {
                act: Act::Read,
                place: Place::Secrets,
                target: e.target.clone(),
            })
            .collect();
        out.extend(copies);
        let own = shown_file(cmd, cwd, oldpwd, at)
            .map(|what| {
                let secret = Secret {
                    what,
                    home: &[],
                    variable: false,
                };
                (secret, true)
            })
            .or_else(|| own_secret(cmd, &out[from..]));
        let shown = own
            .as_ref()
            .filter(|s| s.1 || s.0.what == ENVIRONMENT && selects_secrets(parsed, i));
        if let Some(s) = shown {
            if reaches_transcript(parsed, i) {
                out.push(Effect {
                    act: Act::Reveal,
                    place: Place::Secrets,
                    target: s.0.what.clone(),
                });
            }
        }
        let own = own.map(|(s, _)| s);
        let fed = parsed
            .pipes
            .iter()
            .filter(|(_, b)| *b == i)
            .find_map(|(a, _)| self.held_by(*a));
        self.carried(parsed, i, own.as_ref(), fed.as_ref(), from, out);
        let held = own.or(fed);
        if held.is_some() {
            // What it writes from the secret is a copy of it.
            for e in &out[from..] {
                let writes = matches!(e.act, Act::Write | Act::Overwrite);
                if writes
                    && e.place != Place::Secrets
                    && !e.target.is_empty()
                    && self.files.len() < MAX_TRACKED
                {
                    self.files.push(e.target.clone());
                }
            }
        }
        // A variable set from a substitution that holds a secret (`t=$(gh auth token)`), or
        // from a secret variable (`T=$GITHUB_TOKEN`), holds it.
        for a in parsed.assigns.iter().filter(|a| a.by == i) {
            let from_sub = parsed.commands[..i]
                .iter()
                .enumerate()
                .rev()
                .take_while(|(_, c)| in_substitution(c))
                .find_map(|(k, _)| self.held_by(k));
            let from_var = variables(&a.value).find_map(|n| self.secret_variable(n));
            if let Some(s) = from_sub.or(from_var) {
                if self.vars.len() < MAX_TRACKED {
                    self.vars.push((a.name.to_string(), s));
                }
            }
        }
        if let Some(s) = held {
            self.held.push((i, s));
        }
    }

    /// The secret command `k` read or was fed.
    fn held_by(&self, k: usize) -> Option<Secret> {
        self.held
            .iter()
            .find(|(c, _)| *c == k)
            .map(|(_, s)| s.clone())
    }

    /// The secret a variable named `name` holds: one the line set, or a secret-named one.
    fn secret_variable(&self, name: &str) -> Option<Secret> {
        if let Some((_, s)) = self.vars.iter().rev().find(|(n, _)| n == name) {
            return Some(s.clone());
        }
        is_secret_variable(name).then(|| Secret {
            what: format!("${name}"),
            home: home_of(name),
            variable: home_of(name).is_empty(),
        })
    }

    /// A transmitter that sends a secret: its own read, what a pipe feeds it, a substitution
    /// or a variable among its words or input. Its own service's credential sent there, or
    /// anything sent to this machine, is no send of a secret.
    fn carried(
        &self,
        parsed: &Parsed<'_>,
        i: usize,
        own: Option<&Secret>,
        fed: Option<&Secret>,
        from: usize,
        out: &mut Vec<Effect>,
    ) {
        let cmd = &parsed.commands[i];
        if !TRANSMITTERS.contains(&&*cmd.program)
            && !super::programs::generic::sends(&cmd.program, &cmd.args)
        {
            return;
        }
        let sends = out[from..]
            .iter()
            .any(|e| e.act == Act::Send && e.place == Place::Remote);
        let reaches = sends
            || out[from..]
                .iter()
                .any(|e| e.act == Act::Fetch && e.place == Place::Remote);
        if !reaches {
            return;
        }
        let mut carried: Vec<Secret> = Vec::new();
        // What it reads or is fed goes out only when it sends data (`curl -T`, `nc`).
        if sends {
            carried.extend(own.cloned());
            carried.extend(fed.cloned());
        }
        // A substitution's output is among its words.
        for (k, _) in parsed.commands[..i]
            .iter()
            .enumerate()
            .rev()
            .take_while(|(_, c)| in_substitution(c))
        {
            carried.extend(self.held_by(k));
        }
        let words = cmd
            .args
            .iter()
            .map(|a| &**a)
            .chain(cmd.stdin.as_deref())
            .chain(cmd.env.iter().map(|(_, v)| &**v));
        for w in words {
            carried.extend(variables(w).filter_map(|n| self.secret_variable(n)));
            // `ssh -o SendEnv=AWS_SECRET_ACCESS_KEY host`
            if let Some(names) = w.strip_prefix("SendEnv=") {
                carried.extend(
                    names
                        .split([' ', ','])
                        .filter_map(|n| self.secret_variable(n)),
                );
            }
        }
        if carried.is_empty() {
            return;
        }
        let host = host_of(cmd);
        // A destination only a variable names: the service the variable is named for.
        let service = host
            .as_deref()
            .is_none_or(|h| h.starts_with('$'))
            .then(|| service_variable(parsed, cmd))
            .flatten();
        for s in carried {
            let home = host.as_deref().is_some_and(|h| {
                LOOPBACK.contains(&h)
                    || s.home
                        .iter()
                        .any(|d| h == *d || h.ends_with(&format!(".{d}")))
            }) || service.is_some_and(|prefix| of_service(&s, prefix));
            if home {
                continue;
            }
            let (act, place, target) = if s.variable {
                (Act::Reveal, Place::Remote, host.clone().unwrap_or_default())
            } else {
                (Act::Send, Place::Secrets, s.what)
            };
            out.push(Effect { act, place, target });
        }
    }
}

/// An upload the command model does not read as one ([`UPLOADS`]): the local files it names
/// are read, and sent.
fn uploads(
    cmd: &SimpleCommand<'_>,
    cwd: &str,
    oldpwd: Option<&str>,
    at: &Where,
    out: &mut Vec<Effect>,
) {
    let operands = || {
        cmd.args
            .iter()
            .map(|a| &**a)
            .filter(|a| !a.starts_with('-'))
    };
    // The entry whose path the operands spell, and where the path starts.
    let found = UPLOADS
        .iter()
        .filter(|u| u.program == cmd.program)
        .find_map(|u| {
            (0..=cmd.args.len())
                .find(|&k| {
                    let mut words = operands().skip(k);
                    u.path.iter().all(|w| words.next() == Some(*w))
                })
                .map(|k| (u, k))
        });
    let Some((u, start)) = found else {
        return;
    };
    let mut read = |file: &str| {
        let (place, target) = places::place_of(file, cwd, oldpwd, at);
        out.push(Effect {
            act: Act::Read,
            place,
            target,
        });
    };
    if u.file_options.is_empty() {
        let rest = operands().skip(start + u.path.len());
        let n = rest.clone().count();
        rest.take(n.saturating_sub(1)).for_each(&mut read);
    } else {
        for o in u.file_options {
            if let Some(v) = option_value(&cmd.args, o).filter(|v| !v.is_empty()) {
                read(v);
            }
        }
    }
    out.push(Effect {
        act: Act::Send,
        place: Place::Remote,
        target: String::new(),
    });
}

/// A secret file whose content a subcommand of [`SHOWS_FILES`] prints (`git show
/// HEAD:.env`): its operands after the subcommand, a revision's `REV:` taken off.
fn shown_file(
    cmd: &SimpleCommand<'_>,
    cwd: &str,
    oldpwd: Option<&str>,
    at: &Where,
) -> Option<String> {
    let mut operands = cmd
        .args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-'));
    let sub = operands.next()?;
    if !SHOWS_FILES
        .iter()
        .any(|(p, s, _)| *p == cmd.program && *s == sub)
    {
        return None;
    }
    operands.find_map(|w| {
        let file = w.split_once(':').map_or(w, |(_, f)| f);
        let (place, target) = places::place_of(file, cwd, oldpwd, at);
        (place == Place::Secrets && !file.is_empty() && !is_public(&target)).then_some(target)
    })
}

/// The secret command `cmd` reads itself (its effects are `mine`), and whether it prints it:
/// a secret file's content, a program that prints a secret, a secret variable echoed, the
/// whole environment.
fn own_secret(cmd: &SimpleCommand<'_>, mine: &[Effect]) -> Option<(Secret, bool)> {
    let file = |what: &str| Secret {
        what: what.to_string(),
        home: &[],
        variable: false,
    };
    if let Some(p) = PRINTERS.iter().find(|p| prints(p, cmd)) {
        return Some((
            Secret {
                what: p.name(),
                home: p.home,
                variable: false,
            },
            true,
        ));
    }
    let program = &*cmd.program;
    let words = || cmd.args.iter().map(|a| &**a);
    // The whole environment: `env`, `printenv`, `export -p`, `set`, `declare -x`.
    let only = (cmd.args.len() == 1).then(|| &*cmd.args[0]);
    let dumps = matches!(program, "env" | "printenv" | "set" | "export") && cmd.args.is_empty()
        || matches!(program, "export" | "declare" | "typeset")
            && matches!(only, Some("-p" | "-x" | "-px" | "-xp"));
    if dumps {
        return Some((file(ENVIRONMENT), false));
    }
    // A secret variable printed (`printenv GITHUB_TOKEN`, `echo "$AWS_SECRET_ACCESS_KEY"`).
    let named = match program {
        "printenv" => words()
            .find(|w| is_secret_variable(w))
            .map(|w| w.to_string()),
        "echo" | "printf" | "print" => words()
            .flat_map(variables)
            .find(|n| is_secret_variable(n))
            .map(str::to_string),
        _ => None,
    };
    if let Some(name) = named {
        return Some((
            Secret {
                what: format!("${name}"),
                home: home_of(&name),
                variable: home_of(&name).is_empty(),
            },
            true,
        ));
    }
    let read = mine.iter().find(|e| {
        e.act == Act::Read
            && e.place == Place::Secrets
            && !e.target.is_empty()
            && !is_public(&e.target)
    })?;
    Some((file(&read.target), prints_content(cmd)))
}

impl Printer {
    /// The secret's name in an effect: the program and its path (`gh auth token`).
    fn name(&self) -> String {
        let mut s = self.program.to_string();
        for w in self.path {
            s.push(' ');
            s.push_str(w);
        }
        s
    }
}

/// Whether `cmd` is the printer `p`.
fn prints(p: &Printer, cmd: &SimpleCommand<'_>) -> bool {
    if cmd.program != p.program {
        return false;
    }
    let operands = || {
        cmd.args
            .iter()
            .map(|a| &**a)
            .filter(|a| !a.starts_with('-'))
    };
    // Where the path starts among the operands (adjacent words); its last word may be a
    // resource written with its name (`kubectl get secret/db`).
    let at = (0..=cmd.args.len()).find(|&k| {
        let mut words = operands().skip(k);
        p.path.iter().enumerate().all(|(i, w)| {
            words.next().is_some_and(|word| {
                word == *w
                    || (i + 1 == p.path.len()
                        && word.strip_prefix(*w).is_some_and(|n| n.starts_with('/')))
            })
        })
    });
    let Some(at) = at else {
        return false;
    };
    if !p.operand_has.is_empty() {
        let Some(operand) = operands().nth(at + p.path.len()) else {
            return false;
        };
        let lower = operand.to_ascii_lowercase();
        if !p.operand_has.iter().any(|w| lower.contains(w)) {
            return false;
        }
    }
    p.option.is_empty()
        || p.option.iter().any(|o| {
            option_value(&cmd.args, o)
                .is_some_and(|v| p.values.is_empty() || p.values.iter().any(|x| v.starts_with(x)))
        })
}

/// Whether option `o` is given, and its value (the next word, or what is attached: `-oyaml`,
/// `-o=yaml`, `--output=json`); a short option may be bundled (`-gw`).
fn option_value<'w>(args: &'w [std::borrow::Cow<'_, str>], o: &str) -> Option<&'w str> {
    for (k, a) in args.iter().enumerate() {
        let next = || args.get(k + 1).map(|v| &**v).unwrap_or("");
        if a == o {
            return Some(next());
        }
        if let Some(v) = a.strip_prefix(o) {
            if o.starts_with("--") {
                if let Some(v) = v.strip_prefix('=') {
                    return Some(v);
                }
            } else {
                return Some(v.strip_prefix('=').unwrap_or(v));
            }
        }
        let short = o.len() == 2 && o.starts_with('-') && !o.starts_with("--");
        if short && a.len() > 2 && a.starts_with('-') && !a.starts_with("--") {
            let letter = o.as_bytes()[1] as char;
            if a[1..].chars().all(|c| c.is_ascii_alphabetic()) && a[1..].contains(letter) {
                return Some(next());
            }
        }
    }
    None
}

/// Whether `cmd` prints the content of what it reads (see [`QUIET`] and [`QUIET_WITH`]).
fn prints_content(cmd: &SimpleCommand<'_>) -> bool {
    let program = &*cmd.program;
    if QUIET.contains(&program) && !packs_to_stdout(cmd) || TRANSMITTERS.contains(&program) {
        return false;
    }
    match QUIET_WITH.iter().find(|(p, _)| *p == program) {
        Some((_, opts)) => !opts.iter().any(|o| {
            !o.starts_with('-') && cmd.args.first().is_some_and(|a| a == o)
                || o.starts_with('-') && option_value(&cmd.args, o).is_some()
        }),
        None => true,
    }
}

/// Whether `cmd`, a packer or compressor, writes what it packs to standard output (see
/// [`TO_STDOUT`]): an option that says so, an archive named `-` (`tar cf -`, `tar czf -`,
/// `zip -r - dir`), a tar creating with no archive named (its default is standard output),
/// or a filter with no file operand.
fn packs_to_stdout(cmd: &SimpleCommand<'_>) -> bool {
    let program = &*cmd.program;
    let Some((_, opts, filter)) = TO_STDOUT.iter().find(|(p, _, _)| p.contains(&program)) else {
        return false;
    };
    let args = &cmd.args;
    if opts.iter().any(|o| option_value(args, o).is_some()) {
        return true;
    }
    if *filter && args.iter().all(|a| a.starts_with('-') && a.len() > 1) {
        return true;
    }
    match program {
        "zip" => args.iter().any(|a| a == "-"),
        "tar" | "gtar" | "bsdtar" => {
            // The archive: `-f -`, `--file=-`, or the word after old-style letters with `f`.
            let old_style = args.first().filter(|a| !a.starts_with('-')).map(|a| &**a);
            let named = option_value(args, "-f")
                .or_else(|| option_value(args, "--file"))
                .or_else(|| {
                    old_style
                        .filter(|a| a.contains('f'))
                        .map(|_| args.get(1).map_or("", |v| &**v))
                });
            match named {
                Some(archive) => archive == "-",
                None => {
                    let letters = old_style.unwrap_or("");
                    letters.contains('c')
                        || option_value(args, "-c").is_some()
                        || args.iter().any(|a| a == "--create")
                }
            }
        }
        _ => false,
    }
}

/// Whether command `i`'s output reaches the transcript: it is no substitution's (that value
/// goes into another command's words), its output goes to no file, and no command it pipes
/// into absorbs it (counts, hashes, loads, sends or files it).
fn reaches_transcript(parsed: &Parsed<'_>, i: usize) -> bool {
    let mut k = i;
    for _ in 0..parsed.commands.len() {
        let c = &parsed.commands[k];
        if in_substitution(c) || to_file(c) {
            return false;
        }
        if k != i && !prints_content(c) {
            return false;
        }
        match parsed.pipes.iter().find(|(a, _)| *a == k) {
            Some((_, b)) => k = *b,
            None => return true,
        }
    }
    true
}

/// Whether `cmd`'s standard output is redirected to a file (`> x`, `>> x`, `&> /dev/null`).
fn to_file(cmd: &SimpleCommand<'_>) -> bool {
    cmd.writes
        .iter()
        .any(|w| w.op != "<" && w.op != "<>" && w.op != ">&" && w.fd.is_none_or(|f| f == 1))
}

/// Whether a command command `i` pipes into selects secret variables from what it is fed
/// (`env | grep TOKEN`, `printenv | grep -i key`).
fn selects_secrets(parsed: &Parsed<'_>, i: usize) -> bool {
    parsed.pipes.iter().filter(|(a, _)| *a == i).any(|(_, b)| {
        let c = &parsed.commands[*b];
        is_grep(c)
            && c.args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .any(|p| names_secret(p))
    })
}

/// A search for lines (`grep`, `egrep`, `rg`).
fn is_grep(cmd: &SimpleCommand<'_>) -> bool {
    matches!(&*cmd.program, "grep" | "egrep" | "rg")
}

/// Whether a search pattern names a secret word (`TOKEN`, `key`, `pass`).
fn names_secret(pattern: &str) -> bool {
    let upper = pattern.to_ascii_uppercase();
    SECRET_VARIABLE_WORDS
        .iter()
        .chain(&["KEY", "PASS", "AUTH"])
        .any(|w| upper.contains(w.trim_start_matches('_')))
}

/// The lists of host keys ssh trusts, to which it adds a host on first connection.
const HOST_LISTS: &[&str] = &["/known_hosts", "/known_hosts.old", "/known_hosts2"];

/// Whether a resolved path is a list of known host keys (`~/.ssh/known_hosts`): adding to it
/// is what ssh does itself; it holds no credential and grants no login.
pub(super) fn is_host_list(target: &str) -> bool {
    HOST_LISTS.iter().any(|p| target.ends_with(p))
}

/// Public files kept among secrets: public keys, known hosts, ssh's client settings.
pub(super) fn is_public(target: &str) -> bool {
    const PUBLIC: &[&str] = &[
        ".pub",
        "/known_hosts",
        "/known_hosts.old",
        "/authorized_keys",
        "/.ssh/config",
        ".crt",
    ];
    PUBLIC.iter().any(|p| target.ends_with(p))
}

/// Whether a variable name says it holds a secret.
fn is_secret_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !NOT_SECRET_VARIABLES.contains(&upper.as_str())
        && (SECRET_VARIABLE_WORDS.iter().any(|w| upper.contains(w))
            || upper.split('_').any(|p| SECRET_VARIABLE_PARTS.contains(&p)))
}

/// The hosts a credential variable is used with (none when gate does not know).
fn home_of(name: &str) -> &'static [&'static str] {
    VARIABLE_HOMES
        .iter()
        .find(|(n, _)| name.eq_ignore_ascii_case(n))
        .map(|(_, h)| *h)
        .unwrap_or(&[])
}

/// The variables a word expands (`$NAME`, `${NAME}`, `${NAME:-x}`), not their lengths
/// (`${#NAME}`) or a test of whether they are set (`${NAME:+set}`).
fn variables(word: &str) -> impl Iterator<Item = &str> {
    word.match_indices('$').filter_map(move |(k, _)| {
        let rest = &word[k + 1..];
        let (braced, rest) = match rest.strip_prefix('{') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        let after = &rest[end..];
        // A length (`${#X}`) names no variable here; a test of being set (`${X:+set}`)
        // prints no value.
        let tests_only = braced && after.starts_with(":+");
        let starts_well = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        let usable = starts_well && !tests_only;
        usable.then_some(name)
    })
}

/// The service a transmitter's destination is named for, when the destination is a
/// variable the environment sets (not the line) whose name says it holds a host
/// (`$ES_FQDN:$ES_PORT/_cat/indices`, `https://${JIRA_BASE_URL}/rest`): its name's prefix
/// (`ES_`, `JIRA_BASE_`).
fn service_variable<'c>(parsed: &Parsed<'_>, cmd: &'c SimpleCommand<'_>) -> Option<&'c str> {
    let destination = cmd.args.iter().map(|a| &**a).find_map(|w| {
        let w = w.split_once("://").map_or(w, |(_, rest)| rest);
        let name = w.starts_with('$').then(|| variables(w).next()).flatten()?;
        // The variable is the whole host (`$ES_FQDN:9200/x`), not a part (`$ES_FQDN.evil.net`).
        let after = w
            .strip_prefix(&format!("${{{name}}}"))
            .or_else(|| w.strip_prefix(&format!("${name}")))?;
        if !(after.is_empty() || after.starts_with([':', '/', '?'])) {
            return None;
        }
        let (prefix, part) = name.rsplit_once('_')?;
        (!prefix.is_empty() && HOST_VARIABLE_PARTS.contains(&part)).then_some(name)
    })?;
    let assigned = parsed.assigns.iter().any(|a| a.name == destination);
    let prefix = destination.rsplit_once('_')?.0;
    (!assigned).then(|| &destination[..=prefix.len()])
}

/// Whether a secret is a credential variable of the service `prefix` names (`$ES_PASSWORD`
/// for `ES_`).
fn of_service(secret: &Secret, prefix: &str) -> bool {
    secret
        .what
        .strip_prefix('$')
        .is_some_and(|name| name.len() > prefix.len() && name.starts_with(prefix))
}

/// The host a transmitter talks to, when its words show it: a URL's host, `user@host`,
/// `host:path`, or the first operand that looks like a host name.
fn host_of(cmd: &SimpleCommand<'_>) -> Option<String> {
    let words: Vec<&str> = cmd.args.iter().map(|a| &**a).collect();
    if let Some(url) = words
        .iter()
        .find_map(|w| w.split_once("://").map(|(_, r)| r))
    {
        return Some(bare_host(url));
    }
    words
        .iter()
        .find(|w| {
            !w.starts_with(['-', '@'])
                && !w.contains([' ', '$', '='])
                && (w.contains('.') || w.starts_with("localhost") || w.contains('@'))
        })
        .map(|w| bare_host(w))
}

/// `user@host:port/path` → `host`, lower-cased.
fn bare_host(s: &str) -> String {
    let s = s.split(['/', '?', '#']).next().unwrap_or(s);
    let s = s.rsplit_once('@').map_or(s, |(_, h)| h);
    let s = if s.starts_with('[') {
        s.split_inclusive(']').next().unwrap_or(s)
    } else {
        s.split(':').next().unwrap_or(s)
    };
    s.to_ascii_lowercase()
}

/// Whether a file tool shows the content of what it reads (`Read`, `view`, `read_file`,
/// `read_many_files`, `Grep`, `search_file_content`), rather than listing or finding files
/// (`LS`, `Glob`, `list_directory`): the first word of its name that says either decides.
pub(super) fn tool_shows_content(tool: &str) -> bool {
    const SHOWS: &[&str] = &[
        "read", "view", "cat", "head", "tail", "show", "open", "get", "grep", "search",
    ];
    const LISTS: &[&str] = &[
        "list",
        "ls",
        "glob",
        "find",
        "stat",
        "tree",
        "info",
        "directory",
        "dir",
        "exists",
    ];
    let lower = tool.to_ascii_lowercase();
    let verb = lower.rsplit("__").next().unwrap_or(&lower);
    for word in verb.split(['_', '-', '.']).filter(|w| !w.is_empty()) {
        if LISTS.contains(&word) {
            return false;
        }
        if SHOWS
            .iter()
            .any(|s| word == *s || word.starts_with(s) && s.len() > 3)
        {
            return true;
        }
    }
    false
}

/// A file tool's read of a secret that shows its content is also a `reveal` of it.
pub(super) fn tool_reveals(tool: &str, out: &mut Vec<Effect>, from: usize) {
    if !tool_shows_content(tool) {
        return;
    }
    let shown: Vec<Effect> = out[from..]
        .iter()
        .filter(|e| {
            e.act == Act::Read
                && e.place == Place::Secrets
                && !e.target.is_empty()
                && !is_public(&e.target)
        })
        .map(|e| Effect {
            act: Act::Reveal,
            ..e.clone()
        })
        .collect();
    out.extend(shown);
}

#[cfg(test)]
mod tests;
