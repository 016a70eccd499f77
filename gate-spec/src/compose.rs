//! Composition: a spec that extends others (`[machine] extends = ["jwc"]`), each found beside
//! it by name, merged into one TOML tree before it is read, with a conflict between two bases
//! reported at both declarations (G022).
//!
//! The files of a composed spec are laid end to end into one text ([`Sources`]): the spec's
//! own file first, then every base once, in the order they are found. Every span indexes that
//! text, so the parser, the checks and the IR work as for one file, and diagnostics map each
//! span back to its file. A spec without `extends` is its own file alone: its spans, hash and
//! IR are what they would be without composition.
//!
//! Merge rules, applied to the bases in the order `extends` lists them, then to the spec's own
//! file:
//!
//! - `[machine]`: `name`, `description`, `extends` and `alongside` are each file's own; `kinds` is the union
//!   in order of first appearance; every other key is inherited.
//! - Sections of named entries (`[[tier]]`, `[[rule]]`, `[[signal]]`, `[[checkpoint]]`,
//!   `[[state]]`, `[[role]]`): entries are merged by name and keep the position of their
//!   first appearance; new names are appended, so rules keep their order (bases' first) and
//!   tiers their risk order.
//! - `[[transition]]`: concatenated, bases' first (a file reached twice counts once).
//! - `[rearm]`, `[template]` and other tables: merged key by key.
//! - Two bases that declare the same entry or key differently conflict (G022, at both
//!   declarations); the same declaration reached twice (a base of two bases) is one. The
//!   spec's own file settles a conflict and may change what it inherits: its entry of an
//!   inherited name replaces the inherited keys it gives and keeps the others (a `[[rule]]`
//!   with only `name` and `tier` re-tiers an inherited rule).

use crate::diag::{Code, Diagnostic, Diagnostics, SourceMap};
use crate::ir::Span;
use crate::refine;
use std::path::{Path, PathBuf};
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

/// At most this many files in one composition (a spec and its bases).
const MAX_FILES: usize = 64;

/// One file of a composed spec.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The file on disk (empty for a text with no file).
    pub path: PathBuf,
    /// The path as shown in diagnostics.
    pub display: String,
    /// The file's text.
    pub text: String,
    /// Where its text starts in [`Sources::text`].
    pub base: usize,
}

/// The files of a spec, own file first, and their texts end to end.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    pub files: Vec<SourceFile>,
    /// Every file's text, in order: what spans index.
    pub text: String,
}

impl Sources {
    fn push(&mut self, path: PathBuf, display: String, text: String) -> usize {
        let base = self.text.len();
        self.text.push_str(&text);
        self.files.push(SourceFile {
            path,
            display,
            text,
            base,
        });
        self.files.len() - 1
    }

    /// The file a span lies in: for an empty span at the very end of a file (a syntax error at
    /// end of file), that file; else the one whose text holds its start.
    pub fn file_of(&self, span: Span) -> &SourceFile {
        let at = span.start as usize;
        let holds = |f: &&SourceFile| f.base <= at && at < f.base + f.text.len();
        let ends = |f: &&SourceFile| span.start == span.end && at == f.base + f.text.len();
        self.files
            .iter()
            .find(ends)
            .or_else(|| self.files.iter().find(holds))
            .unwrap_or(&self.files[0])
    }

    /// Render diagnostics with each location in its own file.
    pub fn render_all(&self, diagnostics: &[Diagnostic]) -> String {
        crate::diag::render_all_in(self, diagnostics)
    }

    /// Every file on disk the spec was read from (for build systems to watch).
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files
            .iter()
            .map(|f| f.path.as_path())
            .filter(|p| !p.as_os_str().is_empty())
    }
}

impl SourceMap for Sources {
    fn locate(&self, span: Span) -> (&str, &str, Span) {
        let file = self.file_of(span);
        let base = file.base as u32;
        let local = Span {
            start: span.start.saturating_sub(base),
            end: span.end.saturating_sub(base),
        };
        (&file.display, &file.text, local)
    }
}

/// The bases each file extends, by file index: each an index into [`Sources::files`] and the
/// span of its name in `extends`.
pub type Bases = Vec<Vec<(usize, Span)>>;

