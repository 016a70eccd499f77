//! gate by what it is, not by what it is called. A copy, a link or an install of gate's
//! binary is gate (`cp "$(which gate)" /tmp/g`, `cat ~/.cargo/bin/gate > g`, `cargo install
//! --path gate-cli`): making one is a change to gate, since running it later answers as gate
//! does. And a program the line runs by a path (`/tmp/g approve ID`), or by a name on `PATH`
//! given one of gate's own subcommands, is checked in a live hook call against the running
//! gate executable: the same file (device and inode) or the same bytes is gate, and its
//! subcommands are read as gate's.

use std::path::{Path, PathBuf};

use gate_spec::effect::{Act, Place};

use super::places::{self, Where};
use super::Effect;
use crate::shell::Parsed;

/// File names gate's binary has.
const BINARY_NAMES: &[&str] = &["gate", "gate.exe"];

/// Directories gate's binary is installed in, by how their paths end: a copy of one
/// (`rsync -a ~/.cargo/bin/ /tmp/b/`, `cp -a ~/.local/bin /tmp/b`) holds gate.
const BINARY_DIRS: &[&str] = &["/.cargo/bin", "/.local/bin"];

/// Programs that read a file or directory for its names, sizes or digests, never its bytes
/// whole: what they write (`ls ~/.cargo/bin > tools.txt`) is no copy.
const LISTERS: &[&str] = &[
    "ls",
    "ll",
    "tree",
    "du",
    "stat",
    "file",
    "find",
    "fd",
    "wc",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "b2sum",
    "cksum",
    "readlink",
    "realpath",
];

/// Whether an effect's target is gate's binary: a file named `gate` that is gate's (its
/// executable, or one installed in `~/.cargo/bin` or `~/.local/bin`) or a build of it
/// (`target/release/gate`), or one of gate's install directories, which holds it.
fn is_binary(e: &Effect) -> bool {
    if e.place == Place::Gate && BINARY_DIRS.iter().any(|d| e.target.ends_with(d)) {
        return true;
    }
    matches!(e.place, Place::Gate | Place::Outputs)
        && e.target
            .rsplit('/')
            .next()
            .is_some_and(|name| BINARY_NAMES.iter().any(|b| name.eq_ignore_ascii_case(b)))
        && !e.target.ends_with("/state/gate")
        && !e.target.ends_with("/config/gate")
}

/// A copy of gate: command `i` (whose effects start at `from` in `out`) writes somewhere
/// what gate's binary holds, having read it itself (`cp`, `install`, `dd`, `cat … >`) or from
/// a command that feeds it through a pipe (`cat "$(which gate)" | tee /tmp/g`). Each place it
/// writes is then gate too. Records whether command `i` read the binary.
pub(super) fn copies(
    parsed: &Parsed<'_>,
    i: usize,
    read_gate: &mut Vec<usize>,
    from: usize,
    out: &mut Vec<Effect>,
) {
    let mine = &out[from..];
    if mine.iter().any(|e| e.act == Act::Read && is_binary(e))
        && !LISTERS.contains(&&*parsed.commands[i].program)
    {
        read_gate.push(i);
    }
    if read_gate.is_empty() {
        return;
    }
    let writes: Vec<String> = mine
        .iter()
        .filter(|e| {
            matches!(e.act, Act::Write | Act::Overwrite | Act::Link) && e.place != Place::Gate
        })
        .map(|e| e.target.clone())
        .collect();
    if writes.is_empty() {
        return;
    }
    // Its own read, or one upstream through pipes (bounded by the number of commands).
    let mut carries = read_gate.contains(&i);
    let mut frontier = vec![i];
    let mut seen = vec![false; parsed.commands.len()];
    while let (false, Some(k)) = (carries, frontier.pop()) {
        for &(a, b) in &parsed.pipes {
            if b != k || seen.get(a).copied().unwrap_or(true) {
                continue;
            }
            seen[a] = true;
            carries |= read_gate.contains(&a);
            frontier.push(a);
        }
    }
    if carries {
        for target in writes {
            out.push(Effect {
                act: Act::Write,
                place: Place::Gate,
                target,
            });
        }
    }
}

/// Whether the program a command runs is the running gate, in a live hook call: a program
/// given by a path (`/tmp/g`, `./g`, `~/bin/g`) that exists, or a name found on `PATH` when
/// its first operand is one of gate's subcommands (`g approve ID`). Nothing is looked at for
/// any other command.
pub(crate) fn runs_gate(
    program_path: &str,
    first_operand: Option<&str>,
    cwd: &str,
    at: &Where,
) -> bool {
    if !at.disk {
        return false;
    }
    let file = if program_path.contains('/') {
        if cwd.starts_with('$') && !program_path.starts_with(['/', '~']) {
            return false;
        }
        let r = places::resolve(program_path, cwd, &at.home, None);
        if r.unknown_root {
            return false;
        }
        PathBuf::from(r.display())
    } else if first_operand.is_some_and(super::programs::is_gate_subcommand) {
        match on_path(program_path) {
            Some(p) => p,
            None => return false,
        }
    } else {
        return false;
    };
    is_running_gate(&file)
}

