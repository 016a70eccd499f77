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
    /// A spec file, checked and interpreted.
    Draft { path: PathBuf, spec: Box<Spec> },
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
        Ok(Policy::Compiled(compiled_spec(&name)?))
    }

    /// A spec file, checked; its errors are an input error.
    pub fn draft(path: &Path) -> Result<Policy> {
        // With the specs it extends, found beside it.
        let compiled = crate::cmd::compile_spec_file(path)?;
        let rendered = compiled.render();
        match compiled.spec {
            Some(spec) => Ok(Policy::Draft {
                path: path.to_path_buf(),
                spec: Box::new(spec),
            }),
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

    /// An engine over this policy: the compiled machine, or an interpreter of the draft kept
    /// in `slot` (which must outlive the engine).
    pub fn engine<'a>(&'a self, slot: &'a mut Option<Interpreter<'a>>) -> Engine<'a> {
        match self {
            Policy::Compiled(c) => Engine::new(c.ir(), c.machine),
            Policy::Draft { spec, .. } => {
                let interp = slot.insert(Interpreter::new(spec));
                Engine::new(spec, interp)
            }
        }
    }

    /// Run `f` with an engine over this policy.
    pub fn with_engine<R>(&self, f: impl FnOnce(&Engine<'_>) -> R) -> R {
        let mut slot = None;
        f(&self.engine(&mut slot))
    }
}
