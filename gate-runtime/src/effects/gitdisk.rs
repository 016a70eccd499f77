//! What a git command finds in the repository and the user's configuration, read in a live
//! hook call: the stored configuration that makes git run code (`!` aliases,
//! `core.fsmonitor`, `core.pager`, `core.editor`, `core.sshCommand`, diff, merge and filter
//! drivers, a credential helper), the hooks it runs (from `core.hooksPath` or `.git/hooks`),
//! and, for an act on a whole work tree, whether a file is tracked, changed or ignored (the
//! index and the ignore files).
//!
//! Configuration files are read from the repository (`.git/config`, a worktree's common
//! directory), then `~/.gitconfig` and `$XDG_CONFIG_HOME/git/config`, each bounded, their
//! `include.path`s and `includeIf.*.path`s followed (every condition taken as met) to a
//! bounded depth. Every driver the configuration defines counts as run by a command that
//! reads or writes the work tree, whichever paths `.gitattributes` gives it: a superset of
//! what git runs, read without walking the tree's attribute files.

use std::path::Path;

use super::disk::{self, Unreadable};
use super::places::{self, Where};
use super::programs::{GitCall, GIT_VIEWERS};

/// Largest configuration or ignore file read.
const MAX_CONFIG: u64 = 256 * 1024;

/// Largest index read for an act on the work tree.
const MAX_INDEX: u64 = 32 * 1024 * 1024;

/// Deepest `include.path` followed.
const MAX_INCLUDES: usize = 3;

/// Most directories walked up to find a repository.
const MAX_UP: usize = 64;

/// A repository as found on the disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Repo {
    /// The work tree's top level.
    pub(super) root: String,
    /// The git directory (`.git`, or where a `.git` file points).
    pub(super) git_dir: String,
    /// The common directory (a worktree's main git directory), where config and hooks are.
    pub(super) common: String,
}

/// The repository whose work tree holds `dir` (absolute): the nearest `.git` upward.
pub(super) fn find_repo(dir: &str) -> Option<Repo> {
    let mut cur = Path::new(dir);
    for _ in 0..MAX_UP {
        let dot = cur.join(".git");
        if let Ok(meta) = std::fs::metadata(&dot) {
            let root = cur.to_str()?.to_string();
            let git_dir = if meta.is_dir() {
                dot.to_str()?.to_string()
            } else {
                // `gitdir: PATH` (a worktree or a submodule).
                let text = std::fs::read_to_string(&dot).ok()?;
                let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
                places::normalise(&if target.starts_with('/') {
                    target.to_string()
                } else {
                    format!("{root}/{target}")
                })
            };
            let common = std::fs::read_to_string(format!("{git_dir}/commondir"))
                .ok()
                .map(|c| {
                    let c = c.trim();
                    places::normalise(&if c.starts_with('/') {
                        c.to_string()
                    } else {
                        format!("{git_dir}/{c}")
                    })
                })
                .unwrap_or_else(|| git_dir.clone());
            return Some(Repo {
                root,
                git_dir,
                common,
            });
        }
        cur = cur.parent()?;
    }
    None
}

/// One configuration entry: `section[.subsection].key` (section and key lower-cased), and
/// its value.
type Entry = (String, String);

/// Parse git configuration text into entries, in order (includes are the caller's).
pub(super) fn parse_config(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.trim().to_string();
        // A value continued on the next line.
        while line.ends_with('\\') && !line.ends_with("\\\\") {
            line.pop();
            match lines.next() {
                Some(next) => line.push_str(next),
                None => break,
            }
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let Some(end) = rest.find(']') else {
                continue;
            };
            let head = &rest[..end];
            section = match head.split_once(char::is_whitespace) {
                // `[section "sub"]`: the subsection keeps its case.
                Some((name, sub)) => {
                    let sub = sub.trim().trim_matches('"').replace("\\\"", "\"");
                    format!("{}.{sub}", name.to_ascii_lowercase())
                }
                // `[section.sub]` (deprecated): compared without case.
                None => head.to_ascii_lowercase(),
            };
            // `[section] key = value` on one line.
            let after = rest[end + 1..].trim();
            if !after.is_empty() {
                if let Some(entry) = key_value(&section, after) {
                    out.push(entry);
                }
            }
            continue;
        }
        if let Some(entry) = key_value(&section, line) {
            out.push(entry);
        }
    }
    out
}

