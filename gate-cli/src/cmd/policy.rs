//! The policy a command runs: a compiled spec named with `--spec`, or a draft read with
//! `--spec-file` and interpreted (no rebuild needed). Every command that accepts a draft loads
//! it here, so they all take the same flags and report a broken draft the same way.

use std::path::{Path, PathBuf};

use anyhow::Result;
use gate_runtime::engine::Engine;
use gate_runtime::interp::Interpreter;
use gate_spec::exec::CompiledSpec;
use gate_spec::ir::Spec;

use crate::cmd::compiled_spec;
use crate::config::{Config, Overrides};
use crate::InputError;

/// A loaded policy.
#[derive(Debug)]
pub enum Policy {
    /// A spec compiled into this binary.
    Compiled(&'static CompiledSpec),
    /// A spec file, checked and interpreted, with the spec files beside it that its
    /// `[machine] alongside` names (transitively, each once, in the order they are found).
    Draft {
        path: PathBuf,
        spec: Box<Spec>,
        beside: Vec<Spec>,
        /// Every file the policy was read from: the draft, the specs it extends, the specs
        /// beside it and theirs, each once.
        files: Vec<PathBuf>,
    },
}

/// The interpreters of a draft and of the drafts beside it, kept for [`Policy::engine`].
pub struct Interpreters<'a> {
    own: Interpreter<'a>,
    beside: Vec<Interpreter<'a>>,
}

/// The compiled specs whose machines run beside `spec` (`[machine] alongside`, followed
/// transitively, each once, never `spec` itself), and the names no compiled spec has.
pub fn compiled_alongside(spec: &CompiledSpec) -> (Vec<&'static CompiledSpec>, Vec<String>) {
    let mut found: Vec<&'static CompiledSpec> = Vec::new();
    let mut missing = Vec::new();
    let mut queue: Vec<String> = spec.ir().alongside.iter().map(|n| n.to_string()).collect();
    let mut next = 0;
    while next < queue.len() {
        let name = queue[next].clone();
        next += 1;
        if name == spec.name || found.iter().any(|f| f.name == name) || missing.contains(&name) {
            continue;
        }
        match crate::cmd::compiled_specs().iter().find(|c| c.name == name) {
            Some(c) => {
                queue.extend(c.ir().alongside.iter().map(|n| n.to_string()));
                found.push(c);
            }
            None => missing.push(name),
        }
    }
    (found, missing)
}

impl Policy {
    /// `--spec-file PATH` when given, else the compiled spec `--spec NAME`, else the configured
    /// spec (`GATE_SPEC`, the config files, `default`). A draft with errors is an input error
    /// carrying every diagnostic, rendered with `file:line:col` and carets (printed after the
    /// error's line).
    /// Both at once is an input error.
    pub fn load(name: Option<&str>, file: Option<&Path>) -> Result<Policy> {
        if name.is_some() && file.is_some() {
            return Err(
                InputError::new("give either --spec NAME or --spec-file PATH, not both").into(),
            );
        }
        if let Some(path) = file {
            return Self::draft(path);
        }
        let name = match name {
            Some(n) => n.to_string(),
            None => Config::resolve(&Overrides::default())?.spec.value,
        };
        Self::compiled(compiled_spec(&name)?)
    }

    /// A compiled spec, whose `alongside` specs must be compiled in too.
    pub fn compiled(spec: &'static CompiledSpec) -> Result<Policy> {
        let (_, missing) = compiled_alongside(spec);
        if !missing.is_empty() {
            return Err(InputError::new(format!(
                "spec `{}` runs beside spec(s) this binary does not have: {}",
                spec.name,
                missing.join(", ")
            ))
            .into());
        }
        Ok(Policy::Compiled(spec))
    }

    /// A spec file, checked; its errors are an input error.
    pub fn draft(path: &Path) -> Result<Policy> {
        // With the specs it extends, found beside it.
        let mut files = Vec::new();
        let spec = Self::checked(path, &mut files)?;
        // The specs beside it, found beside its file, each once.
        let mut beside: Vec<Spec> = Vec::new();
        let mut queue: Vec<String> = spec.alongside.iter().map(|n| n.to_string()).collect();
        let mut next = 0;
        while next < queue.len() {
            let name = queue[next].clone();
            next += 1;
            if *name == *spec.name || beside.iter().any(|b| *b.name == *name) {
                continue;
            }
            let file = path
                .parent()
                .unwrap_or_else(|| Path::new(""))
                .join(format!("{name}.toml"));
            let other = Self::checked(&file, &mut files)?;
            queue.extend(other.alongside.iter().map(|n| n.to_string()));
            beside.push(other);
        }
        Ok(Policy::Draft {
            path: path.to_path_buf(),
            spec: Box::new(spec),
            beside,
            files,
        })
    }

    /// A spec file compiled and checked on its own; its errors are an input error. The files
    /// it was read from are added to `files` (each once).
    fn checked(path: &Path, files: &mut Vec<PathBuf>) -> Result<Spec> {
        let compiled = crate::cmd::compile_spec_file(path)?;
        for file in &compiled.sources.files {
            if !files.contains(&file.path) {
                files.push(file.path.clone());
            }
        }
        let rendered = compiled.render();
        match compiled.spec {
            Some(spec) => Ok(spec),
            None => {
                let errors = compiled
                    .diags
                    .items
                    .iter()
                    .filter(|d| d.severity == gate_spec::diag::Severity::Error)
                    .count();
                Err(InputError::with_block(
                    format!(
                        "{} is not a valid spec ({errors} error(s); every diagnostic follows)",
                        path.display()
                    ),
                    rendered,
                )
                .into())
            }
        }
    }

    /// The spec's IR.
    pub fn spec(&self) -> &Spec {
        match self {
            Policy::Compiled(c) => c.ir(),
            Policy::Draft { spec, .. } => spec,
        }
    }

    /// What to call the policy in output: the spec name, or the draft's path.
    pub fn label(&self) -> String {
        match self {
            Policy::Compiled(c) => c.name.to_string(),
            Policy::Draft { path, .. } => path.display().to_string(),
        }
    }

    /// The specs whose machines run beside this policy's own, in order.
    pub fn beside(&self) -> Vec<&Spec> {
        match self {
            Policy::Compiled(c) => compiled_alongside(c).0.iter().map(|b| b.ir()).collect(),
            Policy::Draft { beside, .. } => beside.iter().collect(),
        }
    }

    /// An engine over this policy, with the machines beside it: the compiled machines, or
    /// interpreters of the drafts kept in `slot` (which must outlive the engine).
    pub fn engine<'a>(&'a self, slot: &'a mut Option<Interpreters<'a>>) -> Engine<'a> {
        match self {
            Policy::Compiled(c) => Engine::new(c.ir(), c.machine).with_alongside(
                compiled_alongside(c)
                    .0
                    .into_iter()
                    .map(|b| Engine::new(b.ir(), b.machine))
                    .collect(),
            ),
            Policy::Draft { spec, beside, .. } => {
                let kept: &'a Interpreters<'a> = slot.insert(Interpreters {
                    own: Interpreter::new(spec),
                    beside: beside.iter().map(Interpreter::new).collect(),
                });
                Engine::new(spec, &kept.own).with_alongside(
                    beside
                        .iter()
                        .zip(&kept.beside)
                        .map(|(s, i)| Engine::new(s, i))
                        .collect(),
                )
            }
        }
    }

    /// Run `f` with an engine over this policy.
    pub fn with_engine<R>(&self, f: impl FnOnce(&Engine<'_>) -> R) -> R {
        let mut slot = None;
        f(&self.engine(&mut slot))
    }
}