/// What a spec's file named in `extends` and where.
struct Found {
    /// `extends` entries resolved: file index and the span of the name.
    bases: Vec<(usize, Span)>,
}

/// Read a spec file and every base it extends, transitively. `display` names a path in
/// diagnostics. Unreadable bases, bad names and cycles are diagnostics; the files read are in
/// the returned [`Sources`] either way.
pub fn load(
    path: &Path,
    display: &dyn Fn(&Path) -> String,
    diags: &mut Diagnostics,
) -> std::io::Result<(Sources, Bases)> {
    let text = std::fs::read_to_string(path)?;
    let mut sources = Sources::default();
    sources.push(path.to_path_buf(), display(path), text);
    let mut found: Bases = Vec::new();
    let mut next = 0;
    // Breadth-first over files: each file's `extends` is read from its own tree.
    while next < sources.files.len() {
        let f = found_in(next, &mut sources, display, diags);
        found.push(f.bases);
        next += 1;
    }
    Ok((sources, found))
}

/// The bases file `index` names, loading the ones not yet read.
fn found_in(
    index: usize,
    sources: &mut Sources,
    display: &dyn Fn(&Path) -> String,
    diags: &mut Diagnostics,
) -> Found {
    let file = sources.files[index].clone();
    let mut quiet = Diagnostics::default();
    // Syntax errors are reported when the tree is read for the merge.
    let Some(root) = crate::parse::parse_toml(&file.text, file.base, &mut quiet) else {
        return Found { bases: Vec::new() };
    };
    let names = extends_of(root.get_ref(), file.base, diags);
    let dir = file
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut bases = Vec::new();
    for (name, span) in names {
        let path = dir.join(format!("{name}.toml"));
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let known = sources.files.iter().position(|f| {
            std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone()) == canonical
        });
        if let Some(i) = known {
            bases.push((i, span));
            continue;
        }
        if sources.files.len() >= MAX_FILES {
            diags.push(Diagnostic::error(
                Code::TooLarge,
                span,
                format!("a spec may be composed of at most {MAX_FILES} files"),
            ));
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let i = sources.push(path.clone(), display(&path), text);
                bases.push((i, span));
            }
            Err(e) => diags.push(
                Diagnostic::error(
                    Code::UnknownName,
                    span,
                    format!("unknown spec `{name}`: cannot read {}: {e}", display(&path)),
                )
                .with_help(unknown_spec_help("extends", &name, &path)),
            ),
        }
    }
    Found { bases }
}

/// The help for a spec name with no file: the spec beside it whose name is closest, if one
/// is close enough to be a misspelling, else how names are written.
fn unknown_spec_help(key: &str, name: &str, path: &Path) -> String {
    let mut specs: Vec<String> = path
        .parent()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            file.strip_suffix(".toml").map(str::to_string)
        })
        .collect();
    specs.sort();
    match crate::diag::did_you_mean(name, specs.iter().map(String::as_str)) {
        Some(close) => format!("did you mean `{close}` ({close}.toml beside this spec)?"),
        None => format!("`{key}` names specs in the same directory, by file name without `.toml`"),
    }
}

