//! A small SQL reader: statements split on `;`, keywords read case-insensitively outside
//! string literals, quoted identifiers and comments, each statement classed as destroying
//! data (DROP, TRUNCATE, `ALTER … DROP`, DELETE or UPDATE without a real WHERE), writing
//! (INSERT, CREATE, DELETE/UPDATE with WHERE, grants, procedure calls) or reading; client
//! commands mixed into SQL (psql `\i`/`\!`/`\o`, sqlite `.read`/`.shell`/`.restore`, mysql
//! `source`/`system`, sqlcmd `:r`/`!!`) read as the files and shell code they name.

use gate_spec::effect::Act;

use super::super::super::Sink;

/// Longest SQL text read; the rest of a longer text is unknown (a write at least).
const MAX_SQL: usize = 256 * 1024;

/// Deepest dynamic SQL followed (`EXEC('DROP …')`, `\gexec`).
const MAX_DYNAMIC: usize = 2;

/// What some SQL does to the database.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub destroy: bool,
    pub write: bool,
}

impl Verdict {
    pub(crate) fn merge(&mut self, other: Verdict) {
        self.destroy |= other.destroy;
        self.write |= other.write;
    }

    /// Write the verdict as effects.
    pub(crate) fn emit(self, out: &mut Sink) {
        if self.destroy {
            out.none(Act::DbDestroy);
        }
        if self.write {
            out.none(Act::DbWrite);
        }
    }
}

