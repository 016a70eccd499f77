//! `gate test [PATH…]`: spec tests. A test file (`specs/tests/<name>.test.toml`, beside the spec)
//! holds cases, each a sequence of hook events with the answer expected of each; every case
//! runs through the hook's own path against a database of its own (`run.rs`), so a passing
//! case is what the hooks would answer. `--coverage` lists the rules, transitions and
//! templates no case exercised, of the spec and, apart, of each machine beside it.
//!
//! Which spec a file is run against: `--spec-file PATH` or `--spec NAME` when given; else the
//! spec it is named after (`specs/tests/guard.test.toml` → `specs/guard.toml`), run compiled when this binary has
//! that exact spec and interpreted otherwise (an edited spec needs no rebuild); else the
//! compiled spec the file's `spec` key or its name names.

pub mod file;
mod keys;
pub mod payload;
pub mod run;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use gate_spec::ir::Spec;
use serde_json::{json, Value};

use crate::cli::{Exit, GlobalArgs, TestArgs};
use crate::cmd::policy::Policy;
use crate::cmd::{compiled_spec, compiled_specs, out, out_json};
use crate::InputError;
use file::TestFile;
use run::{CaseResult, Coverage};

/// A test file and the policy it runs against.
#[derive(Debug)]
pub struct Planned {
    pub path: PathBuf,
    pub policy: Policy,
}

/// One file's results.
#[derive(Debug)]
pub struct FileReport {
    pub path: PathBuf,
    /// The policy's label (spec name, or the draft's path).
    pub spec: String,
    pub cases: Vec<CaseResult>,
    pub coverage: Coverage,
}

impl FileReport {
    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|c| c.failure.is_some()).count()
    }
}

/// The `spec = "…"` key of a test file, if it has one (read before the spec is known).
fn declared_spec(source: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Head {
        spec: Option<String>,
    }
    toml::from_str::<Head>(source).ok()?.spec
}

/// The policy a test file runs against when no flag names one.
pub fn policy_for(path: &Path) -> Result<Policy> {
    if let Some(beside) = file::spec_for(path) {
        let draft = Policy::draft(&beside)?;
        let spec = draft.spec();
        if let Some(c) = compiled_specs()
            .iter()
            .find(|c| c.name == &*spec.name && c.hash == &*spec.hash)
        {
            return Policy::compiled(c);
        }
        return Ok(draft);
    }
    let source = read(path)?;
    let name = match declared_spec(&source) {
        Some(name) => name,
        None => path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(file::SUFFIX))
            .ok_or_else(|| {
                InputError::new(format!(
                    "{}: no spec to run it against: name it <spec>{}, give it a `spec = \"NAME\"` \
                     key, or pass --spec NAME or --spec-file PATH",
                    path.display(),
                    file::SUFFIX
                ))
            })?
            .to_string(),
    };
    Policy::compiled(compiled_spec(&name)?)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| InputError::new(format!("cannot read {}: {e}", path.display())).into())
}

/// The test files a command line names, each with its policy.
pub fn plan(args: &TestArgs, spec_name: Option<&str>) -> Result<Vec<Planned>> {
    if spec_name.is_some() && args.spec_file.is_some() {
        return Err(
            InputError::new("give either --spec NAME or --spec-file PATH, not both").into(),
        );
    }
    let chosen = || -> Result<Option<Policy>> {
        Ok(match (&args.spec_file, spec_name) {
            (Some(path), _) => Some(Policy::draft(path)?),
            (None, Some(name)) => Some(Policy::compiled(compiled_spec(name)?)?),
            (None, None) => None,
        })
    };
    let mut files = Vec::new();
    for path in &args.paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| InputError::new(format!("cannot read {}: {e}", path.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && file::is_test_file(p))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(InputError::new(format!(
                    "{}: no spec test files (*{}) in it",
                    path.display(),
                    file::SUFFIX
                ))
                .into());
            }
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    let mut planned = Vec::new();
    if !files.is_empty() {
        for path in files {
            let policy = match chosen()? {
                Some(p) => p,
                None => policy_for(&path)?,
            };
            planned.push(Planned { path, policy });
        }
        return Ok(planned);
    }
    // No path: the tests beside the chosen spec, or beside every compiled spec.
    if let Some(policy) = chosen()? {
        let spec_path = match &policy {
            Policy::Draft { path, .. } => path.clone(),
            Policy::Compiled(c) => PathBuf::from(c.path),
        };
        let tests = file::tests_for(&spec_path)
            .filter(|p| p.is_file())
            .ok_or_else(|| {
                InputError::new(format!(
                    "no tests for {}: expected them in {} (or name test files on the command line)",
                    policy.label(),
                    file::tests_for(&spec_path).unwrap_or_default().display()
                ))
            })?;
        planned.push(Planned {
            path: tests,
            policy,
        });
        return Ok(planned);
    }
    for c in compiled_specs() {
        if let Some(tests) = file::tests_for(Path::new(c.path)).filter(|p| p.is_file()) {
            planned.push(Planned {
                path: tests,
                policy: Policy::compiled(c)?,
            });
        }
    }
    if planned.is_empty() {
        return Err(InputError::new(
            "no spec tests found beside the compiled specs (specs/tests/<name>.test.toml, from the \
             directory the specs were built in); name test files or a directory",
        )
        .into());
    }
    Ok(planned)
}