/// Check the spec's own `[machine] alongside` against the files beside it: each name must be
/// a spec file in the same directory (G005), and no spec may run beside itself through the
/// specs beside it (G023, at the name that closes the cycle). Each listed file's own
/// `alongside` is followed, transitively; malformed names are the parser's to report.
pub fn alongside(sources: &Sources, diags: &mut Diagnostics) {
    let Some(own) = sources.files.first() else {
        return;
    };
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let own_path = canonical(&own.path);
    let mut quiet = Diagnostics::default();
    let Some(root) = crate::parse::parse_toml(&own.text, own.base, &mut quiet) else {
        return;
    };
    let mut checked: Vec<String> = Vec::new();
    // An event carries one set of project profiles: one machine of a composition may declare
    // them (the spec's own, with what it extends, or one beside it).
    let mut profiled_by: Option<String> = sources
        .files
        .iter()
        .any(|f| {
            crate::parse::parse_toml(&f.text, f.base, &mut quiet)
                .is_some_and(|tree| tree.get_ref().contains_key("profile"))
        })
        .then(|| "this spec".to_string());
    for (name, span) in names_of(root.get_ref(), "alongside", own.base, &mut quiet) {
        // A name given twice is the parser's G006, checked here once.
        if checked.contains(&name) {
            continue;
        }
        checked.push(name.clone());
        let path = beside(&own.path, &name);
        if canonical(&path) == own_path {
            // Naming itself is the parser's G023.
            continue;
        }
        if std::fs::metadata(&path).is_err() {
            diags.push(
                Diagnostic::error(
                    Code::UnknownName,
                    span,
                    format!("unknown spec `{name}`: there is no {name}.toml beside this spec"),
                )
                .with_help(unknown_spec_help("alongside", &name, &path)),
            );
            continue;
        }
        let profiled = std::fs::read_to_string(&path).ok().is_some_and(|text| {
            crate::parse::parse_toml(&text, 0, &mut quiet)
                .is_some_and(|tree| tree.get_ref().contains_key("profile"))
        });
        if profiled {
            if let Some(first) = &profiled_by {
                diags.push(
                    Diagnostic::error(
                        Code::Alongside,
                        span,
                        format!(
                            "spec `{name}` declares [[profile]]s, and so does {first}: only one machine of a composition may declare them"
                        ),
                    )
                    .with_help("an event carries one set of project profiles; keep the profile rules in one of the machines"),
                );
                continue;
            }
            profiled_by = Some(format!("spec `{name}`"));
        }
        // Follow what runs beside it, breadth first, until this spec comes back or nothing new.
        let mut seen = vec![canonical(&path)];
        let mut chain = vec![name.clone()];
        let mut queue = vec![(path, chain.clone())];
        while let Some((at, via)) = queue.pop() {
            if seen.len() > MAX_FILES {
                break;
            }
            let Ok(text) = std::fs::read_to_string(&at) else {
                continue;
            };
            let Some(tree) = crate::parse::parse_toml(&text, 0, &mut quiet) else {
                continue;
            };
            for (next, _) in names_of(tree.get_ref(), "alongside", 0, &mut quiet) {
                let next_path = beside(&at, &next);
                let c = canonical(&next_path);
                let mut path_to = via.clone();
                path_to.push(next.clone());
                if c == own_path {
                    chain = path_to;
                    queue.clear();
                    seen.clear();
                    break;
                }
                if !seen.contains(&c) && std::fs::metadata(&next_path).is_ok() {
                    seen.push(c);
                    queue.push((next_path, path_to));
                }
            }
        }
        if seen.is_empty() {
            diags.push(
                Diagnostic::error(
                    Code::Alongside,
                    span,
                    format!(
                        "this spec runs beside itself: `{}` leads back to it",
                        chain.join("` -> `")
                    ),
                )
                .with_help("specs beside each other must not form a cycle"),
            );
        }
    }
}

/// The file of spec `name` beside `path`.
fn beside(path: &Path, name: &str) -> PathBuf {
    path.parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
        .join(format!("{name}.toml"))
}

/// The names in `[machine] extends`, with their spans; malformed entries are diagnostics.
fn extends_of(root: &DeTable<'_>, base: usize, diags: &mut Diagnostics) -> Vec<(String, Span)> {
    names_of(root, "extends", base, diags)
}

/// The spec names in `[machine] <key>`, with their spans; malformed entries are diagnostics.
fn names_of(
    root: &DeTable<'_>,
    key: &str,
    base: usize,
    diags: &mut Diagnostics,
) -> Vec<(String, Span)> {
    let span = |r: std::ops::Range<usize>| Span::new(r.start + base..r.end + base);
    let Some(machine) = root.get("machine") else {
        return Vec::new();
    };
    let DeValue::Table(machine) = machine.get_ref() else {
        return Vec::new();
    };
    let Some(v) = machine.get(key) else {
        return Vec::new();
    };
    let items: Vec<&Spanned<DeValue<'_>>> = match v.get_ref() {
        DeValue::String(_) => vec![v],
        DeValue::Array(a) => a.iter().collect(),
        _ => {
            diags.push(Diagnostic::error(
                Code::InvalidValue,
                span(v.span()),
                format!("`{key}` must be a spec name or a list of them"),
            ));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for item in items {
        let at = span(item.span());
        match item.get_ref() {
            DeValue::String(s) if is_name(s) => out.push((s.to_string(), at)),
            DeValue::String(s) => diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    at,
                    format!("`{key}` names a spec, found `{s}`"),
                )
                .with_help("a spec in the same directory, by file name without `.toml` (`guard` for guard.toml)"),
            ),
            _ => diags.push(Diagnostic::error(
                Code::InvalidValue,
                at,
                format!("`{key}` entries are spec names"),
            )),
        }
    }
    out
}

