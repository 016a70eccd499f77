//! SQL clients: where each takes its SQL from (an option, a file, operands, standard input)
//! and what else it touches (output files, the database file of sqlite and duckdb).

use std::borrow::Cow;

use gate_spec::effect::Act;

use super::super::super::getopt::{self, Args, Grammar};
use super::super::super::{Cmd, Sink};
use super::sql::{self, Verdict};

const PSQL: Grammar = Grammar {
    short: "aAbeEHlnqsStwWxX0z1V?",
    short_value: "cdfFhLoPpRTUv",
    long: &[
        "echo-all",
        "no-align",
        "echo-errors",
        "echo-queries",
        "echo-hidden",
        "html",
        "list",
        "no-readline",
        "quiet",
        "single-step",
        "single-line",
        "tuples-only",
        "no-password",
        "password",
        "expanded",
        "no-psqlrc",
        "field-separator-zero",
        "record-separator-zero",
        "single-transaction",
        "version",
        "help",
        "csv",
    ],
    long_value: &[
        "command",
        "dbname",
        "file",
        "field-separator",
        "host",
        "log-file",
        "output",
        "port",
        "pset",
        "record-separator",
        "table-attr",
        "username",
        "set",
        "variable",
    ],
    posix: false,
};

const MYSQL: Grammar = Grammar {
    short: "ABCEfHnNqrstvVwX?U",
    short_value: "DehuPSOT",
    long: &[
        "auto-rehash",
        "no-auto-rehash",
        "batch",
        "compress",
        "vertical",
        "force",
        "html",
        "unbuffered",
        "skip-column-names",
        "quick",
        "raw",
        "silent",
        "table",
        "verbose",
        "version",
        "wait",
        "xml",
        "help",
        "safe-updates",
        "i-am-a-dummy",
        "no-beep",
        "show-warnings",
        "skip-ssl",
        "ssl",
        "binary-mode",
        "comments",
        "skip-comments",
        "password",
        "no-defaults",
    ],
    long_value: &[
        "database",
        "execute",
        "host",
        "user",
        "port",
        "socket",
        "default-character-set",
        "defaults-file",
        "defaults-extra-file",
        "login-path",
        "init-command",
        "protocol",
        "connect-timeout",
        "ssl-ca",
        "ssl-cert",
        "ssl-key",
        "ssl-mode",
        "tee",
        "pager",
        "delimiter",
        "max-allowed-packet",
        "plugin-dir",
        "default-auth",
    ],
    posix: false,
};

const SQLCMD: Grammar = Grammar {
    short: "EbeINCpkRxXGLrj?",
    short_value: "SUPdQqiovswhtlHaAfKMyYcg",
    long: &[],
    long_value: &[],
    posix: false,
};

const CLICKHOUSE: Grammar = Grammar {
    short: "nmtVE",
    short_value: "qhudfc",
    long: &[
        "multiquery",
        "multiline",
        "time",
        "version",
        "secure",
        "verbose",
        "echo",
        "ask-password",
        "vertical",
    ],
    long_value: &[
        "query",
        "host",
        "port",
        "user",
        "password",
        "database",
        "format",
        "queries-file",
        "config-file",
        "param",
        "log-level",
        "max_threads",
        "query_id",
    ],
    posix: false,
};

const COCKROACH_SQL: Grammar = Grammar {
    short: "",
    short_value: "efdu",
    long: &["insecure", "echo-sql", "safe-updates", "read-only", "watch"],
    long_value: &[
        "execute",
        "file",
        "url",
        "host",
        "port",
        "database",
        "user",
        "certs-dir",
        "format",
        "set",
    ],
    posix: false,
};

const CQLSH: Grammar = Grammar {
    short: "Cu",
    short_value: "efupk",
    long: &[
        "color",
        "no-color",
        "ssl",
        "debug",
        "no-file-io",
        "version",
        "help",
    ],
    long_value: &[
        "execute",
        "file",
        "username",
        "password",
        "keyspace",
        "cqlversion",
        "encoding",
        "connect-timeout",
        "request-timeout",
    ],
    posix: false,
};

