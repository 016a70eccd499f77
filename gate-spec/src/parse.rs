//! From TOML text to the IR: a spanned, recoverable parse, then a walk that checks every key
//! and type and resolves every name, collecting diagnostics instead of stopping at the first.
//!
//! The walk runs in two passes: the first collects the declared names of every section (so a
//! reference may point forward), the second reads each declaration and resolves references.

use crate::broken::{Broken, LooseTransition};
use crate::diag::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::ir::*;
use crate::pattern;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

mod calendar;
mod counter;
mod invariant;
mod region;

type Value<'i> = Spanned<DeValue<'i>>;

/// The keys that make a `[[rule]]` select actions: a rule with none of them would match every
/// action (G024), and in a spec that extends others, an entry with none of them can only be a
/// change of an inherited rule (`compose`).
pub(crate) const RULE_CRITERIA: &[&str] = &[
    "tools",
    "classes",
    "paths",
    "commands",
    "effects",
    "locations",
    "phases",
    "profiles",
    "roles",
];

fn span_of<T>(s: &Spanned<T>) -> Span {
    Span::new(s.span())
}

/// Upper bounds that keep ids within their integer types and the control space finite.
const MAX_ITEMS: usize = 255;
/// Profiles: an event carries the active ones as a 64-bit set.
const MAX_PROFILES: usize = 64;
const MAX_COUNT: i64 = 10_000;

/// A declared name list for one section.
#[derive(Default)]
struct Names {
    what: &'static str,
    items: Vec<(String, Span)>,
    /// Indices some reference resolved to, from any item, broken or not.
    used: std::cell::RefCell<std::collections::BTreeSet<usize>>,
    /// Indices of second (and later) declarations of a name.
    dups: std::collections::BTreeSet<usize>,
}

impl Names {
    fn new(what: &'static str) -> Names {
        Names {
            what,
            items: Vec::new(),
            used: Default::default(),
            dups: Default::default(),
        }
    }
    fn declare(&mut self, name: String, span: Span, diags: &mut Diagnostics) {
        if let Some((_, first)) = self.items.iter().find(|(n, _)| *n == name) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    span,
                    format!("{} `{name}` is declared twice", self.what),
                )
                .with_label(*first, "first declared here"),
            );
            self.dups.insert(self.items.len());
        }
        // A duplicate still takes a slot, so indices stay aligned with the section's tables
        // (references resolve to the first declaration).
        self.items.push((name, span));
    }
    fn resolve(&self, name: &str, span: Span, diags: &mut Diagnostics) -> Option<usize> {
        if let Some(i) = self.items.iter().position(|(n, _)| n == name) {
            self.used.borrow_mut().insert(i);
            return Some(i);
        }
        let mut d = Diagnostic::error(
            Code::UnknownName,
            span,
            format!("unknown {} `{name}`", self.what),
        );
        if let Some(s) = did_you_mean(name, self.items.iter().map(|(n, _)| n.as_str())) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if !self.items.is_empty() {
            let list: Vec<&str> = self.items.iter().map(|(n, _)| n.as_str()).collect();
            d = d.with_help(format!("declared: {}", list.join(", ")));
        } else {
            d = d.with_help(format!("this spec declares no {}", self.what));
        }
        diags.push(d);
        None
    }
}

/// A table being read: its entries, where it is, and which keys it may have.
struct Obj<'t, 'i> {
    table: &'t DeTable<'i>,
    span: Span,
    what: String,
}

impl<'t, 'i> Obj<'t, 'i> {
    fn new(table: &'t DeTable<'i>, span: Span, what: impl Into<String>) -> Self {
        Obj {
            table,
            span,
            what: what.into(),
        }
    }

    fn check_keys(&self, allowed: &[&str], diags: &mut Diagnostics) {
        for key in self.table.keys() {
            let k: &str = key.get_ref();
            if !allowed.contains(&k) {
                let mut d = Diagnostic::error(
                    Code::UnknownKey,
                    span_of(key),
                    format!("unknown key `{k}` in {}", self.what),
                );
                d = match did_you_mean(k, allowed.iter().copied()) {
                    Some(s) => d.with_help(format!("did you mean `{s}`?")),
                    None => d.with_help(format!("allowed keys: {}", allowed.join(", "))),
                };
                diags.push(d);
            }
        }
    }

    fn get(&self, key: &str) -> Option<&'t Value<'i>> {
        self.table.get(key)
    }

    fn missing(&self, key: &str, diags: &mut Diagnostics) {
        diags.push(Diagnostic::error(
            Code::MissingKey,
            self.span,
            format!("{} needs `{key}`", self.what),
        ));
    }

    fn str(&self, key: &str, diags: &mut Diagnostics) -> Option<(String, Span)> {
        let v = self.get(key)?;
        match v.get_ref() {
            DeValue::String(s) => Some((s.to_string(), span_of(v))),
            other => {
                type_error(key, "a string", other, span_of(v), diags);
                None
            }
        }
    }

    fn req_str(&self, key: &str, diags: &mut Diagnostics) -> Option<(String, Span)> {
        if self.get(key).is_none() {
            self.missing(key, diags);
            return None;
        }
        self.str(key, diags)
    }

    fn bool(&self, key: &str, diags: &mut Diagnostics) -> Option<bool> {
        let v = self.get(key)?;
        match v.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            other => {
                type_error(key, "true or false", other, span_of(v), diags);
                None
            }
        }
    }

    /// An integer in `min..=max`.
    fn int(&self, key: &str, min: i64, max: i64, diags: &mut Diagnostics) -> Option<(i64, Span)> {
        let v = self.get(key)?;
        let span = span_of(v);
        match v.get_ref() {
            DeValue::Integer(i) => {
                let parsed = i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()).ok();
                match parsed {
                    Some(n) if (min..=max).contains(&n) => Some((n, span)),
                    _ => {
                        diags.push(Diagnostic::error(
                            Code::InvalidValue,
                            span,
                            format!("`{key}` must be an integer from {min} to {max}"),
                        ));
                        None
                    }
                }
            }
            other => {
                type_error(key, "an integer", other, span, diags);
                None
            }
        }
    }

    /// A string or an array of strings.
    fn strings(&self, key: &str, diags: &mut Diagnostics) -> Vec<(String, Span)> {
        let Some(v) = self.get(key) else {
            return Vec::new();
        };
        match v.get_ref() {
            DeValue::String(s) => vec![(s.to_string(), span_of(v))],
            DeValue::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::String(s) => out.push((s.to_string(), span_of(item))),
                        other => type_error(key, "a string", other, span_of(item), diags),
                    }
                }
                out
            }
            other => {
                type_error(
                    key,
                    "a string or an array of strings",
                    other,
                    span_of(v),
                    diags,
                );
                Vec::new()
            }
        }
    }

    fn table(&self, key: &str, diags: &mut Diagnostics) -> Option<(&'t DeTable<'i>, Span)> {
        let v = self.get(key)?;
        match v.get_ref() {
            DeValue::Table(t) => Some((t, span_of(v))),
            other => {
                type_error(key, "a table", other, span_of(v), diags);
                None
            }
        }
    }
}

