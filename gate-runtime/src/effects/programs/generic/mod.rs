//! The generic reading of a program no family models: its first words that are not options
//! are read as a subcommand path, and a verb there ([`verbs`]) gives the command's effect.
//!
//! The rule, bounded so that the arguments of runners and scripts are not read as verbs:
//!
//! - Options are skipped: `--flag=value` whole; a word after any other option is taken as
//!   its value unless it is itself a verb of a table (`mycli -v delete x`); after the options
//!   of [`verbs::VALUE_OPTIONS`] (`-k`, `-t`, `--grep`, `--name`, …) always.
//! - At most three path words are read, each a plain word (letters, digits, `-`, `_`, `:`;
//!   a Windows `/delete`): the first word that looks like a path, URL, quoted text or id ends
//!   the path. The first word that is in a table decides; a harmless one (`list`, `get`,
//!   `run`, `test`, `create`, …) ends the reading with no effect.
//! - Programs whose words are text, test names or recipe names ([`verbs::NOT_SUBCOMMANDS`]:
//!   `man`, `say`, `jest`, `just`) are not read; a help, version or dry-run option anywhere
//!   (`--help`, `--dry-run`, a lone trailing `-n`) makes the command harmless.
//!
//! A destroying verb (or a weak one with a forcing modifier) deletes each operand after it
//! that is a local path, at its resolved place. What it names that is no local path (a
//! resource name, an id, a URL), or nothing at all, is a `cloud_delete` at `remote`: the
//! program acts on state it keeps elsewhere, which the default spec asks for (never denies)
//! whatever modifiers it has. Under `sudo`/`doas` that state is the system's: a `delete` at
//! `system`, also asked. A privilege verb with an administrator role named is `users` at
//! `remote`; a publish verb is `publish`.

use std::borrow::Cow;

use super::super::Sink;
use gate_spec::effect::{Act, Place};

#[cfg(test)]
mod tests;
pub(crate) mod verbs;

use verbs::Entry;

/// Where a generic destruction lands when what it names is no local path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// A program gate does not know: state it keeps elsewhere (`cloud_delete` at `remote`).
    Unknown,
    /// The same, run with root privileges (`sudo`, `doas`): the system's (`delete` at
    /// `system`).
    Privileged,
    /// An external git subcommand (`git obliterate`, `git undo --hard`): the repository's
    /// history (`history`).
    Git,
}

impl Scope {
    fn elsewhere(self) -> (Act, Place) {
        match self {
            Scope::Unknown => (Act::CloudDelete, Place::Remote),
            Scope::Privileged => (Act::Delete, Place::System),
            Scope::Git => (Act::History, Place::Nowhere),
        }
    }
}

/// What a word of a subcommand path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verb {
    Destroy,
    Weak,
    Privilege,
    Publish,
    Send,
    Harmless,
}

/// The tables, in the order a word's part is looked up.
const TABLES: &[(Verb, &[Entry])] = &[
    (Verb::Harmless, verbs::HARMLESS),
    (Verb::Destroy, verbs::DESTROY),
    (Verb::Weak, verbs::WEAK),
    (Verb::Privilege, verbs::PRIVILEGE),
    (Verb::Publish, verbs::PUBLISH),
    (Verb::Send, verbs::SEND),
];

/// The verb a word is: the whole word (`force-delete`, `add-iam-policy-binding`), else its
/// first part in any table (`delete-stack`, `deleteBucket`, `Remove-Item`, `db:drop`).
pub(crate) fn verb_of(word: &str) -> Option<Verb> {
    let bare = word
        .strip_prefix('/')
        .or_else(|| word.strip_prefix('-').filter(|w| !w.starts_with('-')))
        .unwrap_or(word);
    if let Some(v) = lookup(bare) {
        return Some(v);
    }
    let v = parts(bare).find_map(lookup);
    // A word that names a cache among its parts acts on the cache (`delete-cache`).
    if v.is_some() && parts(bare).any(|p| verbs::CACHES.iter().any(|c| c.eq_ignore_ascii_case(p))) {
        return Some(Verb::Harmless);
    }
    v
}

fn lookup(part: &str) -> Option<Verb> {
    TABLES.iter().find_map(|(verb, table)| {
        table
            .iter()
            .any(|e| e.word.eq_ignore_ascii_case(part))
            .then_some(*verb)
    })
}