const MONGO: Grammar = Grammar {
    short: "hn",
    short_value: "upf",
    long: &[
        "quiet", "nodb", "norc", "shell", "help", "version", "tls", "ssl", "verbose", "json",
    ],
    long_value: &[
        "eval",
        "file",
        "host",
        "port",
        "username",
        "password",
        "authenticationDatabase",
        "authenticationMechanism",
        "apiVersion",
    ],
    posix: false,
};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    match cmd.program {
        "psql" | "pgcli" | "usql" => psql(cmd, out),
        "mysql" | "mariadb" | "mycli" => mysql(cmd, out),
        "sqlite3" | "sqlite" | "litecli" | "duckdb" => sqlite(cmd, out),
        "sqlcmd" => sqlcmd(cmd, out),
        "clickhouse-client" | "clickhouse-local" => clickhouse(cmd.args, cmd.stdin, out),
        "clickhouse" => match cmd.args.first().map(|a| &**a) {
            Some("client" | "local") => clickhouse(&cmd.args[1..], cmd.stdin, out),
            _ => return false,
        },
        "cockroach" => match cmd.args.first().map(|a| &**a) {
            Some("sql" | "demo") => {
                let a = getopt::read(&COCKROACH_SQL, &cmd.args[1..]);
                sql_from(
                    &a,
                    &["e", "execute"],
                    &["f", "file"],
                    (cmd.stdin, cmd.stdin_file),
                    out,
                );
            }
            _ => out.none(Act::Exec),
        },
        "cqlsh" => {
            let a = getopt::read(&CQLSH, cmd.args);
            sql_from(
                &a,
                &["e", "execute"],
                &["f", "file"],
                (cmd.stdin, cmd.stdin_file),
                out,
            );
        }
        "mongo" | "mongosh" => {
            let a = getopt::read(&MONGO, cmd.args);
            let mut ran = false;
            for code in a.values(&["eval"]) {
                super::nosql::mongo_js(code, out);
                ran = true;
            }
            for f in a.values(&["f", "file"]).chain(
                a.operands
                    .iter()
                    .map(|o| &**o)
                    .filter(|o| o.ends_with(".js")),
            ) {
                out.path(Act::Read, f);
                out.none(Act::DbWrite);
                ran = true;
            }
            if !ran {
                if let Some(code) = cmd.stdin {
                    super::nosql::mongo_js(code, out);
                }
            }
        }
        _ => return false,
    }
    true
}

/// SQL from the options named in `inline` and the files named in `files`, else stdin.
fn sql_from(
    a: &Args<'_>,
    inline: &[&str],
    files: &[&str],
    (stdin, stdin_file): (Option<&str>, Option<&str>),
    out: &mut Sink,
) {
    let mut ran = false;
    let mut v = Verdict::default();
    for o in &a.opts {
        let Some(value) = o.value.as_deref() else {
            continue;
        };
        if inline.contains(&&*o.name) {
            v.merge(sql::analyse(value, out));
            ran = true;
        } else if files.contains(&&*o.name) {
            ran = true;
            if matches!(value, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0") {
                ran = false;
            } else {
                // A file's SQL is not on the line: a write at least, a destroy when the
                // file's name says so.
                out.path(Act::Read, value);
                v.merge(sql::unread_file(value));
            }
        }
    }
    if !ran {
        if let Some(text) = stdin {
            v.merge(sql::analyse(text, out));
        } else if let Some(file) = stdin_file {
            // `mysql db < dump.sql`: SQL from a file not on the line, as with `-f`.
            v.merge(sql::unread_file(file));
        }
    }
    v.emit(out);
}

fn psql(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&PSQL, cmd.args);
    if a.any(&["l", "list"]) {
        return;
    }
    for f in a.values(&["o", "output", "L", "log-file"]) {
        if let Some(c) = f.strip_prefix('|') {
            out.script(c);
        } else {
            out.path(Act::Overwrite, f);
        }
    }
    sql_from(
        &a,
        &["c", "command"],
        &["f", "file"],
        (cmd.stdin, cmd.stdin_file),
        out,
    );
}

fn mysql(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // `-pSECRET` attaches a password (it never takes a separate value).
    let args: Vec<Cow<'_, str>> = cmd
        .args
        .iter()
        .filter(|w| !w.starts_with("-p") || w.starts_with("--"))
        .cloned()
        .collect();
    let a = getopt::read(&MYSQL, &args);
    for f in a.values(&["tee"]) {
        out.path(Act::Write, f);
    }
    let mut v = Verdict::default();
    for init in a.values(&["init-command"]) {
        v.merge(sql::analyse(init, out));
    }
    v.emit(out);
    sql_from(&a, &["e", "execute"], &[], (cmd.stdin, cmd.stdin_file), out);
}

