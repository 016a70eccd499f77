//! When a read reaches gate's audit key or one of the user's credential files without naming
//! it: a pattern the shell expands to it (`od ~/.local/state/gate/gate.k*`, `cat …/gate/*`,
//! `cat ~/.a*/cred*`), or a directory that holds it read by a program that reads what a
//! directory contains (`tar czf x ~/.local/state`, `cp -r ~/.local /tmp/l`, `grep -r . ~`,
//! `grep -r password ~/.config`, `aws s3 sync ~ s3://b`). Listing names (`ls`, `du`, `find`
//! without a command) reads no content; every other reader of a directory is taken to read
//! it whole, since a reader that does not recurse fails on a directory and reads nothing.

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

/// Where the user's tools keep credentials under home (what `places` classes as `secrets`):
/// a read of a directory above one, or a pattern naming it, reads it.
const HOME_SECRETS: &[&str] = &[
    ".ssh/id_rsa",
    ".ssh/id_ed25519",
    ".ssh/id_ecdsa",
    ".ssh/id_dsa",
    ".aws/credentials",
    ".config/gh/hosts.yml",
    ".kube/config",
    ".docker/config.json",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".vault-token",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".gem/credentials",
    ".config/gcloud/application_default_credentials.json",
    ".config/gcloud/credentials.db",
    ".terraform.d/credentials.tfrc.json",
    ".composer/auth.json",
    ".config/hub",
];

/// Most credential files one read reports (one is enough to judge it).
const MAX_SECRETS: usize = 3;

/// The credential files under home that exist (all of them, where the disk is not read) and
/// that `places` classes as secrets.
fn secret_candidates(at: &Where) -> Vec<String> {
    if !at.home.starts_with('/') {
        return Vec::new();
    }
    let home = at.home.trim_end_matches('/');
    HOME_SECRETS
        .iter()
        .map(|rel| format!("{home}/{rel}"))
        .filter(|p| !at.disk || std::fs::symlink_metadata(p).is_ok())
        .filter(|p| places::place_of(p, "/", None, at).0 == Place::Secrets)
        .collect()
}

/// Whether a read of `target` could reach a credential file under home at all: a pattern, or
/// a directory that is home, above it, or above one of [`HOME_SECRETS`]. Decided on the text
/// alone, so that the usual read (a file in the project) builds no candidates and reads no disk.
fn may_hold_home_secret(target: &str, at: &Where) -> bool {
    if !target.starts_with('/') || !at.home.starts_with('/') {
        return false;
    }
    if target.split('/').any(places::is_glob) {
        return true;
    }
    let home = at.home.trim_end_matches('/');
    let dir = target.trim_end_matches('/');
    if dir.is_empty() || dir == home || places::below(home, dir) {
        return true;
    }
    let Some(rel) = dir.strip_prefix(home).and_then(|r| r.strip_prefix('/')) else {
        return false;
    };
    HOME_SECRETS.iter().any(|secret| {
        secret
            .strip_prefix(rel)
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// The key a read of `target` (resolved, absolute, possibly a shell pattern) reaches, if any.
/// `whole`: the program reads content (anything but a lister of names, which reads none of
/// it, whatever the pattern names).
fn reached(target: &str, whole: bool, at: &Where) -> Option<String> {
    reached_of(target, whole, &candidates(at), at)
        .into_iter()
        .next()
}

/// Which of `candidates` a read of `target` reaches.
fn reached_of(target: &str, whole: bool, candidates: &[String], at: &Where) -> Vec<String> {
    let mut out = Vec::new();
    if !whole || !target.starts_with('/') {
        return out;
    }
    let glob = target.split('/').any(places::is_glob);
    for key in candidates {
        if reaches(target, glob, key, at) {
            out.push(key.clone());
        }
    }
    out
}

/// Whether a read of `target` reaches the file `key`.
fn reaches(target: &str, glob: bool, key: &str, at: &Where) -> bool {
    {
        if glob {
            // The pattern as the shell expands it: the key itself, or a directory above it.
            if gate_spec::pattern::path_glob(target, key) {
                return true;
            }
            let mut dir = key;
            while let Some((parent, _)) = dir.rsplit_once('/') {
                if !parent.is_empty() && gate_spec::pattern::path_glob(target, parent) {
                    return true;
                }
                dir = parent;
            }
            false
        } else {
            places::below(key, target) && (!at.disk || std::fs::symlink_metadata(key).is_ok())
        }
    }
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
    // The user's credential files a directory or a pattern reaches (not one it names: that
    // read is already at `secrets`).
    if !may_hold_home_secret(target, at)
        || places::place_of(target, "/", None, at).0 == Place::Secrets
    {
        return;
    }
    let secrets = reached_of(target, whole, &secret_candidates(at), at);
    for file in secrets.into_iter().take(MAX_SECRETS) {
        if !out.iter().any(|e| e.act == Act::Read && e.target == file) {
            out.push(Effect {
                act: Act::Read,
                place: Place::Secrets,
                target: file,
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
    fn only_home_its_parents_patterns_and_directories_above_a_credential_file_may_hold_one() {
        let at = at();
        for target in [
            "/",
            "/home",
            "/home/u",
            "/home/u/",
            "/home/u/.ssh",
            "/home/u/.config",
            "/home/u/.config/gcloud",
            "/home/u/proj/*",
        ] {
            assert!(may_hold_home_secret(target, &at), "{target}");
        }
        for target in [
            "/home/u/proj/src/main.rs",
            "/home/u/.config/nvim",
            "/home/u/.sshx",
            "/home/uv",
            "/etc",
            "relative/path",
        ] {
            assert!(!may_hold_home_secret(target, &at), "{target}");
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

    /// The credential files a read reaches without naming them.
    fn secrets_of(target: &str, whole: bool) -> Vec<String> {
        let mut out = Vec::new();
        push(target, whole, &at(), &mut out);
        out.into_iter()
            .filter(|e| e.place == Place::Secrets)
            .map(|e| e.target)
            .collect()
    }

    #[test]
    fn a_directory_or_pattern_above_a_credential_file_read_whole_reads_it() {
        for (target, want) in [
            ("/home/u/.config", "/home/u/.config/gh/hosts.yml"),
            ("/home/u/.config/gh", "/home/u/.config/gh/hosts.yml"),
            ("/home/u/.c*", "/home/u/.config/gh/hosts.yml"),
            ("/home/u/.docker/*", "/home/u/.docker/config.json"),
        ] {
            assert!(
                secrets_of(target, true).contains(&want.to_string()),
                "{target}: {:?}",
                secrets_of(target, true)
            );
        }
        // At most a few for the whole home; none for a lister, a directory beside them, or
        // a credential file named itself (that read is already at `secrets`).
        assert_eq!(secrets_of("/home/u", true).len(), MAX_SECRETS);
        for (target, whole) in [
            ("/home/u/.config", false),
            ("/home/u/proj", true),
            ("/home/u/.config/nvim", true),
            ("/home/u/.aws/credentials", true),
        ] {
            assert!(secrets_of(target, whole).is_empty(), "{target}");
        }
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