fn key_value(section: &str, line: &str) -> Option<Entry> {
    if section.is_empty() {
        return None;
    }
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), unquote(v.trim())),
        // A key alone is `true`.
        None => (line, "true".to_string()),
    };
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return None;
    }
    Some((format!("{section}.{}", key.to_ascii_lowercase()), value))
}

/// A configuration value as git reads it: quotes removed, escapes made real, a comment
/// outside quotes dropped.
fn unquote(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut quoted = false;
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('b') => {
                    out.pop();
                }
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim_end().to_string()
}

/// The entries of the configuration file at `path` and of the files it includes (bounded),
/// in the order git reads them. `home` resolves `~/` in include paths.
fn read_config(path: &str, home: &str, depth: usize, out: &mut Vec<Entry>) {
    let text = match disk::read_text(path, MAX_CONFIG) {
        Ok(t) => t,
        Err(Unreadable::Missing) => return,
        // Configuration gate cannot read: an unknown that may run anything.
        Err(_) => {
            out.push(("gate.unreadable".into(), path.to_string()));
            return;
        }
    };
    let base = Path::new(path)
        .parent()
        .and_then(Path::to_str)
        .unwrap_or("/")
        .to_string();
    for (key, value) in parse_config(&text) {
        let include =
            key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path"));
        if include {
            if depth >= MAX_INCLUDES {
                out.push(("gate.unreadable".into(), value));
                continue;
            }
            let target = if let Some(rest) = value.strip_prefix("~/") {
                format!("{home}/{rest}")
            } else if value.starts_with('/') {
                value.clone()
            } else {
                format!("{base}/{value}")
            };
            read_config(&places::normalise(&target), home, depth + 1, out);
            continue;
        }
        out.push((key, value));
    }
}

/// The configuration a git command in `repo` (if any) reads: the repository's, then the
/// user's global files.
fn config_of(repo: Option<&Repo>, at: &Where) -> Vec<Entry> {
    let mut out = Vec::new();
    let home = at.home.trim_end_matches('/');
    if !home.is_empty() {
        let xdg = std::env::var("XDG_CONFIG_HOME")
            .ok()
            .filter(|x| x.starts_with('/'))
            .unwrap_or_else(|| format!("{home}/.config"));
        read_config(&format!("{xdg}/git/config"), home, 0, &mut out);
        read_config(&format!("{home}/.gitconfig"), home, 0, &mut out);
    }
    if let Some(r) = repo {
        read_config(&format!("{}/config", r.common), home, 0, &mut out);
        if r.git_dir != r.common {
            read_config(&format!("{}/config.worktree", r.git_dir), home, 0, &mut out);
        }
    }
    out
}

/// What a git command's stored configuration and hooks make it run.
#[derive(Debug, Default)]
pub(super) struct Stored {
    /// `alias.NAME` values for the subcommand (and aliases it names in turn), to be given to
    /// the command model as `-c alias.NAME=VALUE` ahead of the line's own options.
    pub(super) aliases: Vec<(String, String)>,
    /// Shell code git runs, with the directory it runs in.
    pub(super) scripts: Vec<(String, String)>,
    /// Hook files git runs (absolute), with the directory they run in; absent ones run
    /// nothing.
    pub(super) hooks: Vec<(String, String)>,
    /// Configuration gate could not read: what runs is unknown.
    pub(super) unknown: Vec<String>,
}

/// Subcommands that neither read nor write the work tree nor talk to a remote: nothing
/// stored runs for them (bar an alias).
const QUIET: &[&str] = &[
    "version",
    "help",
    "config",
    "var",
    "rev-parse",
    "check-ref-format",
    "column",
    "stripspace",
    "hash-object",
    "cat-file",
    "show-ref",
    "for-each-ref",
    "symbolic-ref",
    "ls-remote",
    "remote",
    "branch",
    "tag",
    "describe",
    "name-rev",
    "merge-base",
    "count-objects",
    "rev-list",
    "reflog",
    "shortlog",
];