/// Read and check one test file against its policy's spec; its problems, rendered with
/// `file:line:col`, are an input error.
/// A compiled spec's machines beside it are found among the compiled specs by name.
pub fn load(path: &Path, spec: &Spec) -> Result<TestFile> {
    let source = read(path)?;
    let beside: Vec<&Spec> = crate::cmd::compiled_specs()
        .iter()
        .find(|c| *c.name == *spec.name && c.ir().hash == spec.hash)
        .map(|c| {
            crate::cmd::policy::compiled_alongside(c)
                .0
                .iter()
                .map(|b| b.ir())
                .collect()
        })
        .unwrap_or_default();
    file::parse_beside(&source, spec, &beside).map_err(|problems| {
        InputError::new(file::render(
            &path.display().to_string(),
            &source,
            &problems,
        ))
        .into()
    })
}

/// Run every case of a checked file.
pub fn run_file(planned: &Planned, tests: &TestFile) -> Result<FileReport> {
    let spec = planned.policy.spec();
    let mut coverage = Coverage::new(spec, &planned.policy.beside());
    let mut cases = Vec::new();
    let mut slot = None;
    let engine = planned.policy.engine(&mut slot);
    for case in &tests.cases {
        cases.push(run::run_case(&engine, case, &mut coverage)?);
    }
    Ok(FileReport {
        path: planned.path.clone(),
        spec: planned.policy.label(),
        cases,
        coverage,
    })
}

/// A failed case, in words: the step, its event, what was expected and what was answered.
pub fn render_failure(path: &Path, case: &CaseResult) -> String {
    let Some(f) = &case.failure else {
        return String::new();
    };
    let shown = path.display();
    let mut text = format!(
        "FAIL {} ({shown}:{})\n  step {} ({shown}:{}): {}\n",
        case.name, case.line, f.step, f.line, f.event
    );
    if let Some(message) = &f.message {
        text.push_str(&format!("    {message}\n"));
    }
    if let Some(actual) = &f.actual {
        text.push_str(&format!("    expected: {}\n", f.expected));
        text.push_str(&format!("    actual:   {}\n", actual.describe()));
        if !actual.text.is_empty() {
            text.push_str(&format!(
                "    text:     {}\n",
                actual.text.replace('\n', " ")
            ));
        }
    }
    text
}

/// Where a spec's source can be read, for locations in coverage reports: its file and the
/// files it extends, when they still compile to the spec under test.
fn spec_source(policy: &Policy) -> Option<gate_spec::compose::Sources> {
    let path = match policy {
        Policy::Draft { path, .. } => path.clone(),
        Policy::Compiled(c) => PathBuf::from(c.path),
    };
    source_of(&path, policy.spec())
}

/// Where the source of `beside`, a machine beside the policy's own, can be read: its file
/// beside the draft, or the compiled spec's.
fn beside_source(policy: &Policy, beside: &Spec) -> Option<gate_spec::compose::Sources> {
    let path = match policy {
        Policy::Draft { path, .. } => path
            .parent()
            .unwrap_or_else(|| Path::new(""))
            .join(format!("{}.toml", beside.name)),
        Policy::Compiled(_) => PathBuf::from(compiled_spec(&beside.name).ok()?.path),
    };
    source_of(&path, beside)
}

/// The sources of the spec file at `path`, when it still compiles to `spec`.
fn source_of(path: &Path, spec: &Spec) -> Option<gate_spec::compose::Sources> {
    let shown = |p: &std::path::Path| p.display().to_string();
    let compiled = gate_spec::compile_file(path, &shown).ok()?;
    (compiled.spec?.hash == spec.hash).then_some(compiled.sources)
}