fn type_name(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn type_error(key: &str, expected: &str, got: &DeValue<'_>, span: Span, diags: &mut Diagnostics) {
    diags.push(Diagnostic::error(
        Code::InvalidValue,
        span,
        format!("`{key}` must be {expected}, found {}", type_name(got)),
    ));
}

/// `[machine] alongside`: the specs whose machines run beside this one, each named once, none
/// of them this spec itself (G023). Whether each names a spec file beside this one is checked
/// where the file is known ([`crate::compose::alongside`]).
fn alongside_names(m: &Obj<'_, '_>, own: Option<&str>, diags: &mut Diagnostics) -> Vec<Text> {
    let mut out: Vec<Text> = Vec::new();
    for (n, s) in m.strings("alongside", diags) {
        let errors = diags.error_count();
        check_ident(&n, s, "alongside spec", diags);
        if diags.error_count() > errors {
            continue;
        }
        if Some(n.as_str()) == own {
            diags.push(
                Diagnostic::error(Code::Alongside, s, format!("spec `{n}` runs beside itself"))
                    .with_help("`alongside` names other specs, whose machines run beside this one"),
            );
        } else if out.iter().any(|o| **o == *n) {
            diags.push(Diagnostic::error(
                Code::DuplicateName,
                s,
                format!("`{n}` is named twice in `alongside`"),
            ));
        } else {
            out.push(n.into());
        }
    }
    out
}

fn check_ident(name: &str, span: Span, what: &str, diags: &mut Diagnostics) {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ok {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                span,
                format!("{what} name `{}` is not an identifier", truncate(name)),
            )
            .with_help(
                "use lower-case letters, digits and `_`, starting with a letter (at most 64)",
            ),
        );
    }
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Entries of an array-of-tables section such as `[[tier]]`, each with its span.
fn section_tables<'t, 'i>(
    root: &'t DeTable<'i>,
    key: &str,
    diags: &mut Diagnostics,
) -> Vec<(&'t DeTable<'i>, Span)> {
    let Some(v) = root.get(key) else {
        return Vec::new();
    };
    match v.get_ref() {
        DeValue::Array(items) => {
            let mut out = Vec::new();
            for item in items.iter() {
                match item.get_ref() {
                    DeValue::Table(t) => out.push((t, span_of(item))),
                    other => type_error(key, "a table (`[[…]]`)", other, span_of(item), diags),
                }
            }
            out
        }
        other => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    span_of(v),
                    format!(
                        "`{key}` must be an array of tables, found {}",
                        type_name(other)
                    ),
                )
                .with_help(format!("write each entry as `[[{key}]]`")),
            );
            Vec::new()
        }
    }
}

fn parse_mode(text: &str, span: Span, diags: &mut Diagnostics) -> Option<Mode> {
    match text {
        "observe" => Some(Mode::Observe),
        "steer" => Some(Mode::Steer),
        "reversible" => Some(Mode::Reversible),
        "gate" => Some(Mode::Gate),
        _ => {
            let mut d = Diagnostic::error(
                Code::InvalidValue,
                span,
                format!("unknown mode `{}`", truncate(text)),
            );
            d = match did_you_mean(text, ["observe", "steer", "reversible", "gate"]) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help("a mode is one of observe, steer, reversible, gate"),
            };
            diags.push(d);
            None
        }
    }
}

fn parse_enum<T: Copy>(
    text: &str,
    span: Span,
    what: &str,
    all: &[T],
    name: impl Fn(T) -> &'static str,
    diags: &mut Diagnostics,
) -> Option<T> {
    if let Some(v) = all.iter().copied().find(|v| name(*v) == text) {
        return Some(v);
    }
    let names: Vec<&str> = all.iter().map(|v| name(*v)).collect();
    let mut d = Diagnostic::error(
        Code::InvalidValue,
        span,
        format!("unknown {what} `{}`", truncate(text)),
    );
    d = match did_you_mean(text, names.iter().copied()) {
        Some(s) => d.with_help(format!("did you mean `{s}`?")),
        None => d.with_help(format!("one of: {}", names.join(", "))),
    };
    diags.push(d);
    None
}

/// The span of `needle` inside the source text of a string value (falls back to the value).
fn inner_span(source: &str, value: Span, offset_hint: usize, needle: &str) -> Span {
    let range = value.range();
    if let Some(text) = source.get(range.clone()) {
        if let Some(i) = text
            .get(offset_hint.min(text.len())..)
            .and_then(|t| t.find(needle))
        {
            let start = range.start + offset_hint.min(text.len()) + i;
            return Span::new(start..start + needle.len());
        }
        if let Some(i) = text.find(needle) {
            return Span::new(range.start + i..range.start + i + needle.len());
        }
    }
    value
}

/// Parse a spec source into the IR. Returns the IR only when there is no error.
pub fn parse(source: &str, diags: &mut Diagnostics) -> Option<Spec> {
    let (spec, _) = parse_partial(source, diags)?;
    (!diags.has_errors()).then_some(spec)
}

/// Parse a spec source into the IR, keeping what is well formed even when some items have
/// errors: the broken items are listed in [`Broken`] (placeholders in the IR, or left out),
/// so the whole-machine checks can run on the rest in the same round. `None` only when the
/// file is not TOML, too large, or lacks what every check needs (a `[machine]`, a tier, a
/// state, a kind).
pub fn parse_partial(source: &str, diags: &mut Diagnostics) -> Option<(Spec, Broken)> {
    let mut root = parse_toml(source, 0, diags)?;
    let extends = matches!(
        root.get_ref().get("machine").map(|m| m.get_ref()),
        Some(DeValue::Table(m)) if m.contains_key("extends")
    );
    if !extends {
        // The same answer as for the file, which composition gives (see `compile_file`).
        crate::refine::without_bases(root.get_mut(), diags);
    }
    parse_root(source, &root, diags)
}

/// The spanned TOML tree of one file whose text starts at byte `base` of the text spans
/// refer to (0 for a single file; see [`crate::compose`]), or `None` after a syntax error
/// (G001): what follows one is a guess, and reporting its consequences would bury the real
/// mistake under a cascade.
pub fn parse_toml<'i>(
    text: &'i str,
    base: usize,
    diags: &mut Diagnostics,
) -> Option<Spanned<DeTable<'i>>> {
    let (root, errors) = DeTable::parse_recoverable(text);
    for e in &errors {
        let span = e
            .span()
            .map(|r| Span::new(r.start + base..r.end + base))
            .unwrap_or(Span::new(base..base));
        diags.push(Diagnostic::error(
            Code::Syntax,
            span,
            format!("invalid TOML: {}", e.message().trim()),
        ));
    }
    errors.is_empty().then_some(root)
}

