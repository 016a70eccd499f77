//! The specs compiled into the running binary. The `gate` binary installs its registry
//! (`gate_specs::ALL`) once, before anything else runs, so that this library does not depend
//! on the compiled specs: a spec edit rebuilds them and the binary, not the library.

use gate_spec::exec::CompiledSpec;
use std::sync::OnceLock;

static SPECS: OnceLock<&'static [&'static CompiledSpec]> = OnceLock::new();

/// Makes `specs` the compiled specs of this process. The first registry installed stays;
/// returns whether `specs` is it.
pub fn install(specs: &'static [&'static CompiledSpec]) -> bool {
    std::ptr::eq(*SPECS.get_or_init(|| specs), specs)
}

/// The compiled specs (none until a registry is installed: a command then finds no spec and
/// says so, and the hook answers nothing). The library's own unit tests see the shipped
/// specs without installing them.
pub fn compiled() -> &'static [&'static CompiledSpec] {
    SPECS.get().copied().unwrap_or_else(uninstalled)
}

#[cfg(not(test))]
fn uninstalled() -> &'static [&'static CompiledSpec] {
    &[]
}

#[cfg(test)]
fn uninstalled() -> &'static [&'static CompiledSpec] {
    gate_specs::ALL
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_registry_stays() {
        assert!(super::install(gate_specs::ALL));
        assert!(super::install(gate_specs::ALL));
        assert!(!super::install(&[]));
        assert_eq!(super::compiled().len(), gate_specs::ALL.len());
    }
}