/// A spec name as `extends` takes it: an identifier, so it names a file beside the spec and
/// nothing else.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && s.len() <= 64
}

/// Every file's tree, spans shifted into [`Sources::text`]; `None` for a file with a syntax
/// error (reported).
pub fn trees<'s>(
    sources: &'s Sources,
    diags: &mut Diagnostics,
) -> Vec<Option<Spanned<DeTable<'s>>>> {
    sources
        .files
        .iter()
        .map(|f| {
            let root = crate::parse::parse_toml(&f.text, f.base, diags)?;
            let r = root.span();
            Some(Spanned::new(
                r.start + f.base..r.end + f.base,
                shift_table(root.into_inner(), f.base),
            ))
        })
        .collect()
}

/// Move a value's spans by `base`.
fn shift(v: Spanned<DeValue<'_>>, base: usize) -> Spanned<DeValue<'_>> {
    let r = v.span();
    let value = match v.into_inner() {
        DeValue::Table(t) => DeValue::Table(shift_table(t, base)),
        DeValue::Array(a) => {
            let mut out = DeArray::new();
            for item in a {
                out.push(shift(item, base));
            }
            DeValue::Array(out)
        }
        other => other,
    };
    Spanned::new(r.start + base..r.end + base, value)
}

fn shift_table(t: DeTable<'_>, base: usize) -> DeTable<'_> {
    let mut out = DeTable::new();
    for (k, v) in t {
        let kr = k.span();
        out.insert(
            Spanned::new(kr.start + base..kr.end + base, k.into_inner()),
            shift(v, base),
        );
    }
    out
}

/// Whether two values are the same declaration: equal values, or the same place.
fn same(a: &Spanned<DeValue<'_>>, b: &Spanned<DeValue<'_>>) -> bool {
    a.span() == b.span() || equal(a.get_ref(), b.get_ref())
}

/// Structural equality, spans aside.
fn equal(a: &DeValue<'_>, b: &DeValue<'_>) -> bool {
    match (a, b) {
        (DeValue::String(x), DeValue::String(y)) => x == y,
        (DeValue::Integer(x), DeValue::Integer(y)) => {
            x.as_str() == y.as_str() && x.radix() == y.radix()
        }
        (DeValue::Float(x), DeValue::Float(y)) => x.as_str() == y.as_str(),
        (DeValue::Boolean(x), DeValue::Boolean(y)) => x == y,
        (DeValue::Datetime(x), DeValue::Datetime(y)) => x == y,
        (DeValue::Array(x), DeValue::Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(p, q)| equal(p.get_ref(), q.get_ref()))
        }
        (DeValue::Table(x), DeValue::Table(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.get(k.get_ref().as_ref())
                        .is_some_and(|w| equal(v.get_ref(), w.get_ref()))
                })
        }
        _ => false,
    }
}

/// Whose declarations a merge adds: another base's (a difference conflicts, unless the spec's
/// own file settles it) or the spec's own (a difference replaces).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layer {
    Base,
    Own,
}

/// One composition step: the conflicts between bases, and what the own file gives (a
/// conflict on a key the own file gives is settled by it).
struct Merge {
    layer: Layer,
    conflicts: Vec<(String, Diagnostic)>,
    given: std::collections::BTreeSet<String>,
    /// Mistakes of the own file's merge (a `"..."` with nothing inherited).
    errors: Vec<Diagnostic>,
}

