//! gate-spec: the spec language (TOML with spans), name resolution, static checks, the IR
//! and diagram rendering. One source of truth for "is this spec valid".
//!
//! `compile` is the entry point used by the code generator, `gate check`, the interpreter
//! and the diagram commands alike, so all of them report the same diagnostics.

pub mod broken;
pub mod check;
pub mod commands;
pub mod diag;
pub mod diagram;
pub mod effect;
pub mod exec;
pub mod hash;
pub mod hints;
pub mod ir;
pub mod parse;
pub mod pattern;

use diag::Diagnostics;

/// Specs larger than this are refused before parsing (a spec is a hand-written policy).
pub const MAX_SOURCE_BYTES: usize = 4 * 1024 * 1024;

/// Parse, resolve and check a spec. The IR is returned only when there is no error.
pub fn compile(source: &str) -> (Option<ir::Spec>, Diagnostics) {
    let mut diags = Diagnostics::default();
    if source.len() > MAX_SOURCE_BYTES {
        diags.push(diag::Diagnostic::error(
            diag::Code::TooLarge,
            ir::Span::default(),
            format!(
                "the spec is {} bytes; a spec may be at most {MAX_SOURCE_BYTES} bytes",
                source.len()
            ),
        ));
        return (None, diags);
    }
    // The whole-machine checks run on what is well formed even when some items have errors,
    // so one run reports every problem; the IR is returned only when there is none.
    let parsed = parse::parse_partial(source, &mut diags);
    if let Some((spec, broken)) = &parsed {
        check::run_with(spec, broken, &mut diags);
    }
    diags.sort();
    let spec = parsed.map(|(spec, _)| spec).filter(|_| !diags.has_errors());
    (spec, diags)
}