/// One machine's coverage as JSON: counts, and every item no case exercised.
fn coverage_json(
    label: &str,
    spec: &Spec,
    c: &Coverage,
    source: Option<&gate_spec::compose::Sources>,
) -> Value {
    let missed: Vec<Value> = missed(spec, c, source)
        .into_iter()
        .map(|(what, name, at)| {
            let inherited = inherited(&at, source);
            let (file, line) = at.unzip();
            json!({"what": what, "name": name, "file": file, "line": line, "inherited": inherited})
        })
        .collect();
    json!({
        "spec": label,
        "rules": [c.rules.iter().filter(|x| **x).count(), c.rules.len()],
        "transitions": [c.transitions.iter().filter(|x| **x).count(), c.transitions.len()],
        "templates": [c.templates.iter().filter(|x| **x).count(), c.templates.len()],
        "missed": missed,
    })
}

/// One machine's coverage in words under `title`: counts, the author's own missed items one
/// by one, and those inherited from the specs it extends counted per file (`--json` lists
/// them, marked `inherited`).
fn coverage_text(
    title: &str,
    spec: &Spec,
    c: &Coverage,
    source: Option<&gate_spec::compose::Sources>,
) -> String {
    let count = |v: &[bool]| format!("{}/{}", v.iter().filter(|x| **x).count(), v.len());
    let mut text = format!(
        "{title}: rules {}, transitions {}, templates {}\n",
        count(&c.rules),
        count(&c.transitions),
        count(&c.templates)
    );
    let mut from_bases: BTreeMap<String, usize> = BTreeMap::new();
    for (what, name, at) in missed(spec, c, source) {
        if inherited(&at, source) {
            if let Some((file, _)) = at {
                *from_bases.entry(file).or_default() += 1;
            }
            continue;
        }
        let at = at
            .map(|(file, line)| format!(" ({file}:{line})"))
            .unwrap_or_default();
        text.push_str(&format!("  no case exercises {what} {name}{at}\n"));
    }
    for (file, n) in &from_bases {
        text.push_str(&format!(
            "  inherited from {file}: {n} item(s) no case exercises (--json lists them)\n"
        ));
    }
    text
}

/// Where an item is declared: its file (the spec's own or one it extends) and line.
pub type Declared = Option<(String, usize)>;

/// Whether an item was declared in a file the spec extends rather than in its own (an item
/// whose source cannot be read counts as the spec's own).
pub fn inherited(at: &Declared, sources: Option<&gate_spec::compose::Sources>) -> bool {
    match (at, sources.and_then(|s| s.files.first())) {
        (Some((file, _)), Some(own)) => *file != own.display,
        _ => false,
    }
}

/// What a spec's tests left unexercised: (what, name, where) triples.
pub fn missed(
    spec: &Spec,
    coverage: &Coverage,
    sources: Option<&gate_spec::compose::Sources>,
) -> Vec<(&'static str, String, Declared)> {
    use gate_spec::diag::SourceMap;
    let line = |start: u32| {
        sources.map(|s| {
            let (file, text, local) =
                s.locate(gate_spec::ir::Span::new(start as usize..start as usize));
            (
                file.to_string(),
                gate_spec::diag::line_col(text, local.start as usize).0,
            )
        })
    };
    let mut out = Vec::new();
    for (i, r) in spec.rules.iter().enumerate() {
        if !coverage.rules[i] {
            out.push(("rule", r.name.to_string(), line(r.span.start)));
        }
    }
    for (i, t) in spec.transitions.iter().enumerate() {
        if !coverage.transitions[i] {
            out.push((
                "transition",
                format!(
                    "#{i} {} --{}--> {}",
                    spec.state_name(t.from),
                    spec.trigger_text(t.trigger),
                    spec.state_name(t.to)
                ),
                line(t.span.start),
            ));
        }
    }
    for (i, t) in spec.templates.iter().enumerate() {
        if !coverage.templates[i] {
            out.push(("template", t.name.to_string(), line(t.span.start)));
        }
    }
    out
}

