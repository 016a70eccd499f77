//! What the file system adds to an action's effects in a live hook call: the target behind a
//! symbolic link made earlier (`ln -s .claude cfg`, then a write to `cfg/settings.json`), and
//! the text of an input file a command reads (a patch, an SQL script), read as if it were
//! on the line. Only when [`Where::disk`] is set: a replay or a test never looks at the disk.

use std::io::Read;
use std::path::{Path, PathBuf};

use gate_spec::effect::{Act, Place};

use super::places::{self, Where};
use super::Effect;

/// Longest input file read (a patch or script longer than this is read up to here).
const MAX_INPUT: u64 = 1024 * 1024;

/// Deepest path followed component by component.
const MAX_COMPONENTS: usize = 256;

/// Most symbolic links followed for one path (as the kernel's limit, 40).
const MAX_LINKS: usize = 40;

/// The text of the regular file at `path` (absolute), up to [`MAX_INPUT`] bytes, invalid
/// UTF-8 replaced; `None` when it cannot be read or is not a regular file (a FIFO or a
/// device would block or never end).
pub(crate) fn read_input(path: &str) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_INPUT)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Where `path` (absolute, normalised) really is: each symbolic link on the way followed
/// (a dangling one too: it still says where a write would land), the part that does not
/// exist yet appended as written. `None` when nothing about it changes.
fn real_path(path: &str) -> Option<String> {
    use std::collections::VecDeque;
    use std::ffi::OsString;
    use std::path::Component;

    fn words(p: &Path) -> impl Iterator<Item = OsString> + '_ {
        p.components().filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
    }
    let mut pending: VecDeque<OsString> = words(Path::new(path)).collect();
    if pending.len() > MAX_COMPONENTS {
        return None;
    }
    let mut real = PathBuf::from("/");
    let mut hops = 0;
    let mut exists = true;
    while let Some(c) = pending.pop_front() {
        if c == ".." {
            real.pop();
            continue;
        }
        let next = real.join(&c);
        let link = exists
            && std::fs::symlink_metadata(&next).map_or_else(
                |_| {
                    exists = false;
                    false
                },
                |m| m.file_type().is_symlink(),
            );
        if !link {
            real = next;
            continue;
        }
        hops += 1;
        if hops > MAX_LINKS {
            return None;
        }
        let target = std::fs::read_link(&next).ok()?;
        if target.is_absolute() {
            real = PathBuf::from("/");
        }
        let spliced: Vec<OsString> = words(&target).collect();
        if pending.len() + spliced.len() > MAX_COMPONENTS {
            return None;
        }
        for w in spliced.into_iter().rev() {
            pending.push_front(w);
        }
    }
    let full = real.to_str()?.to_string();
    // macOS reaches /tmp, /var and /etc through /private: the same places.
    let full = match full.strip_prefix("/private") {
        Some(rest) if ["/tmp", "/var", "/etc"].iter().any(|p| rest.starts_with(p)) => {
            rest.to_string()
        }
        _ => full,
    };
    (full != path).then_some(full)
}

/// Places a link may lead a change into that its name did not show.
fn guarded(p: Place) -> bool {
    matches!(
        p,
        Place::Gate
            | Place::Secrets
            | Place::Vcs
            | Place::Device
            | Place::Root
            | Place::Home
            | Place::Dotfiles
            | Place::System
    )
}

/// For each change whose target is reached through a symbolic link, the same change at the
/// place the link leads to, when that place is one the rules guard and the name did not
/// already say so.
pub(crate) fn through_links(at: &Where, out: &mut Vec<Effect>) {
    if !at.disk {
        return;
    }
    let mut more = Vec::new();
    for e in out.iter() {
        if e.act == Act::Read || !e.target.starts_with('/') || guarded(e.place) {
            continue;
        }
        // Removing, moving or linking acts on the link itself: only the directories on the
        // way are followed. Writing, overwriting and changing permissions follow it.
        let real = match e.act {
            Act::Delete | Act::Move | Act::Link => match e.target.rsplit_once('/') {
                Some((dir, name)) if !dir.is_empty() => {
                    real_path(dir).map(|d| format!("{}/{name}", d.trim_end_matches('/')))
                }
                _ => None,
            },
            _ => real_path(&e.target),
        };
        let Some(real) = real else {
            continue;
        };
        let (place, target) = places::place_of(&real, "/", None, at);
        if place != e.place && guarded(place) {
            more.push(Effect {
                act: e.act,
                place,
                target,
            });
        }
    }
    out.extend(more);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(home: &str, project: &str, disk: bool) -> Where {
        Where {
            cwd: project.into(),
            project: project.into(),
            home: home.into(),
            gate: Vec::new(),
            disk,
        }
    }

    #[test]
    fn a_link_made_earlier_leads_the_write_to_where_it_points() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("home");
        let project = home.join("proj");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::os::unix::fs::symlink(project.join(".claude"), project.join("cfg")).unwrap();
        std::os::unix::fs::symlink(home.join(".ssh"), project.join("keys")).unwrap();
        let (home, project) = (home.to_str().unwrap(), project.to_str().unwrap());
        let write = |target: String| Effect {
            act: Act::Write,
            place: Place::Source,
            target,
        };
        let mut out = vec![write(format!("{project}/cfg/settings.json"))];
        through_links(&at(home, project, true), &mut out);
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[1].place, Place::Gate);
        assert!(out[1].target.ends_with("/.claude/settings.json"));
        // A link to a directory that does not exist yet still leads there.
        let mut out = vec![write(format!("{project}/keys/id_ed25519"))];
        through_links(&at(home, project, true), &mut out);
        assert_eq!(out.last().unwrap().place, Place::Secrets, "{out:?}");
        // Without the disk, or with no link on the way, nothing is added.
        let mut out = vec![write(format!("{project}/cfg/settings.json"))];
        through_links(&at(home, project, false), &mut out);
        assert_eq!(out.len(), 1);
        let mut out = vec![write(format!("{project}/src/main.rs"))];
        through_links(&at(home, project, true), &mut out);
        assert_eq!(out.len(), 1);
        // Removing the link removes the link, not what it points to.
        let mut out = vec![Effect {
            act: Act::Delete,
            ..write(format!("{project}/cfg"))
        }];
        through_links(&at(home, project, true), &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        let mut out = vec![Effect {
            act: Act::Delete,
            ..write(format!("{project}/cfg/settings.json"))
        }];
        through_links(&at(home, project, true), &mut out);
        assert_eq!(out.last().unwrap().place, Place::Gate, "{out:?}");
    }

    #[test]
    fn input_files_are_read_bounded_and_only_when_regular() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.sql");
        std::fs::write(&f, "DROP TABLE users;").unwrap();
        assert_eq!(
            read_input(f.to_str().unwrap()).as_deref(),
            Some("DROP TABLE users;")
        );
        assert_eq!(read_input(dir.path().to_str().unwrap()), None);
        assert_eq!(read_input("/nonexistent/x"), None);
    }
}
