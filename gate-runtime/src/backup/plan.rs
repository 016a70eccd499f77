//! Which locations an action must have copied to be recoverable, read from its effects: the
//! files and directories it deletes, overwrites, moves, re-permissions or writes, or why the
//! action cannot be made recoverable by a copy (a kind gate cannot back up, a place that is
//! not a local file, a target it could not resolve).

use crate::effects::places::below;
use crate::effects::Effect;
use gate_spec::effect::{Act, Place};

/// Acts whose targets a copy of the files before the action makes recoverable.
const COPIED: &[Act] = &[
    Act::Write,
    Act::Overwrite,
    Act::Delete,
    Act::Move,
    Act::Permissions,
];

/// Acts that lose what was there: an action with one of them at a local place is backed up
/// even where its tier lets it through (mode `reversible`).
const LOSSY: &[Act] = &[Act::Overwrite, Act::Delete, Act::Move, Act::Permissions];

/// Acts that change nothing a backup would have to restore: reading, downloading, and
/// running a program whose effects are the others listed (`exec` at no place).
const HARMLESS: &[(Act, Option<Place>)] = &[
    (Act::Read, None),
    (Act::Fetch, None),
    (Act::Exec, Some(Place::Nowhere)),
];

/// Places whose files gate can copy: local paths below the root that are not gate's own, a
/// device, or unresolved. (`root` and `home` themselves are refused as catastrophic first.)
const LOCAL: &[Place] = &[
    Place::Secrets,
    Place::Vcs,
    Place::Home,
    Place::Dotfiles,
    Place::System,
    Place::Project,
    Place::Outputs,
    Place::Source,
    Place::Temp,
    Place::Outside,
];

/// Effects a record of the repository's refs makes recoverable (with a copy of the files the
/// action discards), for the git actions `git::recoverable` accepts.
const GIT_REFS: &[(Act, Place)] = &[(Act::History, Place::Vcs)];

/// Effects of a push that rewrites or deletes remote refs: made recoverable by keeping the
/// remote's old tips (`push.rs`), not by a copy. A send is one only beside a rewrite (the
/// push itself; `push::invocation` accepts a line that is one plain `git push` only).
const PUSHED: &[(Act, Place)] = &[(Act::History, Place::Remote), (Act::Send, Place::Remote)];

/// Characters that make a target a pattern rather than one path.
const GLOB: &[char] = &['*', '?', '['];

/// The absolute paths to copy, each once, outermost first; or why the action cannot be made
/// recoverable. Every effect must be harmless or a copied act at a local, resolved place:
/// one effect gate cannot undo keeps the whole action withheld.
pub fn roots(effects: &[Effect]) -> Result<Vec<String>, String> {
    if effects.is_empty() {
        return Err("gate does not know what this action changes".to_string());
    }
    let mut out: Vec<String> = Vec::new();
    let push = pushes(effects);
    for e in effects {
        if push && PUSHED.contains(&(e.act, e.place)) {
            continue;
        }
        if HARMLESS
            .iter()
            .any(|(act, place)| *act == e.act && place.is_none_or(|p| p == e.place))
        {
            continue;
        }
        if GIT_REFS.contains(&(e.act, e.place)) && e.target.starts_with('/') {
            continue;
        }
        if !COPIED.contains(&e.act) {
            return Err(format!(
                "`{}` at `{}` ({}) is not something gate can back up",
                e.act, e.place, e.target
            ));
        }
        if !LOCAL.contains(&e.place) || !e.target.starts_with('/') {
            return Err(format!(
                "`{}` at `{}` ({}) is not a local file gate can copy",
                e.act, e.place, e.target
            ));
        }
        let root = literal_prefix(&e.target);
        if root.is_empty() || root == "/" {
            return Err(format!("`{}` has no directory gate can copy", e.target));
        }
        out.push(root);
    }
    Ok(outermost(out))
}

/// `paths` each once, sorted, without those below another one (copied with it).
pub fn outermost(mut paths: Vec<String>) -> Vec<String> {
    paths.sort();
    paths.dedup();
    let all = paths.clone();
    paths.retain(|p| !all.iter().any(|q| q != p && below(p, q)));
    paths
}