/// Hooks each subcommand may run (every command that writes the index or a ref also runs
/// `post-index-change` and `reference-transaction`).
fn hooks_of(sub: &str) -> &'static [&'static str] {
    match sub {
        "commit" => &[
            "pre-commit",
            "prepare-commit-msg",
            "commit-msg",
            "post-commit",
            "post-rewrite",
        ],
        "merge" => &[
            "pre-merge-commit",
            "prepare-commit-msg",
            "commit-msg",
            "post-merge",
        ],
        "pull" => &[
            "pre-merge-commit",
            "prepare-commit-msg",
            "commit-msg",
            "post-merge",
            "pre-rebase",
            "post-rewrite",
            "post-checkout",
        ],
        "rebase" => &[
            "pre-rebase",
            "post-rewrite",
            "post-checkout",
            "prepare-commit-msg",
        ],
        "checkout" | "switch" | "clone" | "worktree" => &["post-checkout"],
        "push" => &["pre-push"],
        "am" => &[
            "applypatch-msg",
            "pre-applypatch",
            "post-applypatch",
            "prepare-commit-msg",
            "commit-msg",
        ],
        "cherry-pick" | "revert" => &["prepare-commit-msg", "commit-msg", "post-commit"],
        "gc" | "maintenance" => &["pre-auto-gc"],
        "send-email" => &["sendemail-validate"],
        "receive-pack" => &["pre-receive", "update", "post-receive", "post-update"],
        _ => &[],
    }
}

/// Keys (lower-cased) whose value git runs as shell code, by the subcommands that run them:
/// `None` for every subcommand that is not [`QUIET`].
fn code_keys(key: &str, sub: &str) -> bool {
    let network = matches!(
        sub,
        "fetch" | "pull" | "push" | "clone" | "ls-remote" | "submodule" | "remote"
    );
    let pages = matches!(
        sub,
        "log"
            | "show"
            | "diff"
            | "blame"
            | "annotate"
            | "grep"
            | "whatchanged"
            | "reflog"
            | "shortlog"
            | "branch"
            | "tag"
            | "stash"
            | "help"
            | "config"
            | "range-diff"
    );
    let edits = matches!(
        sub,
        "commit"
            | "merge"
            | "rebase"
            | "tag"
            | "am"
            | "cherry-pick"
            | "revert"
            | "notes"
            | "pull"
            | "add"
            | "config"
    );
    match key {
        "core.fsmonitor" => !QUIET.contains(&sub),
        "core.pager" | "diff.external" | "interactive.difffilter" => pages,
        "core.editor" | "sequence.editor" => edits,
        "gpg.program" | "gpg.ssh.program" | "gpg.x509.program" => {
            matches!(
                sub,
                "commit"
                    | "tag"
                    | "merge"
                    | "rebase"
                    | "log"
                    | "show"
                    | "verify-commit"
                    | "verify-tag"
                    | "am"
                    | "cherry-pick"
                    | "revert"
                    | "push"
                    | "pull"
            )
        }
        "core.sshcommand" | "core.askpass" | "core.gitproxy" => network,
        "credential.helper" => network,
        k if k.starts_with("pager.") => pages && k[6..].eq_ignore_ascii_case(sub),
        k if k.starts_with("filter.")
            && (k.ends_with(".clean") || k.ends_with(".smudge") || k.ends_with(".process")) =>
        {
            !QUIET.contains(&sub) && !network || matches!(sub, "pull" | "clone")
        }
        k if k.starts_with("diff.") && (k.ends_with(".command") || k.ends_with(".textconv")) => {
            matches!(
                sub,
                "diff"
                    | "log"
                    | "show"
                    | "blame"
                    | "grep"
                    | "stash"
                    | "difftool"
                    | "range-diff"
                    | "format-patch"
            )
        }
        k if k.starts_with("merge.") && k.ends_with(".driver") => matches!(
            sub,
            "merge"
                | "pull"
                | "rebase"
                | "cherry-pick"
                | "revert"
                | "stash"
                | "checkout"
                | "am"
                | "switch"
        ),
        k if k.starts_with("remote.")
            && (k.ends_with(".uploadpack") || k.ends_with(".receivepack")) =>
        {
            network
        }
        _ => false,
    }
}