/// The merged tree of file `index`: its bases merged in order, then the file itself.
pub fn compose<'s>(
    index: usize,
    trees: &[Option<Spanned<DeTable<'s>>>],
    bases: &[Vec<(usize, Span)>],
    stack: &mut Vec<usize>,
    diags: &mut Diagnostics,
) -> Option<DeTable<'s>> {
    let mut own = trees[index].as_ref()?.get_ref().clone();
    if let Some(DeValue::Table(machine)) = own.get_mut("machine").map(|v| v.get_mut()) {
        machine.remove("extends");
    }
    stack.push(index);
    let mut merge = Merge {
        layer: Layer::Base,
        conflicts: Vec::new(),
        given: Default::default(),
        errors: Vec::new(),
    };
    let mut acc: Option<DeTable<'s>> = None;
    for &(base, span) in &bases[index] {
        if stack.contains(&base) {
            diags.push(
                Diagnostic::error(
                    Code::Composition,
                    span,
                    "this spec extends itself through its bases",
                )
                .with_help("a spec cannot extend a spec that extends it"),
            );
            continue;
        }
        let Some(mut tree) = compose(base, trees, bases, stack, diags) else {
            continue;
        };
        // A base's name, description and the specs beside it are its own.
        if let Some(DeValue::Table(machine)) = tree.get_mut("machine").map(|v| v.get_mut()) {
            machine.remove("name");
            machine.remove("description");
            machine.remove("alongside");
        }
        acc = Some(match acc {
            None => tree,
            Some(mut acc) => {
                merge.tables(&mut acc, tree, "");
                acc
            }
        });
    }
    stack.pop();
    let Some(mut acc) = acc else {
        if bases[index].is_empty() {
            refine::without_bases(&mut own, diags);
        }
        return Some(own);
    };
    refine::renames(&mut own, &mut acc, diags);
    let lowerings = crate::relax::noted(&mut own, &acc, diags);
    let placements = refine::placements(&mut own, diags);
    merge.layer = Layer::Own;
    merge.tables(&mut acc, own, "");
    refine::place(&mut acc, placements, diags);
    crate::relax::check(&acc, lowerings, diags);
    for (path, d) in merge.conflicts {
        if !merge.given.contains(&path) {
            diags.push(d);
        }
    }
    merge.errors.into_iter().for_each(|d| diags.push(d));
    Some(acc)
}