/// Read a spanned TOML tree into the IR (see [`parse_partial`]). `source` is the text the
/// tree's spans index: the file itself, or the texts of a composed spec's files end to end.
pub fn parse_root(
    source: &str,
    root: &Spanned<DeTable<'_>>,
    diags: &mut Diagnostics,
) -> Option<(Spec, Broken)> {
    let mut broken = Broken::default();
    let root_span = span_of(root);
    let root = root.get_ref();
    let top = Obj::new(root, root_span, "the spec");
    top.check_keys(
        &[
            "machine",
            "tier",
            "rule",
            "signal",
            "rearm",
            "checkpoint",
            "state",
            "transition",
            "template",
            "role",
            "profile",
            "invariant",
            "counter",
            "region",
        ],
        diags,
    );

    // Pass 1: declared names.
    let machine = top.table("machine", diags);
    let tier_tables = section_tables(root, "tier", diags);
    let rule_tables = section_tables(root, "rule", diags);
    let signal_tables = section_tables(root, "signal", diags);
    let checkpoint_tables = section_tables(root, "checkpoint", diags);
    let state_tables = section_tables(root, "state", diags);
    let transition_tables = section_tables(root, "transition", diags);
    let role_tables = section_tables(root, "role", diags);
    let profile_tables = section_tables(root, "profile", diags);
    let counter_tables = section_tables(root, "counter", diags);
    let region_tables = section_tables(root, "region", diags);

    let mut tiers = Names::new("tier");
    let mut kinds = Names::new("kind");
    let mut signals = Names::new("signal");
    let mut checkpoints = Names::new("checkpoint");
    let mut states = Names::new("state");
    let mut templates = Names::new("template");
    let mut roles = Names::new("role");
    let mut rules = Names::new("rule");
    let mut profiles = Names::new("profile");
    let mut counters = Names::new("counter");
    let mut regions = Names::new("region");

    let declare = |tables: &[(&DeTable, Span)], names: &mut Names, diags: &mut Diagnostics| {
        for (t, span) in tables {
            let obj = Obj::new(t, *span, format!("[[{}]]", names.what));
            if let Some((name, nspan)) = obj.req_str("name", diags) {
                check_ident(&name, nspan, names.what, diags);
                names.declare(name, nspan, diags);
            } else {
                // Keep indices aligned with the tables: an unnamed entry still takes a slot.
                names.items.push((String::new(), *span));
            }
        }
    };
    declare(&tier_tables, &mut tiers, diags);
    declare(&rule_tables, &mut rules, diags);
    declare(&signal_tables, &mut signals, diags);
    declare(&checkpoint_tables, &mut checkpoints, diags);
    declare(&state_tables, &mut states, diags);
    declare(&role_tables, &mut roles, diags);
    declare(&profile_tables, &mut profiles, diags);
    declare(&counter_tables, &mut counters, diags);
    declare(&region_tables, &mut regions, diags);
    if let Some((_, span)) = profiles.items.get(MAX_PROFILES) {
        diags.push(Diagnostic::error(
            Code::TooLarge,
            *span,
            format!("a spec may declare at most {MAX_PROFILES} profiles"),
        ));
        return None;
    }

    let machine_obj = machine.map(|(t, s)| Obj::new(t, s, "[machine]"));
    if let Some(m) = &machine_obj {
        for (k, span) in m.strings("kinds", diags) {
            check_ident(&k, span, "kind", diags);
            kinds.declare(k, span, diags);
        }
    }
    let template_table = top.table("template", diags);
    let mut template_values: Vec<(String, Span, Option<Quiet>)> = Vec::new();
    if let Some((t, _)) = template_table {
        for (k, v) in t.iter() {
            let name = k.get_ref().to_string();
            check_ident(&name, span_of(k), "template", diags);
            templates.declare(name.clone(), span_of(k), diags);
            template_values.push(template_value(&name, v, diags));
        }
    }

    for (names, what) in [
        (&tiers, "tiers"),
        (&kinds, "kinds"),
        (&signals, "signals"),
        (&checkpoints, "checkpoints"),
        (&states, "states"),
        (&templates, "templates"),
        (&roles, "roles"),
        (&profiles, "profiles"),
        (&counters, "counters"),
    ] {
        if names.items.len() > MAX_ITEMS {
            diags.push(Diagnostic::error(
                Code::TooLarge,
                names.items[MAX_ITEMS].1,
                format!("a spec may declare at most {MAX_ITEMS} {what}"),
            ));
            return None;
        }
    }
    if rules.items.len() > u16::MAX as usize {
        diags.push(Diagnostic::error(
            Code::TooLarge,
            root_span,
            "too many rules",
        ));
        return None;
    }

    // Pass 2: read everything.
    let Some(m) = machine_obj else {
        diags.push(
            Diagnostic::error(
                Code::MissingKey,
                Span::default(),
                "the spec has no [machine] table",
            )
            .with_help("start the file with [machine] name = \"…\" initial = \"…\""),
        );
        return None;
    };
    m.check_keys(
        &[
            "name",
            "description",
            "extends",
            "alongside",
            "initial",
            "scope",
            "fail",
            "kinds",
            "default_tier",
            "default_kind",
        ],
        diags,
    );
    if let Some(v) = m.get("extends") {
        // Composition resolves `extends` before parsing and takes it out of the tree
        // (`crate::compose`); here the spec came as text, with no file to resolve it from.
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                span_of(v),
                "this spec extends others, which are found beside its file: compile it from its file",
            )
            .with_help("`gate check FILE`, `--spec-file FILE` and the specs! macro resolve `extends`"),
        );
    }
    let name = m.req_str("name", diags);
    if let Some((n, s)) = &name {
        check_ident(n, *s, "machine", diags);
    }
    let description = m.str("description", diags).map(|d| d.0).unwrap_or_default();
    let alongside = alongside_names(&m, name.as_ref().map(|(n, _)| n.as_str()), diags);
    let initial = m
        .req_str("initial", diags)
        .and_then(|(n, s)| states.resolve(&n, s, diags));
    let scope = m
        .str("scope", diags)
        .and_then(|(s, span)| {
            parse_enum(
                &s,
                span,
                "scope",
                &[Scope::Session, Scope::SessionAgent, Scope::Repo],
                |v| match v {
                    Scope::Session => "session",
                    Scope::SessionAgent => "session_agent",
                    Scope::Repo => "repo",
                },
                diags,
            )
        })
        .unwrap_or(Scope::Session);
    let fail = m
        .str("fail", diags)
        .and_then(|(s, span)| parse_fail(&s, span, diags))
        .unwrap_or(FailPolicy::Open);
    if kinds.items.is_empty() {
        m.missing("kinds", diags);
    }
    let default_tier = match m.str("default_tier", diags) {
        Some((n, s)) => tiers.resolve(&n, s, diags),
        None => (!tiers.items.is_empty()).then_some(0),
    };
    let default_kind = match m.str("default_kind", diags) {
        Some((n, s)) => kinds.resolve(&n, s, diags),
        None => (!kinds.items.is_empty()).then_some(0),
    };

    // Templates.
    let mut ir_templates = Vec::new();
    for ((tname, tspan), (text, vspan, quiet)) in templates.items.iter().zip(&template_values) {
        let parts = parse_template(source, text, *vspan, diags);
        ir_templates.push(Template {
            name: tname.clone().into(),
            span: *tspan,
            parts,
            quiet: *quiet,
        });
    }

    // Tiers.
    let mut ir_tiers = Vec::new();
    if tier_tables.is_empty() {
        diags.push(
            Diagnostic::error(Code::MissingKey, root_span, "the spec declares no [[tier]]")
                .with_help("declare at least one tier, lowest risk first"),
        );
    }
    for ((t, span), (tname, _)) in tier_tables.iter().zip(&tiers.items) {
        let errors = diags.error_count();
        let o = Obj::new(t, *span, format!("[[tier]] `{tname}`"));
        o.check_keys(
            &[
                "name",
                "mode",
                "fail",
                "max_actions",
                "max_secs",
                "baseline",
            ],
            diags,
        );
        let mode = o
            .req_str("mode", diags)
            .and_then(|(s, sp)| parse_mode(&s, sp, diags))
            .unwrap_or(Mode::Observe);
        let fail = o
            .str("fail", diags)
            .and_then(|(s, sp)| parse_fail(&s, sp, diags))
            .unwrap_or(fail);
        let max_actions = o
            .int("max_actions", 1, MAX_COUNT * 100, diags)
            .map(|v| v.0 as u32);
        let max_secs = o.int("max_secs", 1, 86_400 * 30, diags).map(|v| v.0 as u32);
        let baseline = o.table("baseline", diags).and_then(|(bt, bspan)| {
            let b = Obj::new(bt, bspan, "`baseline`");
            b.check_keys(
                &["min_actions", "max_actions", "min_secs", "max_secs"],
                diags,
            );
            let get = |k: &str, diags: &mut Diagnostics| match b.int(k, 1, MAX_COUNT * 100, diags) {
                Some(v) => Some(v.0 as u32),
                None => {
                    if b.get(k).is_none() {
                        b.missing(k, diags);
                    }
                    None
                }
            };
            let min_actions = get("min_actions", diags);
            let max_actions = get("max_actions", diags);
            let min_secs = get("min_secs", diags);
            let max_secs = get("max_secs", diags);
            let baseline = Baseline {
                min_actions: min_actions?,
                max_actions: max_actions?,
                min_secs: min_secs?,
                max_secs: max_secs?,
            };
            if baseline.min_actions > baseline.max_actions || baseline.min_secs > baseline.max_secs
            {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    bspan,
                    "baseline clamps must have min <= max",
                ));
            }
            Some(baseline)
        });
        if tname.is_empty() || tiers.dups.contains(&ir_tiers.len()) || diags.error_count() > errors
        {
            broken.tiers.insert(ir_tiers.len() as TierId);
        }
        ir_tiers.push(Tier {
            name: tname.clone().into(),
            span: tiers.items[ir_tiers.len()].1,
            mode,
            fail,
            backstop: Backstop {
                max_actions,
                max_secs,
                baseline,
                span: *span,
            },
        });
    }

    // Rules.
    let mut ir_rules = Vec::new();
    for ((t, span), (rname, rspan)) in rule_tables.iter().zip(&rules.items) {
        let o = Obj::new(t, *span, format!("[[rule]] `{rname}`"));
        o.check_keys(
            &[
                "name",
                "tools",
                "classes",
                "paths",
                "commands",
                "except_commands",
                "except_paths",
                "phases",
                "effects",
                "locations",
                "tier",
                "kind",
                "reason",
                "profiles",
                "roles",
            ],
            diags,
        );
        let rule_profiles = o
            .strings("profiles", diags)
            .into_iter()
            .filter_map(|(n, s)| profiles.resolve(&n, s, diags))
            .map(|i| i as ProfileId)
            .collect();
        let rule_roles = o
            .strings("roles", diags)
            .into_iter()
            .filter_map(|(n, s)| roles.resolve(&n, s, diags))
            .map(|i| i as RoleId)
            .collect();
        let tools = glob_list(&o, "tools", source, false, diags);
        let paths = glob_list(&o, "paths", source, true, diags);
        let commands = command_list(&o, "commands", source, diags);
        let except_paths = glob_list(&o, "except_paths", source, true, diags);
        let except_commands = command_list(&o, "except_commands", source, diags);
        let classes = o
            .strings("classes", diags)
            .into_iter()
            .filter_map(|(s, sp)| {
                parse_enum(
                    &s,
                    sp,
                    "action class",
                    &ActionClass::ALL,
                    ActionClass::as_str,
                    diags,
                )
            })
            .collect();
        let phases = o
            .strings("phases", diags)
            .into_iter()
            .filter_map(|(s, sp)| parse_enum(&s, sp, "phase", &Phase::ALL, Phase::as_str, diags))
            .collect();
        let effects = o
            .strings("effects", diags)
            .into_iter()
            .filter_map(|(s, sp)| parse_enum(&s, sp, "effect", Act::ALL, Act::as_str, diags))
            .collect();
        let locations = o
            .strings("locations", diags)
            .into_iter()
            .filter_map(|(s, sp)| parse_enum(&s, sp, "location", Place::ALL, Place::as_str, diags))
            .collect();
        let tier = o
            .str("tier", diags)
            .and_then(|(n, s)| tiers.resolve(&n, s, diags))
            .map(|i| i as TierId);
        let kind = o
            .str("kind", diags)
            .and_then(|(n, s)| kinds.resolve(&n, s, diags))
            .map(|i| i as KindId);
        if tier.is_none() && kind.is_none() && o.get("tier").is_none() && o.get("kind").is_none() {
            diags.push(
                Diagnostic::error(
                    Code::MissingKey,
                    *span,
                    format!("[[rule]] `{rname}` sets neither `tier` nor `kind`"),
                )
                .with_help("a rule classifies: give it a tier, a kind, or both"),
            );
        }
        if RULE_CRITERIA.iter().all(|k| o.get(k).is_none()) {
            // Most often a misspelled refinement of an inherited rule (`outward_change` for
            // `outward_changes`): merged by name, it became a new rule that matches everything.
            let others = rules
                .items
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| n != rname);
            let help = match crate::diag::did_you_mean(rname, others) {
                Some(close) => format!(
                    "did you mean `{close}`? A rule with none of {} matches every action; to \
                     classify everything, set the spec's `default_tier` instead",
                    RULE_CRITERIA.join(", ")
                ),
                None => format!(
                    "give it one of {}; to classify everything, set the spec's `default_tier`",
                    RULE_CRITERIA.join(", ")
                ),
            };
            diags.push(
                Diagnostic::error(
                    Code::NoCriteria,
                    *rspan,
                    format!("[[rule]] `{rname}` names no criterion: it would match every action"),
                )
                .with_help(help),
            );
        }
        let reason = o.str("reason", diags).map(|r| r.0).unwrap_or_default();
        ir_rules.push(Rule {
            name: rname.clone().into(),
            span: *rspan,
            tools,
            classes,
            paths,
            commands,
            except_commands,
            except_paths,
            phases,
            effects,
            locations,
            tier,
            kind,
            reason: reason.into(),
            profiles: rule_profiles,
            roles: rule_roles,
        });
    }

    // Profiles.
    let mut ir_profiles = Vec::new();
    for ((t, span), (pname, pspan)) in profile_tables.iter().zip(&profiles.items) {
        let o = Obj::new(t, *span, format!("[[profile]] `{pname}`"));
        o.check_keys(&["name", "detect"], diags);
        let detect: Vec<Text> = o
            .strings("detect", diags)
            .into_iter()
            .filter_map(|(file, fspan)| {
                let plain = !file.is_empty() && !file.contains(['/', '\\']) && file != "..";
                if !plain {
                    diags.push(Diagnostic::error(
                        Code::InvalidValue,
                        fspan,
                        format!(
                            "`detect` entries are file names at the repository root, found `{}`",
                            truncate(&file)
                        ),
                    ));
                }
                plain.then(|| file.into())
            })
            .collect();
        if detect.is_empty() && o.get("detect").is_none() {
            diags.push(Diagnostic::error(
                Code::MissingKey,
                *span,
                format!("[[profile]] `{pname}` has no `detect` files"),
            ));
        }
        ir_profiles.push(Profile {
            name: pname.clone().into(),
            span: *pspan,
            detect,
        });
    }

    // Signals.
    let mut ir_signals = Vec::new();
    for ((t, span), (sname, sspan)) in signal_tables.iter().zip(&signals.items) {
        let errors = diags.error_count();
        let o = Obj::new(t, *span, format!("[[signal]] `{sname}`"));
        o.check_keys(
            &[
                "name",
                "family",
                "enter",
                "exit",
                "requires",
                "tier",
                "count",
                "depth",
                "events",
                "max_actions",
                "max_secs",
                "max",
                "per_secs",
                "days",
                "from",
                "until",
                "zone",
            ],
            diags,
        );
        let enter = o.int("enter", 0, MAX_COUNT, diags);
        let exit = o.int("exit", 0, MAX_COUNT, diags);
        for (k, v) in [("enter", enter), ("exit", exit)] {
            match v {
                Some((0, s)) => diags.push(
                    Diagnostic::error(
                        Code::InvalidHysteresis,
                        s,
                        format!("`{k}` must be at least 1"),
                    )
                    .with_help(
                        "a count of 0 would turn the signal on (or off) with no evidence at all",
                    ),
                ),
                None if o.get(k).is_none() => o.missing(k, diags),
                _ => {}
            }
        }
        let family_name = o.req_str("family", diags);
        if let Some((f, _)) = &family_name {
            check_family_params(&o, f, diags);
        }
        let family = family_name.and_then(|(f, fspan)| {
            let count = |diags: &mut Diagnostics| match o.int("count", 1, MAX_COUNT, diags) {
                Some(v) => Some(v.0 as u16),
                None => {
                    if o.get("count").is_none() {
                        o.missing("count", diags);
                    }
                    None
                }
            };
            Some(match f.as_str() {
                "kind_shift" => Family::KindShift,
                "tier_at_least" => {
                    let (n, s) = o.req_str("tier", diags)?;
                    Family::TierAtLeast {
                        tier: tiers.resolve(&n, s, diags)? as TierId,
                    }
                }
                "failure_streak" => Family::FailureStreak {
                    count: count(diags)?,
                },
                "repeated_target" => Family::RepeatedTarget {
                    count: count(diags)?,
                },
                "scope_change" => Family::ScopeChange {
                    depth: o.int("depth", 1, 64, diags).map_or(1, |v| v.0 as u16),
                },
                "lifecycle" => {
                    let events: Vec<Phase> = o
                        .strings("events", diags)
                        .into_iter()
                        .filter_map(|(s, sp)| {
                            parse_enum(&s, sp, "phase", &Phase::ALL, Phase::as_str, diags)
                        })
                        .collect();
                    match o.get("events") {
                        None => o.missing("events", diags),
                        Some(v) if matches!(v.get_ref(), DeValue::Array(a) if a.is_empty()) => {
                            diags.push(Diagnostic::error(
                                Code::InvalidValue,
                                span_of(v),
                                "`events` is empty: a lifecycle signal needs at least one phase",
                            ))
                        }
                        Some(_) => {}
                    }
                    Family::Lifecycle {
                        events: events.into(),
                    }
                }
                "budget" => Family::Budget {
                    max_actions: o
                        .int("max_actions", 1, MAX_COUNT * 100, diags)
                        .map(|v| v.0 as u32),
                    max_secs: o.int("max_secs", 1, 86_400 * 30, diags).map(|v| v.0 as u32),
                },
                "rate" => {
                    let max = o.int("max", 1, MAX_COUNT * 100, diags);
                    let per = o.int("per_secs", 1, 86_400, diags);
                    if o.get("max").is_none() {
                        o.missing("max", diags);
                    }
                    if o.get("per_secs").is_none() {
                        o.missing("per_secs", diags);
                    }
                    Family::Rate {
                        max: max?.0 as u32,
                        per_secs: per?.0 as u32,
                    }
                }
                "denied" => Family::Denied,
                "calendar" => calendar::parse_family(&o, diags)?,
                other => {
                    parse_enum(
                        other,
                        fspan,
                        "signal family",
                        &[
                            "kind_shift",
                            "tier_at_least",
                            "failure_streak",
                            "repeated_target",
                            "scope_change",
                            "lifecycle",
                            "budget",
                            "rate",
                            "denied",
                            "calendar",
                        ],
                        |s| s,
                        diags,
                    );
                    return None;
                }
            })
        });
        let requires: Vec<Telemetry> = o
            .strings("requires", diags)
            .into_iter()
            .filter_map(|(s, sp)| parse_telemetry(&s, sp, diags))
            .collect();
        let family = family.unwrap_or(Family::KindShift);
        let samples = samples_of(&family);
        let signal = Signal {
            name: sname.clone().into(),
            span: *sspan,
            family,
            enter: enter.map_or(1, |v| v.0.max(1) as u16),
            exit: exit.map_or(1, |v| v.0.max(1) as u16),
            requires: requires.into(),
            samples: samples.into(),
        };
        if let Some((n, enter_span)) = enter {
            if n > 0 {
                crate::check::check_enter_within_backstop(&ir_tiers, &signal, enter_span, diags);
            }
        }
        if sname.is_empty()
            || signals.dups.contains(&ir_signals.len())
            || diags.error_count() > errors
        {
            broken.signals.insert(ir_signals.len() as SignalId);
        }
        ir_signals.push(signal);
    }

    // Re-arm floor.
    let errors = diags.error_count();
    let rearm = match top.table("rearm", diags) {
        Some((t, span)) => {
            let o = Obj::new(t, span, "[rearm]");
            o.check_keys(&["min_actions", "min_secs"], diags);
            Rearm {
                min_actions: o
                    .int("min_actions", 0, MAX_COUNT, diags)
                    .map_or(0, |v| v.0 as u16),
                min_secs: o
                    .int("min_secs", 0, 86_400, diags)
                    .map_or(0, |v| v.0 as u32),
                span: Some(span),
            }
        }
        None => Rearm::default(),
    };
    broken.rearm = diags.error_count() > errors;

    // Checkpoints.
    let mut ir_checkpoints = Vec::new();
    for ((t, span), (cname, cspan)) in checkpoint_tables.iter().zip(&checkpoints.items) {
        let errors = diags.error_count();
        let o = Obj::new(t, *span, format!("[[checkpoint]] `{cname}`"));
        o.check_keys(
            &[
                "name",
                "tools",
                "targets",
                "commands",
                "except_commands",
                "events",
                "status",
            ],
            diags,
        );
        let tools = glob_list(&o, "tools", source, false, diags);
        let targets = glob_list(&o, "targets", source, false, diags);
        let commands = command_list(&o, "commands", source, diags);
        let except_commands = command_list(&o, "except_commands", source, diags);
        let events: Vec<Phase> = o
            .strings("events", diags)
            .into_iter()
            .filter_map(|(s, sp)| parse_enum(&s, sp, "phase", &Phase::ALL, Phase::as_str, diags))
            .collect();
        let given = |k: &str| {
            o.get(k)
                .is_some_and(|v| !matches!(v.get_ref(), DeValue::Array(a) if a.is_empty()))
        };
        if !given("tools") && !given("events") && !given("commands") {
            diags.push(
                Diagnostic::error(
                    Code::NoCriteria,
                    *span,
                    format!("[[checkpoint]] `{cname}` has no evidence pattern"),
                )
                .with_help("give `commands`, `tools` (with optional `targets`) or `events`"),
            );
        }
        let status = o
            .str("status", diags)
            .and_then(|(s, sp)| {
                parse_enum(
                    &s,
                    sp,
                    "status",
                    &[
                        StatusFilter::Any,
                        StatusFilter::Success,
                        StatusFilter::Failure,
                    ],
                    |v| match v {
                        StatusFilter::Any => "any",
                        StatusFilter::Success => "success",
                        StatusFilter::Failure => "failure",
                    },
                    diags,
                )
            })
            .unwrap_or(StatusFilter::Any);
        if cname.is_empty()
            || checkpoints.dups.contains(&ir_checkpoints.len())
            || diags.error_count() > errors
        {
            broken
                .checkpoints
                .insert(ir_checkpoints.len() as CheckpointId);
        }
        ir_checkpoints.push(Checkpoint {
            name: cname.clone().into(),
            span: *cspan,
            tools,
            targets,
            commands,
            except_commands,
            events: events.into(),
            status,
        });
    }

    // States.
    let mut ir_states = Vec::new();
    if state_tables.is_empty() {
        diags.push(Diagnostic::error(
            Code::MissingKey,
            root_span,
            "the spec declares no [[state]]",
        ));
    }
    for ((t, span), (sname, sspan)) in state_tables.iter().zip(&states.items) {
        let errors = diags.error_count();
        let o = Obj::new(t, *span, format!("[[state]] `{sname}`"));
        o.check_keys(
            &[
                "name",
                "window",
                "withhold",
                "timeout_secs",
                "restart",
                "group",
                "region",
            ],
            diags,
        );
        let region = region::of_state(&o, &regions, diags);
        if let Some(r) = region {
            region::check_state(&o, sname, &regions.items[r as usize].0, diags);
        }
        let group = o.str("group", diags).and_then(|(text, gspan)| {
            let text = text.trim().to_string();
            if text.is_empty() {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    gspan,
                    "`group` names the group the state is drawn in; it cannot be empty",
                ));
                return None;
            }
            Some(text)
        });
        let window = o.bool("window", diags).unwrap_or(false);
        let timeout_secs = o
            .int("timeout_secs", 1, 86_400 * 30, diags)
            .map(|v| v.0 as u32);
        let restart = o.bool("restart", diags).unwrap_or(false);
        if restart && timeout_secs.is_none() {
            let at = o.get("restart").map_or(*span, span_of);
            diags.push(
                Diagnostic::error(
                    Code::MissingKey,
                    at,
                    format!("state `{sname}` restarts a timer it does not have"),
                )
                .with_help("`restart = true` needs `timeout_secs`"),
            );
        }
        let withhold_errors = diags.error_count();
        let withhold = o.str("withhold", diags).and_then(|(text, wspan)| {
            let (kind, tmpl) = text.split_once(':').unwrap_or((text.as_str(), ""));
            let block = match kind {
                "ask" => Block::Ask,
                "deny" => Block::Deny,
                _ => {
                    diags.push(Diagnostic::error(
                        Code::InvalidValue,
                        wspan,
                        format!(
                            "`withhold` must be `ask:<template>` or `deny:<template>`, found `{}`",
                            truncate(&text)
                        ),
                    ));
                    return None;
                }
            };
            let tspan = inner_span(source, wspan, 1 + kind.len() + 1, tmpl);
            let template = templates.resolve(tmpl, tspan, diags)? as TemplateId;
            Some(Withhold {
                block,
                template,
                span: wspan,
            })
        });
        broken.unresolved_template |= diags.error_count() > withhold_errors;
        if sname.is_empty()
            || states.dups.contains(&ir_states.len())
            || diags.error_count() > errors
        {
            broken.states.insert(ir_states.len() as StateId);
        }
        ir_states.push(State {
            name: sname.clone().into(),
            span: *sspan,
            window,
            withhold,
            timeout_secs,
            restart,
            group: group.map(Into::into),
            region,
        });
    }

    // Roles.
    let mut ir_roles = Vec::new();
    for ((t, span), (rname, rspan)) in role_tables.iter().zip(&roles.items) {
        let errors = diags.error_count();
        let o = Obj::new(t, *span, format!("[[role]] `{rname}`"));
        o.check_keys(&["name", "subagent_types", "env", "modes"], diags);
        let subagent_types = glob_list(&o, "subagent_types", source, false, diags);
        let mut env = Vec::new();
        for (text, espan) in o.strings("env", diags) {
            match text.split_once('=') {
                Some((k, v)) if !k.is_empty() => env.push((k.to_string(), v.to_string())),
                _ => diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    espan,
                    format!(
                        "`env` entries are `NAME=VALUE`, found `{}`",
                        truncate(&text)
                    ),
                )),
            }
        }
        let mut modes = vec![None; tiers.items.len()];
        if let Some((mt, mspan)) = o.table("modes", diags) {
            for (k, v) in mt.iter() {
                let key: &str = k.get_ref();
                if key == "all" {
                    if let DeValue::String(s) = v.get_ref() {
                        if let Some(mode) = parse_mode(s, span_of(v), diags) {
                            modes.iter_mut().for_each(|m| *m = m.or(Some(mode)));
                        }
                    } else {
                        type_error(key, "a mode", v.get_ref(), span_of(v), diags);
                    }
                    continue;
                }
                let Some(tier) = tiers.resolve(key, span_of(k), diags) else {
                    continue;
                };
                match v.get_ref() {
                    DeValue::String(s) => {
                        if let Some(mode) = parse_mode(s, span_of(v), diags) {
                            modes[tier] = Some(mode);
                        }
                    }
                    other => type_error(key, "a mode", other, span_of(v), diags),
                }
            }
            let _ = mspan;
        }
        if rname.is_empty() || roles.dups.contains(&ir_roles.len()) || diags.error_count() > errors
        {
            broken.roles.insert(ir_roles.len() as RoleId);
        }
        ir_roles.push(Role {
            name: rname.clone().into(),
            span: *rspan,
            subagent_types,
            env: env.into_iter().map(|(k, v)| (k.into(), v.into())).collect(),
            modes: modes.into(),
        });
    }

    let ir_counters = counter::parse_all(&counter_tables, &counters, diags);

    // Transitions.
    let mut ir_transitions = Vec::new();
    for (t, span) in &transition_tables {
        let errors = diags.error_count();
        let o = Obj::new(t, *span, "[[transition]]");
        o.check_keys(&["from", "on", "guard", "to", "effects"], diags);
        let froms = o.strings("from", diags);
        match o.get("from") {
            None => o.missing("from", diags),
            Some(v) if matches!(v.get_ref(), DeValue::Array(a) if a.is_empty()) => diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    span_of(v),
                    "`from` is empty: this transition has no source state",
                )
                .with_help("name one or more states, or `\"*\"` for every state"),
            ),
            Some(_) => {}
        }
        let mut from_ids = Vec::new();
        let mut from_known = o.get("from").is_some();
        for (f, fspan) in &froms {
            match region::expand_from(f, *fspan, &states, &regions, &ir_states, diags) {
                Some(ids) => from_ids.extend(ids),
                None => from_known = false,
            }
        }
        let trigger_errors = diags.error_count();
        let trigger = match o.get("on") {
            Some(v) if matches!(v.get_ref(), DeValue::Array(_)) => {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        span_of(v),
                        "`on` must be one trigger, found an array",
                    )
                    .with_help(crate::hints::ONE_TRIGGER),
                );
                None
            }
            _ => o.req_str("on", diags).and_then(|(text, tspan)| {
                parse_trigger(source, &text, tspan, &signals, &checkpoints, &tiers, diags)
            }),
        };
        broken.unresolved_trigger |= diags.error_count() > trigger_errors;
        let to = match o.str("to", diags) {
            Some((n, s)) if n == "*" => {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    s,
                    "`to` names one state; leave it out to stay in the current state",
                ));
                None
            }
            Some((n, s)) => states.resolve(&n, s, diags).map(Some),
            None => Some(None),
        };
        let guard = match o.table("guard", diags) {
            Some((gt, gspan)) => {
                let mut guard = parse_guard(gt, gspan, &tiers, &kinds, &roles, diags);
                let o = Obj::new(gt, gspan, "`guard`");
                guard.counters = counter::parse_guard(source, &o, &counters, &ir_counters, diags);
                guard.states = region::parse_in(&o, &states, &regions, &ir_states, diags).into();
                guard
            }
            None => Guard::default(),
        };
        let mut effects = Vec::new();
        let effect_errors = diags.error_count();
        for (text, espan) in o.strings("effects", diags) {
            if let Some(e) = parse_effect(source, &text, espan, &templates, &counters, diags) {
                effects.push(e);
            }
        }
        broken.unresolved_template |= diags.error_count() > effect_errors;
        region::check_transition(
            *span,
            &from_ids,
            to.flatten(),
            &effects,
            &ir_states,
            &regions,
            diags,
        );
        let (Some(trigger), Some(to), false) = (trigger, to, diags.error_count() > errors) else {
            broken.transitions.push(LooseTransition {
                span: *span,
                from: from_known.then(|| from_ids.iter().map(|&i| i as StateId).collect()),
                to: to.map(|to| to.map(|i| i as StateId)),
            });
            continue;
        };
        for from in from_ids {
            ir_transitions.push(Transition {
                span: *span,
                from: from as StateId,
                trigger,
                guard: guard.clone(),
                to: to.unwrap_or(from) as StateId,
                effects: effects.clone().into(),
            });
        }
    }

    let ir_regions = region::parse_all(&region_tables, &regions, &states, &ir_states, diags);
    if initial.is_some_and(|i| ir_states.get(i).is_some_and(|s| s.region.is_some())) {
        if let Some((n, s)) = m.str("initial", diags) {
            diags.push(Diagnostic::error(
                Code::Region,
                s,
                format!("`{n}` is a region's state: the machine's `initial` is one of its own states"),
            ).with_help("a region names its own initial state in its `[[region]]` table"));
        }
    }

    let invariants = invariant::parse_all(
        root,
        &invariant::Scope {
            states: &states,
            tiers: &tiers,
            kinds: &kinds,
            roles: &roles,
            signals: &signals,
        },
        diags,
    );

    // What every whole-machine check needs; without it there is nothing to check.
    if ir_states.is_empty() || ir_tiers.is_empty() || kinds.items.is_empty() {
        return None;
    }
    broken.initial = initial.is_none();
    broken.used_templates = templates.used.take();
    broken.used_signals = signals.used.take();
    broken.used_checkpoints = checkpoints.used.take();
    broken.used_counters = counters.used.take();
    let name = name.map_or_else(String::new, |(n, _)| n);
    let spec = Spec {
        name: name.into(),
        description: description.into(),
        hash: crate::hash::sha256_hex(source.as_bytes()).into(),
        initial: initial.unwrap_or(0) as StateId,
        scope,
        fail,
        tiers: ir_tiers,
        kinds: kinds
            .items
            .iter()
            .map(|(n, s)| Named {
                name: n.clone().into(),
                span: *s,
            })
            .collect(),
        default_tier: default_tier.unwrap_or(0) as TierId,
        default_kind: default_kind.unwrap_or(0) as KindId,
        rules: ir_rules,
        signals: ir_signals,
        rearm,
        checkpoints: ir_checkpoints,
        states: ir_states,
        transitions: ir_transitions,
        templates: ir_templates,
        roles: ir_roles,
        counters: ir_counters,
        regions: ir_regions,
        profiles: ir_profiles,
        invariants,
        alongside,
    };
    Some((spec, broken))
}

