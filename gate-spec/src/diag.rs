//! Diagnostics: stable codes, spans, secondary labels, "did you mean", and caret rendering.
//!
//! Diagnostics are collected, never thrown: parsing and every check push into a
//! [`Diagnostics`] list and carry on, so one run reports every problem in a file.

use crate::ir::Span;
use serde::Serialize;
use std::fmt::Write as _;

/// A stable diagnostic code. The string form (`G0xx`) never changes meaning once shipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Code {
    /// The file is not valid TOML.
    Syntax,
    /// A key that the spec language does not have.
    UnknownKey,
    /// A value of the wrong type, or out of range.
    InvalidValue,
    /// A required key is missing.
    MissingKey,
    /// A reference to a name that is not declared.
    UnknownName,
    /// A name declared twice.
    DuplicateName,
    /// A state no path from the initial state reaches.
    UnreachableState,
    /// A state from which no path leads back to a non-withholding state.
    DeadEndState,
    /// Two transitions from one state on one trigger whose guards can both hold.
    Nondeterminism,
    /// Hysteresis counts that are zero or that a backstop makes unreachable.
    InvalidHysteresis,
    /// A transition arms a window automatically and the spec has no re-arm floor.
    NoRearmFloor,
    /// Tier modes that decrease as risk increases.
    NonMonotonicModes,
    /// A tier with neither an action nor a time backstop.
    NoBackstop,
    /// A template uses a variable that does not exist.
    UnknownTemplateVar,
    /// A transition into a window state withholds (a window licenses nothing).
    WindowBlocks,
    /// A glob or command pattern that does not compile.
    BadPattern,
    /// A signal requires telemetry no runtime provides, or reads a field it does not require.
    UnavailableTelemetry,
    /// The spec is too large for the compiled representation (too many states, …).
    TooLarge,
    /// A template, signal or checkpoint that nothing uses (a warning).
    Unused,
    /// A transition whose guard can never hold on its trigger (a warning).
    GuardNeverHolds,
    /// A template variable the trigger (or effect) using the template never provides (a warning).
    TemplateVarNotProvided,
    /// Composition: two bases declare one thing differently, or a spec extends itself.
    Composition,
    /// Side by side: a spec runs beside itself, directly or through the specs beside it, or a
    /// spec beside it declares project profiles.
    Alongside,
    /// An entry that names no criterion (a rule that would match every action, a checkpoint
    /// with no evidence pattern), or an extending spec's change of an inherited entry that no
    /// base declares (most often a misspelled name).
    NoCriteria,
    /// An extending spec lowers what it inherits (a rule's tier, a tier's mode) without
    /// saying `relax = true`.
    Relaxes,
    /// A template with a quiet period used where it would ask or deny (`ask:`, `deny:`,
    /// `withhold`): quiet periods suppress guidance only.
    QuietBlocks,
    /// A region (`[[region]]`) that cannot work as one: a region with no transitions, a
    /// region state that opens a window or withholds, a region transition that arms or
    /// closes a window, a transition between two state variables, or an initial state of
    /// another variable.
    Region,
}

impl Code {
    pub const ALL: [Code; 27] = [
        Code::Syntax,
        Code::UnknownKey,
        Code::InvalidValue,
        Code::MissingKey,
        Code::UnknownName,
        Code::DuplicateName,
        Code::UnreachableState,
        Code::DeadEndState,
        Code::Nondeterminism,
        Code::InvalidHysteresis,
        Code::NoRearmFloor,
        Code::NonMonotonicModes,
        Code::NoBackstop,
        Code::UnknownTemplateVar,
        Code::WindowBlocks,
        Code::BadPattern,
        Code::UnavailableTelemetry,
        Code::TooLarge,
        Code::Unused,
        Code::GuardNeverHolds,
        Code::TemplateVarNotProvided,
        Code::Composition,
        Code::Alongside,
        Code::NoCriteria,
        Code::Relaxes,
        Code::QuietBlocks,
        Code::Region,
    ];