/// A word's parts: split at `-`, `_`, `:`, `.` and where a lower-case letter meets an
/// upper-case one.
fn parts(word: &str) -> impl Iterator<Item = &str> {
    let b = word.as_bytes();
    let mut start = 0;
    let mut k = 0;
    std::iter::from_fn(move || {
        while k <= b.len() {
            let i = k;
            k += 1;
            let sep = i == b.len() || matches!(b[i], b'-' | b'_' | b':' | b'.');
            let camel = i > start
                && i < b.len()
                && b[i].is_ascii_uppercase()
                && b[i - 1].is_ascii_lowercase();
            if sep || camel {
                let part = &word[start..i];
                start = if sep { i + 1 } else { i };
                if !part.is_empty() {
                    return Some(part);
                }
            }
        }
        None
    })
}

/// Whether `word` may be a subcommand word: a plain word, or a Windows `/verb` that is one.
fn plain(word: &str) -> bool {
    if let Some(rest) = word.strip_prefix('/') {
        return rest.bytes().all(|c| c.is_ascii_alphabetic()) && lookup(rest).is_some();
    }
    let b = word.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    b.first().is_some_and(u8::is_ascii_alphabetic)
        && b.len() <= 48
        && digits < 3
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b':'))
}

/// Whether an operand names a local path, as opposed to a resource name, id or URL: only
/// a path written as one (`/x`, `./x`, `../x`, `~/x`, `$HOME/x`) or a file name with an
/// extension (`data.dvc`, `app.db`). `secret/foo`, `bucket/key`, `local/bucket`, `name:tag`
/// and `repo::archive` name the program's own state.
fn local_path(word: &str) -> bool {
    if word.contains("://") || word.contains("::") || word.starts_with('-') {
        return false;
    }
    if word.starts_with(['/', '~']) || word.starts_with("./") || word.starts_with("../") {
        return true;
    }
    if word.starts_with("$HOME") || word.starts_with("$PWD") || word == "." || word == ".." {
        return true;
    }
    let name = word.rsplit('/').next().unwrap_or(word);
    // A host name (`example.com`, `site.surge.sh`) is no file.
    let host = !word.contains('/')
        && (name.matches('.').count() > 1
            || name
                .rsplit_once('.')
                .is_some_and(|(_, ext)| verbs::DOMAIN_SUFFIXES.contains(&ext)));
    !host
        && !word.contains(':')
        && word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '.')
        && name.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|c| c.is_ascii_alphabetic())
        })
}

/// A Windows switch (`/all`, `/q`, `/f`): a forcing modifier or one letter after `/`.
fn switch(word: &str) -> bool {
    verbs::FORCING.iter().any(|f| f.eq_ignore_ascii_case(word))
        || verbs::SWITCHES.iter().any(|f| f.eq_ignore_ascii_case(word))
        || word.len() == 2 && word.starts_with('/') && word.as_bytes()[1].is_ascii_alphabetic()
}