/// The git directories whose refs the action can move or delete (see [`GIT_REFS`]).
pub fn repos(effects: &[Effect]) -> Vec<String> {
    let mut out: Vec<String> = effects
        .iter()
        .filter(|e| GIT_REFS.contains(&(e.act, e.place)) && e.target.starts_with('/'))
        .map(|e| e.target.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether the action rewrites or deletes remote refs (a forced push).
pub fn pushes(effects: &[Effect]) -> bool {
    effects
        .iter()
        .any(|e| (e.act, e.place) == (Act::History, Place::Remote))
}

/// Whether the action deletes below `dir` (a `git clean`, which can take ignored files too).
pub fn deletes_in(effects: &[Effect], dir: &str) -> bool {
    effects
        .iter()
        .any(|e| e.act == Act::Delete && (e.target == dir || below(&e.target, dir)))
}

/// `effects` with every `write` at a repository read as a `history` there: for a git action
/// whose write moves existing refs to rewritten commits (a rebase, `git::rewrites`), which a
/// record of the refs makes recoverable, not a copy of the git directory.
pub fn as_rewrite(effects: &[Effect]) -> Vec<Effect> {
    effects
        .iter()
        .map(|e| match (e.act, e.place) {
            (Act::Write, Place::Vcs) => Effect {
                act: Act::History,
                place: Place::Vcs,
                target: e.target.clone(),
            },
            _ => e.clone(),
        })
        .collect()
}

/// Whether the action writes at a repository (see [`as_rewrite`]).
pub fn writes_repository(effects: &[Effect]) -> bool {
    effects
        .iter()
        .any(|e| (e.act, e.place) == (Act::Write, Place::Vcs))
}

/// Whether the action loses local files (see [`LOSSY`]).
pub fn loses(effects: &[Effect]) -> bool {
    effects
        .iter()
        .any(|e| LOSSY.contains(&e.act) && LOCAL.contains(&e.place))
}

/// The target itself, or for a pattern (`/p/build/*.o`) the directory above its first
/// component with a wildcard: a copy of that directory holds every file the pattern names.
fn literal_prefix(target: &str) -> String {
    let target = target.trim_end_matches('/');
    match target.find(GLOB) {
        None => target.to_string(),
        Some(i) => match target[..i].rfind('/') {
            Some(0) => "/".to_string(),
            Some(j) => target[..j].to_string(),
            None => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(act: Act, place: Place, target: &str) -> Effect {
        Effect {
            act,
            place,
            target: target.to_string(),
        }
    }

    #[test]
    fn deletions_and_overwrites_of_local_files_are_copied_outermost_first() {
        let effects = [
            e(Act::Read, Place::Source, "/p/src"),
            e(Act::Exec, Place::Nowhere, ""),
            e(Act::Fetch, Place::Remote, "https://x"),
            e(Act::Delete, Place::Outputs, "/p/build/"),
            e(Act::Delete, Place::Outputs, "/p/build/x.o"),
            e(Act::Overwrite, Place::Source, "/p/a.txt"),
        ];
        assert_eq!(
            roots(&effects).unwrap(),
            vec!["/p/a.txt".to_string(), "/p/build".to_string()]
        );
    }

    #[test]
    fn a_pattern_is_copied_as_the_directory_that_holds_it() {
        let effects = [e(Act::Delete, Place::Outputs, "/p/build/*.o")];
        assert_eq!(roots(&effects).unwrap(), vec!["/p/build".to_string()]);
        assert!(roots(&[e(Act::Delete, Place::Outputs, "/*")]).is_err());
    }

    #[test]
    fn what_a_copy_cannot_undo_keeps_the_whole_action_unrecoverable() {
        for bad in [
            e(Act::Exec, Place::Remote, "https://x.sh"),
            e(Act::Exec, Place::Source, "/p/run.sh"),
            e(Act::RemoteExec, Place::Nowhere, ""),
            e(Act::CloudDelete, Place::Remote, "s3://b"),
            e(Act::DbDestroy, Place::Nowhere, "prod"),
            e(Act::Send, Place::Remote, "host"),
            e(Act::Send, Place::Remote, "https://x"),
            e(Act::Device, Place::Device, "/dev/sda"),
            e(Act::Delete, Place::Gate, "/h/.local/state/gate"),
            e(Act::Delete, Place::Unknown, "$X/y"),
            e(Act::Delete, Place::Remote, "host:/x"),
            e(Act::Opaque, Place::Unknown, "?"),
        ] {
            let effects = [e(Act::Delete, Place::Outputs, "/p/build"), bad.clone()];
            assert!(roots(&effects).is_err(), "{bad:?}");
        }
        assert!(roots(&[]).is_err());
    }

    #[test]
    fn a_forced_push_is_kept_by_its_remote_refs_not_copied() {
        let push = [
            e(Act::Send, Place::Remote, ""),
            e(Act::History, Place::Remote, ""),
        ];
        assert!(pushes(&push));
        assert_eq!(roots(&push).unwrap(), Vec::<String>::new());
        assert!(roots(&push[..1]).is_err());
        assert!(!pushes(&push[..1]));
    }

    #[test]
    fn a_rebases_write_at_the_repository_is_kept_by_its_refs_not_copied() {
        let rebase = [
            e(Act::Write, Place::Vcs, "/p/.git"),
            e(Act::Read, Place::Source, "/p/src"),
        ];
        assert!(writes_repository(&rebase));
        assert_eq!(roots(&rebase).unwrap(), vec!["/p/.git".to_string()]);
        let read = as_rewrite(&rebase);
        assert_eq!(roots(&read).unwrap(), Vec::<String>::new());
        assert_eq!(repos(&read), vec!["/p/.git".to_string()]);
        assert!(!writes_repository(&[e(Act::Write, Place::Source, "/p/a")]));
    }

    #[test]
    fn only_a_loss_at_a_local_place_is_backed_up_where_nothing_withholds() {
        assert!(loses(&[e(Act::Delete, Place::Outputs, "/p/build")]));
        assert!(loses(&[e(Act::Permissions, Place::Source, "/p/run.sh")]));
        assert!(!loses(&[e(Act::Write, Place::Source, "/p/a.rs")]));
        assert!(!loses(&[e(Act::CloudDelete, Place::Remote, "s3://b")]));
    }
}
