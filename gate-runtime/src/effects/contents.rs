//! What an act on a whole directory reaches inside it, in a live hook call: removing or
//! moving a parent removes or moves everything it holds (`rm -rf .github` removes Copilot's
//! hooks), an archive extracted into a directory writes whatever members land on gate's
//! files, and git restoring, stashing or cleaning a work tree overwrites or deletes the
//! protected files it reaches (`git checkout .`, `git stash -u`, `git clean -fdx`). "Holds
//! one of gate's locations" is a property of the directory, found on the disk: the
//! locations gate knows by path ([`places::protected_anchors`]) that exist under it, and
//! hook-settings directories found by a bounded look inside.

use gate_spec::effect::{Act, Place};

use super::places::{self, Where};
use super::{archives, disk, gitdisk, Effect, Reach};

/// Deepest level below the directory looked at for hook-settings directories (`rm -rf
/// ~/code` finds `~/code/app/.claude`).
const MAX_DEPTH: usize = 2;

/// Most directory entries looked at for one act.
const MAX_ENTRIES: usize = 512;

/// Most protected files an act reports (one is enough to deny it).
const MAX_FOUND: usize = 8;

/// Most files of one protected directory whose git status is checked.
const MAX_FILES: usize = 64;

/// The effects of `act` on what `reach` finds under the directory `target` (resolved,
/// absolute; a last component that means everything, `dir/*`, stands for `dir`): one per
/// protected location it reaches, at `gate`. Nothing unless the disk may be read.
pub(super) fn within(
    act: Act,
    target: &str,
    reach: &Reach,
    at: &Where,
    cwd: &str,
    out: &mut Vec<Effect>,
) {
    if !at.disk || !target.starts_with('/') {
        return;
    }
    let dir = match target.rsplit_once('/') {
        Some((parent, last)) if places::is_everything(last) => {
            if parent.is_empty() {
                "/"
            } else {
                parent
            }
        }
        // A pattern (`rm -rf .git*`): each entry it matches now, as the shell expands it.
        Some((parent, last)) if places::is_glob(last) && !places::is_glob(parent) => {
            let Ok(entries) = std::fs::read_dir(if parent.is_empty() { "/" } else { parent })
            else {
                return;
            };
            let matched: Vec<String> = entries
                .flatten()
                .take(MAX_ENTRIES)
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|name| {
                    (!name.starts_with('.') || last.starts_with('.'))
                        && gate_spec::pattern::path_glob(last, name)
                })
                .collect();
            for name in matched.iter().take(MAX_FOUND) {
                within(act, &format!("{parent}/{name}"), reach, at, cwd, out);
            }
            return;
        }
        _ => target,
    };
    if dir.split('/').any(places::is_glob) {
        return;
    }
    // A file, or nothing yet: nothing under it (one `stat`, before anything else).
    let is_dir = std::fs::metadata(dir).is_ok_and(|m| m.is_dir());
    if !is_dir && !matches!(reach, Reach::Archive { .. }) {
        return;
    }
    let (place, _) = places::place_of(dir, "/", None, at);
    if place == Place::Gate {
        return;
    }
    let real = disk::real_path(dir).unwrap_or_else(|| dir.to_string());
    if let Reach::Archive { path, strip } = reach {
        let archive = places::place_of(path, cwd, None, at).1;
        if let Some(members) = archives::members(&archive) {
            for m in members.iter().take(archives::MAX_MEMBERS) {
                let Some(landing) = archives::landing(&real, m, *strip) else {
                    continue;
                };
                let (place, landing) = places::place_of(&landing, "/", None, at);
                if place == Place::Gate && !out.iter().any(|e| e.target == landing) {
                    out.push(Effect {
                        act,
                        place,
                        target: landing,
                    });
                }
            }
            return;
        }
        if !is_dir {
            return;
        }
    }
    let held = protected_inside(&real, at);
    let mut found = 0;
    let mut repos = gitdisk::Repos::default();
    for p in held {
        if found >= MAX_FOUND {
            break;
        }
        let reached: Vec<String> = match reach {
            Reach::All | Reach::Archive { .. } => vec![p],
            Reach::Modified | Reach::Untracked { .. } => files_of(&p)
                .into_iter()
                .filter(|f| at_risk(&mut repos, f, reach))
                .take(MAX_FOUND)
                .collect(),
        };
        for r in reached {
            found += 1;
            out.push(Effect {
                act,
                place: Place::Gate,
                target: r,
            });
        }
    }
}

