//! Redis commands, in any case, as `redis-cli`'s operands or each line of its standard
//! input: flushing, emptying what a listing named, turning into a replica, resetting a
//! cluster destroy data; shutting down stops the service; any command but the ones that
//! only read writes. `redis-cli`'s options are data (`commands/database.toml`).

use gate_spec::effect::Act;

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink, EVERY_LISTED};

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

/// Redis commands, any case: the operands, else each line of standard input; `--rdb` and
/// `--eval` files; `--cluster call` runs its command on every node.
pub(crate) fn redis(cmd: &Cmd<'_, '_>, a: &Args<'_>, out: &mut Sink) {
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