/// The parameter keys each signal family takes.
const FAMILY_PARAMS: [(&str, &[&str]); 10] = [
    ("kind_shift", &[]),
    ("tier_at_least", &["tier"]),
    ("failure_streak", &["count"]),
    ("repeated_target", &["count"]),
    ("scope_change", &["depth"]),
    ("lifecycle", &["events"]),
    ("budget", &["max_actions", "max_secs"]),
    ("rate", &["max", "per_secs"]),
    ("denied", &[]),
    ("calendar", &["days", "from", "until", "zone"]),
];

/// A parameter of another family on a signal is a mistake, not something to ignore.
fn check_family_params(o: &Obj<'_, '_>, family: &str, diags: &mut Diagnostics) {
    let Some((_, params)) = FAMILY_PARAMS.iter().find(|(f, _)| *f == family) else {
        return;
    };
    let all: Vec<&str> = FAMILY_PARAMS
        .iter()
        .flat_map(|(_, p)| p.iter().copied())
        .collect();
    for key in o.table.keys() {
        let k: &str = key.get_ref();
        if all.contains(&k) && !params.contains(&k) {
            let help = if params.is_empty() {
                format!("a `{family}` signal takes no parameters")
            } else {
                format!("a `{family}` signal takes: {}", params.join(", "))
            };
            diags.push(
                Diagnostic::error(
                    Code::UnknownKey,
                    span_of(key),
                    format!("`{k}` does not apply to a `{family}` signal"),
                )
                .with_help(help),
            );
        }
    }
}

