//! Codex `apply_patch` texts: which files a patch adds, updates, deletes or moves, read as
//! Codex reads them (markers found on trimmed lines). The adapter uses it for the tool's
//! paths and the command model for `apply_patch` run from a shell (`apply_patch <<'EOF'`).

/// What a patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchOp {
    Add,
    Update,
    Delete,
    MoveTo,
}

/// One file a patch touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile {
    pub op: PatchOp,
    pub path: String,
}

/// The lines a patch adds (each `+` line, without its `+`), one per line, cut to
/// [`crate::event::MAX_WRITTEN_BYTES`]: the text it writes, whichever file each lands in.
pub fn added_lines(patch: &str) -> String {
    let mut out = String::new();
    for line in patch.lines().filter_map(|l| l.strip_prefix('+')) {
        if out.len() + line.len() >= crate::event::MAX_WRITTEN_BYTES {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every file an `apply_patch` text touches, in order, without duplicates.
pub fn patch_files(patch: &str) -> Vec<PatchFile> {
    let mut files: Vec<PatchFile> = Vec::new();
    for line in patch.lines() {
        // Codex trims each line before it looks for a marker: an indented one counts.
        let line = line.trim();
        let parsed = [
            ("*** Add File:", PatchOp::Add),
            ("*** Update File:", PatchOp::Update),
            ("*** Delete File:", PatchOp::Delete),
            ("*** Move to:", PatchOp::MoveTo),
        ]
        .into_iter()
        .find_map(|(marker, op)| line.strip_prefix(marker).map(|rest| (op, rest.trim())));
        if let Some((op, path)) = parsed {
            if !path.is_empty() && !files.iter().any(|f| f.path == path) {
                files.push(PatchFile {
                    op,
                    path: path.to_string(),
                });
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_patch_writes_the_lines_it_adds() {
        let patch = "*** Begin Patch\n*** Update File: a\n@@\n-old\n+new one\n context\n*** Add File: b\n+x\n*** End Patch\n";
        assert_eq!(super::added_lines(patch), "new one\nx\n");
    }
}
