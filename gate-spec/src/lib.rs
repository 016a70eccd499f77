//! gate-spec: the spec language (TOML with spans), name resolution, static checks, the IR
//! and diagram rendering. One source of truth for "is this spec valid".
//!
//! `compile_file` (a spec file, with the specs it extends) and `compile` (a spec's text) are
//! the entry points used by the code generator, `gate check`, the interpreter and the diagram
//! commands alike, so all of them report the same diagnostics.

pub mod broken;
pub mod calendar;
pub mod check;
pub mod commands;
pub mod compose;
pub mod counter;
pub mod diag;
pub mod diagram;
pub mod diff;
pub mod effect;
pub mod exec;
pub mod hash;
pub mod hints;
pub mod invariant;
pub mod ir;
pub mod parse;
pub mod pattern;
pub mod quiet;
pub mod refine;
pub mod region;
pub mod relax;

use diag::Diagnostics;
use std::path::Path;

/// Specs larger than this are refused before parsing (a spec is a hand-written policy).
pub const MAX_SOURCE_BYTES: usize = 4 * 1024 * 1024;

/// Parse, resolve and check a spec given as text. The IR is returned only when there is no
/// error. A spec that `extends` others needs its file: see [`compile_file`].
pub fn compile(source: &str) -> (Option<ir::Spec>, Diagnostics) {
    let mut diags = Diagnostics::default();
    if too_large(source.len(), &mut diags) {
        return (None, diags);
    }
    let spec =
        parse::parse_partial(source, &mut diags).and_then(|parsed| finish(parsed, &mut diags));
    diags.sort();
    (spec, diags)
}

/// A spec compiled from its file: the IR (only when there is no error), the diagnostics, and
/// the files it was read from (its own, then every base it extends), which render the
/// diagnostics each in its own file.
#[derive(Debug)]
pub struct Compiled {
    pub spec: Option<ir::Spec>,
    pub diags: Diagnostics,
    pub sources: compose::Sources,
}

impl Compiled {
    /// Every diagnostic rendered with its file, line, column and caret.
    pub fn render(&self) -> String {
        self.sources.render_all(&self.diags.items)
    }
}

/// Parse, resolve and check a spec file, reading the specs it `extends` from its directory
/// (`guard` is `guard.toml` beside it; see [`compose`]). `display` names a file in
/// diagnostics. An error only when the file itself cannot be read.
pub fn compile_file(path: &Path, display: &dyn Fn(&Path) -> String) -> std::io::Result<Compiled> {
    let mut diags = Diagnostics::default();
    let (sources, bases) = compose::load(path, display, &mut diags)?;
    compose::alongside(&sources, &mut diags);
    let done = |spec, mut diags: Diagnostics, sources| {
        diags.sort();
        Compiled {
            spec,
            diags,
            sources,
        }
    };
    if too_large(sources.text.len(), &mut diags) {
        return Ok(done(None, diags, sources));
    }
    let spec = {
        let trees = compose::trees(&sources, &mut diags);
        let merged = if trees.iter().all(Option::is_some) {
            compose::compose(0, &trees, &bases, &mut Vec::new(), &mut diags)
        } else {
            None
        };
        let own = trees[0].as_ref().map_or(0..0, |t| t.span());
        merged
            .and_then(|tree| {
                let root = toml::Spanned::new(own, tree);
                parse::parse_root(&sources.text, &root, &mut diags)
            })
            .and_then(|parsed| finish(parsed, &mut diags))
    };
    Ok(done(spec, diags, sources))
}

fn too_large(len: usize, diags: &mut Diagnostics) -> bool {
    if len <= MAX_SOURCE_BYTES {
        return false;
    }
    diags.push(diag::Diagnostic::error(
        diag::Code::TooLarge,
        ir::Span::default(),
        format!("the spec is {len} bytes; a spec may be at most {MAX_SOURCE_BYTES} bytes"),
    ));
    true
}

/// The whole-machine checks run on what is well formed even when some items have errors, so
/// one run reports every problem; the IR is returned only when there is none.
fn finish((spec, broken): (ir::Spec, broken::Broken), diags: &mut Diagnostics) -> Option<ir::Spec> {
    check::run_with(&spec, &broken, diags);
    diags.sort();
    (!diags.has_errors()).then_some(spec)
}