/// The subcommand path's verb, the index of the word after it, and how many path words came
/// before it.
fn find_verb(args: &[Cow<'_, str>]) -> Option<(Verb, usize, usize)> {
    let mut read = 0;
    let mut k = 0;
    while let Some(a) = args.get(k).map(|a| &**a) {
        k += 1;
        if a == "--" {
            return None;
        }
        if a.starts_with('-') && a.len() > 1 && !is_powershell_verb(a) {
            if a.contains('=') {
                continue;
            }
            // The next word is this option's value, unless it is a verb after a long option
            // or a common flag (`mycli --insecure delete x`, `mycli -v delete x`). A value
            // that holds a harmless word only as a part (`--topic test-topic`) is a value:
            // reading it as the command would end the reading with nothing.
            if let Some(next) = args.get(k) {
                let valued = verbs::VALUE_OPTIONS.contains(&a);
                let short_value =
                    a.len() == 2 && !a.starts_with("--") && !verbs::SHORT_FLAGS.contains(&a[1..]);
                if !next.starts_with('-') && (valued || short_value || !verb_after_option(next)) {
                    k += 1;
                }
            }
            continue;
        }
        if !plain(a) && !is_powershell_verb(a) {
            return None;
        }
        if let Some(v) = verb_of(a) {
            return Some((v, k, read));
        }
        read += 1;
        if read == 3 {
            return None;
        }
    }
    None
}

/// The verb of a PowerShell cmdlet's name (`Remove-AzResourceGroup`: `Remove`), unless its
/// noun is one the generic reading leaves alone ([`verbs::SESSION_NOUNS`]: the session's own
/// state, or a cmdlet the Windows family reads).
fn cmdlet_verb(program: &str) -> Option<Verb> {
    let (verb, noun) = program.split_once('-')?;
    let cased = |w: &str| w.starts_with(|c: char| c.is_ascii_uppercase());
    if !cased(verb)
        || !cased(noun)
        || verbs::SESSION_NOUNS
            .iter()
            .any(|n| n.eq_ignore_ascii_case(noun))
    {
        return None;
    }
    lookup(verb)
}

/// Whether a word after an option is read as a verb rather than as the option's value: a
/// whole word of a table (`delete`, `list`), or a word with a part that changes something
/// (`delete-stack`); a harmless part alone (`test-topic`, `list-view`) is a value.
fn verb_after_option(word: &str) -> bool {
    match verb_of(word) {
        None => false,
        Some(Verb::Harmless) => lookup(word).is_some(),
        Some(_) => true,
    }
}

/// A PowerShell-style `-Delete` (a capital after one dash) that is a destroying verb.
fn is_powershell_verb(word: &str) -> bool {
    word.strip_prefix('-').is_some_and(|w| {
        w.starts_with(|c: char| c.is_ascii_uppercase())
            && w.len() > 2
            && matches!(lookup(w), Some(Verb::Destroy))
    })
}

/// Whether the command asks only for help, a version or a dry run.
fn harmless_options(args: &[Cow<'_, str>]) -> bool {
    args.iter().enumerate().any(|(k, a)| {
        verbs::HARMLESS_OPTIONS.contains(&&**a)
            // `-n` alone at the end, or before another option: a dry run (`prune -n`); with
            // a value it is a name or a namespace (`-n velero`).
            || (a == "-n" && args.get(k + 1).is_none_or(|n| n.starts_with('-')))
            // `-h` alone is help; with a value it is a host (`-h db1`).
            || (a == "-h" && args.get(k + 1).is_none_or(|n| n.starts_with('-')))
    })
}

/// Whether a forcing modifier is on the line.
fn forced(args: &[Cow<'_, str>]) -> bool {
    args.iter().any(|a| {
        verbs::FORCING.iter().any(|f| f.eq_ignore_ascii_case(a))
            || a.strip_prefix('-').is_some_and(|b| {
                !b.starts_with('-')
                    && !b.is_empty()
                    && b.bytes().all(|c| c.is_ascii_alphabetic())
                    && b.bytes().any(|c| verbs::FORCING_SHORT.contains(c as char))
                    && b.len() <= 4
            })
    })
}

/// Read `args` of `program` (no family knows it) into effects, in `scope`. Returns whether
/// a verb gave an effect.
pub(crate) fn model(program: &str, args: &[Cow<'_, str>], scope: Scope, out: &mut Sink) -> bool {
    if verbs::NOT_SUBCOMMANDS.contains(&program)
        || verbs::REINSTALLABLE.contains(&program)
        || harmless_options(args)
    {
        return false;
    }
    if verbs::PACKAGE_MANAGERS.contains(&program) {
        return package_manager(program, args, out);
    }
    if sql_option(args, out) {
        return true;
    }
    // A program named by a destroying verb (`wipe -rf ~/old`, `nuke ./build`, a PowerShell
    // cmdlet `Remove-AzResourceGroup`): its operands.
    if lookup(program) == Some(Verb::Destroy) || cmdlet_verb(program) == Some(Verb::Destroy) {
        destroy(args, scope, out);
        return true;
    }
    let found = find_verb(args).or_else(|| option_verb(args));
    let Some((verb, next, before)) = found else {
        return false;
    };
    match verb {
        Verb::Destroy => destroy(&args[next..], scope, out),
        Verb::Weak if forced(args) => destroy(&args[next..], scope, out),
        Verb::Privilege if admin_role(args) => out.place(Act::Users, Place::Remote),
        // Only as the command itself (`vsce publish`, `goreleaser release`): after a noun it
        // is a message published to a topic (`nats-like topics publish`).
        Verb::Publish if before == 0 => out.none(Act::Publish),
        Verb::Send => return send(&args[next..], out),
        _ => return false,
    }
    true
}

/// A send verb's operands: each local file is read and sent; with none, nothing is said
/// (`acmectl send-message hi` names no file).
fn send(args: &[Cow<'_, str>], out: &mut Sink) -> bool {
    let files: Vec<&str> = args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-') && (local_path(a) || dotfile(a)))
        .collect();
    for f in &files {
        out.path(Act::Read, f);
    }
    if !files.is_empty() {
        out.place(Act::Send, Place::Remote);
    }
    !files.is_empty()
}

/// A file named by a dot and a plain name (`.env`, `.netrc`): local, though it has no
/// extension.
fn dotfile(word: &str) -> bool {
    word.strip_prefix('.').is_some_and(|name| {
        !name.is_empty()
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
            && !name.starts_with('.')
    })
}

/// Whether a program no family knows sends the files it names (its subcommand path's verb
/// is a send verb): what it reads of secrets goes off the machine.
pub(crate) fn sends(program: &str, args: &[Cow<'_, str>]) -> bool {
    !verbs::NOT_SUBCOMMANDS.contains(&program)
        && !harmless_options(args)
        && matches!(find_verb(args), Some((Verb::Send, ..)))
}

/// Only the privilege reading of `args`, for a family that reads the rest itself (`aws iam
/// attach-user-policy … AdministratorAccess`: `users` at `remote`).
pub(crate) fn privilege(args: &[Cow<'_, str>], out: &mut Sink) {
    if let Some((Verb::Privilege, ..)) = find_verb(args) {
        if admin_role(args) && !harmless_options(args) {
            out.place(Act::Users, Place::Remote);
        }
    }
}

/// A long option that is a destroying verb (`--purge NAME`), when no subcommand verb is.
fn option_verb(args: &[Cow<'_, str>]) -> Option<(Verb, usize, usize)> {
    args.iter()
        .enumerate()
        .position(|(k, a)| verbs::OPTION_VERBS.iter().any(|e| e.word == a) || option_action(k, a))
        .map(|k| (Verb::Destroy, k + 1, 0))
}

/// An option whose first part is a destroying verb, without a value attached: one word
/// anywhere (`-delete`), or longer as the command's first word, where a program that takes
/// its action as an option puts it (`gpg --delete-secret-keys KEY`); elsewhere a longer one
/// is a setting (`up --remove-orphans`, `--delete-after`).
fn option_action(k: usize, a: &str) -> bool {
    let name = a.strip_prefix("--").or_else(|| a.strip_prefix('-'));
    name.is_some_and(|n| {
        !n.contains('=')
            && n.bytes().all(|c| c.is_ascii_lowercase() || c == b'-')
            && (k == 0 || !n.contains('-'))
            && n.split('-')
                .next()
                .is_some_and(|p| verbs::OPTION_VERB_PARTS.contains(&p))
    })
}

/// SQL given to an unknown client by a query option (`snowsql -q 'DROP DATABASE prod'`):
/// what it does to the database. `true` when the value reads as SQL.
pub(crate) fn sql_option(args: &[Cow<'_, str>], out: &mut Sink) -> bool {
    let mut found = false;
    for (k, a) in args.iter().enumerate() {
        let value = match a.split_once('=') {
            Some((name, v)) if verbs::SQL_OPTIONS.contains(&name) => Some(v),
            _ if verbs::SQL_OPTIONS.contains(&&**a) => args.get(k + 1).map(|v| &**v),
            _ => None,
        };
        let Some(sql) = value else {
            continue;
        };
        if destroying_sql(sql) {
            super::database::sql::analyse(sql, out).emit(out);
            found = true;
        }
    }
    found
}

/// Whether text starts as a statement that changes a database does, not as prose that
/// happens to start with its verb (`drop support for py37`): `DROP TABLE|DATABASE|…`,
/// `DELETE FROM`, `TRUNCATE [TABLE] name`, `ALTER TABLE`, `UPDATE name SET`.
fn destroying_sql(text: &str) -> bool {
    const DROPPED: &[&str] = &[
        "table",
        "database",
        "schema",
        "index",
        "view",
        "keyspace",
        "collection",
        "user",
        "role",
        "sequence",
        "function",
        "trigger",
        "materialized",
        "type",
        "if",
        "owned",
        // InfluxQL's stores of points.
        "measurement",
        "series",
        "shard",
        "retention",
        "continuous",
    ];
    let mut words = text.split_whitespace();
    let (Some(first), Some(second)) = (words.next(), words.next()) else {
        return false;
    };
    let is = |w: &str, k: &str| w.eq_ignore_ascii_case(k);
    let second = second.trim_end_matches(';');
    match first.to_ascii_lowercase().as_str() {
        "drop" => DROPPED.iter().any(|d| is(second, d)),
        "delete" => is(second, "from") || is(second, "where"),
        "truncate" => is(second, "table") || words.next().is_none_or(|w| w.starts_with(';')),
        "alter" => is(second, "table") || is(second, "database"),
        "update" => words.next().is_some_and(|w| is(w, "set")),
        _ => false,
    }
}

/// Whether an administrator role is named on the line.
fn admin_role(args: &[Cow<'_, str>]) -> bool {
    args.iter().any(|a| {
        let lower = a.to_ascii_lowercase();
        verbs::ADMIN_ROLES.iter().any(|r| lower.contains(r))
    })
}

/// A destroying verb's operands: local paths deleted where they are; anything else (or
/// nothing) is what the program keeps elsewhere.
fn destroy(rest: &[Cow<'_, str>], scope: Scope, out: &mut Sink) {
    let (act, place) = scope.elsewhere();
    if scope == Scope::Git {
        // What it names are files of the history it rewrites, not files it deletes.
        out.place(act, place);
        return;
    }
    let operands: Vec<&str> = rest
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-') && !switch(a))
        .collect();
    for a in operands.iter().filter(|a| local_path(a)) {
        out.path(Act::Delete, a);
    }
    if operands.is_empty() || !operands.iter().all(|a| local_path(a)) {
        out.place(act, place);
    }
}

/// A system package manager: a removal with an override of what it protects (`dpkg -P
/// --force-all libc6`, `pacman -Rdd glibc`, `rpm -e --nodeps glibc`), or one that purges
/// the package's configuration and data (`apt purge nginx`, `pacman -Rns x`), deletes at
/// `system`; one of what keeps the machine reachable and guarded stops a service; any other
/// removal is reversible administration (`admin`: installed again, it is as it was).
fn package_manager(program: &str, args: &[Cow<'_, str>], out: &mut Sink) -> bool {
    let short = verbs::SHORT_ACTIONS
        .iter()
        .find(|(p, _)| *p == program)
        .map_or("", |(_, letters)| *letters);
    let removes = args.iter().any(|a| {
        let bundle = a
            .strip_prefix('-')
            .filter(|b| !b.starts_with('-') && !short.is_empty());
        bundle.is_some_and(|b| b.chars().next().is_some_and(|c| short.contains(c)))
            || verbs::OPTION_VERBS.iter().any(|e| e.word == a)
            || plain(a) && matches!(verb_of(a), Some(Verb::Destroy))
    });
    let overrides = args
        .iter()
        .any(|a| verbs::PACKAGE_OVERRIDES.contains(&&**a) || a.starts_with("--force-remove"));
    let short_purge = verbs::SHORT_PURGES
        .iter()
        .find(|(p, _)| *p == program)
        .map_or("", |(_, letters)| *letters);
    let purges = args.iter().any(|a| {
        verbs::PURGES.contains(&&**a)
            || a.strip_prefix('-').is_some_and(|b| {
                !b.starts_with('-')
                    && !short_purge.is_empty()
                    && b.contains(|c| short_purge.contains(c))
            })
    });

    // A package named without its architecture or version (`ufw:amd64`, `sudo=1.9*`).
    let machine = args.iter().any(|a| {
        let name = a.split([':', '=']).next().unwrap_or(a);
        verbs::MACHINE_PACKAGES
            .iter()
            .any(|p| p.eq_ignore_ascii_case(name))
    });
    if !removes {
        return false;
    }
    if overrides || purges {
        out.place(Act::Delete, Place::System);
    }
    if machine {
        out.none(Act::Service);
    }
    if !(overrides || purges || machine) {
        out.none(Act::Admin);
    }
    true
}
