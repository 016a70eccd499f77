//! What an action does, to what, and where: every tool call read into a list of
//! [`Effect`]s (an [`Act`] at a resolved location of a [`Place`] class), the input the spec's
//! `effects` × `locations` rules match.
//!
//! Shell commands are read from the bounded parser's simple commands ([`crate::shell`]):
//! each through the command model ([`programs`]: option grammars with getopt semantics,
//! which operands are targets, what the program does to them), redirections as writes, `cd`
//! followed within the line, `find -exec` and `xargs` bound to the paths their producer names,
//! a download piped or substituted into an interpreter as `remote_exec`. Each target is
//! resolved as the shell would and classed ([`places`]). What cannot be fully read is
//! `opaque`: never less than the spec's tier for it, and at the protected places its text
//! names.

mod archives;
mod code_options;
mod contents;
mod decode;
mod disk;
mod flow;
mod gate_env;
mod getopt;
mod gitdisk;
mod identity;
mod key_reads;
mod later;
mod makefile;
#[cfg(test)]
mod on_disk;
pub mod patch;
pub mod places;
mod producers;
mod programs;
pub mod provenance;
mod runs;
mod secrets;
mod shell;
mod tools;
mod written;

pub use disk::{begin_reads, end_reads};
pub use programs::{begin_project, end_project, project_faults};
pub use shell::{effects_of_line, effects_of_parsed};
pub use tools::effects_of_event_parsed;

use std::borrow::Cow;

pub use gate_spec::effect::{Act, Place};
pub use places::Where;

/// One thing an action does: an act at a place, with the resolved location (or the text
/// the location was given as, when it could not be resolved).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Effect {
    pub act: Act,
    pub place: Place,
    /// The resolved path (absolute, normalised), a remote, or the target as written.
    pub target: String,
}

/// A simple command as the command model sees it: the program's base name, its arguments
/// (unquoted), and what it reads on standard input when the line says (a here-string, a
/// here-document, or the words of an `echo`/`printf` piped into it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cmd<'c, 'a> {
    pub program: &'c str,
    pub args: &'c [Cow<'a, str>],
    pub stdin: Option<&'c str>,
    /// The file standard input is redirected from (`mysql db < dump.sql`), when it is.
    pub stdin_file: Option<&'c str>,
}