impl Merge {
    /// Merge `layer` into `acc`, key by key; `path` names `acc` (empty at the top).
    fn tables<'s>(&mut self, acc: &mut DeTable<'s>, layer: DeTable<'s>, path: &str) {
        for (key, value) in layer {
            let name: String = key.get_ref().to_string();
            let at = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}/{name}")
            };
            let Some(existing) = acc.get_mut(name.as_str()) else {
                self.give(&at);
                let mut value = value;
                self.inherits_nothing(&mut value);
                acc.insert(key, value);
                continue;
            };
            match (path, name.as_str()) {
                ("machine", "kinds") => union(existing, value),
                // A top-level section, or `[machine]`'s table: merged inside.
                ("", _) => self.nested(existing, value, &at),
                _ => self.value(existing, value, &at),
            }
        }
    }

    /// Merge a section: tables key by key, arrays of tables entry by entry.
    fn nested<'s>(
        &mut self,
        existing: &mut Spanned<DeValue<'s>>,
        value: Spanned<DeValue<'s>>,
        path: &str,
    ) {
        match (existing.get_mut(), value.get_ref()) {
            (DeValue::Table(acc), DeValue::Table(_)) => {
                if let DeValue::Table(layer) = value.into_inner() {
                    self.tables(acc, layer, path);
                }
            }
            (DeValue::Array(acc), DeValue::Array(_)) => {
                if let DeValue::Array(items) = value.into_inner() {
                    for item in items {
                        self.entry(acc, item, path);
                    }
                }
            }
            _ => self.value(existing, value, path),
        }
    }

    /// Add one entry of a `[[section]]`: merged key by key with the entry of the same name,
    /// or appended (a nameless entry unless it is the same declaration, reached twice).
    fn entry<'s>(&mut self, acc: &mut DeArray<'s>, item: Spanned<DeValue<'s>>, section: &str) {
        let Some(name) = entry_name(&item).map(|(n, _)| n.to_string()) else {
            if !acc.iter().any(|e| e.span() == item.span()) {
                acc.push(item);
            }
            return;
        };
        let path = format!("{section}/{name}");
        let Some(existing) = acc
            .iter_mut()
            .find(|e| entry_name(e).is_some_and(|(n, _)| n == name))
        else {
            self.give(&path);
            if self.layer == Layer::Own {
                if let Some(d) = changes_nothing(acc, &item, section) {
                    // Left out of the merged spec: reported here, with the name it misspells,
                    // not again as a new entry that matches everything.
                    self.errors.push(d);
                    return;
                }
            }
            let mut item = item;
            self.inherits_nothing(&mut item);
            acc.push(item);
            return;
        };
        if self.layer == Layer::Base && same(existing, &item) {
            return;
        }
        // An entry the spec's own file changes is, for diagnostics about it as a whole, where
        // the author wrote that change (its keys keep the place each was declared).
        let at = match self.layer {
            Layer::Own => item.span(),
            Layer::Base => existing.span(),
        };
        match (existing.get_mut(), item.into_inner()) {
            (DeValue::Table(entry), DeValue::Table(patch)) => self.tables(entry, patch, &path),
            (_, other) => {
                let span = Span::new(existing.span());
                self.value(existing, Spanned::new(span.range(), other), &path)
            }
        }
        let inner = std::mem::replace(existing.get_mut(), DeValue::Boolean(false));
        *existing = Spanned::new(at, inner);
    }

    /// A value of the own file that inherits nothing: a `"..."` in it stands for nothing.
    fn inherits_nothing(&mut self, value: &mut Spanned<DeValue<'_>>) {
        if self.layer == Layer::Own {
            let found = refine::drop_splices(value);
            self.errors
                .extend(found.into_iter().map(refine::nothing_to_splice));
        }
    }

    /// Record that the own file gives `path`.
    fn give(&mut self, path: &str) {
        if self.layer == Layer::Own {
            self.given.insert(path.to_string());
        }
    }

    /// Merge one value: the same declaration stays, the own file's replaces, two bases'
    /// conflict.
    fn value<'s>(
        &mut self,
        existing: &mut Spanned<DeValue<'s>>,
        value: Spanned<DeValue<'s>>,
        path: &str,
    ) {
        self.give(path);
        if self.layer == Layer::Own {
            if let Some(spliced) = refine::splice(existing, &value) {
                *existing = spliced;
                return;
            }
        }
        match self.layer {
            // Even an equal value: the author's own file is where it is declared now, so a
            // diagnostic about it points there.
            Layer::Own => *existing = value,
            Layer::Base if same(existing, &value) => {}
            Layer::Base => {
                let what = describe(path);
                let d = Diagnostic::error(
                    Code::Composition,
                    Span::new(value.span()),
                    format!("{what} is declared differently by two bases"),
                )
                .with_label(Span::new(existing.span()), "the other declaration")
                .with_help(format!("give {what} in this spec to settle it"));
                self.conflicts.push((path.to_string(), d));
            }
        }
    }
}

/// The keys that make an entry of a section something of its own: a `[[rule]]` without any
/// criterion, a `[[checkpoint]]` without an evidence pattern or a `[[signal]]` without a
/// family can only change an inherited entry; a `[[tier]]` without a backstop or `renames`
/// that is a misspelling of an inherited tier is taken for a change of it too.
const DEFINING: &[(&str, &[&str], bool)] = &[
    ("rule", crate::parse::RULE_CRITERIA, true),
    ("checkpoint", &["tools", "events", "commands"], true),
    ("signal", &["family"], true),
    ("tier", &["max_actions", "max_secs", "renames"], false),
];

