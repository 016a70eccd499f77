//! The reader of the consoles (`commands/consoles.toml`): programs whose commands, handed
//! to them through an option or on standard input, have an escape to the shell or to
//! another language (`gdb -ex 'shell CMD'`, `less +!CMD`, `git fetch --upload-pack=CMD`,
//! `julia -e`). Which programs, options and escapes are data; this finds the console
//! commands on a line, adds what their escapes run, and passes the program on to its own
//! model.

use super::super::{Cmd, Sink};
use super::table::{Console, Then, CONSOLES};

/// Add what the escapes in `cmd`'s console commands run; never claims the program.
pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let Some(console) = CONSOLES.iter().find(|c| c.programs.contains(&cmd.program)) else {
        return false;
    };
    let mut args = cmd.args.iter().map(|a| &**a);
    while let Some(a) = args.next() {
        if a == "--" {
            break;
        }
        if console.options.contains(&a) {
            if let Some(value) = args.next() {
                commands(console, value, out);
            }
        } else if let Some(value) = console
            .attached
            .iter()
            .rev()
            .find_map(|p| a.strip_prefix(p).filter(|v| !v.is_empty()))
        {
            commands(console, value, out);
        }
    }
    if console.stdin {
        if let Some(text) = cmd.stdin {
            commands(console, text, out);
        }
    }
    false
}

/// The escapes in console command text: one command a line (or a `;`-separated one in Tcl).
fn commands(console: &Console, text: &str, out: &mut Sink) {
    let whole = console.escapes.iter().find(|(p, _)| p.is_empty());
    if let Some((_, then)) = whole {
        return escape(*then, text, out);
    }
    let split: &[char] = if console.tcl { &['\n', ';'] } else { &['\n'] };
    for line in text.split(split) {
        let line = line.trim_start().trim_start_matches(':').trim_start();
        if let Some((prefix, then)) = console
            .escapes
            .iter()
            .find(|(p, _)| line.starts_with(p) && line.len() > p.len())
        {
            let rest = &line[prefix.len()..];
            if console.tcl {
                // Tcl's braces quote as the shell's single quotes do.
                escape(*then, &rest.replace(['{', '}'], "'"), out);
            } else {
                escape(*then, rest, out);
            }
        }
    }
}

fn escape(then: Then, text: &str, out: &mut Sink) {
    match then {
        Then::Shell => {
            out.script(text);
            out.program(text);
        }
        Then::Code(lang) => super::analyse_code(text, lang, out),
        Then::Opaque => out.opaque(text),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    /// Each console's escape with a destructive command, and its benign twin.
    #[test]
    fn console_escapes_run_what_they_say() {
        for line in [
            "gdb -batch -ex 'shell rm -rf ~'",
            "gdb -batch -ex '!rm -rf ~'",
            "gdb -batch --eval-command='shell rm -rf ~'",
            "gdb -batch -ex 'python import os; os.system(\"rm -rf ~\")'",
            "gdb -batch <<< 'shell rm -rf ~'",
            "lldb -b -o 'platform shell rm -rf ~'",
            "lldb -b --one-line 'script import os; os.system(\"rm -rf ~\")'",
            "expect -c 'spawn rm -rf ~; expect eof'",
            "expect -c 'spawn sh -c \"rm -rf ~\"'",
            "tclsh <<< 'exec sh -c {rm -rf ~}'",
            "echo 'exec rm -rf ~' | tclsh",
            "less +'!rm -rf ~' README.md",
            "sftp -S 'rm -rf ~' host",
            "git fetch --upload-pack='rm -rf ~' origin",
            "git ls-remote --upload-pack 'rm -rf ~' origin",
            "git push --receive-pack='rm -rf ~' origin",
            "git archive --remote=x --exec='rm -rf ~' HEAD",
            "git grep --open-files-in-pager='rm -rf ~' x",
            "git grep -O'rm -rf ~' x",
        ] {
            assert!(has(line, "delete@home"), "{line}: {:?}", effects(line));
        }
        for line in [
            "julia -e 'run(`rm -rf .claude`)'",
            "octave --eval 'system(\"rm -rf .claude\")'",
            "emacs --batch --eval '(shell-command \"rm -rf .claude\")'",
        ] {
            assert!(has(line, "opaque@gate"), "{line}: {:?}", effects(line));
        }
        for line in [
            "gdb -batch -ex run -ex bt ./app",
            "gdb -batch -ex 'info registers' ./app",
            "lldb -b -o run -o bt ./app",
            "expect -c 'spawn ssh host; expect \"$ \"; send \"ls\\r\"'",
            "less +G README.md",
            "less +/pattern README.md",
            "sftp -b batch.txt host",
            "git fetch origin",
            "git grep -n TODO",
            "julia -e 'println(1+1)'",
        ] {
            let e = effects(line);
            assert!(
                !e.iter()
                    .any(|e| e.starts_with("delete@") || e.starts_with("opaque@gate")),
                "{line}: {e:?}"
            );
        }
    }
}
