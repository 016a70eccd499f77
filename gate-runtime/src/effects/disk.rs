//! What the file system adds to an action's effects in a live hook call: the target behind a
//! symbolic link made earlier (`ln -s .claude cfg`, then a write to `cfg/settings.json`), a
//! file that is one of gate's own through another name (a hard link), and the text of an
//! input file a command reads (a patch, an SQL script), read as if it were on the line.
//! Only when [`Where::disk`] is set: a replay or a test never looks at the disk.
//!
//! Every file read for an action is also digested ([`begin_reads`], [`end_reads`]): a grant
//! is bound to what the action read, so that a changed script is asked about again.

use std::cell::RefCell;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::Digest;

use gate_spec::effect::{Act, Place};

use super::places::{self, Where};
use super::Effect;

/// Longest input file read (a patch or script longer than this is read up to here).
const MAX_INPUT: u64 = 1024 * 1024;

/// Deepest path followed component by component.
const MAX_COMPONENTS: usize = 256;

/// Most symbolic links followed for one path (as the kernel's limit, 40).
const MAX_LINKS: usize = 40;

thread_local! {
    /// The digest of what the effects of the current action read from the disk, while one is
    /// being read ([`begin_reads`]).
    static READS: RefCell<Option<(sha2::Sha256, bool)>> = const { RefCell::new(None) };
}

/// Start digesting what the effects of one action read from the disk.
pub fn begin_reads() {
    READS.with(|r| *r.borrow_mut() = Some((sha2::Sha256::new(), false)));
}

/// The digest (hex) of what was read since [`begin_reads`], `None` when nothing was.
pub fn end_reads() -> Option<String> {
    READS.with(|r| {
        r.borrow_mut()
            .take()
            .filter(|(_, any)| *any)
            .map(|(h, _)| crate::store::hex(&h.finalize()))
    })
}

/// Record that `path` was read as `what` (its bytes, or a word that says why it could not be
/// read), for the action's digest.
pub(crate) fn note_read(path: &str, what: &[u8]) {
    READS.with(|r| {
        if let Some((h, any)) = r.borrow_mut().as_mut() {
            h.update(crate::store::leb128(path.len() as u64).as_slice());
            h.update(path.as_bytes());
            h.update(crate::store::leb128(what.len() as u64).as_slice());
            h.update(what);
            *any = true;
        }
    });
}

/// The text of the regular file at `path` (absolute), up to [`MAX_INPUT`] bytes, invalid
/// UTF-8 replaced; `None` when it cannot be read or is not a regular file (a FIFO or a
/// device would block or never end).
pub(crate) fn read_input(path: &str) -> Option<String> {
    let meta = std::fs::metadata(path).ok();
    if !meta.as_ref().is_some_and(|m| m.is_file()) {
        note_read(path, b"\0unreadable");
        return None;
    }
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(MAX_INPUT).read_to_end(&mut bytes));
    if read.is_err() {
        note_read(path, b"\0unreadable");
        return None;
    }
    note_read(path, &bytes);
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Why a file's text could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// Nothing is there.
    Missing,
    /// A directory, a FIFO, a device, or a file the process may not read.
    NotText,
    /// Larger than the bound it is read to.
    TooLarge,
    /// Not text (a NUL byte): a compiled program, an image.
    Binary,
}

/// The text of the regular file at `path` (absolute) when it is at most `max` bytes of text
/// (no NUL in it), following links; why not otherwise. Recorded for the action's digest.
pub(crate) fn read_text(path: &str, max: u64) -> Result<String, Unreadable> {
    let result = read_text_unrecorded(path, max);
    match &result {
        Ok(text) => note_read(path, text.as_bytes()),
        Err(why) => note_read(path, format!("\0{why:?}").as_bytes()),
    }
    result
}