/// The error for an own-file entry of a name no base declares that defines nothing of its
/// own (G024): it can only be meant as a change of an inherited entry, most often one whose
/// name it misspells. `None` when the entry stands on its own. For a `[[tier]]` (which may be
/// new with only a mode) only a close misspelling of an inherited tier is an error.
fn changes_nothing(
    acc: &DeArray<'_>,
    item: &Spanned<DeValue<'_>>,
    section: &str,
) -> Option<Diagnostic> {
    let (_, keys, always) = DEFINING.iter().find(|(s, _, _)| *s == section)?;
    let DeValue::Table(t) = item.get_ref() else {
        return None;
    };
    // A tier without `mode` is another mistake (or a failed `renames`), the parser's to report.
    if keys.iter().any(|k| t.contains_key(*k)) || (section == "tier" && !t.contains_key("mode")) {
        return None;
    }
    let (name, span) = entry_name(item)?;
    let inherited: Vec<&str> = acc
        .iter()
        .filter_map(|e| entry_name(e).map(|(n, _)| n))
        .collect();
    let close = crate::diag::did_you_mean(name, inherited.iter().copied());
    if close.is_none() && !always {
        return None;
    }
    let what = match section {
        "rule" => "it names no criterion of its own, so it would match every action",
        "checkpoint" => "it has no evidence pattern of its own",
        "signal" => "it names no family of its own",
        _ => "it has no backstop of its own",
    };
    let help = match close {
        Some(close) => format!(
            "did you mean `{close}`? To change an inherited {section}, give its name exactly"
        ),
        None => format!(
            "the {section}s this spec inherits: {}; a new {section} gives {}",
            inherited.join(", "),
            keys.join(", ")
        ),
    };
    Some(
        Diagnostic::error(
            Code::NoCriteria,
            span,
            format!(
                "[[{section}]] `{name}` changes nothing inherited: no spec this one extends declares a {section} `{name}`, and {what}"
            ),
        )
        .with_help(help),
    )
}

/// A merge path for people: `tier/protected/mode` is "`mode` of [[tier]] `protected`".
fn describe(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        [key] => format!("`{key}`"),
        [section, key] => format!("`{key}` of [{section}]"),
        [section, name, key, ..] => format!("`{key}` of [[{section}]] `{name}`"),
        [] => "the spec".to_string(),
    }
}

/// The `name` of an entry of a `[[section]]`, if it has one.
fn entry_name<'a>(v: &'a Spanned<DeValue<'_>>) -> Option<(&'a str, Span)> {
    let DeValue::Table(t) = v.get_ref() else {
        return None;
    };
    let n = t.get("name")?;
    match n.get_ref() {
        DeValue::String(s) => Some((s.as_ref(), Span::new(n.span()))),
        _ => None,
    }
}

/// `kinds`: every kind of both lists, in order of first appearance.
fn union<'s>(existing: &mut Spanned<DeValue<'s>>, value: Spanned<DeValue<'s>>) {
    let as_list = |v: Spanned<DeValue<'s>>| {
        let r = v.span();
        match v.into_inner() {
            DeValue::Array(a) => a.into_iter().collect::<Vec<_>>(),
            other => vec![Spanned::new(r, other)],
        }
    };
    let span = existing.span();
    let mut acc = as_list(std::mem::replace(
        existing,
        Spanned::new(span.clone(), DeValue::Boolean(false)),
    ));
    for item in as_list(value) {
        if matches!(item.get_ref(), DeValue::String(s) if s == refine::SPLICE) {
            continue;
        }
        if !acc.iter().any(|e| equal(e.get_ref(), item.get_ref())) {
            acc.push(item);
        }
    }
    *existing = Spanned::new(span, DeValue::Array(acc.into_iter().collect()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_maps_to_its_own_file() {
        let mut sources = Sources::default();
        sources.push(PathBuf::from("a.toml"), "a.toml".into(), "abc\n".into());
        sources.push(PathBuf::from("b.toml"), "b.toml".into(), "xyz\n".into());
        let at = |start: usize, end: usize| {
            let (path, _, span) = sources.locate(Span::new(start..end));
            (path.to_string(), span.start)
        };
        assert_eq!(at(1, 2), ("a.toml".to_string(), 1));
        assert_eq!(at(5, 6), ("b.toml".to_string(), 1));
        // An empty span at the end of a file (a syntax error at end of file) is that file's.
        assert_eq!(at(4, 4), ("a.toml".to_string(), 4));
        assert_eq!(at(8, 8), ("b.toml".to_string(), 4));
    }

    #[test]
    fn spec_names_in_extends_are_identifiers() {
        assert!(is_name("guard"));
        assert!(is_name("my_spec2"));
        assert!(!is_name("../guard"));
        assert!(!is_name("Guard"));
        assert!(!is_name(""));
    }
}
