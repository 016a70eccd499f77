//! Redis and MongoDB commands, and the database administration programs (`dropdb`,
//! `mysqladmin drop`, `pg_restore --clean`, `mongorestore --drop`, …).

use gate_spec::effect::{Act, Place};

use super::super::super::getopt::{self, Grammar};
use super::super::super::{Cmd, Sink, EVERY_LISTED};

const REDIS: Grammar = Grammar {
    short: "xXce23",
    short_value: "hpsanurid",
    long: &[
        "raw",
        "no-raw",
        "csv",
        "tls",
        "scan",
        "bigkeys",
        "memkeys",
        "hotkeys",
        "stat",
        "latency",
        "latency-history",
        "latency-dist",
        "ldb",
        "ldb-sync-mode",
        "pipe",
        "verbose",
        "no-auth-warning",
        "help",
        "version",
        "quoted-input",
        "json",
        "resp2",
        "resp3",
        "replica",
        "insecure",
        "askpass",
    ],
    long_value: &[
        "user",
        "pass",
        "sni",
        "cacert",
        "cacertdir",
        "cert",
        "key",
        "pattern",
        "count",
        "quoted-pattern",
        "rdb",
        "functions-rdb",
        "eval",
        "pipe-timeout",
        "intrinsic-latency",
        "cluster",
        "tls-ciphers",
        "tls-ciphersuites",
    ],
    posix: true,
};

/// Redis commands that only read or inspect.
const REDIS_READ: &[&str] = &[
    "GET",
    "MGET",
    "GETRANGE",
    "STRLEN",
    "EXISTS",
    "TYPE",
    "TTL",
    "PTTL",
    "KEYS",
    "SCAN",
    "HGET",
    "HMGET",
    "HGETALL",
    "HKEYS",
    "HVALS",
    "HLEN",
    "HEXISTS",
    "HSCAN",
    "LRANGE",
    "LLEN",
    "LINDEX",
    "LPOS",
    "SMEMBERS",
    "SISMEMBER",
    "SCARD",
    "SSCAN",
    "SRANDMEMBER",
    "ZRANGE",
    "ZRANGEBYSCORE",
    "ZREVRANGE",
    "ZSCORE",
    "ZCARD",
    "ZCOUNT",
    "ZRANK",
    "ZSCAN",
    "XRANGE",
    "XREVRANGE",
    "XLEN",
    "XINFO",
    "XREAD",
    "PING",
    "INFO",
    "DBSIZE",
    "MONITOR",
    "SUBSCRIBE",
    "PSUBSCRIBE",
    "PUBSUB",
    "ECHO",
    "TIME",
    "LASTSAVE",
    "ROLE",
    "CLIENT",
    "SLOWLOG",
    "MEMORY",
    "LATENCY",
    "COMMAND",
    "OBJECT",
    "DUMP",
    "RANDOMKEY",
    "GETBIT",
    "BITCOUNT",
    "PFCOUNT",
    "GEOPOS",
    "GEODIST",
    "GEORADIUS",
    "GEOSEARCH",
    "HELLO",
    "AUTH",
    "SELECT",
    "QUIT",
    "WAIT",
    "SAVE",
    "BGSAVE",
    "BGREWRITEAOF",
    "JSON.GET",
    "FT.SEARCH",
    "FT.INFO",
    "CLUSTER",
    "MODULE",
    "ACL",
    "LOLWUT",
    "SCRIPT",
    "FUNCTION",
];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let first = cmd.args.first().map(|a| &**a);
    match cmd.program {
        "redis-cli" | "valkey-cli" | "keydb-cli" => redis(cmd, out),
        "influx" => influx(cmd, out),
        "dropdb" => out.none(Act::DbDestroy),
        "createdb" | "createuser" | "dropuser" => out.none(Act::DbWrite),
        "pg_dropcluster" => out.none(Act::DbDestroy),
        "pg_restore" => {
            let clean = cmd.args.iter().any(|a| {
                a == "--clean" || a.starts_with("--cle") || (is_bundle(a) && a.contains('c'))
            });
            let to_db = cmd.args.iter().any(|a| {
                a.starts_with("--dbname")
                    || a.starts_with("-d")
                    || (is_bundle(a) && a.contains('d'))
            });
            if clean && to_db {
                out.none(Act::DbDestroy);
            } else if to_db {
                out.none(Act::DbWrite);
            }
        }
        "mongorestore" | "mongoimport" => {
            if cmd
                .args
                .iter()
                .any(|a| a == "--drop" || a == "--mode=delete")
            {
                out.none(Act::DbDestroy);
            } else {
                out.none(Act::DbWrite);
            }
        }
        "mysqladmin" | "mariadb-admin" => {
            let ops: Vec<&str> = cmd
                .args
                .iter()
                .map(|a| &**a)
                .filter(|a| !a.starts_with('-'))
                .collect();
            for (k, op) in ops.iter().enumerate() {
                match op.to_ascii_lowercase().as_str() {
                    "drop" => out.none(Act::DbDestroy),
                    "create" | "password" | "flush-privileges" | "reload" | "refresh" => {
                        out.none(Act::DbWrite)
                    }
                    "shutdown" => out.none(Act::Service),
                    "kill" => out.none(Act::Kill),
                    _ if k > 0 && matches!(ops[k - 1], "drop" | "create" | "kill") => {}
                    _ => {}
                }
            }
        }
        "pg_ctl" | "pg_ctlcluster" => {
            if cmd
                .args
                .iter()
                .any(|a| a == "stop" || a == "restart" || a == "kill")
            {
                out.none(Act::Service);
            }
        }
        "mongod" | "redis-server" => out.none(Act::Exec),
        _ => return false,
    }
    let _ = first;
    true
}

