//! Processes read where their words need reading (the programs and their options are data:
//! `commands/process.toml`): which processes `kill`'s targets are (`-1`, `0` and
//! pattern-made lists are every process, `1` is init), how wide a `pkill`/`killall`
//! pattern is, and whether `fuser -k`'s names are ports. The programs a pattern naming them
//! would end every instance of are data too (`shared-programs`).

use std::borrow::Cow;

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use super::super::table::words;
use gate_spec::effect::Act;

/// Whether a process pattern picks out particular processes (`vite --port 5173`,
/// `my-dev-server`), not every instance of a shared program, and not any process at all
/// (`.`, `.*`, a letter).
pub(crate) fn narrow(pattern: &str) -> bool {
    let p = pattern.trim_matches(|c| c == '^' || c == '$');
    let wide_regex = p.is_empty()
        || p.chars().count() <= 2
        || p.contains(".*")
        || p.contains(".+")
        || p.chars().all(|c| !c.is_alphanumeric());
    let shared = words("shared-programs")
        .iter()
        .any(|s| s.eq_ignore_ascii_case(p));
    !wide_regex && !shared
}

/// `pkill`/`killall PATTERN…` once the data has read its selection (`analyser =
/// "process_patterns"`): those of narrow patterns (`pkill -f 'node server.js'`) is `kill`;
/// every instance of a shared program or a wide pattern is `kill_all`.
pub(crate) fn process_patterns(
    _: &Cmd<'_, '_>,
    args: &Args<'_>,
    _: &[Cow<'_, str>],
    out: &mut Sink,
) {
    if args.operands.is_empty() {
        return;
    }
    let narrow = args.operands.iter().all(|p| narrow(p));
    out.none(if narrow { Act::Kill } else { Act::KillAll });
}

/// `fuser -k NAME…` once the data has read its options (`analyser = "fuser_ports"`): a
/// port (`8080/tcp`, or a number with `-n tcp`) is the few processes that listen or talk on
/// it; a file may be any number of programs.
pub(crate) fn fuser_ports(_: &Cmd<'_, '_>, args: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let namespace = args.value("n").or(args.value("namespace"));
    let port = |o: &str| {
        let (num, proto) = o
            .split_once('/')
            .unwrap_or((o, namespace.unwrap_or("file")));
        matches!(proto, "tcp" | "udp")
            && num.split(',').next().is_some_and(|n| {
                // A port the line names by a variable (`${PORT}/tcp`) is still one port.
                n.parse::<u16>().is_ok() || n.is_empty() || is_variable(n)
            })
    };
    let ports = !args.operands.is_empty() && args.operands.iter().all(|o| port(o));
    out.none(if ports { Act::Kill } else { Act::KillAll });
}

/// Whether a word is one variable expansion (`$PORT`, `${PORT}`), nothing else.
fn is_variable(w: &str) -> bool {
    let name = w
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| w.strip_prefix('$'));
    name.is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// Whether the signal asked for is 0 (a check that the process exists).
fn signal_zero(args: &[Cow<'_, str>]) -> bool {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        let sig = match &**a {
            "-s" | "--signal" | "-n" => args.get(k).map(|v| &**v),
            a => a
                .strip_prefix("--signal=")
                .or_else(|| a.strip_prefix('-').filter(|s| !s.starts_with('-'))),
        };
        let zero = sig.is_some_and(|s| {
            let s = s.trim_start_matches("SIG").trim_start_matches("sig");
            s == "0"
        });
        if zero {
            return true;
        }
    }
    false
}

