//! The project profiles (languages) of a spec's `[[profile]]`s that apply to an event: the
//! ones an override names (`GATE_PROFILE`, `profile` in `.gate/config.toml`), else the ones
//! whose `detect` files are present at the repository root (the git top level of the event's
//! cwd, else the cwd). A few `stat` calls, made only for a spec that declares profiles.

use gate_spec::ir::Spec;
use std::path::Path;

/// The spec of a composition whose profiles an event carries: the first machine (the spec's
/// own, then those beside it) that declares any. Profiles are one bit set per event, so one
/// machine of a composition may declare them (`waypoints`: `default` beside the phase
/// machine, which does).
pub fn owner<'s>(engine: &gate_runtime::engine::Engine<'s>) -> &'s Spec {
    std::iter::once(engine)
        .chain(&engine.alongside)
        .map(|e| e.spec)
        .find(|s| !s.profiles.is_empty())
        .unwrap_or(engine.spec)
}

/// The spec's profiles that apply, as the bit set an event carries (`Event::profiles`).
/// `named` is the override, a comma-separated list of profile names; a name the spec does
/// not declare selects nothing.
pub fn active(spec: &Spec, cwd: Option<&str>, named: Option<&str>) -> u64 {
    if spec.profiles.is_empty() {
        return 0;
    }
    let bit = |i: usize| 1u64.checked_shl(i as u32).unwrap_or(0);
    if let Some(names) = named {
        return names
            .split(',')
            .map(str::trim)
            .filter_map(|n| spec.profiles.iter().position(|p| *p.name == *n))
            .fold(0, |set, i| set | bit(i));
    }
    let Some(cwd) = cwd else {
        return 0;
    };
    let root = Path::new(gate_runtime::driver::repo_root(cwd).unwrap_or(cwd));
    spec.profiles
        .iter()
        .enumerate()
        .filter(|(_, p)| p.detect.iter().any(|file| root.join(&**file).exists()))
        .fold(0, |set, (i, _)| set | bit(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waypoints() -> &'static Spec {
        gate_specs::ALL
            .iter()
            .find(|c| c.name == "waypoints_phases")
            .expect("waypoints_phases is shipped")
            .ir()
    }

    fn names(spec: &Spec, set: u64) -> Vec<&str> {
        (0..spec.profiles.len())
            .filter(|i| set & (1 << i) != 0)
            .map(|i| &*spec.profiles[i].name)
            .collect()
    }

    #[test]
    fn detected_from_the_repository_root_and_overridden_by_name() {
        let spec = waypoints();
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("proj");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("web/src")).unwrap();
        std::fs::write(repo.join("Cargo.toml"), "").unwrap();
        std::fs::write(repo.join("package.json"), "{}").unwrap();
        let deep = repo.join("web/src");
        let deep = deep.to_str();
        assert_eq!(names(spec, active(spec, deep, None)), ["rust", "node"]);
        assert_eq!(names(spec, active(spec, deep, Some("python"))), ["python"]);
        assert_eq!(
            names(spec, active(spec, deep, Some("go, php"))),
            ["go", "php"]
        );
        assert_eq!(active(spec, deep, Some("cobol")), 0);
        assert_eq!(active(spec, None, None), 0);
        // Nothing to detect: no profile.
        let bare = dir.path().join("bare");
        std::fs::create_dir_all(bare.join(".git")).unwrap();
        assert_eq!(active(spec, bare.to_str(), None), 0);
    }
}