/// Values that run nothing of their own: git's built-in behaviour, or a pager or editor
/// that only shows or edits what it is handed.
fn runs_nothing(key: &str, value: &str) -> bool {
    let v = value.trim();
    if v.is_empty()
        || matches!(
            v.to_ascii_lowercase().as_str(),
            "false" | "0" | "no" | "off"
        )
    {
        return true;
    }
    if key == "core.fsmonitor"
        && matches!(v.to_ascii_lowercase().as_str(), "true" | "1" | "yes" | "on")
    {
        return true;
    }
    let first = v.split_whitespace().next().unwrap_or("");
    let base = first.rsplit('/').next().unwrap_or(first);
    GIT_VIEWERS.contains(&base) && !v.contains([';', '|', '&', '$', '`', '<', '>', '\n'])
}

/// What the git command `call`, run in `cwd` (absolute), runs from its stored configuration
/// and hooks.
pub(super) fn stored(call: &GitCall, cwd: &str, at: &Where) -> Stored {
    let mut out = Stored::default();
    let resolve = |p: &str| places::place_of(p, cwd, None, at).1;
    let dir = call
        .dir
        .as_deref()
        .map(resolve)
        .unwrap_or_else(|| cwd.to_string());
    if dir.starts_with('?') {
        return out;
    }
    let repo = match &call.git_dir {
        Some(g) => {
            let g = resolve(g);
            (!g.starts_with('?')).then(|| Repo {
                root: call
                    .work_tree
                    .as_deref()
                    .map(resolve)
                    .unwrap_or_else(|| dir.clone()),
                git_dir: g.clone(),
                common: g,
            })
        }
        None => find_repo(&dir),
    };
    let config = config_of(repo.as_ref(), at);
    let sub = call.sub.as_deref().unwrap_or("");
    let run_in = repo
        .as_ref()
        .map_or_else(|| dir.clone(), |r| r.root.clone());
    for (key, value) in &config {
        if key == "gate.unreadable" {
            out.unknown.push(value.clone());
        }
    }
    // The alias the subcommand is, and the aliases its value names in turn (the last
    // definition wins, as in git).
    let mut name = sub.to_string();
    for _ in 0..4 {
        let alias = format!("alias.{}", name.to_ascii_lowercase());
        let Some((_, value)) = config.iter().rev().find(|(k, _)| *k == alias) else {
            break;
        };
        out.aliases.push((name.clone(), value.clone()));
        if value.starts_with('!') {
            break;
        }
        match value.split_whitespace().next() {
            Some(next) if next != name => name = next.to_string(),
            _ => break,
        }
    }
    let subs: Vec<&str> = std::iter::once(sub)
        .chain(out.aliases.iter().filter_map(|(_, v)| {
            (!v.starts_with('!'))
                .then(|| v.split_whitespace().next())
                .flatten()
        }))
        .collect();
    // Each key once: the last value is the one git uses.
    let mut done: Vec<&str> = Vec::new();
    for (key, value) in config.iter().rev() {
        if done.contains(&key.as_str()) {
            continue;
        }
        done.push(key);
        if subs.iter().any(|s| code_keys(key, s)) && !runs_nothing(key, value) {
            let code = value.strip_prefix('!').unwrap_or(value);
            if key == "credential.helper" && !value.starts_with('!') && !value.contains('/') {
                // `store`, `cache`, `osxkeychain`: git's own `git credential-NAME`.
                continue;
            }
            out.scripts.push((run_in.clone(), code.to_string()));
        }
    }
    // Hooks: from `core.hooksPath` (relative to the work tree), else the common directory.
    if let Some(repo) = &repo {
        let hooks_dir = config
            .iter()
            .rev()
            .find(|(k, _)| k == "core.hookspath")
            .map(|(_, v)| {
                let v = v.strip_prefix("~/").map_or_else(
                    || v.clone(),
                    |rest| format!("{}/{rest}", at.home.trim_end_matches('/')),
                );
                places::normalise(&if v.starts_with('/') {
                    v
                } else {
                    format!("{}/{v}", repo.root)
                })
            })
            .unwrap_or_else(|| format!("{}/hooks", repo.common));
        let mut names: Vec<&str> = Vec::new();
        for s in &subs {
            names.extend(hooks_of(s));
            if !QUIET.contains(s) {
                names.extend(["post-index-change", "reference-transaction"]);
            }
        }
        names.sort_unstable();
        names.dedup();
        for n in names {
            out.hooks
                .push((format!("{hooks_dir}/{n}"), repo.root.clone()));
        }
    }
    out
}