/// sqlite3, duckdb: `[OPTIONS] [FILE] [SQL…]`, options spelled with one dash or two.
fn sqlite(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    const VALUED: &[&str] = &[
        "cmd",
        "init",
        "separator",
        "nullvalue",
        "newline",
        "mmap",
        "vfs",
        "heap",
        "lookaside",
        "pagecache",
        "maxsize",
        "escape",
        "A",
        "c",
        "s",
        "f",
    ];
    let mut db: Option<&str> = None;
    let mut v = Verdict::default();
    let mut ran = false;
    let mut readonly = false;
    let mut k = 0;
    let args = cmd.args;
    while let Some(w) = args.get(k) {
        k += 1;
        let w: &str = w;
        if let Some(name) = w.strip_prefix("--").or_else(|| w.strip_prefix('-')) {
            if name.is_empty() {
                continue;
            }
            if name == "readonly" {
                readonly = true;
            }
            if VALUED.contains(&name) {
                let value = args.get(k).map(|x| &**x).unwrap_or("");
                k += 1;
                match name {
                    "cmd" | "c" | "s" => {
                        v.merge(sql::analyse(value, out));
                        ran |= name != "cmd";
                    }
                    "init" | "f" => {
                        out.path(Act::Read, value);
                        v.merge(sql::unread_file(value));
                        ran |= name == "f";
                    }
                    _ => {}
                }
            }
            continue;
        }
        if db.is_none() {
            db = Some(w);
            continue;
        }
        v.merge(sql::analyse(w, out));
        ran = true;
    }
    if !ran {
        if let Some(text) = cmd.stdin {
            v.merge(sql::analyse(text, out));
        } else if let Some(file) = cmd.stdin_file {
            v.merge(sql::unread_file(file));
        }
    }
    if let Some(db) = db.filter(|d| *d != ":memory:") {
        let act = if (v.destroy || v.write) && !readonly {
            Act::Write
        } else {
            Act::Read
        };
        out.path(act, db);
    }
    v.emit(out);
}

fn sqlcmd(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&SQLCMD, cmd.args);
    for f in a.values(&["o"]) {
        out.path(Act::Overwrite, f);
    }
    let mut v = Verdict::default();
    let mut ran = false;
    for q in a.values(&["Q", "q"]) {
        v.merge(sql::analyse(q, out));
        ran = true;
    }
    for f in a.values(&["i"]) {
        for f in f.split(',') {
            out.path(Act::Read, f);
            v.merge(sql::unread_file(f));
        }
        ran = true;
    }
    // go-sqlcmd: `sqlcmd query "SQL"`.
    if a.operands.first().is_some_and(|o| o == "query") {
        for q in &a.operands[1..] {
            v.merge(sql::analyse(q, out));
            ran = true;
        }
    }
    if !ran {
        if let Some(text) = cmd.stdin {
            v.merge(sql::analyse(text, out));
        }
    }
    v.emit(out);
}