/// `gate test [PATH…] [--spec NAME | --spec-file PATH] [--coverage]`.
pub fn run(args: &TestArgs, global: &GlobalArgs) -> Result<i32> {
    if global.role.is_some() {
        return Err(InputError::new(
            "gate test takes roles from the cases (`role`, `agent`, `env` in the test file), \
             not from --role",
        )
        .into());
    }
    let planned = plan(args, global.spec.as_deref())?;
    // Every file is checked before any case runs, and every problem of every file is shown.
    let mut loaded = Vec::new();
    let mut bad = Vec::new();
    for p in &planned {
        let source = read(&p.path)?;
        match file::parse_beside(&source, p.policy.spec(), &p.policy.beside()) {
            Ok(t) => loaded.push(t),
            Err(problems) => bad.push((p.path.display().to_string(), source, problems)),
        }
    }
    if !bad.is_empty() {
        if global.json {
            let list: Vec<Value> = bad
                .iter()
                .flat_map(|(shown, source, problems)| {
                    problems.iter().map(move |pr| {
                        let (line, col) = gate_spec::diag::line_col(source, pr.span.start);
                        json!({"file": shown, "line": line, "col": col, "message": pr.message})
                    })
                })
                .collect();
            out_json(&json!({"errors": list}))?;
        } else {
            let mut text = String::new();
            for (shown, source, problems) in &bad {
                text.push_str(&file::render(shown, source, problems));
            }
            eprint!("{text}");
        }
        return Ok(Exit::Usage.code());
    }
    let mut reports = Vec::new();
    for (p, tests) in planned.iter().zip(&loaded) {
        reports.push(run_file(p, tests)?);
    }
    // Coverage per spec, merged over the files that test it.
    let mut coverage: BTreeMap<String, (usize, Coverage)> = BTreeMap::new();
    for (i, r) in reports.iter().enumerate() {
        coverage
            .entry(r.spec.clone())
            .and_modify(|(_, c)| c.merge(&r.coverage))
            .or_insert((i, r.coverage.clone()));
    }
    let passed: usize = reports.iter().map(|r| r.cases.len() - r.failed()).sum();
    let failed: usize = reports.iter().map(FileReport::failed).sum();

    if global.json {
        let files: Vec<Value> = reports
            .iter()
            .map(|r| {
                json!({
                    "file": r.path,
                    "spec": r.spec,
                    "cases": r.cases.iter().map(|c| json!({
                        "name": c.name,
                        "line": c.line,
                        "passed": c.failure.is_none(),
                        "failure": c.failure.as_ref().map(|f| json!({
                            "step": f.step,
                            "line": f.line,
                            "event": f.event,
                            "expected": f.expected,
                            "actual": f.actual.as_ref().map(run::Actual::json),
                            "message": f.message,
                        })),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut report = json!({"files": files, "passed": passed, "failed": failed});
        if args.coverage {
            let list: Vec<Value> = coverage
                .iter()
                .map(|(label, (i, c))| {
                    let policy = &planned[*i].policy;
                    let source = spec_source(policy);
                    let mut entry = coverage_json(label, policy.spec(), c, source.as_ref());
                    // The machines beside it, each apart.
                    entry["beside"] = policy
                        .beside()
                        .iter()
                        .zip(&c.beside)
                        .map(|(b, bc)| {
                            coverage_json(&b.name, b, bc, beside_source(policy, b).as_ref())
                        })
                        .collect();
                    entry
                })
                .collect();
            report["coverage"] = json!(list);
        }
        out_json(&report)?;
    } else {
        let mut text = String::new();
        for r in &reports {
            text.push_str(&format!(
                "{} (spec {}): {} case(s), {} failed\n",
                r.path.display(),
                r.spec,
                r.cases.len(),
                r.failed()
            ));
            for c in &r.cases {
                if c.failure.is_some() {
                    text.push_str(&render_failure(&r.path, c));
                } else {
                    text.push_str(&format!("ok   {}\n", c.name));
                }
            }
        }
        if args.coverage {
            for (label, (i, c)) in &coverage {
                let policy = &planned[*i].policy;
                let source = spec_source(policy);
                text.push_str(&coverage_text(
                    &format!("coverage of {label}"),
                    policy.spec(),
                    c,
                    source.as_ref(),
                ));
                // Each machine beside it, apart: its items are its own, not the spec's.
                for (b, bc) in policy.beside().iter().zip(&c.beside) {
                    text.push_str(&coverage_text(
                        &format!("coverage of {label}, machine beside `{}`", b.name),
                        b,
                        bc,
                        beside_source(policy, b).as_ref(),
                    ));
                }
            }
        }
        text.push_str(&format!(
            "{passed} passed, {failed} failed ({} file(s))\n",
            reports.len()
        ));
        out(&text)?;
    }
    Ok(if failed > 0 {
        Exit::Findings.code()
    } else {
        Exit::Ok.code()
    })
}