    /// The stable string form, e.g. `G009`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Syntax => "G001",
            Code::UnknownKey => "G002",
            Code::InvalidValue => "G003",
            Code::MissingKey => "G004",
            Code::UnknownName => "G005",
            Code::DuplicateName => "G006",
            Code::UnreachableState => "G007",
            Code::DeadEndState => "G008",
            Code::Nondeterminism => "G009",
            Code::InvalidHysteresis => "G010",
            Code::NoRearmFloor => "G011",
            Code::NonMonotonicModes => "G012",
            Code::NoBackstop => "G013",
            Code::UnknownTemplateVar => "G014",
            Code::WindowBlocks => "G015",
            Code::BadPattern => "G016",
            Code::UnavailableTelemetry => "G017",
            Code::TooLarge => "G018",
            Code::Unused => "G019",
            Code::GuardNeverHolds => "G020",
            Code::TemplateVarNotProvided => "G021",
            Code::Composition => "G022",
            Code::Alongside => "G023",
            Code::NoCriteria => "G024",
            Code::Relaxes => "G025",
            Code::QuietBlocks => "G026",
            Code::Region => "G027",
        }
    }

    /// A short slug naming the rule, e.g. `nondeterminism`.
    pub fn slug(self) -> &'static str {
        match self {
            Code::Syntax => "syntax",
            Code::UnknownKey => "unknown-key",
            Code::InvalidValue => "invalid-value",
            Code::MissingKey => "missing-key",
            Code::UnknownName => "unknown-name",
            Code::DuplicateName => "duplicate-name",
            Code::UnreachableState => "unreachable-state",
            Code::DeadEndState => "dead-end-state",
            Code::Nondeterminism => "nondeterminism",
            Code::InvalidHysteresis => "invalid-hysteresis",
            Code::NoRearmFloor => "no-rearm-floor",
            Code::NonMonotonicModes => "non-monotonic-modes",
            Code::NoBackstop => "no-backstop",
            Code::UnknownTemplateVar => "unknown-template-var",
            Code::WindowBlocks => "window-blocks",
            Code::BadPattern => "bad-pattern",
            Code::UnavailableTelemetry => "unavailable-telemetry",
            Code::TooLarge => "too-large",
            Code::Unused => "unused",
            Code::GuardNeverHolds => "guard-never-holds",
            Code::TemplateVarNotProvided => "template-var-not-provided",
            Code::Composition => "composition",
            Code::Alongside => "alongside",
            Code::NoCriteria => "no-criteria",
            Code::Relaxes => "relaxes",
            Code::QuietBlocks => "quiet-blocks",
            Code::Region => "region",
        }
    }
}

/// Error or warning. Warnings do not fail `gate check` or the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// A secondary location ("the other transition is here").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    pub labels: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
        }
    }
    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
}

/// A list of diagnostics being collected.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }
    /// How many errors have been collected (a reader compares it before and after an item
    /// to learn whether that item is broken).
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
    /// Sort by position then code, so output order is stable whatever order checks ran in.
    pub fn sort(&mut self) {
        self.items
            .sort_by(|a, b| (a.span, a.code, &a.message).cmp(&(b.span, b.code, &b.message)));
        self.items.dedup();
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment), for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The closest candidate to `name`, if it is close enough to be a likely misspelling.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = name.chars().count().div_ceil(3);
    candidates
        .into_iter()
        .map(|c| (distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// Line and column (both 1-based, column in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(source, offset.min(source.len()));
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = source[line_start..offset].chars().count() + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Characters of a source line shown in an excerpt.
const MAX_EXCERPT: usize = 200;
/// Characters kept before the span when a long line is windowed.
const CONTEXT: usize = 40;

/// Where spans point: the file a span lies in, that file's text, and the span within it. One
/// file maps to itself; a composed spec maps each span to the file it came from
/// ([`crate::compose::Sources`]).
pub trait SourceMap {
    fn locate(&self, span: Span) -> (&str, &str, Span);
}

/// One file: its path as shown and its text.
pub struct OneFile<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

impl SourceMap for OneFile<'_> {
    fn locate(&self, span: Span) -> (&str, &str, Span) {
        (self.path, self.text, span)
    }
}

/// Render one diagnostic as `path:line:col: error[G009]: message` with a caret excerpt.
pub fn render(path: &str, source: &str, d: &Diagnostic) -> String {
    render_in(&OneFile { path, text: source }, d)
}

/// [`render`] over the files of a [`SourceMap`]: each location names its own file.
pub fn render_in(files: &dyn SourceMap, d: &Diagnostic) -> String {
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let (path, text, span) = files.locate(d.span);
    let (line, col) = line_col(text, span.start as usize);
    let header = format!(
        "{path}:{line}:{col}: {severity}[{}]: {}",
        d.code.as_str(),
        d.message
    );
    render_with_header(header, files, d)
}

/// Render one diagnostic for a build, where the compiler or cargo already says `error:` or
/// `warning:` in front: `path:line:col: [G009] message`, then the same excerpt as [`render`].
pub fn render_for_build(path: &str, source: &str, d: &Diagnostic) -> String {
    render_for_build_in(&OneFile { path, text: source }, d)
}

/// [`render_for_build`] over the files of a [`SourceMap`].
pub fn render_for_build_in(files: &dyn SourceMap, d: &Diagnostic) -> String {
    let (path, text, span) = files.locate(d.span);
    let (line, col) = line_col(text, span.start as usize);
    let header = format!("{path}:{line}:{col}: [{}] {}", d.code.as_str(), d.message);
    render_with_header(header, files, d)
}

fn render_with_header(header: String, files: &dyn SourceMap, d: &Diagnostic) -> String {
    let mut out = header;
    out.push('\n');
    let (_, text, span) = files.locate(d.span);
    excerpt(&mut out, text, span, None);
    for label in &d.labels {
        let (path, text, span) = files.locate(label.span);
        let (l, c) = line_col(text, span.start as usize);
        let _ = writeln!(out, "  --> {path}:{l}:{c}: {}", label.message);
        excerpt(&mut out, text, span, None);
    }
    if let Some(help) = &d.help {
        let _ = writeln!(out, "  = help: {help}");
    }
    out
}

/// Render a whole list.
pub fn render_all(path: &str, source: &str, diagnostics: &[Diagnostic]) -> String {
    render_all_in(&OneFile { path, text: source }, diagnostics)
}

/// [`render_all`] over the files of a [`SourceMap`].
pub fn render_all_in(files: &dyn SourceMap, diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| render_in(files, d))
        .collect::<Vec<_>>()
        .join("\n")
}