/// Where `PATH` finds the program `name`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether `file` is the running gate executable: the same file (device and inode), or a
/// regular file of the same length and bytes.
pub(crate) fn is_running_gate(file: &Path) -> bool {
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    same_file(file, &exe)
}

/// Whether two paths hold the same executable: one file, or equal bytes.
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if !ma.is_file() || !mb.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if ma.dev() == mb.dev() && ma.ino() == mb.ino() {
            return true;
        }
    }
    ma.len() == mb.len() && same_bytes(a, b)
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (Ok(mut fa), Ok(mut fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let mut ba = vec![0u8; 64 * 1024];
    let mut bb = vec![0u8; 64 * 1024];
    loop {
        let Ok(na) = read_full(&mut fa, &mut ba) else {
            return false;
        };
        let Ok(nb) = read_full(&mut fb, &mut bb) else {
            return false;
        };
        if na != nb || ba[..na] != bb[..nb] {
            return false;
        }
        if na == 0 {
            return true;
        }
    }

    fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match f.read(&mut buf[n..])? {
                0 => break,
                k => n += k,
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::programs::testing::{at, effects, has};

    #[test]
    fn a_copy_of_gates_binary_is_gate() {
        for line in [
            "cp ~/.cargo/bin/gate /tmp/g",
            "cp -p ~/.local/bin/gate ./g",
            "install -m755 ~/.cargo/bin/gate /tmp/g",
            "cat ~/.cargo/bin/gate > /tmp/g",
            "dd if=$HOME/.cargo/bin/gate of=/tmp/g",
            "rsync -a ~/.cargo/bin/gate /tmp/g",
            "cat ~/.cargo/bin/gate | tee /tmp/g > /dev/null",
            "cp target/release/gate /tmp/x",
            "cp ./target/debug/gate ~/bin/g",
            "rsync -a ~/.cargo/bin/ /tmp/b/",
            "cp -a ~/.local/bin /tmp/b",
            "tar -cf /tmp/b.tar -C ~ .cargo/bin",
        ] {
            assert!(has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
        // A link to it is a link at gate.
        for line in [
            "ln ~/.cargo/bin/gate /tmp/g",
            "ln -s ~/.cargo/bin/gate /tmp/g",
        ] {
            assert!(has(line, "link@gate"), "{line}: {:?}", effects(line));
        }
        for line in [
            "cp README.md /tmp/x",
            "cat ~/.cargo/bin/gate | wc -c",
            "sha256sum ~/.cargo/bin/gate",
            "cp -r ~/.config/gate-old /tmp/x",
            "ls -l ~/.cargo/bin/gate",
            "ls ~/.cargo/bin > /tmp/tools.txt",
            "cp ~/.cargo/bin/rg /tmp/rg",
        ] {
            assert!(!has(line, "write@gate"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn the_running_gate_is_recognised_by_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let exe = std::env::current_exe().unwrap();
        let copy = dir.path().join("g");
        std::fs::copy(&exe, &copy).unwrap();
        let link = dir.path().join("h");
        std::fs::hard_link(&exe, &link)
            .or_else(|_| std::fs::copy(&exe, &link).map(|_| ()))
            .unwrap();
        let other = dir.path().join("o");
        std::fs::write(&other, b"#!/bin/sh\n").unwrap();
        assert!(is_running_gate(&exe));
        assert!(is_running_gate(&copy));
        assert!(is_running_gate(&link));
        assert!(!is_running_gate(&other));
        assert!(!is_running_gate(&dir.path().join("missing")));
        let live = Where {
            disk: true,
            cwd: dir.path().display().to_string(),
            ..at()
        };
        assert!(runs_gate("./g", Some("approve"), &live.cwd, &live));
        assert!(runs_gate(
            &copy.display().to_string(),
            None,
            &live.cwd,
            &live
        ));
        assert!(!runs_gate("./o", Some("approve"), &live.cwd, &live));
        // A replay or a test never looks.
        assert!(!runs_gate("./g", Some("approve"), &live.cwd, &at()));
        // Through the line: its subcommands are gate's.
        let mut out = Vec::new();
        crate::effects::effects_of_line(
            "./g approve k3j9 && ./g hook claude-code",
            &live,
            &mut out,
        );
        let got = crate::effects::programs::testing::labels(&out);
        assert!(got.contains(&"approve@none".to_string()), "{got:?}");
        assert!(got.contains(&"write@gate".to_string()), "{got:?}");
        let mut out = Vec::new();
        crate::effects::effects_of_line("./g status; ./o approve x", &live, &mut out);
        let got = crate::effects::programs::testing::labels(&out);
        assert!(
            !got.iter().any(|e| e == "approve@none" || e == "write@gate"),
            "{got:?}"
        );
    }
}