/// Whether `reach` extracts an archive that is not on the disk and that nothing the line did
/// `before` this command could have made (every earlier effect only reads): the extraction
/// fails and writes nothing. Standard input (`-f -`) is always there.
pub(super) fn never_there(reach: &Reach, cwd: &str, at: &Where, before: &[Effect]) -> bool {
    let Reach::Archive { path, .. } = reach else {
        return false;
    };
    path != "-"
        && before.iter().all(|e| e.act == Act::Read)
        && std::fs::symlink_metadata(places::place_of(path, cwd, None, at).1).is_err()
}

/// gate's locations under `dir` (a real path) that exist: the ones known by path, then
/// hook-settings directories found by a bounded walk (not into build outputs or `.git`).
pub(super) fn protected_inside(dir: &str, at: &Where) -> Vec<String> {
    let base = dir.trim_end_matches('/');
    let under = |p: &str| places::below(p, base);
    let mut found: Vec<String> = Vec::new();
    for anchor in places::protected_anchors(at) {
        if std::fs::symlink_metadata(&anchor).is_err() {
            continue;
        }
        // By name, or where a link leads (`~/.claude` kept in a dotfiles repository).
        let inside = under(&anchor) || disk::real_path(&anchor).is_some_and(|real| under(&real));
        if inside {
            found.push(anchor);
        }
    }
    // A bounded breadth-first walk for hook settings kept elsewhere (another project's);
    // not in build outputs (`rm -rf node_modules`), where none are kept.
    let name = base.rsplit('/').next().unwrap_or("");
    if places::OUTPUT_DIRS
        .iter()
        .any(|o| name.eq_ignore_ascii_case(o))
        || name == ".git"
    {
        return found;
    }
    let mut level = vec![base.to_string()];
    let mut seen = 0;
    'walk: for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for d in &level {
            let Ok(entries) = std::fs::read_dir(if d.is_empty() { "/" } else { d }) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > MAX_ENTRIES {
                    break 'walk;
                }
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                let path = format!("{d}/{name}");
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if places::may_be_gate_name(name) {
                    let (place, _) = places::place_of(&path, "/", None, at);
                    let hooks = name.eq_ignore_ascii_case(".github");
                    let path = if hooks { format!("{path}/hooks") } else { path };
                    let exists = !hooks || std::fs::symlink_metadata(&path).is_ok();
                    let gate = place == Place::Gate || hooks;
                    if gate && exists && !found.iter().any(|f| f.eq_ignore_ascii_case(&path)) {
                        found.push(path);
                    }
                    continue;
                }
                let skip = places::OUTPUT_DIRS
                    .iter()
                    .any(|o| name.eq_ignore_ascii_case(o))
                    || name == ".git";
                if is_dir && !skip {
                    next.push(path);
                }
            }
        }
        level = next;
    }
    found
}

/// The regular files at or under `path` (bounded), `path` itself when it is one.
fn files_of(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(path.to_string(), 0usize)];
    while let Some((p, depth)) = stack.pop() {
        if out.len() >= MAX_FILES {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            if depth >= 3 {
                // Deeper than looked at: as if it held a file that is reached.
                out.push(p);
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&p) {
                for e in entries.flatten().take(MAX_FILES) {
                    if let Some(name) = e.file_name().to_str() {
                        stack.push((format!("{p}/{name}"), depth + 1));
                    }
                }
            }
        } else {
            out.push(p);
        }
    }
    out
}

/// Whether git's restoring (`Modified`) or cleaning (`Untracked`) reaches the file `f`:
/// when its status cannot be read, it does.
fn at_risk(repos: &mut gitdisk::Repos, f: &str, reach: &Reach) -> bool {
    use gitdisk::Status;
    let status = repos.status(f);
    match reach {
        Reach::Modified => matches!(status, Status::Changed | Status::Unknown),
        Reach::Untracked { ignored } => match status {
            Status::Untracked { ignored: i } => *ignored || !i,
            Status::Unknown => true,
            Status::Clean | Status::Changed => false,
        },
        Reach::All | Reach::Archive { .. } => true,
    }
}