fn read_text_unrecorded(path: &str, max: u64) -> Result<String, Unreadable> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unreadable::Missing),
        Err(_) => return Err(Unreadable::NotText),
    };
    if !meta.is_file() {
        return Err(Unreadable::NotText);
    }
    if meta.len() > max {
        return Err(Unreadable::TooLarge);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .map_err(|_| Unreadable::NotText)?;
    if bytes.len() as u64 > max {
        return Err(Unreadable::TooLarge);
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Err(Unreadable::Binary);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Where `path` (absolute, normalised) really is: each symbolic link on the way followed
/// (a dangling one too: it still says where a write would land), the part that does not
/// exist yet appended as written. `None` when nothing about it changes.
pub(crate) fn real_path(path: &str) -> Option<String> {
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

/// What the disk says about an action's effects in a live hook call: the places links lead
/// to ([`through_links`]), and that an overwrite of a path where nothing is creates a file
/// ([`nothing_there`]).
pub(crate) fn read_disk(at: &Where, out: &mut Vec<Effect>) {
    through_links(at, out);
    nothing_there(at, out);
}

/// An overwrite of a path outside the project where there is nothing (no file, directory or
/// link) loses nothing: it creates the file, a `write` (`curl -o ~/Downloads/i.sh URL`,
/// `echo x > ~/notes.txt` when neither exists). A pattern, an unresolved target and gate's
/// own files keep theirs; so does the project's own (where the director's backups record a
/// created file, so that its undo removes it).
fn nothing_there(at: &Where, out: &mut [Effect]) {
    if !at.disk {
        return;
    }
    for e in out.iter_mut() {
        let outside_the_project = matches!(
            e.place,
            Place::Outside | Place::System | Place::Dotfiles | Place::Home
        );
        if e.act != Act::Overwrite
            || !outside_the_project
            || !e.target.starts_with('/')
            || e.target.contains(['*', '?', '['])
        {
            continue;
        }
        let absent = matches!(
            std::fs::symlink_metadata(&e.target),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound
        );
        if absent {
            e.act = Act::Write;
        }
    }
}

/// For each change whose target is reached through a symbolic link, the same change at the
/// place the link leads to, when that place is another class than its name said (`ln -s
/// ~/Documents docs`, then `rm -rf docs/*` deletes inside `~/Documents`); and for a write
/// through a hard link, the same write at gate's file when the file is one of gate's
/// (compared by device and inode, not by name).
fn through_links(at: &Where, out: &mut Vec<Effect>) {
    if !at.disk {
        return;
    }
    let mut more = Vec::new();
    let mut gate_files: Option<Vec<(u64, u64, String)>> = None;
    for e in out.iter() {
        if e.act == Act::Read || !e.target.starts_with('/') || e.place == Place::Gate {
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
        if let Some(real) = real {
            let (place, target) = places::place_of(&real, "/", None, at);
            // Where a link leads into the project's own files or somewhere temporary, nothing
            // is at stake that its name did not show.
            let matters = !matches!(
                place,
                Place::Source | Place::Outputs | Place::Temp | Place::Nowhere
            );
            if matters && place != e.place && !more.iter().any(|m: &Effect| m.target == target) {
                more.push(Effect {
                    act: e.act,
                    place,
                    target,
                });
            }
        }
        // A hard link shares its file: a write through it is a write of the file.
        if matches!(e.act, Act::Write | Act::Overwrite | Act::Permissions) {
            if let Some(found) = hard_linked(&e.target, at, &mut gate_files) {
                more.push(Effect {
                    act: e.act,
                    place: Place::Gate,
                    target: found,
                });
            }
        }
    }
    out.extend(more);
}

/// Most files of gate's directories compared with a hard-linked target.
const MAX_GATE_FILES: usize = 512;

/// The path of gate's own file that `target` is another name of, when `target` is a regular
/// file with more than one link; `files` caches gate's files' identities for the action.
fn hard_linked(
    target: &str,
    at: &Where,
    files: &mut Option<Vec<(u64, u64, String)>>,
) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(target).ok()?;
    if !meta.is_file() || meta.nlink() < 2 {
        return None;
    }
    let files = files.get_or_insert_with(|| gate_files(at));
    files
        .iter()
        .find(|(dev, ino, _)| *dev == meta.dev() && *ino == meta.ino())
        .map(|(_, _, p)| p.clone())
}

/// Device, inode and path of the regular files in gate's locations (bounded).
fn gate_files(at: &Where) -> Vec<(u64, u64, String)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut stack: Vec<(String, usize)> = places::protected_anchors(at)
        .into_iter()
        .map(|p| (p, 0))
        .collect();
    let mut seen = 0;
    while let Some((p, depth)) = stack.pop() {
        seen += 1;
        if seen > MAX_GATE_FILES {
            break;
        }
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        if meta.is_file() {
            out.push((meta.dev(), meta.ino(), p));
        } else if meta.is_dir() && depth < 2 {
            if let Ok(entries) = std::fs::read_dir(&p) {
                for e in entries.flatten() {
                    if let Some(name) = e.file_name().to_str() {
                        stack.push((format!("{p}/{name}"), depth + 1));
                    }
                }
            }
        }
    }
    out
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
