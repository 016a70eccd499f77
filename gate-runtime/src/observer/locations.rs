//! The paths a rule's or checkpoint's globs are matched against, as locations: however an
//! action spells a path (`./src/lib.rs`, `src/./lib.rs`, `docs/../src/lib.rs`, `//x`,
//! absolute, `~/…`, `file://…`, or reached through `cd` in the line, which the effect model
//! resolves), it is matched as the normalised location it names, relative to the project
//! root (the repository's top level, else the working directory) when it is inside it, and
//! absolute when it is not.

use crate::driver::repo::repo_root;
use crate::effects::{Effect, Place};

/// `path` with `.` and empty components dropped and `..` taken back lexically (never above
/// the root of an absolute path; kept at the front of a relative one).
pub fn normalise(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// The absolute location a path names from `cwd`, or `None` when it cannot be told (a
/// relative path with no absolute working directory, a variable, a substitution).
fn absolute(path: &str, cwd: &str, home: &str) -> Option<String> {
    let path = path.strip_prefix("file://").unwrap_or(path);
    if path.contains(['$', '`']) || path.contains("://") {
        return None;
    }
    if path == "~" || path.starts_with("~/") {
        return (!home.is_empty()).then(|| normalise(&format!("{home}/{}", &path[1..])));
    }
    if path.starts_with('/') {
        return Some(normalise(path));
    }
    cwd.starts_with('/')
        .then(|| normalise(&format!("{cwd}/{path}")))
}

/// Whether an effect's target is one location on this machine's file system (not a remote,
/// an unresolved target or none).
fn on_disk(effect: &Effect) -> bool {
    !matches!(
        effect.place,
        Place::Remote | Place::Unknown | Place::Nowhere
    ) && effect.target.starts_with('/')
}

fn file_name(location: &str) -> &str {
    location.rsplit('/').next().unwrap_or(location)
}

/// Replaces `paths` (as the action spells them) with the locations they name, each once,
/// relative to the project root of `cwd` where inside it. Where the effect model resolved a
/// spelled file to another location (the line changed directory first: `cd tests && echo x
/// > ../src/lib.rs`, a tool's working-directory field), its location replaces the spelling's.
pub fn locate(paths: &mut Vec<String>, effects: &[Effect], cwd: &str, home: &str) {
    if paths.is_empty() {
        return;
    }
    let root = if cwd.starts_with('/') {
        normalise(repo_root(cwd).unwrap_or(cwd))
    } else {
        String::new()
    };
    let resolved: Vec<String> = effects
        .iter()
        .filter(|e| on_disk(e))
        .map(|e| normalise(&e.target))
        .collect();
    let spelled = std::mem::take(paths);
    for p in &spelled {
        let mut location = absolute(p, cwd, home).unwrap_or_else(|| {
            // A URL or a variable is kept as written; a relative path is tidied.
            if p.contains("://") || p.contains(['$', '`']) {
                p.clone()
            } else {
                normalise(p)
            }
        });
        if !resolved.contains(&location) {
            if let Some(other) = resolved
                .iter()
                .find(|r| file_name(r) == file_name(&location) && p.ends_with(file_name(r)))
            {
                location = other.clone();
            }
        }
        let relative = relative_to(&location, &root);
        if !paths.contains(&relative) {
            paths.push(relative);
        }
    }
}

/// `location` relative to `root` when inside it (`.` for the root itself), else unchanged.
fn relative_to(location: &str, root: &str) -> String {
    if root.is_empty() || !location.starts_with('/') {
        return location.to_string();
    }
    if location == root {
        return ".".to_string();
    }
    let base = root.trim_end_matches('/');
    match location
        .strip_prefix(base)
        .and_then(|r| r.strip_prefix('/'))
    {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => location.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Act;

    #[test]
    fn spellings_of_one_file_are_one_location() {
        for spelled in [
            "src/lib.rs",
            "./src/lib.rs",
            "src/./lib.rs",
            "src//lib.rs",
            "docs/../src/lib.rs",
            "tests/../src/lib.rs",
            "/proj/src/lib.rs",
            "//proj/src/lib.rs",
            "/proj/src/../src/lib.rs",
            "file:///proj/src/lib.rs",
        ] {
            let mut paths = vec![spelled.to_string()];
            locate(&mut paths, &[], "/proj", "/home/u");
            assert_eq!(paths, ["src/lib.rs"], "{spelled}");
        }
    }

    #[test]
    fn a_subdirectory_resolves_against_the_working_directory() {
        // No repository: the working directory is the project root.
        let mut paths = vec!["../src/lib.rs".to_string(), "x.rs".to_string()];
        locate(&mut paths, &[], "/proj/tests", "/home/u");
        assert_eq!(paths, ["/proj/src/lib.rs", "x.rs"]);
        // In a repository, a path from a subdirectory is relative to its top level.
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("proj");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("tests")).unwrap();
        let cwd = repo.join("tests");
        let mut paths = vec!["../src/lib.rs".to_string(), "./x.rs".to_string()];
        locate(&mut paths, &[], cwd.to_str().unwrap(), "/home/u");
        assert_eq!(paths, ["src/lib.rs", "tests/x.rs"]);
    }

    #[test]
    fn outside_the_project_stays_absolute_and_home_is_expanded() {
        let mut paths = vec![
            "~/.ssh/id_rsa".to_string(),
            "/etc/../etc/passwd".to_string(),
            "../other/x".to_string(),
        ];
        locate(&mut paths, &[], "/proj", "/home/u");
        assert_eq!(paths, ["/home/u/.ssh/id_rsa", "/etc/passwd", "/other/x"]);
    }

    #[test]
    fn what_cannot_be_resolved_is_normalised_as_written() {
        let mut paths = vec![
            "$DIR/./x".to_string(),
            "./a/../b".to_string(),
            "https://example.invalid//a".to_string(),
        ];
        locate(&mut paths, &[], "", "");
        assert_eq!(paths, ["$DIR/./x", "b", "https://example.invalid//a"]);
        let mut paths = vec!["https://example.invalid/a".to_string()];
        locate(&mut paths, &[], "/proj", "");
        assert_eq!(paths, ["https://example.invalid/a"]);
    }

    #[test]
    fn the_effect_model_supplies_what_a_cd_reaches() {
        // `cd tests && echo x > ../src/lib.rs`: the spelling alone names the wrong file; the
        // effect model's resolved target names the right one.
        let effects = [Effect {
            act: Act::Write,
            place: Place::Source,
            target: "/proj/src/lib.rs".to_string(),
        }];
        let mut paths = vec!["../src/lib.rs".to_string()];
        locate(&mut paths, &effects, "/proj", "/home/u");
        assert_eq!(paths, ["src/lib.rs"]);
        // An effect on a file the line does not spell adds no path (`git commit` writes .git).
        let mut paths = vec!["README.md".to_string()];
        let git = Effect {
            act: Act::Write,
            place: Place::Vcs,
            target: "/proj/.git".to_string(),
        };
        locate(&mut paths, &[git], "/proj", "/home/u");
        assert_eq!(paths, ["README.md"]);
        let remote = Effect {
            act: Act::Write,
            place: Place::Remote,
            target: "host:/x".to_string(),
        };
        let mut paths = vec!["host:/x".to_string()];
        locate(&mut paths, &[remote], "/proj", "/home/u");
        assert_eq!(paths, ["host:/x"]);
    }

    #[test]
    fn normalising_never_climbs_above_the_root() {
        assert_eq!(normalise("/../../etc"), "/etc");
        assert_eq!(normalise("../../x"), "../../x");
        assert_eq!(normalise("a/.."), ".");
        assert_eq!(normalise("/"), "/");
    }
}