/// A telemetry field name; an unknown one is G017 (no runtime provides it).
fn parse_telemetry(text: &str, span: Span, diags: &mut Diagnostics) -> Option<Telemetry> {
    if let Some(t) = Telemetry::parse(text) {
        return Some(t);
    }
    let mut d = Diagnostic::error(
        Code::UnavailableTelemetry,
        span,
        format!("no runtime provides telemetry `{}`", truncate(text)),
    );
    d = match crate::check::suggest_telemetry(text) {
        Some(s) => d.with_help(format!("did you mean `{s}`?")),
        None => d.with_help(format!(
            "telemetry fields: {}",
            Telemetry::ALL.map(Telemetry::as_str).join(", ")
        )),
    };
    diags.push(d);
    None
}

fn parse_fail(text: &str, span: Span, diags: &mut Diagnostics) -> Option<FailPolicy> {
    parse_enum(
        text,
        span,
        "fail policy",
        &[FailPolicy::Open, FailPolicy::Closed],
        |v| match v {
            FailPolicy::Open => "open",
            FailPolicy::Closed => "closed",
        },
        diags,
    )
}

/// The phases on which a family is sampled.
pub fn samples_of(family: &Family) -> Vec<Phase> {
    match family {
        Family::KindShift
        | Family::TierAtLeast { .. }
        | Family::RepeatedTarget { .. }
        | Family::ScopeChange { .. }
        | Family::Budget { .. }
        | Family::Rate { .. }
        | Family::Denied => vec![Phase::PreTool],
        Family::FailureStreak { .. } => vec![Phase::PostTool, Phase::PostToolFailure],
        Family::Lifecycle { .. } | Family::Calendar { .. } => Phase::ALL.to_vec(),
    }
}