fn excerpt(out: &mut String, source: &str, span: Span, note: Option<&str>) {
    let start = floor_char_boundary(source, (span.start as usize).min(source.len()));
    let (line, col) = line_col(source, start);
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |i| start + i);
    let end = floor_char_boundary(source, (span.end as usize).clamp(start, line_end));
    let carets = source[start..end].chars().count().max(1);
    // On a long line, show a window that starts a little before the span.
    let skip = if col - 1 + carets.min(CONTEXT) > MAX_EXCERPT {
        (col - 1).saturating_sub(CONTEXT)
    } else {
        0
    };
    let mut text: String = source[line_start..line_end]
        .chars()
        .skip(skip)
        .take(MAX_EXCERPT)
        .collect();
    let mut pad = col - 1 - skip;
    if skip > 0 {
        text.insert(0, '…');
        pad += 1;
    }
    let shown = text.chars().count();
    let carets = carets.min(shown.saturating_sub(pad)).max(1);
    let width = line.to_string().len();
    let _ = writeln!(out, "{:width$} |", "");
    let _ = writeln!(out, "{line:width$} | {text}");
    let _ = writeln!(
        out,
        "{:width$} | {}{}{}",
        "",
        " ".repeat(pad),
        "^".repeat(carets),
        note.map(|n| format!(" {n}")).unwrap_or_default()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn suggestion_needs_to_be_close() {
        assert_eq!(did_you_mean("idel", ["idle", "window"]), Some("idle"));
        assert_eq!(did_you_mean("zzzz", ["idle", "window"]), None);
    }

    #[test]
    fn long_lines_are_windowed_around_the_span() {
        let source = format!("{}bad{}", "a".repeat(1000), "b".repeat(1000));
        let d = Diagnostic::error(Code::InvalidValue, Span::new(1000..1003), "here");
        let text = render("x", &source, &d);
        let lines: Vec<&str> = text.lines().collect();
        let caret_col = lines[3].chars().position(|c| c == '^').expect("a caret");
        let above: String = lines[2].chars().skip(caret_col).take(3).collect();
        assert_eq!(above, "bad", "{text}");
        assert!(lines[2].chars().count() < 220, "{text}");
    }

    #[test]
    fn build_rendering_names_the_place_first_and_no_severity() {
        let source = "[machine]\ninitial = \"idel\"\n";
        let d = Diagnostic::error(Code::UnknownName, Span::new(20..26), "unknown state `idel`")
            .with_help("did you mean `idle`?");
        let text = render_for_build("specs/x.toml", source, &d);
        assert!(
            text.starts_with("specs/x.toml:2:11: [G005] unknown state `idel`\n"),
            "{text}"
        );
        assert!(!text.contains("error"), "{text}");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            render("specs/x.toml", source, &d)
                .lines()
                .skip(1)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn every_code_is_distinct() {
        let mut codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), Code::ALL.len());
    }
}