fn clickhouse(args: &[Cow<'_, str>], stdin: Option<&str>, out: &mut Sink) {
    let a = getopt::read(&CLICKHOUSE, args);
    sql_from(&a, &["q", "query"], &["queries-file"], (stdin, None), out);
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn psql_sql_from_every_option_spelling() {
        for line in [
            "psql -c 'DROP TABLE users'",
            "psql -d app -c \"drop table users;\"",
            "psql --command='TRUNCATE t'",
            "psql --command 'DELETE FROM t'",
            "psql --comm 'DELETE FROM t'",
            "psql -U postgres -h db.local -p 5432 app -c 'DROP DATABASE app'",
            "psql postgresql://u@h/app -c 'DROP SCHEMA public CASCADE'",
            "sudo -u postgres psql -c 'DROP DATABASE x'",
            "env PGPASSWORD=x psql -c 'DROP TABLE t'",
            "bash -c \"psql -c 'DROP TABLE t'\"",
            "echo 'DROP TABLE t;' | psql app",
            "printf 'DELETE FROM t;\\n' | psql",
            "psql -c 'select 1' -c 'drop table t'",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        assert_eq!(
            effects("psql -c 'SELECT count(*) FROM users'"),
            Vec::<String>::new()
        );
        assert_eq!(effects("psql -l"), Vec::<String>::new());
        assert_eq!(effects("psql -c '\\dt'"), Vec::<String>::new());
        assert_eq!(
            effects("psql -c \"INSERT INTO t VALUES (1)\""),
            vec!["db_write@none"]
        );
        assert_eq!(
            effects("psql -c \"DELETE FROM t WHERE id = 4\""),
            vec!["db_write@none"]
        );
        assert_eq!(
            effects("psql -f migrations/001.sql"),
            vec!["db_write@none", "read@source"]
        );
        assert!(has("psql -f x.sql -o ~/.bashrc", "overwrite@dotfiles"));
        assert!(has("psql -c '\\! rm -rf ~'", "delete@home"));
    }

    #[test]
    fn mysql_and_mariadb() {
        for line in [
            "mysql -e 'DROP DATABASE shop'",
            "mysql -uroot -psecret -e 'drop database shop'",
            "mysql -u root -p shop --execute='TRUNCATE orders'",
            "mysql --exec 'DELETE FROM orders'",
            "mariadb -h db -e 'UPDATE users SET admin=1'",
            "echo 'DROP TABLE t' | mysql shop",
            "mysql --init-command='DROP TABLE t' shop",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        assert_eq!(effects("mysql -e 'SHOW DATABASES'"), Vec::<String>::new());
        assert_eq!(
            effects("mysql -u root -psecret -e 'select 1'"),
            Vec::<String>::new()
        );
        assert!(has("mysql -e 'system rm -rf /'", "delete@root"));
        assert!(has("mysql -e 'source dump.sql'", "db_write@none"));
    }

    #[test]
    fn sql_files_not_shown_are_a_write_at_least_and_what_their_name_says() {
        // Not read (no disk in a test): the name is the evidence, and only raises.
        for line in [
            "mysql prod < drop_all.sql",
            "mysql -u root app < ./sql/drop-tables.sql",
            "mariadb shop < TruncateAll.SQL",
            "psql -d app -f reset_db.sql",
            "mysql app < clear_all_tables.sql",
            "psql app < teardown.sql",
            "sqlite3 app.db < wipe.sql",
            "PGPASSWORD=x psql -h db -U app -f /tmp/purge_users.sql",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        for line in [
            "mysql app < migrate.sql",
            "psql -d app -f seed.sql",
            "mysql shop < dump.sql",
            "psql app < schema_v2.sql",
            "mysql app < reset_password_tokens.sql",
            "psql -f clear_expired_sessions.sql app",
        ] {
            assert!(has(line, "db_write@none"), "{line}: {:?}", effects(line));
            assert!(!has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn sqlite_and_duckdb() {
        assert!(has("sqlite3 app.db 'DROP TABLE users'", "db_destroy@none"));
        assert!(has("sqlite3 app.db 'DROP TABLE users'", "write@source"));
        assert!(has(
            "sqlite3 -cmd 'DELETE FROM t' app.db",
            "db_destroy@none"
        ));
        assert!(has(
            "sqlite3 --header app.db 'delete from t'",
            "db_destroy@none"
        ));
        assert!(has(
            "sqlite3 ~/.local/state/gate/gate.db 'DELETE FROM events'",
            "write@gate"
        ));
        assert!(has("sqlite3 x.db .tables", "read@source"));
        assert_eq!(
            effects("sqlite3 x.db 'SELECT * FROM t'"),
            vec!["read@source"]
        );
        assert!(has("sqlite3 x.db '.restore old.db'", "db_destroy@none"));
        assert!(has("sqlite3 x.db '.shell rm -rf /'", "delete@root"));
        assert!(has("sqlite3 x.db '.output /etc/hosts'", "overwrite@system"));
        assert!(has(
            "echo 'DROP TABLE t;' | sqlite3 x.db",
            "db_destroy@none"
        ));
        assert!(has("duckdb x.duckdb -c 'DROP TABLE t'", "db_destroy@none"));
        assert_eq!(effects("duckdb -c 'SELECT 42'"), Vec::<String>::new());
    }

    #[test]
    fn other_clients() {
        for line in [
            "sqlcmd -S srv -Q 'DROP DATABASE shop'",
            "sqlcmd -S srv -d shop -q 'TRUNCATE TABLE t'",
            "clickhouse-client --query 'DROP TABLE t'",
            "clickhouse-client -q 'TRUNCATE TABLE t'",
            "clickhouse client --query='DROP DATABASE d'",
            "cockroach sql --insecure -e 'DROP DATABASE d'",
            "cockroach sql --execute='DELETE FROM t'",
            "cqlsh -e 'DROP KEYSPACE ks'",
            "mongosh app --eval 'db.dropDatabase()'",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        assert_eq!(effects("sqlcmd -S srv -Q 'SELECT 1'"), Vec::<String>::new());
        assert_eq!(
            effects("clickhouse-client -q 'SHOW TABLES'"),
            Vec::<String>::new()
        );
        assert_eq!(
            effects("cockroach sql -e 'SHOW DATABASES'"),
            Vec::<String>::new()
        );
        assert!(has("sqlcmd -i setup.sql", "db_write@none"));
    }
}