/// A list of command patterns, each checked where it is written.
fn command_list(o: &Obj<'_, '_>, key: &str, source: &str, diags: &mut Diagnostics) -> Vec<Pattern> {
    let mut out = Vec::new();
    for (text, vspan) in o.strings(key, diags) {
        if let Err(e) = pattern::parse_command(&text) {
            let bad = text.get(e.offset..e.offset + e.len).unwrap_or("");
            let at = inner_span(source, vspan, 1 + e.offset, bad);
            diags.push(Diagnostic::error(
                Code::BadPattern,
                at,
                format!("command pattern does not compile: {}", e.message),
            ));
        }
        out.push(Pattern {
            text: text.into(),
            span: vspan,
        });
    }
    out
}

fn glob_list(
    o: &Obj<'_, '_>,
    key: &str,
    source: &str,
    path: bool,
    diags: &mut Diagnostics,
) -> Vec<Pattern> {
    let mut out = Vec::new();
    for (text, span) in o.strings(key, diags) {
        let checked = if path {
            pattern::check_path_glob(&text)
        } else {
            pattern::check_glob(&text)
        };
        if let Err(e) = checked {
            let at = inner_span(source, span, 1, &text);
            diags.push(Diagnostic::error(
                Code::BadPattern,
                at,
                format!("glob `{}` does not compile: {e}", truncate(&text)),
            ));
        }
        out.push(Pattern {
            text: text.into(),
            span,
        });
    }
    out
}

