//! A draft policy answering hook calls (`gate hook --spec-file`, installed by `gate init
//! --spec-file`): the spec file is read, composed and checked on every call and interpreted
//! (no rebuild), every machine of it is named `draft:<path>#<hash>` (so each audit row and
//! each stored state says it came from the draft, never from the installed spec), every
//! message the agent sees carries [`marker`], and the files it was read from count among
//! gate's own locations (the agent cannot edit the policy that judges it). A draft that
//! cannot be used is the caller's fault to record; the compiled spec answers instead.

use std::path::{Path, PathBuf};

use gate_runtime::verdict::{Decision, Verdict};

use crate::cmd::policy::Policy;

/// How many hex digits of a draft's content hash its name carries.
const HASH_DIGITS: usize = 12;

/// A draft loaded for one hook call.
#[derive(Debug)]
pub struct Draft {
    /// The draft and the drafts beside it, renamed `draft:<path>#<hash>`.
    pub policy: Policy,
    /// The prefix every message the agent sees under this draft starts with.
    pub marker: String,
    /// Every file the policy was read from, absolute: protected like gate's configuration.
    pub files: Vec<String>,
    /// (name in the file, name given here) of each machine, for settings that name specs
    /// (`outlive_sessions`).
    names: Vec<(String, String)>,
}

/// The name a draft's machine answers under: `draft:<path>#<first hex digits of its hash>`.
pub fn draft_name(path: &Path, hash: &str) -> String {
    format!(
        "draft:{}#{}",
        path.display(),
        &hash[..hash.len().min(HASH_DIGITS)]
    )
}

/// The prefix of every message under the draft at `path`: short, and naming the file.
pub fn marker(path: &Path) -> String {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into(),
    );
    format!("[gate draft policy {file}, not the installed one] ")
}

/// Load, compose and check the draft at `path` (made absolute against the working directory),
/// or say in one line why it cannot answer.
pub fn load(path: &Path) -> Result<Draft, String> {
    let path = std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut policy = Policy::draft(&path).map_err(|e| why(&e))?;
    let mut names = Vec::new();
    let Policy::Draft {
        spec,
        beside,
        files,
        ..
    } = &mut policy
    else {
        unreachable!("Policy::draft loads a draft")
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let own = draft_name(&path, &spec.hash);
    names.push((spec.name.to_string(), own.clone()));
    spec.name = own.into();
    for other in beside.iter_mut() {
        let file: PathBuf = dir.join(format!("{}.toml", other.name));
        let name = draft_name(&file, &other.hash);
        names.push((other.name.to_string(), name.clone()));
        other.name = name.into();
    }
    let files = files
        .iter()
        .filter_map(|f| std::path::absolute(f).ok())
        .map(|f| f.display().to_string())
        .collect();
    Ok(Draft {
        marker: marker(&path),
        policy,
        files,
        names,
    })
}

/// An error of [`Policy::draft`] as one line: its message, and the first diagnostic.
fn why(error: &anyhow::Error) -> String {
    let mut line = format!("{error:#}").replace('\n', " ");
    let first = error
        .chain()
        .find_map(|e| e.downcast_ref::<crate::InputError>())
        .and_then(crate::InputError::block)
        .and_then(|b| b.lines().find(|l| !l.trim().is_empty()));
    if let Some(first) = first {
        line.push_str(": ");
        line.push_str(first.trim());
    }
    line
}

impl Draft {
    /// `names` (specs as the settings name them) as this draft's machines are named.
    pub fn renamed(&self, names: &[String]) -> Vec<String> {
        names
            .iter()
            .map(|n| {
                self.names
                    .iter()
                    .find(|(was, _)| was == n)
                    .map_or_else(|| n.clone(), |(_, now)| now.clone())
            })
            .collect()
    }

    /// Mark every text of `decision` the agent sees as the draft's.
    pub fn mark(&self, decision: &mut Decision) {
        match &mut decision.verdict {
            Verdict::Allow => {}
            Verdict::Steer { text } => text.insert_str(0, &self.marker),
            Verdict::Ask { reason, .. } | Verdict::Deny { reason } => {
                reason.insert_str(0, &self.marker)
            }
        }
        if let Some(carried) = &mut decision.carried {
            carried.insert_str(0, &self.marker);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    const DRAFT: &str = r#"
[machine]
name = "mine"
initial = "idle"
kinds = ["k"]

[[tier]]
name = "low"
mode = "gate"
max_actions = 10

[[state]]
name = "idle"
"#;

    #[test]
    fn a_draft_is_named_by_its_path_and_hash_and_its_files_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "mine.toml", DRAFT);
        let draft = load(&path).unwrap();
        let spec = draft.policy.spec();
        assert!(
            spec.name.starts_with(&format!("draft:{}#", path.display())),
            "{}",
            spec.name
        );
        assert_eq!(
            spec.name.len(),
            format!("draft:{}#", path.display()).len() + 12
        );
        assert_eq!(draft.files, vec![path.display().to_string()]);
        assert_eq!(
            draft.renamed(&["mine".into(), "other".into()]),
            vec![spec.name.to_string(), "other".to_string()]
        );
        assert!(draft.marker.contains("mine.toml"), "{}", draft.marker);
    }

    #[test]
    fn a_broken_draft_says_why_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "broken.toml",
            "[machine]\nname = \"x\"\ninitial = \"nowhere\"\n",
        );
        let why = load(&path).unwrap_err();
        assert!(why.contains("broken.toml"), "{why}");
        assert!(!why.contains('\n'), "{why}");
        let missing = load(&dir.path().join("absent.toml")).unwrap_err();
        assert!(missing.contains("absent.toml"), "{missing}");
    }

    #[test]
    fn every_text_the_agent_sees_is_marked() {
        let dir = tempfile::tempdir().unwrap();
        let draft = load(&write(dir.path(), "mine.toml", DRAFT)).unwrap();
        let mut d = Decision {
            verdict: Verdict::Ask {
                reason: "why".into(),
                grant_id: "g".into(),
            },
            carried: Some("before".into()),
        };
        draft.mark(&mut d);
        let Verdict::Ask { reason, grant_id } = &d.verdict else {
            panic!()
        };
        assert_eq!(reason, &format!("{}why", draft.marker));
        assert_eq!(grant_id, "g");
        assert_eq!(
            d.carried.as_deref(),
            Some(format!("{}before", draft.marker).as_str())
        );
        let mut allow = Decision::allow();
        draft.mark(&mut allow);
        assert_eq!(allow, Decision::allow());
    }
}