/// What a script of SQL the line does not show (`mysql db < drop_all.sql` in a test or a
/// replay, or a file not on the disk) does: a write at least, and a destroy when its name
/// says it is one (`drop_all.sql`, `truncate-tables.sql`, `reset_db.sql`). The name is the
/// only evidence there is; it can raise the verdict, never lower it below a write.
pub(crate) fn unread_file(path: &str) -> Verdict {
    // Verbs that destroy whatever they name.
    const DESTROYING: &[&str] = &[
        "drop",
        "dropall",
        "truncate",
        "wipe",
        "purge",
        "destroy",
        "teardown",
        "nuke",
        "obliterate",
    ];
    // Verbs that destroy only when the name says they take everything (`reset_db.sql`,
    // `clear_all.sql`; a `reset_password.sql` migration does not).
    const EMPTYING: &[&str] = &["reset", "erase", "clear", "flush", "delete", "empty"];
    const EVERYTHING: &[&str] = &[
        "all",
        "db",
        "database",
        "databases",
        "tables",
        "schema",
        "data",
        "everything",
    ];
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    // Words split on punctuation and on a lower-to-upper case change (`TruncateAll`).
    let bytes = stem.as_bytes();
    let (mut destroying, mut emptying, mut everything) = (false, false, false);
    let mut from = 0;
    for k in 1..=bytes.len() {
        let end = k == bytes.len()
            || !bytes[k].is_ascii_alphanumeric()
            || (bytes[k].is_ascii_uppercase() && bytes[k - 1].is_ascii_lowercase());
        if end {
            let word = stem.get(from..k).unwrap_or("");
            let is = |list: &[&str]| list.iter().any(|d| word.eq_ignore_ascii_case(d));
            destroying |= is(DESTROYING);
            emptying |= is(EMPTYING);
            everything |= is(EVERYTHING);
            from = if k < bytes.len() && !bytes[k].is_ascii_alphanumeric() {
                k + 1
            } else {
                k
            };
        }
    }
    Verdict {
        destroy: destroying || (emptying && everything),
        write: true,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'s> {
    /// A keyword, a name or a number.
    Word(&'s str),
    /// A quoted identifier (never a keyword).
    Name,
    /// The content of a string literal.
    Str(&'s str),
    /// A dollar-quote delimiter (`$$`, `$body$`): its content is read as SQL, since a
    /// `DO $$ … $$` block runs it.
    Dollar,
    /// Punctuation.
    P(u8),
    /// A psql/mysql backslash command, without its backslash (`i file.sql`, `! ls`).
    Meta(&'s str),
    /// A line command of a client (`.read f`, `source f`, `system ls`, `:r f`, `!! ls`).
    Line(&'s str),
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'#' || b == b'@' || b >= 0x80
}

/// Split SQL text into tokens (linear; unterminated quotes and comments end at the end).
fn tokens(text: &str) -> Vec<Tok<'_>> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    let mut stmt_empty = true;
    let eol = |from: usize| {
        b[from..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(n, |p| from + p)
    };
    while i < n {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let at_line_cmd = line_start && stmt_empty;
        match c {
            b'-' if next == Some(b'-') => {
                i = eol(i);
                continue;
            }
            b'#' if line_start => {
                i = eol(i);
                continue;
            }
            b'/' if next == Some(b'*') => {
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(n, |p| i + 2 + p + 2);
                continue;
            }
            b'\'' | b'"' | b'`' | b'[' => {
                let close = if c == b'[' { b']' } else { c };
                let start = i + 1;
                let mut j = start;
                loop {
                    match b[j..].iter().position(|&x| x == close) {
                        None => {
                            j = n;
                            break;
                        }
                        Some(p) => {
                            j += p;
                            // A doubled quote is an escaped quote.
                            if close != b']' && b.get(j + 1) == Some(&close) {
                                j += 2;
                                continue;
                            }
                            break;
                        }
                    }
                }
                out.push(if c == b'\'' {
                    Tok::Str(&text[start..j.min(n)])
                } else {
                    Tok::Name
                });
                i = (j + 1).min(n);
            }
            b'$' if matches!(next, Some(b'$')) => {
                i = dollar(text, i, i + 2, &mut out);
            }
            b'$' if next.is_some_and(|x| x.is_ascii_alphabetic() || x == b'_') => {
                let mut j = i + 1;
                while j < n && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if b.get(j) == Some(&b'$') {
                    i = dollar(text, i, j + 1, &mut out);
                } else {
                    out.push(Tok::Word(&text[i..j]));
                    i = j;
                }
            }
            b'\\' => {
                // Up to the end of the line or a `\\` separator.
                let end = eol(i);
                let stop = b[i + 1..end]
                    .windows(2)
                    .position(|w| w == b"\\\\")
                    .map_or(end, |p| i + 1 + p);
                out.push(Tok::Meta(text[i + 1..stop].trim()));
                i = if stop < end { stop + 2 } else { end };
            }
            b'.' if at_line_cmd && next.is_some_and(|x| x.is_ascii_alphabetic()) => {
                let end = eol(i);
                out.push(Tok::Line(text[i..end].trim()));
                i = end;
            }
            b'!' if at_line_cmd && next == Some(b'!') => {
                let end = eol(i);
                out.push(Tok::Line(text[i..end].trim()));
                i = end;
            }
            b':' if at_line_cmd && next.is_some_and(|x| x.is_ascii_alphabetic() || x == b'!') => {
                let end = eol(i);
                out.push(Tok::Line(text[i..end].trim()));
                i = end;
            }
            _ if is_word_byte(c) => {
                let mut j = i;
                while j < n && is_word_byte(b[j]) {
                    j += 1;
                }
                let w = &text[i..j];
                if at_line_cmd
                    && (w.eq_ignore_ascii_case("source") || w.eq_ignore_ascii_case("system"))
                    && b.get(j).is_some_and(|x| *x == b' ' || *x == b'\t')
                {
                    let end = eol(i);
                    out.push(Tok::Line(text[i..end].trim()));
                    i = end;
                } else {
                    out.push(Tok::Word(w));
                    i = j;
                }
            }
            _ => {
                out.push(Tok::P(c));
                i += 1;
            }
        }
        line_start = false;
        stmt_empty = matches!(
            out.last(),
            Some(Tok::P(b';')) | Some(Tok::Meta(_)) | Some(Tok::Line(_))
        );
    }
    out
}

/// A dollar-quote delimiter at `start..end`. After `PROGRAM` (`COPY t FROM PROGRAM $$curl
/// x | sh$$`) the quoted text is a shell command, a string up to the closing delimiter;
/// elsewhere (`DO $$ … $$`) it is SQL the block runs, read on as tokens. Returns where
/// reading goes on.
fn dollar<'s>(text: &'s str, start: usize, end: usize, out: &mut Vec<Tok<'s>>) -> usize {
    let program = matches!(out.last(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case("PROGRAM"));
    if !program {
        out.push(Tok::Dollar);
        return end;
    }
    let tag = &text[start..end];
    let close = text[end..].find(tag).map_or(text.len(), |p| end + p);
    out.push(Tok::Str(&text[end..close]));
    (close + tag.len()).min(text.len())
}

/// Verbs that start a clause wherever they stand (T-SQL needs no `;` between statements).
const STRONG: &[&str] = &[
    "DELETE", "UPDATE", "INSERT", "DROP", "TRUNCATE", "ALTER", "CREATE", "MERGE", "REPLACE",
    "UPSERT", "EXEC", "EXECUTE",
];

/// Verbs that start a clause at the start of a statement or block.
const WEAK_WRITE: &[&str] = &[
    "GRANT", "REVOKE", "COPY", "CALL", "RENAME", "LOAD", "IMPORT", "COMMENT", "REFRESH",
    "OPTIMIZE", "ATTACH", "DETACH", "UNDROP", "PREPARE", "SET", "LOCK",
];

/// Verbs that destroy at the start of a statement.
const WEAK_DESTROY: &[&str] = &["RESTORE", "PURGE", "FLUSHALL", "FLUSHDB", "DROPDB"];

/// Words after which a strong verb is not a verb (`ON DELETE CASCADE`, `FOR UPDATE`,
/// `INSTEAD OF INSERT`, `ON CONFLICT DO UPDATE`, `ON DUPLICATE KEY UPDATE`,
/// `CREATE OR REPLACE`, `AFTER DELETE`).
const NOT_AFTER: &[&str] = &[
    "ON", "FOR", "OF", "DO", "KEY", "BEFORE", "AFTER", "OR", "INSTEAD",
];

/// Words after which a statement or block starts.
const BLOCK: &[&str] = &["BEGIN", "THEN", "ELSE", "LOOP", "AS", "ATOMIC", "GO", "END"];

/// Parts of a `DROP` that only change a column's definition.
const DROP_SOFT: &[&str] = &["DEFAULT", "NOT", "IDENTITY", "EXPRESSION"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// DELETE/UPDATE: destroys unless bounded by a WHERE.
    Bounded,
    Destroy,
    Write,
}

#[derive(Clone, Copy, Debug)]
struct Clause {
    kind: Kind,
    depth: i32,
    bounded: bool,
}

fn is(t: Option<&Tok<'_>>, word: &str) -> bool {
    matches!(t, Some(Tok::Word(w)) if w.eq_ignore_ascii_case(word))
}

fn word_in(t: Option<&Tok<'_>>, set: &[&str]) -> bool {
    matches!(t, Some(Tok::Word(w)) if set.iter().any(|s| w.eq_ignore_ascii_case(s)))
}

/// Whether the condition at `k` (just after a WHERE) holds for every row: `TRUE`, `1`,
/// `1=1`, `'a'='a'`, followed by the end of the clause or an `OR`.
fn trivial_condition(toks: &[Tok<'_>], k: usize) -> bool {
    let end_at = |j: usize| match toks.get(j) {
        None | Some(Tok::P(b';')) | Some(Tok::P(b')')) => true,
        t => word_in(t, &["OR", "ORDER", "LIMIT", "RETURNING", "GO"]),
    };
    let literal = |t: Option<&Tok<'_>>| match t {
        Some(Tok::Word(w)) => {
            w.bytes().all(|b| b.is_ascii_digit()) || w.eq_ignore_ascii_case("TRUE")
        }
        Some(Tok::Str(_)) => true,
        _ => false,
    };
    let first = toks.get(k);
    if (is(first, "TRUE")
        || matches!(first, Some(Tok::Word(w)) if w.bytes().all(|b| b.is_ascii_digit()) && *w != "0"))
        && end_at(k + 1)
    {
        return true;
    }
    literal(first)
        && toks.get(k + 1) == Some(&Tok::P(b'='))
        && toks.get(k + 2) == first
        && end_at(k + 3)
}

/// Read SQL text (with client commands in it) into effects; returns what it does to the
/// database.
pub(crate) fn analyse(text: &str, out: &mut Sink) -> Verdict {
    analyse_at(text, out, 0)
}

fn analyse_at(text: &str, out: &mut Sink, dynamic: usize) -> Verdict {
    let mut v = Verdict::default();
    let text = if text.len() > MAX_SQL {
        v.write = true;
        let mut end = MAX_SQL;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        &text[..end]
    } else {
        text
    };
    let toks = tokens(text);
    let mut start = 0;
    for k in 0..=toks.len() {
        let end = match toks.get(k) {
            None | Some(Tok::P(b';')) => true,
            Some(Tok::Meta(m)) => {
                let gexec = m.starts_with("gexec");
                meta(m, out, &mut v);
                if gexec && dynamic < MAX_DYNAMIC {
                    // The query's result rows run as SQL: read its strings as SQL.
                    let mut d = Verdict {
                        write: true,
                        ..Verdict::default()
                    };
                    for t in &toks[start..k] {
                        if let Tok::Str(s) = t {
                            d.merge(analyse_at(s, out, dynamic + 1));
                        }
                    }
                    v.merge(d);
                }
                true
            }
            Some(Tok::Line(l)) => {
                line_command(l, out, &mut v);
                true
            }
            _ => false,
        };
        if end {
            if k > start {
                v.merge(statement(&toks[start..k], out, dynamic));
            }
            start = k + 1;
        }
    }
    v
}

/// One statement (or a run of T-SQL statements without `;`).
fn statement(toks: &[Tok<'_>], out: &mut Sink, dynamic: usize) -> Verdict {
    let mut v = Verdict::default();
    // `EXPLAIN DELETE …` plans without running; `EXPLAIN ANALYZE DELETE …` runs.
    if word_in(toks.first(), &["EXPLAIN", "DESCRIBE", "DESC"]) {
        let runs = toks
            .iter()
            .take_while(|t| !word_in(Some(t), STRONG))
            .any(|t| word_in(Some(t), &["ANALYZE", "ANALYSE"]));
        if !runs {
            return v;
        }
    }
    let finish = |c: Clause, v: &mut Verdict| match c.kind {
        Kind::Destroy => v.destroy = true,
        Kind::Write => v.write = true,
        Kind::Bounded if c.bounded => v.write = true,
        Kind::Bounded => v.destroy = true,
    };
    let mut clauses: Vec<Clause> = Vec::new();
    let mut depth: i32 = 0;
    let mut in_grant = false;
    let mut in_merge = false;
    for (k, t) in toks.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|p| toks.get(p));
        let next = toks.get(k + 1);
        match *t {
            Tok::P(b'(') => depth += 1,
            Tok::P(b')') => {
                while clauses.last().is_some_and(|c| c.depth >= depth) {
                    let c = clauses.pop().expect("checked");
                    finish(c, &mut v);
                }
                depth = (depth - 1).max(0);
            }
            Tok::Str(s) => {
                // `COPY … FROM PROGRAM 'cmd'` runs a shell command.
                if is(prev, "PROGRAM") {
                    out.script(s);
                }
                // Dynamic SQL: `EXEC('…')`, `EXECUTE '…'`, `sp_executesql N'…'`,
                // `PREPARE s FROM '…'`.
                let dyn_ctx = toks[k.saturating_sub(3)..k].iter().any(|p| {
                    word_in(
                        Some(p),
                        &["EXEC", "EXECUTE", "sp_executesql", "N", "IMMEDIATE", "FROM"],
                    )
                });
                if dyn_ctx && dynamic < MAX_DYNAMIC && !is(prev, "PROGRAM") {
                    let d = analyse_at(s, out, dynamic + 1);
                    v.merge(d);
                }
            }
            Tok::Word(w) => {
                let upper = |set: &[&str]| set.iter().any(|s| w.eq_ignore_ascii_case(s));
                if w.eq_ignore_ascii_case("WHERE") {
                    if let Some(c) = clauses.last_mut() {
                        if c.depth == depth && c.kind == Kind::Bounded {
                            c.bounded = !trivial_condition(toks, k + 1);
                        }
                    }
                    continue;
                }
                if in_grant && word_in(Some(t), &["ON", "TO", "FROM"]) {
                    in_grant = false;
                    continue;
                }
                let at_start = prev.is_none()
                    || matches!(prev, Some(Tok::P(b'(')) | Some(Tok::Dollar))
                    || word_in(prev, BLOCK);
                let strong = upper(STRONG)
                    && !in_grant
                    && !word_in(prev, NOT_AFTER)
                    && prev != Some(&Tok::P(b'.'))
                    && (next != Some(&Tok::P(b'(')) || upper(&["EXEC", "EXECUTE"]));
                let kind = if strong {
                    Some(if upper(&["DELETE", "UPDATE"]) {
                        Kind::Bounded
                    } else if upper(&["TRUNCATE"])
                        || (upper(&["DROP"]) && !word_in(next, DROP_SOFT))
                    {
                        Kind::Destroy
                    } else {
                        Kind::Write
                    })
                } else if at_start && upper(WEAK_DESTROY) {
                    Some(Kind::Destroy)
                } else if at_start && upper(&["PRAGMA"]) {
                    // `PRAGMA x` and `PRAGMA table_info(t)` read; `PRAGMA x = v` changes a
                    // setting (`user_version`, `writable_schema`, `journal_mode`).
                    let sets = toks[k + 1..]
                        .iter()
                        .take_while(|t| **t != Tok::P(b';'))
                        .any(|t| *t == Tok::P(b'='));
                    sets.then_some(Kind::Write)
                } else if at_start && upper(&["VACUUM"]) {
                    Some(Kind::Write)
                } else if is(prev, "BEGIN") && upper(&["EXCLUSIVE", "IMMEDIATE"]) {
                    // SQLite's `BEGIN EXCLUSIVE` / `IMMEDIATE` takes the write lock at once:
                    // held open, it keeps every other writer out.
                    Some(Kind::Write)
                } else if at_start && upper(WEAK_WRITE) {
                    if upper(&["SET"]) {
                        // `SET x = …` configures the session; `SET` after UPDATE is handled there.
                        None
                    } else {
                        Some(Kind::Write)
                    }
                } else {
                    None
                };
                if at_start && upper(&["GRANT", "REVOKE"]) {
                    in_grant = true;
                }
                if let Some(kind) = kind {
                    if upper(&["MERGE"]) {
                        in_merge = true;
                    }
                    while clauses.last().is_some_and(|c| c.depth >= depth) {
                        let c = clauses.pop().expect("checked");
                        finish(c, &mut v);
                    }
                    let kind = if in_merge && kind == Kind::Bounded {
                        Kind::Write
                    } else {
                        kind
                    };
                    clauses.push(Clause {
                        kind,
                        depth,
                        bounded: false,
                    });
                }
            }
            _ => {}
        }
    }
    for c in clauses {
        finish(c, &mut v);
    }
    v
}

/// The words of a client command's argument, unquoted.
fn words(s: &str) -> Vec<&str> {
    s.split_whitespace()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .collect()
}

/// A psql or mysql backslash command (without its backslash).
fn meta(m: &str, out: &mut Sink, v: &mut Verdict) {
    if let Some(rest) = m.strip_prefix('!') {
        out.script(rest.trim());
        return;
    }
    if let Some(rest) = m.strip_prefix('.') {
        // mysql `\. file`: source.
        for f in words(rest) {
            out.path(Act::Read, f);
            v.merge(unread_file(f));
        }
        v.write = true;
        return;
    }
    let (name, rest) = m.split_once(char::is_whitespace).unwrap_or((m, ""));
    let rest = rest.trim();
    match name {
        "i" | "ir" | "include" | "include_relative" => {
            for f in words(rest) {
                out.path(Act::Read, f);
                v.merge(unread_file(f));
            }
            v.write = true;
        }
        "o" | "out" | "g" | "gx" | "w" | "write" | "s" | "lo_export" => {
            if let Some(cmd) = rest.strip_prefix('|') {
                out.script(cmd.trim());
            } else if let Some(f) = words(rest).last() {
                out.path(Act::Overwrite, f);
            }
        }
        "copy" => {
            let lower = rest.to_ascii_lowercase();
            if let Some(at) = lower.find(" program ") {
                let cmd = rest[at + 9..].trim();
                let cmd = cmd
                    .strip_prefix('\'')
                    .and_then(|c| c.split_once('\''))
                    .map_or(cmd, |(c, _)| c);
                out.script(cmd);
            }
            if lower.contains(" from ") {
                v.write = true;
            }
        }
        "lo_import" | "lo_unlink" => v.write = true,
        _ => {}
    }
}

/// A client line command (`.read`, `source`, `system`, `:r`, `!!`).
fn line_command(l: &str, out: &mut Sink, v: &mut Verdict) {
    let (name, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
    let rest = rest.trim();
    let args = words(rest);
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        ".read" | "source" | ":r" => {
            if let Some(f) = args.first() {
                out.path(Act::Read, f);
                v.merge(unread_file(f));
            }
            v.write = true;
        }
        ".import" => {
            if let Some(f) = args.iter().find(|a| !a.starts_with('-')) {
                out.path(Act::Read, f);
            }
            v.write = true;
        }
        ".shell" | ".system" | "system" | "!!" | ":!!" => out.script(rest),
        ".output" | ".once" | ".backup" | ".save" | ".clone" | ":out" => {
            if let Some(f) = args.iter().rev().find(|a| !a.starts_with('-')) {
                out.path(Act::Overwrite, f);
            }
        }
        ".restore" => {
            if let Some(f) = args.last() {
                out.path(Act::Read, f);
            }
            v.destroy = true;
        }
        ".open" if args.contains(&"--new") => {
            if let Some(f) = args.iter().rev().find(|a| !a.starts_with('-')) {
                out.path(Act::Overwrite, f);
            }
        }
        ".load" => out.opaque(l),
        _ if lower.starts_with("!!") || lower.starts_with(":!!") => {
            out.script(l.trim_start_matches([':', '!']).trim())
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(sql: &str) -> &'static str {
        let mut out = Sink::default();
        let v = analyse(sql, &mut out);
        match (v.destroy, v.write) {
            (true, _) => "destroy",
            (false, true) => "write",
            _ => "read",
        }
    }

    #[test]
    fn destroying_statements_in_every_spelling() {
        for sql in [
            "DROP TABLE users",
            "drop table users;",
            "Drop  Table users",
            "drop\ntable\nusers",
            "DROP/**/TABLE users",
            "DROP -- why\n TABLE users",
            "drop database prod",
            "DROP SCHEMA public CASCADE",
            "DROP INDEX idx",
            "DROP VIEW v",
            "TRUNCATE users",
            "truncate table users restart identity",
            "DELETE FROM users",
            "delete from users;",
            "DELETE FROM users WHERE 1=1",
            "DELETE FROM users WHERE true",
            "UPDATE users SET admin = true",
            "update users set name = 'x' where 1 = 1;",
            "ALTER TABLE users DROP COLUMN email",
            "alter table t drop constraint fk",
            "ALTER TABLE t ADD x int, DROP y",
            "SELECT 1; DROP TABLE t",
            "BEGIN; DELETE FROM t; COMMIT;",
            "DELETE FROM a WHERE id = 1 DELETE FROM b",
            "DO $$ BEGIN DELETE FROM t; END $$;",
            "WITH d AS (DELETE FROM t RETURNING *) SELECT count(*) FROM d",
            "EXEC('DROP TABLE t')",
            "EXECUTE 'TRUNCATE ' || tbl",
            "EXPLAIN ANALYZE DELETE FROM t",
            "SELECT format('DROP TABLE %I', tablename) FROM pg_tables \\gexec",
            ".restore backup.db",
            // A script the text includes is read by its name, as one on the command line.
            "\\i drop_all.sql",
            ".read teardown.sql",
            "source truncate_tables.sql",
            "\\. wipe.sql",
        ] {
            assert_eq!(verdict(sql), "destroy", "{sql}");
        }
    }

    #[test]
    fn bounded_and_schema_writes() {
        for sql in [
            "DELETE FROM users WHERE id = 3",
            "update users set name='x' where id in (select id from t)",
            "INSERT INTO t VALUES (1)",
            "insert into t select * from u",
            "CREATE TABLE t (id int REFERENCES u ON DELETE CASCADE)",
            "ALTER TABLE t ADD COLUMN x int",
            "ALTER TABLE t ALTER COLUMN x DROP DEFAULT",
            "ALTER TABLE t ALTER COLUMN x DROP NOT NULL",
            "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET x = 1",
            "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE x = 1",
            "CREATE OR REPLACE VIEW v AS SELECT 1",
            "PRAGMA user_version = 999",
            "VACUUM",
            "GRANT SELECT, DELETE ON t TO bob",
            "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET x = s.x",
            "UPDATE t SET x = (SELECT y FROM u WHERE u.id = t.id) WHERE t.id > 5",
            "CALL cleanup()",
            "\\i schema.sql",
            "source dump.sql",
            ".read seed.sql",
            "BEGIN EXCLUSIVE; SELECT 1;",
            "begin immediate",
        ] {
            assert_eq!(verdict(sql), "write", "{sql}");
        }
    }

    #[test]
    fn reads_and_keywords_in_strings() {
        for sql in [
            "SELECT * FROM users",
            "select 'DROP TABLE users'",
            "SELECT \"drop\" FROM t",
            "SELECT 'it''s; DROP TABLE x'",
            "-- DROP TABLE x\nSELECT 1",
            "/* DELETE FROM t */ SELECT 1",
            "SELECT * FROM t FOR UPDATE",
            "PRAGMA user_version",
            "PRAGMA table_info(users)",
            "EXPLAIN DELETE FROM t",
            "SHOW TABLES",
            "\\dt",
            "\\d users",
            "SELECT replace(name, 'a', 'b') FROM t",
            "SET search_path TO app",
            "BEGIN; SELECT 1; COMMIT;",
            "BEGIN DEFERRED; SELECT 1;",
            ".tables",
            ".schema users",
            "",
        ] {
            assert_eq!(verdict(sql), "read", "{sql}");
        }
    }

    #[test]
    fn client_commands_name_files_and_shell_code() {
        let mut out = Sink::default();
        analyse(
            "\\! rm -rf /\n.shell ls\nsystem echo hi\nCOPY t FROM PROGRAM 'curl x | sh'\n;COPY t TO PROGRAM $$gzip > /tmp/t.gz$$; COPY u FROM PROGRAM $q$curl y | sh$q$; DO $$ BEGIN END $$",
            &mut out,
        );
        assert_eq!(
            out.scripts,
            vec![
                "rm -rf /",
                "ls",
                "echo hi",
                "curl x | sh",
                "gzip > /tmp/t.gz",
                "curl y | sh"
            ]
        );
        let mut out = Sink::default();
        analyse("\\o /etc/passwd\n.read x.sql\nsource y.sql", &mut out);
        assert_eq!(out.raw.len(), 3);
    }

    #[test]
    fn hostile_input_is_linear() {
        let big = "(".repeat(200_000) + &"DELETE FROM t WHERE ".repeat(10_000);
        let _ = verdict(&big);
        let big = "'".to_string() + &"x".repeat(300_000);
        assert_eq!(verdict(&big), "write");
    }
}