/// One `[template]` value: a string, or a table with the `text` and a quiet period
/// (`quiet_actions`, `quiet_secs`; a table with neither is the plain text).
fn template_value(
    name: &str,
    v: &Value<'_>,
    diags: &mut Diagnostics,
) -> (String, Span, Option<Quiet>) {
    let table = match v.get_ref() {
        DeValue::String(s) => return (s.to_string(), span_of(v), None),
        DeValue::Table(t) => t,
        other => {
            type_error(name, "a string or a table", other, span_of(v), diags);
            return (String::new(), span_of(v), None);
        }
    };
    let o = Obj::new(table, span_of(v), format!("template `{name}`"));
    o.check_keys(&["text", "quiet_actions", "quiet_secs"], diags);
    let (text, tspan) = o
        .req_str("text", diags)
        .unwrap_or((String::new(), span_of(v)));
    let actions = o
        .int("quiet_actions", 1, 100_000, diags)
        .map(|v| v.0 as u32);
    let secs = o
        .int("quiet_secs", 1, 86_400 * 30, diags)
        .map(|v| v.0 as u32);
    let quiet = (actions.is_some() || secs.is_some()).then_some(Quiet { actions, secs });
    (text, tspan, quiet)
}

fn parse_template(
    source: &str,
    text: &str,
    span: Span,
    diags: &mut Diagnostics,
) -> Vec<TemplatePart> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    let mut consumed = 0usize;
    while let Some(i) = rest.find(['{', '}']) {
        let c = rest.as_bytes()[i];
        literal.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(stripped) = after.strip_prefix('{').filter(|_| c == b'{') {
            literal.push('{');
            consumed += i + 2;
            rest = stripped;
            continue;
        }
        if c == b'}' {
            if let Some(stripped) = after.strip_prefix('}') {
                literal.push('}');
                consumed += i + 2;
                rest = stripped;
            } else {
                literal.push('}');
                consumed += i + 1;
                rest = after;
            }
            continue;
        }
        match after.find('}') {
            Some(end) => {
                let var = &after[..end];
                match TemplateVar::parse(var) {
                    Some(v) => {
                        if !literal.is_empty() {
                            parts.push(TemplatePart::Text(std::mem::take(&mut literal).into()));
                        }
                        parts.push(TemplatePart::Var(v));
                    }
                    None => {
                        let at = inner_span(source, span, consumed + i, &format!("{{{var}}}"));
                        let names = TemplateVar::ALL.map(TemplateVar::as_str);
                        let mut d = Diagnostic::error(
                            Code::UnknownTemplateVar,
                            at,
                            format!("unknown template variable `{{{}}}`", truncate(var)),
                        );
                        let meant = crate::hints::template_var_by_meaning(var).map(|v| v.as_str());
                        d = match meant.or_else(|| did_you_mean(var, names)) {
                            Some(s) => d.with_help(format!("did you mean `{{{s}}}`?")),
                            None => d.with_help(format!("variables: {}", names.join(", "))),
                        };
                        diags.push(d);
                    }
                }
                consumed += i + 1 + end + 1;
                rest = &after[end + 1..];
            }
            None => {
                diags.push(
                    Diagnostic::error(Code::InvalidValue, span, "unclosed `{` in template")
                        .with_help("write `{{` for a literal brace"),
                );
                literal.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(TemplatePart::Text(literal.into()));
    }
    parts
}

fn parse_trigger(
    source: &str,
    text: &str,
    span: Span,
    signals: &Names,
    checkpoints: &Names,
    tiers: &Names,
    diags: &mut Diagnostics,
) -> Option<Trigger> {
    let (head, arg) = match text.split_once(':') {
        Some((h, a)) => (h, Some(a)),
        None => (text, None),
    };
    let arg_span = |a: &str| inner_span(source, span, 1 + head.len() + 1, a);
    match (head, arg) {
        ("approved", None) => Some(Trigger::Approved),
        ("timeout", None) => Some(Trigger::Timeout),
        ("backstop", None) => Some(Trigger::Backstop),
        ("action", None) => Some(Trigger::Action),
        ("event", Some(a)) => {
            parse_enum(a, arg_span(a), "phase", &Phase::ALL, Phase::as_str, diags)
                .map(Trigger::Event)
        }
        ("signal", Some(a)) => signals
            .resolve(a, arg_span(a), diags)
            .map(|i| Trigger::Signal(i as SignalId)),
        ("clear", Some(a)) => signals
            .resolve(a, arg_span(a), diags)
            .map(|i| Trigger::Clear(i as SignalId)),
        ("while", Some(a)) => signals
            .resolve(a, arg_span(a), diags)
            .map(|i| Trigger::While(i as SignalId)),
        ("checkpoint", Some(a)) => checkpoints
            .resolve(a, arg_span(a), diags)
            .map(|i| Trigger::Checkpoint(i as CheckpointId)),
        ("tier", Some(a)) => tiers
            .resolve(a, arg_span(a), diags)
            .map(|i| Trigger::Tier(i as TierId)),
        _ => {
            let forms = [
                "event",
                "timeout",
                "approved",
                "checkpoint",
                "clear",
                "signal",
                "while",
                "backstop",
                "tier",
                "action",
            ];
            let mut d = Diagnostic::error(
                Code::InvalidValue,
                span,
                format!("unknown trigger `{}`", truncate(text)),
            );
            d = match did_you_mean(head, forms) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(
                    "a trigger is event:<phase>, timeout, approved, checkpoint:<name>, signal:<name>, clear:<name>, while:<name>, backstop, tier:<name> or action",
                ),
            };
            diags.push(d);
            None
        }
    }
}

