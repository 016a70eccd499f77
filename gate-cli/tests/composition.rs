//! A team's spec that extends the shipped `default`, as its author meets it through the
//! binary: a misspelled re-tiering fails `gate check` with the rule it meant, a lowering must
//! say `relax = true`, diagnostics land in the author's file, and `gate diff` lists each
//! relaxation first.

mod common;

use common::gate_in_repo as gate;
use common::repo_root;
use std::path::{Path, PathBuf};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A directory with the shipped specs and the team's spec `team.toml` beside them.
fn team(dir: &Path, body: &str) -> PathBuf {
    for entry in std::fs::read_dir(repo_root().join("specs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let path = dir.join("team.toml");
    let head = "[machine]\nname = \"team\"\nextends = \"default\"\n\n";
    std::fs::write(&path, format!("{head}{body}")).unwrap();
    path
}

#[test]
fn a_misspelled_retiering_fails_check_with_the_rule_meant() {
    let dir = tempfile::tempdir().unwrap();
    let path = team(
        dir.path(),
        "[[rule]]\nname = \"outward_change\"\ntier = \"destructive\"\n",
    );
    let out = gate(&["check", path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_ne!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("team.toml:6:8: error[G024]"), "{stdout}");
    assert!(
        stdout.contains("did you mean `outward_changes`?"),
        "{stdout}"
    );
    // The exact name re-tiers the inherited rule and is accepted.
    let path = team(
        dir.path(),
        "[[rule]]\nname = \"outward_changes\"\ntier = \"destructive\"\n",
    );
    let out = gate(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn a_lowering_must_say_relax_and_is_reported_in_the_authors_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = team(
        dir.path(),
        "[[tier]]\nname = \"destructive\"\nmode = \"steer\"\n",
    );
    let out = gate(&["check", path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_ne!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("team.toml:7:8: error[G025]"), "{stdout}");
    // Said on purpose, it passes G025; the role `worker` (in jwc) still keeps `elevated` at
    // gate, so its modes now weaken: reported at the tier the author changed.
    let path = team(
        dir.path(),
        "[[tier]]\nname = \"destructive\"\nmode = \"steer\"\nrelax = true\n",
    );
    let out = gate(&["check", path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("G025"), "{stdout}");
    assert!(
        stdout.contains("team.toml:6:8: error[G012]: for role `worker`"),
        "{stdout}"
    );
    // A relaxation that keeps every order: accepted.
    let path = team(
        dir.path(),
        "[[tier]]\nname = \"routine\"\nmode = \"observe\"\nrelax = true\n",
    );
    let out = gate(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A mode that breaks the risk order is reported at the author's lines, not jwc's.
    let path = team(
        dir.path(),
        "[[tier]]\nname = \"high\"\nmode = \"steer\"\nrelax = true\n\n[[tier]]\nname = \"elevated\"\nmode = \"gate\"\n",
    );
    let out = gate(&["check", path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_ne!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("team.toml:6:8: error[G012]"), "{stdout}");
    assert!(!stdout.contains("jwc.toml"), "{stdout}");
}

#[test]
fn diff_lists_relaxations_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = team(
        dir.path(),
        "[[rule]]\nname = \"outward_changes\"\ntier = \"routine\"\nrelax = true\n",
    );
    let default = dir.path().join("default.toml");
    let (old, new) = (default.to_str().unwrap(), path.to_str().unwrap());
    let out = gate(&["diff", old, new]);
    let stdout = text(&out.stdout);
    let second = stdout.lines().nth(1).unwrap_or("");
    assert!(
        second.starts_with("RELAXED: rule outward_changes: tier high -> routine"),
        "{stdout}"
    );
    let out = gate(&["diff", old, new, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["relaxations"][0]["item"], "outward_changes", "{json}");
    assert_eq!(json["relaxations"][0]["before"], "high", "{json}");
    assert_eq!(json["relaxations"][0]["after"], "routine", "{json}");
    // Nothing lowered: no relaxation.
    let out = gate(&["diff", old, old, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["relaxations"], serde_json::json!([]), "{json}");
}

#[test]
fn an_unknown_spec_name_suggests_the_one_meant() {
    let out = gate(&["verify", "--spec", "defualt"]);
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("did you mean `default`?"), "{stderr}");
}

#[test]
fn diff_shows_actions_that_change_tier_or_rule() {
    let dir = tempfile::tempdir().unwrap();
    let path = team(
        dir.path(),
        "[[rule]]\nname = \"listings\"\ncommands = [\"ls\"]\ntier = \"high\"\n",
    );
    let default = dir.path().join("default.toml");
    let (old, new) = (default.to_str().unwrap(), path.to_str().unwrap());
    let out = gate(&["diff", old, new]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("  Bash ls: tier routine (no rule) -> tier high (rule listings)\n"),
        "{stdout}"
    );
    let out = gate(&["diff", old, new, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let moved = json["classification"]["moved"].as_array().unwrap();
    assert!(moved.iter().any(|m| m["target"] == "ls"), "{json}");
    // The same spec moves nothing.
    let out = gate(&["diff", old, old, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["classification"]["moved"],
        serde_json::json!([]),
        "{json}"
    );
    assert!(
        json["classification"]["actions"].as_u64().unwrap() > 20,
        "{json}"
    );
}