/// `kill [-s SIG | -SIG | -n NUM | --signal SIG] [--] TARGET…` (`analyser = "kill"`): `-1`
/// and `0` are every process the user can signal (and the caller's group); a list computed
/// by a substitution (`$(pgrep -f x)`) is a pattern kill; any other target one process.
/// `-l`/`-L` and signal 0 do nothing.
pub(crate) fn kill(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let args = cmd.args;
    let mut signal_given = false;
    let mut targets: Vec<&str> = Vec::new();
    let mut k = 0;
    let mut rest = false;
    while let Some(w) = args.get(k) {
        k += 1;
        let w: &str = w;
        if rest || !w.starts_with('-') {
            targets.push(w);
            continue;
        }
        match w {
            "--" => rest = true,
            "-l" | "-L" | "--list" | "--table" => return,
            "-s" | "-n" | "--signal" => {
                signal_given = true;
                k += 1;
            }
            "-q" | "--queue" | "--timeout" => k += 1,
            "-a" | "--verbose" | "-p" | "--pid" => {}
            w if w.starts_with("--signal=") => signal_given = true,
            // `-9`, `-KILL`, `-SIGKILL`: the signal. A negative number after the signal (or
            // after `--`) is a target.
            _ if !signal_given => signal_given = true,
            w => targets.push(w),
        }
    }
    if signal_zero(args) || targets.is_empty() {
        return;
    }
    let every = targets.iter().any(|t| {
        matches!(*t, "-1" | "0" | "-0")
            // A list computed by a substitution (`$(pgrep -f node)`, `` `pidof x` ``): the
            // parser keeps only its shape, so it may be any number of processes.
            || t.contains("$(")
            || t.contains('`')
            || t.contains("pgrep")
            || t.contains("pidof")
    });
    out.none(if every { Act::KillAll } else { Act::Kill });
    // Process 1 is init: signalled, the machine (or the container it runs) stops.
    if targets.contains(&"1") {
        out.none(Act::Power);
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    const SIGNALS: &[&str] = &[
        "-9",
        "-KILL",
        "-SIGKILL",
        "-s 9",
        "-s KILL",
        "--signal=KILL",
        "--signal KILL",
        "-n 9",
        "-15",
        "-TERM",
        "-HUP",
        "",
    ];
    const WRAPS: &[&str] = &["", "sudo ", "sudo -u root ", "env X=1 ", "nohup "];

    #[test]
    fn kill_every_signal_spelling_and_target() {
        for wrap in WRAPS {
            for sig in SIGNALS {
                for (target, act) in [
                    ("-1", "kill_all@none"),
                    ("0", "kill_all@none"),
                    ("1234", "kill@none"),
                    ("$PID", "kill@none"),
                    ("%1", "kill@none"),
                ] {
                    let target = if target == "-1" && sig.is_empty() {
                        // Bare `kill -1` is signal 1 without a target; `--` makes it one.
                        "-- -1"
                    } else {
                        target
                    };
                    let line = format!("{wrap}kill {sig} {target}");
                    assert_eq!(effects(&line), vec![act], "{line}");
                }
            }
        }
        assert!(has("bash -c 'kill -9 -1'", "kill_all@none"));
        assert!(has("kill -s KILL -- -1", "kill_all@none"));
        assert!(has("kill -9 $(pgrep -f node)", "kill_all@none"));
        assert!(has("kill -9 `pidof python3`", "kill_all@none"));
        assert!(has("kill -9 -1 1234", "kill_all@none"));
        // A substitution over a producer that selects processes (a port, a pid file, a
        // narrow pattern) is those processes; over an unbounded one, any number of them.
        for line in [
            "kill $(lsof -t -i:3000)",
            "kill -9 $(lsof -ti:3000)",
            "kill -9 $(lsof -ti tcp:8080)",
            "kill $(cat app.pid)",
            "kill -TERM $(cat /run/app.pid)",
            "kill $(pgrep -f 'node server.js')",
            "kill $(fuser 8080/tcp)",
        ] {
            assert!(
                has(line, "kill@none") && !has(line, "kill_all@none"),
                "{line}"
            );
        }
        for line in [
            "kill $(lsof -t)",
            "kill $(cat pids.txt)",
            "kill $(pgrep node)",
            "kill $(ps aux | grep node | awk '{print $2}')",
        ] {
            assert!(has(line, "kill_all@none"), "{line}");
        }
        assert!(has("kill -- -4321", "kill@none"));
        // A reload signal to daemons named by pattern ends none of them.
        assert_eq!(effects("killall -HUP nginx"), Vec::<String>::new());
        assert_eq!(effects("pkill -USR1 -f gunicorn"), Vec::<String>::new());
        assert!(has("killall -9 nginx", "kill_all@none"));
    }

    #[test]
    fn signalling_init_stops_the_machine() {
        for line in [
            "kill -TERM 1",
            "sudo kill 1",
            "kill -s HUP 1",
            "kill -9 -- 1",
        ] {
            assert!(has(line, "power@none"), "{line}: {:?}", effects(line));
        }
        assert!(!has("kill -TERM 12", "power@none"));
        assert!(!has("kill -0 1", "power@none"));
    }

    #[test]
    fn kill_harmless_forms() {
        for line in [
            "kill -l",
            "kill -L",
            "kill -0 1234",
            "kill -s 0 1234",
            "kill --signal=0 1",
            "kill",
            "kill -9",
            "kill -l 9",
            "pgrep -f node",
            "pidof x",
            "ps aux",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn pattern_kills() {
        for line in [
            "pkill node",
            "pkill -9 -f .",
            "pkill -f '.*'",
            "sudo pkill -KILL -u u",
            "pkill --signal KILL -f x",
            "killall node",
            "killall -9 python3",
            "sudo killall -s KILL chrome",
            "killall5",
            "killall5 -9",
            "fuser -km /mnt",
            "fuser -k -m /home",
            "fuser -k /var/log/app.log",
            "loginctl kill-user u",
            "loginctl terminate-session 3",
            "skill -KILL -u u",
        ] {
            assert_eq!(effects(line), vec!["kill_all@none"], "{line}");
        }
        assert_eq!(effects("pkill -n node"), vec!["kill@none"]);
        // Bundles and abbreviations read as getopt reads them.
        assert_eq!(effects("pkill -fn node"), vec!["kill@none"]);
        assert_eq!(effects("pkill --new -f node"), vec!["kill@none"]);
        assert_eq!(effects("pkill -9 -o python3"), vec!["kill@none"]);
        // Everything but a pattern, or everything a user runs, is every process.
        assert_eq!(effects("pkill -vf 'node server.js'"), vec!["kill_all@none"]);
        assert_eq!(effects("pkill --inv uvicorn"), vec!["kill_all@none"]);
        assert_eq!(effects("pkill -U 1000"), vec!["kill_all@none"]);
        assert_eq!(effects("killall -u bob"), vec!["kill_all@none"]);
        // The processes on one port.
        for line in [
            "fuser -k 8080/tcp",
            "fuser -k -9 3000/tcp",
            "fuser -KILL -k 5432/tcp",
            "fuser -vk 8080/tcp",
            "fuser --kill 53/udp",
            "fuser -k -n tcp 8080",
            "sudo fuser -k ${PORT}/tcp",
        ] {
            assert_eq!(effects(line), vec!["kill@none"], "{line}");
        }
        // A pattern that picks out particular processes ends those, not every process.
        for line in [
            "pkill -f 'python app.py'",
            "pkill -f \"vite --port 5173\"",
            "pkill -9 -f uvicorn",
            "killall my-dev-server",
        ] {
            assert_eq!(effects(line), vec!["kill@none"], "{line}");
        }
        for line in [
            "pkill -l",
            "killall -l",
            "pkill -0 node",
            "killall -V",
            "fuser -v 8080/tcp",
            "killall5 -0",
        ] {
            assert!(!has(line, "kill_all@none"), "{line}");
        }
    }

    #[test]
    fn power() {
        for line in [
            "shutdown now",
            "shutdown -h now",
            "sudo shutdown -r now",
            "shutdown -P +5",
            "shutdown",
            "reboot",
            "sudo reboot -f",
            "halt",
            "poweroff",
            "sudo poweroff --force",
            "init 0",
            "sudo init 6",
            "telinit 0",
            "telinit 6",
            "loginctl poweroff",
            "loginctl reboot",
            "kexec -e",
            "pmset sleepnow",
            "sudo -n reboot",
            "bash -c 'sudo shutdown -h now'",
            "rtcwake -m off -s 60",
        ] {
            assert_eq!(effects(line), vec!["power@none"], "{line}");
        }
        for line in [
            "shutdown -c",
            "sudo shutdown --cancel",
            "shutdown -k now",
            "reboot --wtmp-only",
            "init q",
            "loginctl list-sessions",
            "kexec -l /boot/vmlinuz",
            "pmset -g",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
    }
}