/// Where a file stands for git.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// Tracked, and as the index recorded it.
    Clean,
    /// Tracked, and changed (or changed as far as its recorded stat tells).
    Changed,
    /// Not tracked; `ignored` when an ignore file names it.
    Untracked { ignored: bool },
    /// Not in a repository gate could read.
    Unknown,
}

/// The index of one repository: each tracked path (relative, `/`-separated) with the stat
/// fields git compares.
#[derive(Debug)]
struct Index {
    entries: Vec<(String, IndexStat)>,
    /// When the index was written (a file changed in the same second is "racy").
    written: (i64, i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct IndexStat {
    mtime: (u32, u32),
    ctime: (u32, u32),
    ino: u32,
    size: u32,
}

/// Repositories and indexes read for one action.
#[derive(Debug, Default)]
pub(super) struct Repos {
    read: Vec<(Repo, Option<Index>)>,
}

impl Repos {
    /// The git status of the file at `path` (absolute).
    pub(super) fn status(&mut self, path: &str) -> Status {
        use std::os::unix::fs::MetadataExt;
        let dir = Path::new(path)
            .parent()
            .and_then(Path::to_str)
            .unwrap_or("/");
        let Some(repo) = find_repo(dir) else {
            return Status::Unknown;
        };
        let Some(rel) = path
            .strip_prefix(repo.root.trim_end_matches('/'))
            .and_then(|r| r.strip_prefix('/'))
        else {
            return Status::Unknown;
        };
        let k = match self.read.iter().position(|(r, _)| *r == repo) {
            Some(k) => k,
            None => {
                let index = read_index(&repo);
                self.read.push((repo.clone(), index));
                self.read.len() - 1
            }
        };
        let Some(index) = &self.read[k].1 else {
            return Status::Unknown;
        };
        let found = index
            .entries
            .binary_search_by(|(p, _)| p.as_str().cmp(rel))
            .ok()
            .map(|i| index.entries[i].1);
        match found {
            Some(recorded) => {
                let Ok(meta) = std::fs::symlink_metadata(path) else {
                    // Deleted from the work tree: restoring it writes it.
                    return Status::Changed;
                };
                let now = IndexStat {
                    mtime: (meta.mtime() as u32, meta.mtime_nsec() as u32),
                    ctime: (meta.ctime() as u32, meta.ctime_nsec() as u32),
                    ino: meta.ino() as u32,
                    size: meta.size() as u32,
                };
                let racy = (meta.mtime(), meta.mtime_nsec()) >= index.written;
                if now == recorded && !racy {
                    Status::Clean
                } else {
                    Status::Changed
                }
            }
            None => Status::Untracked {
                ignored: ignored(&repo, rel),
            },
        }
    }
}

/// The index of `repo`, `None` when it cannot be read (absent, too large, a version or
/// object format gate does not read).
fn read_index(repo: &Repo) -> Option<Index> {
    use std::os::unix::fs::MetadataExt;
    let path = format!("{}/index", repo.git_dir);
    let meta = std::fs::metadata(&path).ok()?;
    if meta.len() > MAX_INDEX {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    // SHA-256 repositories have 32-byte object names.
    let config = std::fs::read_to_string(format!("{}/config", repo.common)).unwrap_or_default();
    let hash_len = if config
        .to_ascii_lowercase()
        .contains("objectformat = sha256")
    {
        32
    } else {
        20
    };
    let entries = parse_index(&bytes, hash_len)?;
    Some(Index {
        entries,
        written: (meta.mtime(), meta.mtime_nsec()),
    })
}

/// The entries of an index file (versions 2, 3 and 4), sorted by path.
fn parse_index(b: &[u8], hash_len: usize) -> Option<Vec<(String, IndexStat)>> {
    let u32_at =
        |i: usize| -> Option<u32> { Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?)) };
    if b.get(..4)? != b"DIRC" {
        return None;
    }
    let version = u32_at(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = u32_at(8)? as usize;
    let mut out: Vec<(String, IndexStat)> = Vec::with_capacity(count.min(1 << 20));
    let mut i = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let stat = IndexStat {
            ctime: (u32_at(i)?, u32_at(i + 4)?),
            mtime: (u32_at(i + 8)?, u32_at(i + 12)?),
            ino: u32_at(i + 20)?,
            size: u32_at(i + 36)?,
        };
        let flags_at = i + 40 + hash_len;
        let flags = u16::from_be_bytes(b.get(flags_at..flags_at + 2)?.try_into().ok()?);
        let mut j = flags_at + 2;
        if version >= 3 && flags & 0x4000 != 0 {
            j += 2;
        }
        let start = i;
        let name: Vec<u8> = if version == 4 {
            // A varint: how many bytes of the previous name to drop; then the rest, NUL-ended.
            let mut drop: usize = 0;
            loop {
                let byte = *b.get(j)?;
                j += 1;
                drop = (drop << 7) | usize::from(byte & 0x7f);
                if byte & 0x80 == 0 {
                    break;
                }
                drop += 1;
            }
            let end = j + b.get(j..)?.iter().position(|&c| c == 0)?;
            let keep = prev.len().checked_sub(drop)?;
            let mut n = prev[..keep].to_vec();
            n.extend_from_slice(&b[j..end]);
            j = end + 1;
            n
        } else {
            let end = j + b.get(j..)?.iter().position(|&c| c == 0)?;
            let n = b[j..end].to_vec();
            // Entries are padded with NULs to a multiple of eight bytes.
            let len = end - start;
            j = start + (len + 8) / 8 * 8;
            n
        };
        prev.clone_from(&name);
        out.push((String::from_utf8_lossy(&name).into_owned(), stat));
        i = j;
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Some(out)
}

/// Whether the ignore files name `rel` (a path relative to the repository's top): the
/// `.gitignore` of the top and of each directory on the way, `info/exclude`, and the user's
/// `core.excludesFile` (or `$XDG_CONFIG_HOME/git/ignore`). Patterns are matched in a
/// simplified way (a name anywhere, a path from its file's directory, `dir/` for a
/// directory on the way); a negation anywhere makes the answer "not ignored".
fn ignored(repo: &Repo, rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut files: Vec<(String, String)> =
        vec![(format!("{}/info/exclude", repo.common), String::new())];
    if let Ok(home) = std::env::var("HOME") {
        let xdg = std::env::var("XDG_CONFIG_HOME").unwrap_or_else(|_| format!("{home}/.config"));
        files.push((format!("{xdg}/git/ignore"), String::new()));
    }
    let mut prefix = String::new();
    files.push((format!("{}/.gitignore", repo.root), String::new()));
    for p in &parts[..parts.len().saturating_sub(1)] {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(p);
        files.push((format!("{}/{prefix}/.gitignore", repo.root), prefix.clone()));
    }
    let mut hit = false;
    for (file, base) in files {
        let Ok(text) = disk::read_text(&file, MAX_CONFIG) else {
            continue;
        };
        let rel_here = if base.is_empty() {
            rel
        } else {
            match rel.strip_prefix(&base).and_then(|r| r.strip_prefix('/')) {
                Some(r) => r,
                None => continue,
            }
        };
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(negated) = line.strip_prefix('!') {
                if pattern_matches(negated, rel_here) {
                    return false;
                }
                continue;
            }
            hit |= pattern_matches(line, rel_here);
        }
    }
    hit
}

/// A simplified gitignore match of `pattern` against `rel` (relative to the ignore file's
/// directory): a pattern with no inner slash matches any component; one with a slash
/// matches from the start; a trailing `/` (a directory) matches a leading part.
fn pattern_matches(pattern: &str, rel: &str) -> bool {
    let dir_only = pattern.ends_with('/');
    let p = pattern.trim_end_matches('/');
    let anchored = p.trim_start_matches('/').contains('/') || p.starts_with('/');
    let p = p.trim_start_matches('/');
    if p.is_empty() {
        return false;
    }
    let parts: Vec<&str> = rel.split('/').collect();
    let glob = |pat: &str, text: &str| gate_spec::pattern::path_glob(pat, text);
    if anchored {
        // The pattern, or a directory it names that holds the path.
        let n = p.split('/').count();
        (1..=parts.len()).any(|k| {
            let head = parts[..k].join("/");
            (k == parts.len() && !dir_only || k < parts.len())
                && k >= n.min(parts.len())
                && glob(p, &head)
        }) || p.contains("**") && glob(p, rel)
    } else {
        parts.iter().enumerate().any(|(k, c)| {
            let last = k + 1 == parts.len();
            (!dir_only || !last) && glob(p, c)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_text_is_read_as_git_reads_it() {
        let text = "[core]\n\tpager = less -R\n\tfsmonitor = \"./watch.sh\" # comment\n[alias]\n  nuke = !rm -rf ~\n[diff \"bin\"]\n\ttextconv = hexdump -v\n[filter \"x\"] smudge = cat\n[include]\n\tpath = other.inc\n";
        let entries = parse_config(text);
        let get = |k: &str| {
            entries
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("core.pager"), Some("less -R"));
        assert_eq!(get("core.fsmonitor"), Some("./watch.sh"));
        assert_eq!(get("alias.nuke"), Some("!rm -rf ~"));
        assert_eq!(get("diff.bin.textconv"), Some("hexdump -v"));
        assert_eq!(get("filter.x.smudge"), Some("cat"));
        assert_eq!(get("include.path"), Some("other.inc"));
    }

    #[test]
    fn ignore_patterns_in_their_simplified_form() {
        assert!(pattern_matches(
            "settings.local.json",
            ".claude/settings.local.json"
        ));
        assert!(pattern_matches(
            "*.local.json",
            ".claude/settings.local.json"
        ));
        assert!(pattern_matches(".claude/", ".claude/settings.json"));
        assert!(pattern_matches(
            "/.claude/settings.local.json",
            ".claude/settings.local.json"
        ));
        assert!(pattern_matches(
            ".claude/*.local.json",
            ".claude/settings.local.json"
        ));
        assert!(!pattern_matches(
            "settings.json",
            ".claude/settings.local.json"
        ));
        assert!(!pattern_matches("/build", ".claude/settings.json"));
        assert!(!pattern_matches("build/", "build"));
    }

    #[test]
    fn an_index_of_each_version_is_read() {
        // One entry, version 2: 62 bytes of fields, the name, NUL padding to eight.
        let mut b = b"DIRC\0\0\0\x02\0\0\0\x01".to_vec();
        let mut e = vec![0u8; 40];
        e[36..40].copy_from_slice(&5u32.to_be_bytes());
        e.extend([0u8; 20]);
        e.extend(((".claude/settings.json".len()) as u16).to_be_bytes());
        e.extend(b".claude/settings.json");
        while !(e.len() + 1).is_multiple_of(8) {
            e.push(0);
        }
        e.push(0);
        b.extend(&e);
        let entries = parse_index(&b, 20).unwrap();
        assert_eq!(entries[0].0, ".claude/settings.json");
        assert_eq!(entries[0].1.size, 5);
        assert_eq!(parse_index(b"DIRX", 20), None);
    }
}
