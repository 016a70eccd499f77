//! Redis commands and MongoDB shell code, and InfluxQL (the database administration
//! programs are data: `commands/database.toml`).

use gate_spec::effect::Act;

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

/// InfluxQL a 1.x `influx -execute` runs, read as SQL is.
pub(crate) fn influxql(args: &getopt::Args<'_>, out: &mut Sink) {
    for ql in args.values(&["execute"]) {
        super::sql::analyse(ql, out).emit(out);
    }
}

/// Redis commands, any case: the operands, else each line of standard input; `--rdb` and
/// `--eval` files; `--cluster call` runs its command on every node.
pub(crate) fn redis(cmd: &Cmd<'_, '_>, out: &mut Sink) {
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
}
