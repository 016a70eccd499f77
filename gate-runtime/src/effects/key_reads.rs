//! When a read reaches gate's audit key without naming it: a pattern the shell expands to the
//! key (`od ~/.local/state/gate/gate.k*`, `cat …/gate/*`), or a directory that holds it read
//! by a program that reads what a directory contains (`tar czf x ~/.local/state`,
//! `cp -r ~/.local /tmp/l`, `grep -r . ~`, `aws s3 sync ~ s3://b`). Listing names (`ls`,
//! `du`, `find` without a command) reads no content; every other reader of a directory is
//! taken to read it whole, since a reader that does not recurse fails on a directory and
//! reads nothing.

use gate_spec::effect::{Act, Place};

use super::places::{self, Where};
use super::Effect;

/// The name of the audit key beside gate's database in any of gate's directories.
const KEY_NAME: &str = "gate.key";

/// The audit key's possible locations: the default one under home, and beside each of gate's
/// own locations (`GATE_HOME`, `XDG_STATE_HOME/gate`, the key `GATE_DB` names).
fn candidates(at: &Where) -> Vec<String> {
    let mut out = Vec::new();
    if at.home.starts_with('/') {
        let home = at.home.trim_end_matches('/');
        out.push(format!("{home}/.local/state/gate/{KEY_NAME}"));
    }
    for g in &at.gate {
        if g.ends_with(".key") {
            out.push(g.clone());
        } else if !g.ends_with(".db") && !g.contains(".db-") && !g.ends_with(".toml") {
            // A `.toml` location is a file (a policy a draft hook answers with), never a
            // directory the key could be in.
            out.push(format!("{}/{KEY_NAME}", g.trim_end_matches('/')));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The key a read of `target` (resolved, absolute, possibly a shell pattern) reaches, if any.
/// `whole`: the program reads content (anything but a lister of names, which reads none of
/// it, whatever the pattern names).
fn reached(target: &str, whole: bool, at: &Where) -> Option<String> {
    if !whole || !target.starts_with('/') {
        return None;
    }
    let glob = target.split('/').any(places::is_glob);
    for key in candidates(at) {
        if glob {
            // The pattern as the shell expands it: the key itself, or a directory above it.
            if gate_spec::pattern::path_glob(target, &key) {
                return Some(key);
            }
            let mut dir = key.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                if !parent.is_empty() && gate_spec::pattern::path_glob(target, parent) {
                    return Some(key);
                }
                dir = parent;
            }
        } else if places::below(&key, target)
            && (!at.disk || std::fs::symlink_metadata(&key).is_ok())
        {
            return Some(key);
        }
    }
    None
}

/// After a read of `target`: a read of the audit key when the read reaches it (see the
/// module's comment), unless one is already there.
pub(super) fn push(target: &str, whole: bool, at: &Where, out: &mut Vec<Effect>) {
    // Through a link (`ln -s ~/.local/state/gate sg`, then `tar czf x sg/`): where it leads.
    let through = || {
        (at.disk && whole)
            .then(|| super::disk::real_path(target))
            .flatten()
            .and_then(|real| reached(&real, whole, at))
    };
    if let Some(key) = reached(target, whole, at).or_else(through) {
        if !out.iter().any(|e| e.act == Act::Read && e.target == key) {
            out.push(Effect {
                act: Act::Read,
                place: Place::Gate,
                target: key,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Where {
        Where {
            cwd: "/home/u/proj".into(),
            project: "/home/u/proj".into(),
            home: "/home/u".into(),
            gate: vec![
                "/srv/gate".into(),
                "/var/g/audit.db".into(),
                "/var/g/audit.key".into(),
                "/home/u/proj/specs/draft.toml".into(),
            ],
            disk: false,
        }
    }

    #[test]
    fn a_policy_file_of_gate_s_holds_no_key() {
        assert_eq!(key_of("/home/u/proj/specs/draft.toml", true), None);
        assert_eq!(key_of("/home/u/proj/specs/*", true), None);
    }

    fn key_of(target: &str, whole: bool) -> Option<String> {
        reached(target, whole, &at())
    }

    #[test]
    fn patterns_that_expand_to_the_key_read_it() {
        let k = Some("/home/u/.local/state/gate/gate.key".to_string());
        assert_eq!(key_of("/home/u/.local/state/gate/gate.k*", true), k);
        assert_eq!(key_of("/home/u/.local/state/gate/*", true), k);
        assert_eq!(key_of("/home/u/.local/*/gate/gate.key", true), k);
        assert_eq!(
            key_of("/var/g/*.key", true),
            Some("/var/g/audit.key".into())
        );
        assert_eq!(
            key_of("/srv/gate/*", true),
            Some("/srv/gate/gate.key".into())
        );
        // `ls …/gate/*` lists the key's name, not its content.
        assert_eq!(key_of("/home/u/.local/state/gate/*", false), None);
        // Another file of gate's, or a pattern that cannot name the key.
        assert_eq!(key_of("/home/u/.local/state/gate/*.db", true), None);
        assert_eq!(key_of("/home/u/proj/*", true), None);
    }

    #[test]
    fn a_directory_above_the_key_read_whole_reads_it() {
        let k = Some("/home/u/.local/state/gate/gate.key".to_string());
        for dir in [
            "/home/u",
            "/home/u/.local",
            "/home/u/.local/state/gate",
            "/",
        ] {
            assert_eq!(key_of(dir, true), k, "{dir}");
        }
        assert_eq!(key_of("/home/u/.loc*", true), k);
        // Listing names reads nothing of it; a directory beside it holds no key.
        assert_eq!(key_of("/home/u", false), None);
        assert_eq!(key_of("/home/u/.local/st*", false), None);
        assert_eq!(key_of("/home/u/proj", true), None);
        assert_eq!(key_of("/home/u/.local/share", true), None);
        assert_eq!(key_of("/home/user2", true), None);
    }
}