/// A `role` list (a guard's, an invariant's): each a declared role, `none` standing for no
/// role recognised.
fn role_list<C: FromIterator<Option<RoleId>>>(
    o: &Obj<'_, '_>,
    roles: &Names,
    diags: &mut Diagnostics,
) -> C {
    o.strings("role", diags)
        .into_iter()
        .filter_map(|(n, s)| {
            if n == "none" {
                Some(None)
            } else {
                roles.resolve(&n, s, diags).map(|i| Some(i as RoleId))
            }
        })
        .collect()
}

fn parse_guard(
    table: &DeTable<'_>,
    span: Span,
    tiers: &Names,
    kinds: &Names,
    roles: &Names,
    diags: &mut Diagnostics,
) -> Guard {
    let o = Obj::new(table, span, "`guard`");
    o.check_keys(&["tier", "kind", "role", "rearm", "counter", "in"], diags);
    let tier = o.str("tier", diags).and_then(|(text, tspan)| {
        let t = text.trim();
        let (op, name) = ["<=", ">=", "==", "<", ">"]
            .iter()
            .find_map(|op| t.strip_prefix(op).map(|rest| (*op, rest.trim())))
            .unwrap_or(("==", t));
        let is_tier = |n: &str| tiers.items.iter().any(|(x, _)| x == n);
        if !is_tier(name) {
            if let Some(help) = crate::hints::misplaced_comparison(t, is_tier) {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        tspan,
                        format!("`tier` guard `{}` is not a comparison", truncate(t)),
                    )
                    .with_help(help),
                );
                return None;
            }
        }
        let id = tiers.resolve(name, tspan, diags)? as TierId;
        let max = tiers.items.len().saturating_sub(1) as TierId;
        let range = match op {
            "<=" => (0, id),
            ">=" => (id, max),
            "<" if id == 0 => {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    tspan,
                    format!("no tier is below `{name}`: this guard can never hold"),
                ));
                return None;
            }
            "<" => (0, id - 1),
            ">" if id == max => {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    tspan,
                    format!("no tier is above `{name}`: this guard can never hold"),
                ));
                return None;
            }
            ">" => (id + 1, max),
            _ => (id, id),
        };
        Some(range)
    });
    let kinds = o
        .strings("kind", diags)
        .into_iter()
        .filter_map(|(n, s)| kinds.resolve(&n, s, diags).map(|i| i as KindId))
        .collect();
    let roles = role_list(&o, roles, diags);
    Guard {
        tier,
        kinds,
        roles,
        rearm: o.bool("rearm", diags),
        counters: Vec::new(),
        states: Default::default(),
        span: Some(span),
    }
}

fn parse_effect(
    source: &str,
    text: &str,
    span: Span,
    templates: &Names,
    counters: &Names,
    diags: &mut Diagnostics,
) -> Option<Effect> {
    let (head, arg) = match text.split_once(':') {
        Some((h, a)) => (h, Some(a)),
        None => (text, None),
    };
    let tmpl = |a: &str, diags: &mut Diagnostics| {
        let at = inner_span(source, span, 1 + head.len() + 1, a);
        templates.resolve(a, at, diags).map(|i| i as TemplateId)
    };
    if let Some(a) = arg {
        if let Some(effect) = counter::parse_effect(source, head, a, span, counters, diags) {
            return effect;
        }
    }
    match (head, arg) {
        ("arm", None) => Some(Effect::Arm),
        ("close", None) => Some(Effect::Close),
        ("steer", Some(a)) => tmpl(a, diags).map(|template| Effect::Steer { template }),
        ("ask", Some(a)) => tmpl(a, diags).map(|template| Effect::Ask { template }),
        ("deny", Some(a)) => tmpl(a, diags).map(|template| Effect::Deny { template }),
        ("record", Some(a)) if !a.is_empty() => Some(Effect::Record {
            label: a.to_string().into(),
        }),
        _ => {
            let mut d = Diagnostic::error(
                Code::InvalidValue,
                span,
                format!("unknown effect `{}`", truncate(text)),
            );
            d = match did_you_mean(head, ["arm", "close", "steer", "ask", "deny", "record", "inc", "reset"]) {
                Some(s) if s != head => d.with_help(format!("did you mean `{s}`?")),
                _ => d.with_help("an effect is arm, close, steer:<template>, ask:<template>, deny:<template>, record:<label>, inc:<counter> or reset:<counter>"),
            };
            diags.push(d);
            None
        }
    }
}