/// What a program model writes: effects on targets as written (resolved by the caller
/// against the line's working directory), and shell code to analyse in turn.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub(crate) raw: Vec<(Act, RawTarget)>,
    /// Shell code the command runs (`python -c "os.system('rm -rf /')"` → `rm -rf /`).
    pub(crate) scripts: Vec<String>,
    /// Shell code the command has another machine or a container run (`ssh host CMD`,
    /// `docker exec C CMD`, `kubectl exec P -- CMD`).
    pub(crate) remote: Vec<String>,
    /// Shell code the command has a container run (`docker exec C CMD`, `kubectl exec P --
    /// CMD`): its working directory is the image's, unknown here (not a home).
    pub(crate) contained: Vec<String>,
    /// The permissions the command sets keep the owner's access and give nobody else any
    /// (`chmod 600 key`, `chmod -R go-rwx ~/.ssh`): on credentials that is what they should
    /// be, so it is no permissions change at a `secrets` place (elsewhere it still is one:
    /// `chmod 700 /etc` breaks the system).
    pub(crate) owner_only: bool,
    /// The permissions the command sets keep the owner's access and give others at most
    /// read and search: a public file kept among credentials (`id_ed25519.pub`,
    /// `known_hosts`, `authorized_keys`) is meant to be readable, never writable by others.
    pub(crate) shares_read_only: bool,
    /// The permissions the command sets only add to the owner's (`chmod -R u+rwX DIR`): the
    /// owner may set them anyway, so wherever the files are it is no change of who may use
    /// them (gate's own files excepted: a mode may be what keeps them from being written).
    pub(crate) owner_gains_only: bool,
    /// The command rewrites its files in place from a script, keeping no copy (`sed -i`,
    /// `perl -pi`, `gawk -i inplace`): on a system file the old text is gone, an overwrite.
    pub(crate) rewrites_in_place: bool,
    /// The command gives its files to the system's owner (`chown root:root F`): with a mode
    /// that shares only reading, what a service definition is installed with, so on one
    /// named service definition it is reversible administration (`admin`).
    pub(crate) to_system_owner: bool,
    /// The mode the command sets shares reading with everyone and change with nobody,
    /// keeping the owner's (`chmod 755`, `chmod +x`, `chmod -R a+rX`): on the software and
    /// content an administrator installs (`/usr/local`, `/opt`, `/srv`, `/var/www`), which
    /// the operating system does not run on, it is reversible administration (`admin`).
    pub(crate) public_mode: bool,
    /// The command gives its files to the user running the line (`chown -R $USER ~/.npm`):
    /// among that user's own dotfiles it is reversible administration (`admin`), what
    /// undoes a root-owned file left by an earlier `sudo`.
    pub(crate) to_self_owner: bool,
    /// The command lists names and sizes (`ls`, `du`, `find` without a command) and reads no
    /// file's content, so reading a directory that holds gate's key does not read the key.
    pub(crate) names_only: bool,
    /// The command gives its files to the user running the line (`chown -R $USER:$USER .`)
    /// or sets a mode a project's files are meant to have (`chmod -R u+rwX .`, `find . -type
    /// f -exec chmod 664 {} +`): on the whole project that is reversible administration of
    /// one's own files (`admin`), not a change of who may use them.
    pub(crate) admin_in_project: bool,
    /// What the command runs whose text is on the disk (a script, a Makefile's recipes, a
    /// package's scripts): read and analysed in a live hook call ([`runs`]).
    pub(crate) runs: Vec<Runs>,
    /// Shell code run in another directory than the line's (a Makefile's recipes under
    /// `make -C DIR`, a package's scripts, a git hook): `(directory as resolved, code)`.
    pub(crate) scripts_in: Vec<(String, String)>,
    /// Acts on everything under a directory that the raw targets do not show as such: an
    /// archive extracted into it, a work tree restored or cleaned by git. Also in `raw`
    /// (as the plain act at the directory); here for what a live hook call finds inside
    /// ([`contents`]).
    pub(crate) trees: Vec<(Act, String, Reach)>,
    /// Where the effects at these indexes of `raw` come from (a command model written as
    /// data), filled only while [`provenance`] records.
    pub(crate) sources: Vec<(usize, &'static str)>,
}

/// What a command runs that is text on the disk, as the command model names it (paths as
/// written; the caller resolves them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Runs {
    /// A file run as code: `bash run.sh`, `./run.sh`, `. ./env.sh`, `python3 x.py`, with the
    /// words it is given (`$1`…). `optional`: a file that may well be absent, and then
    /// nothing runs (a git hook), rather than something unknown.
    File {
        path: String,
        how: How,
        args: Vec<String>,
        optional: bool,
    },
    /// `make [-C DIR] [-f FILE] [TARGET…] [VAR=VALUE…]`: the recipes of the targets (the
    /// default goal when none) and of what they depend on.
    Make {
        dir: Option<String>,
        file: Option<String>,
        targets: Vec<String>,
        vars: Vec<(String, String)>,
    },
    /// A package manager running `package.json` scripts in `dir` (the nearest package
    /// upward when `None`): each name with its `pre`/`post` scripts.
    Scripts {
        dir: Option<String>,
        names: Vec<String>,
    },
}

/// How a file is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum How {
    /// As its `#!` line says (none: a shell runs it): the file is the program.
    Program,
    /// By a shell (`bash x`, `. x`).
    Shell,
    /// By an interpreter of this language (`python3 x.py`).
    Lang(Lang),
}

/// The language of code read from a file.
pub(crate) use programs::Lang;