/// Whether a `redis-cli …` lists every key of its database: `KEYS *`, or `--scan` with no
/// pattern or the pattern `*`.
pub(crate) fn lists_every_key(args: &[std::borrow::Cow<'_, str>]) -> bool {
    let a = getopt::read(&REDIS, args);
    let everything = |p: Option<&str>| p.is_none_or(|p| p.trim_matches('*').is_empty());
    if a.has("scan") {
        return everything(a.value("pattern").or(a.value("quoted-pattern")));
    }
    match a.operands.as_slice() {
        [cmd, pattern] => cmd.eq_ignore_ascii_case("keys") && everything(Some(pattern)),
        _ => false,
    }
}

/// `influx` (InfluxDB 2 CLI): `delete` removes points (every point in the time range
/// unless a `--predicate` narrows it, as an unfiltered `deleteMany({})` does), deleting a
/// bucket, organisation or database destroys it; writes and set-up change data; queries read.
fn influx(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // The 1.x shell runs InfluxQL given by `-execute` (Go flags: one dash or two, the value
    // attached by `=` or the next word).
    for (k, a) in cmd.args.iter().enumerate() {
        let name = a.trim_start_matches('-');
        let value = match name.split_once('=') {
            Some(("execute", v)) => Some(v),
            None if a.starts_with('-') && name == "execute" => cmd.args.get(k + 1).map(|v| &**v),
            _ => None,
        };
        if let Some(ql) = value {
            super::sql::analyse(ql, out).emit(out);
        }
    }
    let words: Vec<&str> = cmd
        .args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-'))
        .take(2)
        .collect();
    let narrowed = cmd
        .args
        .iter()
        .any(|a| a == "-p" || a.starts_with("--predicate"));
    match words.as_slice() {
        ["delete", ..] if narrowed => out.none(Act::DbWrite),
        ["delete", ..] => out.none(Act::DbDestroy),
        ["bucket" | "org" | "v1" | "dbrp" | "stacks" | "remote" | "replication", "delete" | "rm", ..] => {
            out.none(Act::DbDestroy)
        }
        ["backup", ..] => {}
        ["restore", ..] if cmd.args.iter().any(|a| a == "--full") => out.none(Act::DbDestroy),
        ["write" | "restore" | "setup" | "apply" | "bucket" | "org" | "user" | "auth", ..] => {
            let reads = words
                .get(1)
                .is_some_and(|w| matches!(*w, "list" | "ls" | "find"));
            if !reads {
                out.none(Act::DbWrite)
            }
        }
        _ => {}
    }
}

fn is_bundle(a: &str) -> bool {
    a.starts_with('-') && !a.starts_with("--") && a.len() > 1
}

fn redis(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    let a = getopt::read(&REDIS, cmd.args);
    if let Some(f) = a.value("rdb").or(a.value("functions-rdb")) {
        out.path(Act::Overwrite, f);
    }
    if let Some(f) = a.value("eval") {
        out.path(Act::Read, f);
        out.none(Act::DbWrite);
    }
    if let Some(sub) = a.value("cluster") {
        // `--cluster call host:port CMD …` runs CMD on every node.
        if sub == "call" && a.operands.len() > 1 {
            redis_command(&a.operands[1..], out);
        } else if !matches!(sub, "check" | "info" | "help") {
            out.none(Act::DbWrite);
        }
        return;
    }
    if a.has("scan") || a.has("bigkeys") || a.has("memkeys") || a.has("hotkeys") || a.has("stat") {
        return;
    }
    if !a.operands.is_empty() {
        redis_command(&a.operands, out);
    } else if let Some(text) = cmd.stdin {
        for line in text.lines().take(10_000) {
            let words: Vec<&str> = line.split_whitespace().collect();
            if !words.is_empty() {
                redis_command(&words, out);
            }
        }
    }
}

/// One redis command and its arguments.
fn redis_command<S: AsRef<str>>(words: &[S], out: &mut Sink) {
    let Some(name) = words.first() else {
        return;
    };
    let name = name.as_ref().to_ascii_uppercase();
    let arg = |k: usize| {
        words
            .get(k)
            .map(|w| w.as_ref().to_ascii_uppercase())
            .unwrap_or_default()
    };
    match name.as_str() {
        "FLUSHALL" | "FLUSHDB" => out.none(Act::DbDestroy),
        // Removing (or expiring) every key an enumeration listed empties the database.
        "DEL" | "UNLINK" | "EXPIRE" | "PEXPIRE" | "GETDEL"
            if words.iter().skip(1).any(|w| w.as_ref() == EVERY_LISTED) =>
        {
            out.none(Act::DbDestroy)
        }
        // A replica discards its own data set.
        "REPLICAOF" | "SLAVEOF" if arg(1) != "NO" => out.none(Act::DbDestroy),
        "REPLICAOF" | "SLAVEOF" => {}
        "SHUTDOWN" => out.none(Act::Service),
        "DEBUG" if arg(1) == "SEGFAULT" || arg(1) == "RELOAD" => out.none(Act::Service),
        "CLUSTER" if arg(1) == "RESET" || arg(1) == "FLUSHSLOTS" => out.none(Act::DbDestroy),
        "SCRIPT" | "FUNCTION" if arg(1) == "FLUSH" || arg(1) == "DELETE" => out.none(Act::DbWrite),
        "EVAL" | "EVALSHA" | "FCALL" => {
            let script = arg(1);
            if script.contains("FLUSHALL") || script.contains("FLUSHDB") {
                out.none(Act::DbDestroy);
            } else {
                out.none(Act::DbWrite);
            }
        }
        "CONFIG" if arg(1) == "GET" => {}
        "CLIENT" if arg(1) == "KILL" => out.none(Act::Kill),
        "ACL" if matches!(arg(1).as_str(), "SETUSER" | "DELUSER") => out.none(Act::DbWrite),
        n if REDIS_READ.contains(&n) => {}
        _ => out.none(Act::DbWrite),
    }
}

/// MongoDB shell code: `dropDatabase()`, `.drop()`, `deleteMany({})`, `remove({})`,
/// `updateMany({}, …)` destroy; other changes write.
pub(crate) fn mongo_js(code: &str, out: &mut Sink) {
    let toks = crate::effects::programs::interpreters::scan::tokens(
        code,
        crate::effects::programs::interpreters::scan::Lang::Js,
    );
    use crate::effects::programs::interpreters::scan::Tok;
    let mut destroy = false;
    let mut write = false;
    for (k, t) in toks.iter().enumerate() {
        let Tok::Ident(name) = t else {
            continue;
        };
        let after_dot = k > 0 && toks[k - 1] == Tok::P(b'.');
        let call = toks.get(k + 1) == Some(&Tok::P(b'('));
        // An empty filter: `()`, `({})`.
        let empty = matches!(
            (toks.get(k + 2), toks.get(k + 3), toks.get(k + 4)),
            (Some(Tok::P(b')')), _, _)
                | (
                    Some(Tok::P(b'{')),
                    Some(Tok::P(b'}')),
                    Some(Tok::P(b')' | b','))
                )
        );
        match *name {
            "dropDatabase" | "dropAllUsers" | "dropAllRoles" if call => destroy = true,
            "drop" if call && after_dot => destroy = true,
            "deleteMany" | "remove" | "updateMany" | "update" if call && after_dot => {
                if empty {
                    destroy = true;
                } else {
                    write = true;
                }
            }
            "runCommand" | "adminCommand" if call => {
                let rest: String = toks[k..toks.len().min(k + 6)]
                    .iter()
                    .filter_map(|t| match t {
                        Tok::Ident(s) => Some(*s),
                        Tok::Str(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                if rest.contains("dropDatabase") || rest.contains("drop ") || rest.ends_with("drop")
                {
                    destroy = true;
                } else if rest.contains("shutdown") {
                    out.none(Act::Service);
                } else {
                    write = true;
                }
            }
            "insertOne" | "insertMany" | "insert" | "updateOne" | "replaceOne" | "deleteOne"
            | "findOneAndDelete" | "findOneAndUpdate" | "findOneAndReplace" | "findAndModify"
            | "bulkWrite" | "createCollection" | "createIndex" | "dropIndex" | "dropIndexes"
            | "renameCollection" | "createUser" | "dropUser" | "save"
                if call && after_dot =>
            {
                write = true
            }
            "eval" | "load" if call => out.opaque(code),
            _ => {}
        }
    }
    if destroy {
        out.none(Act::DbDestroy);
    }
    if write {
        out.none(Act::DbWrite);
    }
    let _ = Place::Nowhere;
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn redis_commands_any_case_after_options() {
        for line in [
            "redis-cli FLUSHALL",
            "redis-cli flushall",
            "redis-cli -h cache.prod -p 6380 FlushAll",
            "redis-cli -n 2 flushdb",
            "redis-cli -a secret -n 3 FLUSHDB ASYNC",
            "redis-cli --user admin --pass x flushall",
            "redis-cli -u redis://h:6379/0 FLUSHALL",
            "redis-cli replicaof evil.host 6379",
            "echo FLUSHALL | redis-cli",
            "redis-cli --cluster call h:7000 FLUSHALL",
            "sudo redis-cli flushall",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        assert_eq!(effects("redis-cli DEL session:1"), vec!["db_write@none"]);
        assert_eq!(
            effects("redis-cli -h h CONFIG SET dir /tmp"),
            vec!["db_write@none"]
        );
        assert_eq!(effects("redis-cli shutdown"), vec!["service@none"]);
        for benign in [
            "redis-cli ping",
            "redis-cli -n 2 GET key",
            "redis-cli keys 'user:*'",
            "redis-cli info memory",
            "redis-cli --scan --pattern 'x*'",
            "redis-cli config get maxmemory",
            "redis-cli slaveof no one",
        ] {
            assert_eq!(effects(benign), Vec::<String>::new(), "{benign}");
        }
    }

    #[test]
    fn every_key_an_enumeration_lists_handed_to_a_delete() {
        for line in [
            "redis-cli KEYS '*' | xargs redis-cli DEL",
            "redis-cli --scan --pattern '*' | xargs redis-cli del",
            "redis-cli --scan | xargs -n 100 redis-cli unlink",
            "redis-cli -n 2 keys \\* | xargs redis-cli -n 2 del",
            "valkey-cli --scan | xargs -L 1000 valkey-cli UNLINK",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        // A pattern names some keys: a write.
        for line in [
            "redis-cli KEYS 'session:*' | xargs redis-cli DEL",
            "redis-cli --scan --pattern 'cache:*' | xargs redis-cli del",
        ] {
            assert_eq!(effects(line), ["db_write@none"], "{line}");
        }
    }

    #[test]
    fn influx_deletes_and_writes() {
        for line in [
            "influx delete --bucket b --start 1970-01-01T00:00:00Z --stop 2030-01-01T00:00:00Z",
            "influx delete -b metrics --start 2020-01-01T00:00:00Z --stop now",
            "influx bucket delete -n metrics",
            "influx org delete -i 0123",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        assert_eq!(
            effects("influx delete --bucket b --start 2020-01-01T00:00:00Z --stop 2021-01-01T00:00:00Z --predicate '_measurement=\"cpu\"'"),
            ["db_write@none"]
        );
        assert_eq!(effects("influx write -b b 'cpu v=1'"), ["db_write@none"]);
        for line in [
            "influx -execute \"drop measurement $1\" -database=gsw",
            "influx -host influx.example.com -execute \"DROP SERIES FROM /.*/\" -database=gsw",
            "influx -database db1 -execute=\"DROP DATABASE db1\"",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        for line in [
            "influx -database db1 -execute \"create database db1\" -port 8086",
            "influx -execute 'SHOW MEASUREMENTS' -database=gsw",
        ] {
            assert!(!has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        for benign in [
            "influx query 'from(bucket:\"b\")'",
            "influx bucket list",
            "influx backup /tmp/b",
        ] {
            assert!(
                !has(benign, "db_destroy@none") && !has(benign, "db_write@none"),
                "{benign}"
            );
        }
    }

    #[test]
    fn mongo_shell_code() {
        for line in [
            "mongosh app --eval 'db.dropDatabase()'",
            "mongo app --eval \"db.users.drop()\"",
            "mongosh --quiet --eval 'db.users.deleteMany({})'",
            "mongosh --eval 'db.getCollection(\"x\").deleteMany( { } )'",
            "mongo --eval 'db.users.remove({})'",
            "mongosh --eval 'db.users.updateMany({}, {$set: {a: 1}})'",
            "mongosh --eval 'db.runCommand({dropDatabase: 1})'",
            "mongosh --eval='db.getSiblingDB(\"x\").dropDatabase()'",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
        assert_eq!(
            effects("mongosh --eval 'db.users.deleteMany({age: {$lt: 3}})'"),
            vec!["db_write@none"]
        );
        assert_eq!(
            effects("mongosh --eval 'db.users.find({}).count()'"),
            Vec::<String>::new()
        );
        assert_eq!(
            effects("mongosh --eval 'print(\"db.x.drop()\")'"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn admin_programs() {
        assert_eq!(effects("dropdb app"), vec!["db_destroy@none"]);
        assert_eq!(
            effects("dropdb -h h -U u --if-exists app"),
            vec!["db_destroy@none"]
        );
        assert_eq!(effects("createdb app"), vec!["db_write@none"]);
        assert_eq!(
            effects("mysqladmin -u root drop shop"),
            vec!["db_destroy@none"]
        );
        assert_eq!(effects("mysqladmin -f DROP shop"), vec!["db_destroy@none"]);
        assert_eq!(effects("mysqladmin create shop"), vec!["db_write@none"]);
        assert_eq!(effects("mysqladmin status"), Vec::<String>::new());
        assert_eq!(
            effects("pg_restore --clean -d app x.dump"),
            vec!["db_destroy@none"]
        );
        assert_eq!(
            effects("pg_restore -c -d app x.dump"),
            vec!["db_destroy@none"]
        );
        assert_eq!(effects("pg_restore -d app x.dump"), vec!["db_write@none"]);
        assert_eq!(effects("pg_restore -l x.dump"), Vec::<String>::new());
        assert_eq!(
            effects("mongorestore --drop dump/"),
            vec!["db_destroy@none"]
        );
    }
}
