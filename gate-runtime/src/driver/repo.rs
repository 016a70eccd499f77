//! The project a directory belongs to: the key a `scope = "repo"` machine is stored under, and
//! the root a spec's `paths` are relative to.
//!
//! The git top level is found the way git finds it, by walking up from the directory to the
//! first one holding a `.git` entry (a directory, or the file a worktree or submodule has),
//! without running git: a few `stat` calls on the hook's path. Outside git, the nearest
//! directory holding a project marker ([`PROJECT_MARKERS`]: `Cargo.toml`, `package.json`,
//! `pyproject.toml`, `go.mod`, …) is the project, so a session in `src/` of a project that is
//! not under git is still that project. A directory in neither is its own key. The last
//! answer is remembered per thread, since a session's events share their directory.

use std::cell::RefCell;
use std::path::Path;

thread_local! {
    static LAST: RefCell<(String, String)> = const { RefCell::new((String::new(), String::new())) };
}

/// Files or directories whose presence makes a directory a project's root when no git
/// repository holds it: build manifests of the languages gate's profiles know, and gate's
/// own project configuration.
pub const PROJECT_MARKERS: &[&str] = &[
    ".gate",
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "Pipfile",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "composer.json",
    "Gemfile",
    "mix.exs",
    "CMakeLists.txt",
    "meson.build",
    "configure.ac",
    "deno.json",
    ".hg",
    ".svn",
    ".jj",
];

/// The project root of `cwd` written into `out` (appended): [`repo_root`], else `cwd` itself.
pub fn push_repo_root(cwd: &str, out: &mut String) {
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if last.0 != cwd || cwd.is_empty() {
            let root = repo_root(cwd).unwrap_or(cwd).to_string();
            *last = (cwd.to_string(), root);
        }
        out.push_str(&last.1);
    })
}

/// The project `cwd` is in: the nearest ancestor of `cwd` (itself included) holding a `.git`
/// entry, else the nearest holding one of the [`PROJECT_MARKERS`]; `None` when there is none
/// or `cwd` is not an absolute path.
pub fn repo_root(cwd: &str) -> Option<&str> {
    let start = Path::new(cwd);
    if !start.is_absolute() {
        return None;
    }
    // One buffer for every probe: the walk makes no allocation per name.
    let mut probe = std::path::PathBuf::new();
    let mut has = |dir: &Path, name: &str| {
        probe.clear();
        probe.push(dir);
        probe.push(name);
        probe.symlink_metadata().is_ok()
    };
    let mut ancestors = start.ancestors();
    let git = ancestors.clone().find(|dir| has(dir, ".git"));
    git.or_else(|| {
        // A directory that does not exist is in no project but a repository; the file
        // system's root is nobody's project.
        start.symlink_metadata().ok()?;
        ancestors.find(|dir| dir.parent().is_some() && PROJECT_MARKERS.iter().any(|m| has(dir, m)))
    })
    .and_then(Path::to_str)
    .map(|root| root.trim_end_matches('/'))
    .map(|root| if root.is_empty() { "/" } else { root })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subdirectory_belongs_to_its_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("proj");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        let repo_s = repo.to_str().unwrap();
        let deep = repo.join("src/deep");
        assert_eq!(repo_root(deep.to_str().unwrap()), Some(repo_s));
        assert_eq!(repo_root(repo_s), Some(repo_s));
        let mut out = String::new();
        push_repo_root(deep.to_str().unwrap(), &mut out);
        assert_eq!(out, repo_s);
    }

    #[test]
    fn a_worktree_git_file_marks_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let wt = tmp.path().join("wt");
        std::fs::create_dir_all(wt.join("sub")).unwrap();
        std::fs::write(wt.join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(repo_root(wt.join("sub").to_str().unwrap()), wt.to_str());
    }

    #[test]
    fn outside_git_the_nearest_project_marker_is_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let proj = tmp.path().join("proj");
        std::fs::create_dir_all(proj.join("src/deep")).unwrap();
        std::fs::write(proj.join("Cargo.toml"), "[package]\n").unwrap();
        let deep = proj.join("src/deep");
        // Only meaningful when the temporary directory is in no repository itself.
        if repo_root(tmp.path().to_str().unwrap()).is_none() {
            assert_eq!(repo_root(deep.to_str().unwrap()), proj.to_str());
            // A nested project is its own.
            let inner = proj.join("tools/gen");
            std::fs::create_dir_all(&inner).unwrap();
            std::fs::write(inner.join("package.json"), "{}").unwrap();
            assert_eq!(repo_root(inner.to_str().unwrap()), inner.to_str());
        }
    }

    #[test]
    fn outside_a_repository_the_directory_is_its_own_key() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plain/sub");
        std::fs::create_dir_all(&dir).unwrap();
        // The temporary directory may itself sit inside a repository; only when it does not
        // is the answer the directory itself.
        let dir_s = dir.to_str().unwrap();
        let mut out = String::new();
        push_repo_root(dir_s, &mut out);
        match repo_root(dir_s) {
            None => assert_eq!(out, dir_s),
            Some(root) => assert!(dir_s.starts_with(root) && out == root),
        }
        assert_eq!(repo_root("relative/path"), None);
    }
}