/// Which of the files under a directory an act on the whole directory reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Every file (an archive whose list of members cannot be read, `rm -r`).
    All,
    /// The files git tracks and that differ from what it recorded (`git checkout .`,
    /// `git reset --hard`, `git stash`).
    Modified,
    /// The files git does not track, ignored ones too when `ignored` (`git clean -fd`,
    /// `-x`; `git stash -u`, `-a`).
    Untracked { ignored: bool },
    /// The members of the archive at `path` (as written), where they land once their first
    /// `strip` components are removed.
    Archive { path: String, strip: usize },
}

/// The word that stands for every item a listing of its kind names, where a substitution or
/// `xargs` hands that listing to a command (`docker rm -f $(docker ps -aq)`, `redis-cli KEYS
/// '*' | xargs redis-cli DEL`): the command acts on all of them.
pub(crate) const EVERY_LISTED: &str = "$EVERY_LISTED";

/// A target as a program model names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RawTarget {
    /// A path as written on the command line.
    Path(String),
    /// A class, without a path (a remote, nowhere).
    Place(Place),
    /// A class and a name that is no path (the grant a `gate approve` names).
    Named(Place, String),
    /// A path that code names (an interpreter's string literal) where the model does not
    /// know what the code does with it: resolved and classed like any target, it is an
    /// effect (of its act) only at one of gate's locations, and only when nothing the model
    /// understood acts on the same text (`open('.claude/settings.json').read()` is a read).
    Mention(String),
    /// A file or directory code is loaded from (`git -c core.hooksPath=DIR`): `opaque` at its
    /// place where that place is foreign (`code_options::foreign`: a temporary directory, a
    /// path outside the project), nothing elsewhere.
    Loads(String),
    /// A program run by the path another program or a setting names (`RUSTC_WRAPPER=PATH`,
    /// `tar -I PATH`, `git -c core.pager=PATH`): as [`RawTarget::Loads`] when its text is
    /// not there to read (missing, binary, or no disk to look at), since what the program
    /// that runs it finds there later is unknown; read, its text is analysed where it runs.
    Program(String),
}

impl Sink {
    /// `act` on the path `target` as written.
    pub(crate) fn path(&mut self, act: Act, target: &str) {
        self.raw.push((act, RawTarget::Path(target.to_string())));
    }

    /// The program that shell text or a command line `code` starts, when it names it by a
    /// path (`/tmp/w.sh`, `'/var/tmp/w --flag'`): [`RawTarget::Program`].
    pub(crate) fn program(&mut self, code: &str) {
        let first = code.split_whitespace().next().unwrap_or("");
        let first = first.trim_matches(['\'', '"']);
        if first.contains('/') {
            self.raw
                .push((Act::Opaque, RawTarget::Program(first.to_string())));
        }
    }

    /// Code loaded from the path `from` ([`RawTarget::Loads`]).
    pub(crate) fn loads(&mut self, from: &str) {
        self.raw
            .push((Act::Opaque, RawTarget::Loads(from.to_string())));
    }

    /// `act` at a place with no path (`remote`, `none`, `unknown`).
    pub(crate) fn place(&mut self, act: Act, place: Place) {
        self.raw.push((act, RawTarget::Place(place)));
    }

    /// `act` at a place with no path, on something the line names (a grant id).
    pub(crate) fn named(&mut self, act: Act, place: Place, name: &str) {
        self.raw
            .push((act, RawTarget::Named(place, name.to_string())));
    }

    /// A path named by code whose use is not known ([`RawTarget::Mention`]).
    pub(crate) fn mention(&mut self, act: Act, target: &str) {
        self.raw.push((act, RawTarget::Mention(target.to_string())));
    }

    /// `act` with no location.
    pub(crate) fn none(&mut self, act: Act) {
        self.place(act, Place::Nowhere);
    }

    /// Shell code the command runs, analysed as if it were on the line.
    pub(crate) fn script(&mut self, code: &str) {
        self.scripts.push(code.to_string());
    }

