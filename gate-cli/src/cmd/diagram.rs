//! `gate diagram`: a spec's machine as Mermaid, DOT or the Markdown page, and the pages kept
//! in `docs/machines/`: `--check` compares them with the specs, `--write` brings them up to
//! date (so a new spec's page is made by the command that checks it).

use crate::cli::{DiagramArgs, DiagramFormat, DiagramView, Exit, GlobalArgs};
use crate::cmd::policy::Policy;
use crate::cmd::{compiled_spec, compiled_specs, out, out_json};
use anyhow::{Context, Result};
use gate_spec::diagram::View;
use gate_spec::ir::Spec;
use serde_json::json;
use std::path::{Path, PathBuf};

fn render(spec: &Spec, format: DiagramFormat, view: View) -> String {
    match format {
        DiagramFormat::Mermaid => gate_spec::diagram::mermaid_view(spec, view),
        DiagramFormat::Dot => gate_spec::diagram::dot_view(spec, view),
        DiagramFormat::Markdown => gate_spec::diagram::markdown(spec),
    }
}

/// `gate diagram [SPEC | --spec NAME | --spec-file PATH] [--format F] [--view V | --detail]
/// [--check | --write]`.
pub fn run(args: &DiagramArgs, global: &GlobalArgs) -> Result<i32> {
    let name = args.name.as_deref().or(global.spec.as_deref());
    if args.check || args.write {
        return pages(args, name, global.json);
    }
    let policy = Policy::load(name, args.spec_file.as_deref())?;
    let view = match (args.detail, args.view) {
        (true, _) | (false, DiagramView::Detail) => View::Detail,
        (false, DiagramView::States) => View::States,
        (false, DiagramView::Overview) => View::Overview,
    };
    let text = render(policy.spec(), args.format, view);
    if global.json {
        out_json(&json!({
            "format": format!("{:?}", args.format).to_lowercase(),
            "view": format!("{view:?}").to_lowercase(),
            "diagram": text,
        }))?;
    } else {
        out(&text)?;
    }
    Ok(Exit::Ok.code())
}

/// What a page is, compared with its spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Current,
    Stale,
    Missing,
    /// A page with no spec.
    Orphaned,
    /// Written by `--write` (it was stale or missing).
    Written,
    /// Removed by `--write` (it was orphaned).
    Removed,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Current => "current",
            Status::Stale => "stale",
            Status::Missing => "missing",
            Status::Orphaned => "orphaned",
            Status::Written => "written",
            Status::Removed => "removed",
        }
    }
}

/// `--check` and `--write`: the page of each spec (the draft, the one named, or every
/// compiled spec; then also the pages no compiled spec has).
fn pages(args: &DiagramArgs, name: Option<&str>, json_out: bool) -> Result<i32> {
    let draft;
    let specs: Vec<&Spec> = match (&args.spec_file, name) {
        (Some(path), None) => {
            draft = Policy::draft(path)?;
            vec![draft.spec()]
        }
        (file, Some(name)) => {
            // Both at once is refused by the loader.
            Policy::load(Some(name), file.as_deref())?;
            vec![compiled_spec(name)?.ir()]
        }
        (None, None) => compiled_specs().iter().map(|c| c.ir()).collect(),
    };
    let every_spec = args.spec_file.is_none() && name.is_none();
    let mut results: Vec<(Option<String>, PathBuf, Status)> = Vec::new();
    for spec in specs {
        let path = args.docs.join(format!("{}.md", spec.name));
        let page = gate_spec::diagram::markdown(spec);
        let status = match std::fs::read_to_string(&path) {
            Ok(actual) if actual == page => Status::Current,
            Ok(_) => Status::Stale,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Status::Missing,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let status = if args.write && status != Status::Current {
            std::fs::create_dir_all(&args.docs)
                .with_context(|| format!("cannot create {}", args.docs.display()))?;
            std::fs::write(&path, page)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Status::Written
        } else {
            status
        };
        results.push((Some(spec.name.to_string()), path, status));
    }
    if every_spec {
        for path in orphaned_pages(&args.docs, &results)? {
            let status = if args.write {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
                Status::Removed
            } else {
                Status::Orphaned
            };
            results.push((None, path, status));
        }
    }
    let failing = results
        .iter()
        .filter(|(_, _, s)| matches!(s, Status::Stale | Status::Missing | Status::Orphaned))
        .count();
    if json_out {
        let list: Vec<_> = results
            .iter()
            .map(|(n, p, s)| json!({"spec": n, "page": p, "status": s.as_str()}))
            .collect();
        out_json(&json!(list))?;
    } else {
        let mut text = String::new();
        for (name, path, status) in &results {
            let spec = name.as_deref().unwrap_or("no spec");
            text.push_str(&format!(
                "{}: {} ({spec})\n",
                path.display(),
                status.as_str()
            ));
        }
        if failing > 0 {
            text.push_str(&format!(
                "{failing} page(s) out of date; to fix: {}\n",
                write_command(args, name)
            ));
        }
        out(&text)?;
    }
    Ok(if failing > 0 {
        Exit::Findings.code()
    } else {
        Exit::Ok.code()
    })
}

/// The `gate diagram --write` that fixes what `--check` found, with the same selection.
fn write_command(args: &DiagramArgs, name: Option<&str>) -> String {
    let mut command = String::from("gate diagram --write");
    if let Some(path) = &args.spec_file {
        command.push_str(&format!(" --spec-file {}", path.display()));
    } else if let Some(name) = name {
        command.push_str(&format!(" {name}"));
    }
    if args.docs != Path::new(crate::cli::DIAGRAM_DOCS) {
        command.push_str(&format!(" --docs {}", args.docs.display()));
    }
    command
}

/// The `.md` files in `docs` that are no listed spec's page, sorted (none if `docs` does not
/// exist).
fn orphaned_pages(
    docs: &Path,
    listed: &[(Option<String>, PathBuf, Status)],
) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(docs) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", docs.display())),
    };
    let mut orphaned = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("cannot read {}", docs.display()))?
            .path();
        if path.extension().is_some_and(|e| e == "md") && !listed.iter().any(|(_, p, _)| *p == path)
        {
            orphaned.push(path);
        }
    }
    orphaned.sort();
    Ok(orphaned)
}