    /// Text on the disk the command runs ([`Runs`]), read in a live hook call.
    pub(crate) fn runs(&mut self, what: Runs) {
        self.runs.push(what);
    }

    /// `act` on the directory `dir` (as written) and on what `reach` finds under it.
    pub(crate) fn tree(&mut self, act: Act, dir: &str, reach: Reach) {
        self.path(act, dir);
        self.within(act, dir, reach);
    }

    /// `act` on what `reach` finds under the directory `dir` (as written), with no effect
    /// of its own on the directory (`git stash` discards the work tree's changes: a write of
    /// the repository, and an overwrite of whatever changed files it holds).
    pub(crate) fn within(&mut self, act: Act, dir: &str, reach: Reach) {
        self.trees.push((act, dir.to_string(), reach));
    }

    /// Shell code run on another machine or in a container: analysed as a line there, its
    /// paths placed as that machine's (see `shell::remote_place`).
    pub(crate) fn remote_script(&mut self, code: &str) {
        self.remote.push(code.to_string());
    }

    /// Shell code run in a container: analysed as a line there, from a working directory
    /// this machine cannot know (the image's), its paths placed as another machine's.
    pub(crate) fn container_script(&mut self, code: &str) {
        self.contained.push(code.to_string());
    }

    /// Code the model cannot follow: `opaque`, and `opaque` at every protected place the
    /// text names (so that a script that mentions `.claude/` is never read as harmless).
    pub(crate) fn opaque(&mut self, text: &str) {
        self.none(Act::Opaque);
        for place in places::named_in(text) {
            self.place(Act::Opaque, place);
        }
    }
}

/// Why an action is catastrophic, or `None`: deleting, moving, overwriting or
/// re-permissioning the file-system root or the home directory itself, or partitioning,
/// formatting or writing a whole disk. The engine denies such an action under every spec and
/// role (a spec that already denies it keeps its own reason): there is no form of it an agent
/// should run, so it is never an approvable ask.
pub fn catastrophic(effects: &[Effect]) -> Option<&'static str> {
    let hit = effects.iter().any(|e| {
        matches!(
            (e.act, e.place),
            (
                Act::Delete | Act::Move | Act::Overwrite | Act::Permissions,
                Place::Root | Place::Home
            ) | (Act::Device, _)
                | (Act::Write | Act::Overwrite | Act::Delete, Place::Device)
        )
    });
    hit.then_some(
        "gate: this destroys or re-permissions the whole file system, the whole home directory \
         or a whole disk; there is no safe form of it for an agent, so it is denied under every \
         policy rather than asked. If it is really meant, the user runs it by hand. Do not \
         retry a variant of this command.",
    )
}

/// Why an action's effects cross gate's trust boundary, or `None`: any effect other than a
/// read on gate's own locations, approving one of gate's asks, or reading the audit key.
/// The engine denies such an action under every spec and role.
pub fn self_protection(effects: &[Effect]) -> Option<&'static str> {
    for e in effects {
        if e.act == Act::Approve {
            return Some(
                "gate: only the user approves gate's asks, from their own terminal; an agent \
                 cannot approve its own, however the command is spelled",
            );
        }
        if e.place == Place::Gate && e.act != Act::Read {
            return Some(
                "gate: this would change gate's own files, state or configuration, or an \
                 agent's hook settings; that cannot be done from inside the session gate \
                 guards. Ask the user to make the change by hand.",
            );
        }
        if e.act == Act::Read && (e.target.ends_with("/gate.key") || e.target == "gate.key") {
            return Some("gate: the audit key is not readable from inside the session gate guards");
        }
        if matches!(e.act, Act::Read | Act::Reveal)
            && e.place == Place::Gate
            && e.target.split('/').any(|c| c.ends_with(".backups"))
        {
            return Some(
                "gate: gate's backups are the user's to restore (`gate undo`), not readable \
                 from inside the session gate guards",
            );
        }
    }
    None
}
