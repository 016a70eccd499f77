//! gate-codegen: turns a checked spec IR into Rust tokens (a state machine with exhaustive matches).
//!
//! This crate only translates: every decision about what a spec means lives in `gate-spec`
//! (parsing, checks, the IR and the execution contract in `gate_spec::exec`). [`generate`]
//! writes a module body with
//!
//! - `pub enum State` (one CamelCase variant per control state) and `pub enum Trigger` (one
//!   variant per entry of `Spec::all_triggers()`, e.g. `EventPreTool`, `SignalShift`);
//! - the constants `NAME`, `HASH`, `PATH`, `IR_JSON`, `MERMAID`, `DOT`;
//! - `pub fn build_ir()`, the IR as one expression of string literals and `vec!`s (see
//!   [`ir_tokens`]), which `COMPILED` runs once per process;
//! - a hidden `include_str!` of the spec file so cargo rebuilds when it changes;
//! - `pub struct Machine` implementing `gate_spec::exec::Machine`, with the transition choice
//!   as one `match (state, trigger)` that names every pair and has no wildcard arm, and the
//!   debouncers and the re-arm counter unrolled per signal with the spec's constants;
//! - `pub static COMPILED: gate_spec::exec::CompiledSpec`.
//!
//! [`generate_error`] writes the `compile_error!` for a spec that does not compile, plus a
//! skeleton with the same public items so the user sees one error, not a cascade.
//! [`compile_file`] and [`compile_dir`] put both together for the proc-macros.
//!
//! Output is a pure function of its inputs: the same IR and paths give identical tokens.

use gate_spec::ir::{Effect, Guard, Phase, Spec, StateId, Transition, Trigger};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod ir_tokens;
mod regions;
mod select;

/// CamelCase of a snake_case identifier. Each `_` followed by a lower-case letter becomes that
/// letter in upper case; other `_` are kept. Spec names are lower-case, so this is injective.
pub fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        if first {
            out.extend(c.to_uppercase());
            first = false;
        } else if c == '_' && chars.peek().is_some_and(|n| n.is_ascii_lowercase()) {
            if let Some(n) = chars.next() {
                out.extend(n.to_uppercase());
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Variant names for a list of names: CamelCase, made unique and never a keyword.
fn variant_names(names: impl IntoIterator<Item = String>) -> Vec<Ident> {
    let mut used: BTreeMap<String, ()> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, name) in names.into_iter().enumerate() {
        let mut name = if name == "Self" {
            "Self_".to_string()
        } else {
            name
        };
        if used.contains_key(&name) {
            let mut n = i;
            while used.contains_key(&format!("{name}_{n}")) {
                n += 1;
            }
            name = format!("{name}_{n}");
        }
        used.insert(name.clone(), ());
        out.push(Ident::new(&name, Span::call_site()));
    }
    out
}

fn phase_variant(phase: Phase) -> Ident {
    Ident::new(&camel(phase.as_str()), Span::call_site())
}

/// The CamelCase name of a trigger's variant (`SignalShift`, `EventPreTool`, `Backstop`).
pub fn trigger_variant_name(spec: &Spec, trigger: Trigger) -> String {
    match trigger {
        Trigger::Event(p) => format!("Event{}", camel(p.as_str())),
        Trigger::Timeout => "Timeout".to_string(),
        Trigger::Approved => "Approved".to_string(),
        Trigger::Checkpoint(c) => {
            format!("Checkpoint{}", camel(&spec.checkpoints[c as usize].name))
        }
        Trigger::Clear(s) => format!("Clear{}", camel(&spec.signals[s as usize].name)),
        Trigger::Signal(s) => format!("Signal{}", camel(&spec.signals[s as usize].name)),
        Trigger::While(s) => format!("While{}", camel(&spec.signals[s as usize].name)),
        Trigger::Backstop => "Backstop".to_string(),
        Trigger::Tier(t) => format!("Tier{}", camel(&spec.tiers[t as usize].name)),
        Trigger::Action => "Action".to_string(),
    }
}

fn ir_trigger_tokens(trigger: Trigger) -> TokenStream {
    match trigger {
        Trigger::Event(p) => {
            let v = phase_variant(p);
            quote!(::gate_spec::ir::Trigger::Event(::gate_spec::ir::Phase::#v))
        }
        Trigger::Timeout => quote!(::gate_spec::ir::Trigger::Timeout),
        Trigger::Approved => quote!(::gate_spec::ir::Trigger::Approved),
        Trigger::Checkpoint(c) => quote!(::gate_spec::ir::Trigger::Checkpoint(#c)),
        Trigger::Clear(s) => quote!(::gate_spec::ir::Trigger::Clear(#s)),
        Trigger::Signal(s) => quote!(::gate_spec::ir::Trigger::Signal(#s)),
        Trigger::While(s) => quote!(::gate_spec::ir::Trigger::While(#s)),
        Trigger::Backstop => quote!(::gate_spec::ir::Trigger::Backstop),
        Trigger::Tier(t) => quote!(::gate_spec::ir::Trigger::Tier(#t)),
        Trigger::Action => quote!(::gate_spec::ir::Trigger::Action),
    }
}

/// The condition tokens of a transition's guard (its own conditions in a fixed order, then
/// the implicit re-arm floor of an arming transition). `floor` is a `bool` in scope.
fn guard_tokens(spec: &Spec, guard: &Guard, arms: bool) -> TokenStream {
    let mut conds: Vec<TokenStream> = Vec::new();
    if let Some((lo, hi)) = guard.tier {
        conds.push(quote!(
            ::core::matches!(input.tier, ::core::option::Option::Some(#lo..=#hi))
        ));
    }
    if !guard.kinds.is_empty() {
        let kinds = &guard.kinds;
        conds.push(quote!(
            ::core::matches!(input.kind, ::core::option::Option::Some(#(#kinds)|*))
        ));
    }
    if !guard.roles.is_empty() {
        let roles = guard.roles.iter().map(|r| match r {
            Some(r) => quote!(::core::option::Option::Some(#r)),
            None => quote!(::core::option::Option::None),
        });
        conds.push(quote!(::core::matches!(input.role, #(#roles)|*)));
    }
    match guard.rearm {
        Some(true) => conds.push(quote!(floor)),
        Some(false) => conds.push(quote!(!floor)),
        None => {}
    }
    for g in &guard.counters {
        let (c, lo, hi) = (usize::from(g.counter), g.lo, g.hi);
        conds.push(if lo == 0 {
            quote!(counters[#c] <= #hi)
        } else {
            quote!((#lo..=#hi).contains(&counters[#c]))
        });
    }
    // `in`: per state variable named, its value now is one of the states.
    let mut vars: Vec<usize> = guard.states.iter().map(|&s| spec.var_of(s)).collect();
    vars.sort_unstable();
    vars.dedup();
    for v in vars {
        let ids = guard.states.iter().filter(|&&s| spec.var_of(s) == v);
        conds.push(quote!(::core::matches!(vars[#v], #(#ids)|*)));
    }
    if arms {
        conds.push(quote!(floor));
    }
    if conds.is_empty() {
        quote!(true)
    } else {
        quote!(#(#conds)&&*)
    }
}

/// The statements that apply a fired transition's counter effects, in order (`inc` saturates
/// at the counter's `max`).
fn counter_tokens(spec: &Spec, t: &Transition) -> TokenStream {
    let steps = t.effects.iter().filter_map(|e| match *e {
        Effect::Inc { counter } => {
            let c = usize::from(counter);
            let max = spec.counters[c].max;
            Some(quote!(if counters[#c] < #max { counters[#c] += 1; }))
        }
        Effect::Reset { counter } => {
            let c = usize::from(counter);
            Some(quote!(counters[#c] = 0;))
        }
        _ => None,
    });
    quote!(#(#steps)*)
}

fn arms_window(t: &Transition) -> bool {
    t.effects.iter().any(|e| matches!(e, Effect::Arm))
}

/// A [`CommandTable`](gate_spec::commands::CommandTable) as a constant expression. Its
/// arrays hold only numbers and characters, so they need no load-time relocation; only the
/// nine list pointers of the table itself do.
fn command_table_tokens(table: &gate_spec::commands::CommandTable) -> TokenStream {
    use gate_spec::commands::{ArgRec, PatternRec, Slice, Str};
    fn str_(s: Str) -> TokenStream {
        let (start, len) = (s.start, s.len);
        quote!(::gate_spec::commands::Str { start: #start, len: #len })
    }
    fn slice(s: Slice) -> TokenStream {
        let (start, len) = (s.start, s.len);
        quote!(::gate_spec::commands::Slice { start: #start, len: #len })
    }
    fn list(items: impl IntoIterator<Item = TokenStream>) -> TokenStream {
        let items = items.into_iter();
        quote!(::std::borrow::Cow::Borrowed(&[#(#items),*]))
    }
    let text = table.text.as_ref();
    let rules = list(table.rules.iter().map(|r| {
        let (c, e) = (slice(r.commands), slice(r.except_commands));
        quote!(::gate_spec::commands::RuleRec { commands: #c, except_commands: #e })
    }));
    let checkpoints = list(table.checkpoints.iter().map(|r| {
        let (c, e) = (slice(r.commands), slice(r.except_commands));
        quote!(::gate_spec::commands::RuleRec { commands: #c, except_commands: #e })
    }));
    let patterns = list(table.patterns.iter().map(|p| match *p {
        PatternRec::Stages(s) => {
            let s = slice(s);
            quote!(::gate_spec::commands::PatternRec::Stages(#s))
        }
        PatternRec::Raw(g) => {
            let g = str_(g);
            quote!(::gate_spec::commands::PatternRec::Raw(#g))
        }
    }));
    let stages = list(table.stages.iter().map(|s| {
        let (program, args) = (str_(s.program), slice(s.args));
        quote!(::gate_spec::commands::StageRec { program: #program, args: #args })
    }));
    let args = list(table.args.iter().map(|a| match *a {
        ArgRec::ShortFlag(c) => quote!(::gate_spec::commands::ArgRec::ShortFlag(#c)),
        ArgRec::LongFlag(s) => {
            let s = str_(s);
            quote!(::gate_spec::commands::ArgRec::LongFlag(#s))
        }
        ArgRec::Glob(s) => {
            let s = str_(s);
            quote!(::gate_spec::commands::ArgRec::Glob(#s))
        }
    }));
    let by_program = list(table.by_program.iter().map(|p| {
        let (program, refs) = (str_(p.program), slice(p.refs));
        quote!(::gate_spec::commands::ProgramRec { program: #program, refs: #refs })
    }));
    let refs = list(table.refs.iter().map(|r| {
        let (rule, except, index) = (r.rule, r.except, r.index);
        quote!(::gate_spec::commands::PatternRef { rule: #rule, except: #except, index: #index })
    }));
    let always = slice(table.always);
    // Integer literals with their type suffix: the same table gives the same tokens.
    let needs = list(table.needs.iter().map(|n| {
        let short = Literal::u128_suffixed(n.short);
        let names = Literal::u8_suffixed(n.names);
        let words = Literal::u64_suffixed(n.words);
        let bytes = n.bytes.map(Literal::u64_suffixed);
        quote!(::gate_spec::commands::Need {
            short: #short,
            names: #names,
            words: #words,
            bytes: [#(#bytes),*],
        })
    }));
    quote! {
        ::gate_spec::commands::CommandTable {
            text: ::std::borrow::Cow::Borrowed(#text),
            rules: #rules,
            checkpoints: #checkpoints,
            patterns: #patterns,
            stages: #stages,
            args: #args,
            by_program: #by_program,
            refs: #refs,
            always: #always,
            needs: #needs,
        }
    }
}

/// The spec's name as a module identifier (a raw identifier for keywords that allow one).
pub fn module_ident(name: &str) -> Result<Ident, String> {
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
        "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
        "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async",
        "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
        "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
    ];
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_";
    if !valid || ["self", "super", "crate", "Self"].contains(&name) {
        return Err(format!("`{name}` cannot name a Rust module"));
    }
    if KEYWORDS.contains(&name) {
        Ok(Ident::new_raw(name, Span::call_site()))
    } else {
        Ok(Ident::new(name, Span::call_site()))
    }
}

/// The module body for a compiled spec. `display_path` is the path users know
/// (`specs/jwc.toml`); `abs_path` is the file on disk, included so cargo tracks it.
pub fn generate(spec: &Spec, display_path: &str, abs_path: &str) -> TokenStream {
    let registry = registry_tokens("This spec's registry entry.");
    if spec.transitions.len() > usize::from(u16::MAX) + 1 {
        let message = format!(
            "{display_path}: the spec expands to {} transitions; at most 65536 fit the compiled machine",
            spec.transitions.len()
        );
        return generate_error(display_path, Some(abs_path), &[message]);
    }
    let n_signals = spec.signals.len();
    let n_counters = spec.counters.len();
    let n_checkpoints = spec.checkpoints.len();

    // ---- enums -------------------------------------------------------------------------
    let main_states: Vec<StateId> = spec.states_of(0).collect();
    let state_variants = variant_names(main_states.iter().map(|&s| camel(spec.state_name(s))));
    let state_names: Vec<&str> = main_states.iter().map(|&s| spec.state_name(s)).collect();
    let state_ids = &main_states;
    let n_states = main_states.len();
    let initial = &state_variants[main_states
        .iter()
        .position(|&s| s == spec.initial)
        .unwrap_or_default()];

    let triggers = spec.all_triggers();
    let trigger_variants = variant_names(triggers.iter().map(|t| trigger_variant_name(spec, *t)));
    let trigger_texts: Vec<String> = triggers.iter().map(|t| spec.trigger_text(*t)).collect();
    let trigger_irs: Vec<TokenStream> = triggers.iter().map(|t| ir_trigger_tokens(*t)).collect();
    let n_triggers = triggers.len();
    let trigger_of = |t: Trigger| -> &Ident {
        let i = triggers.iter().position(|x| *x == t).unwrap_or_default();
        &trigger_variants[i]
    };

    // ---- the transition match ---------------------------------------------------------
    let select_cx = select::Cx {
        spec,
        triggers: &triggers,
        trigger_variants: &trigger_variants,
    };
    let match_arms = select_cx.arms(&format_ident!("State"), &main_states, &state_variants);
    let regions = regions::Regions::new(&select_cx);
    let region_items = regions.items();
    let n_vars = 1 + spec.regions.len();

    // ---- step: the re-arm counter and the debouncers ------------------------------------
    let min_actions = spec.rearm.min_actions;
    let floor_expr = if min_actions == 0 {
        quote!(*secs_ok)
    } else {
        quote!(*since_arm >= MIN_ACTIONS && *secs_ok)
    };
    let mut debounce = Vec::new();
    let mut rising_names = Vec::new();
    let mut falling_names = Vec::new();
    let mut on_names = Vec::new();
    for (i, signal) in spec.signals.iter().enumerate() {
        let rising = format_ident!("rising_{}", i);
        let falling = format_ident!("falling_{}", i);
        let on = format_ident!("on_{}", i);
        let enter = signal.enter;
        let exit = signal.exit;
        let cap = enter.max(exit);
        let sampled = if Phase::ALL.iter().all(|p| signal.samples.contains(p)) {
            quote!(true)
        } else if signal.samples.is_empty() {
            quote!(false)
        } else {
            let phases = signal.samples.iter().map(|p| phase_variant(*p));
            quote!(::core::matches!(input.phase, #(::gate_spec::ir::Phase::#phases)|*))
        };
        debounce.push(quote! {
            let (#rising, #falling) = if #sampled
                && input.enabled.get(#i).copied().unwrap_or(false)
            {
                let raw = input.raw.get(#i).copied().unwrap_or(false);
                let level = levels[#i];
                let count = &mut counts[#i];
                if !level {
                    if raw {
                        *count = count.saturating_add(1).min(#cap);
                        if *count >= #enter {
                            *count = 0;
                            levels[#i] = true;
                            (true, false)
                        } else {
                            (false, false)
                        }
                    } else {
                        *count = 0;
                        (false, false)
                    }
                } else if !raw {
                    *count = count.saturating_add(1).min(#cap);
                    if *count >= #exit {
                        *count = 0;
                        levels[#i] = false;
                        (false, true)
                    } else {
                        (false, false)
                    }
                } else {
                    *count = 0;
                    (false, false)
                }
            } else {
                (false, false)
            };
        });
        // `while:` sees the level after this event's sample, where the signal is sampled.
        debounce.push(quote! {
            let #on = #sampled
                && input.enabled.get(#i).copied().unwrap_or(false)
                && levels[#i];
        });
        rising_names.push(rising);
        falling_names.push(falling);
        on_names.push(on);
    }

    // ---- step: triggers in order --------------------------------------------------------
    // A trigger is taken by the main machine (variable 0), then by each region (rule 6).
    let each_var = |trigger: TokenStream| -> TokenStream {
        let vars = 0..n_vars;
        quote!(#(take(#vars, #trigger);)*)
    };
    let phase_arms = Phase::ALL.iter().map(|p| {
        let v = phase_variant(*p);
        let t = trigger_of(Trigger::Event(*p));
        quote!(::gate_spec::ir::Phase::#v => Trigger::#t)
    });
    let checkpoint_steps = (0..n_checkpoints).map(|c| {
        let t = trigger_of(Trigger::Checkpoint(c as u8));
        let take = each_var(quote!(Trigger::#t));
        quote! {
            if input.checkpoints.get(#c).copied().unwrap_or(false) {
                #take
            }
        }
    });
    let clear_steps = falling_names.iter().enumerate().map(|(s, falling)| {
        let t = trigger_of(Trigger::Clear(s as u8));
        let take = each_var(quote!(Trigger::#t));
        quote!(if #falling { #take })
    });
    let signal_steps = rising_names.iter().enumerate().map(|(s, rising)| {
        let t = trigger_of(Trigger::Signal(s as u8));
        let take = each_var(quote!(Trigger::#t));
        quote!(if #rising { #take })
    });
    let while_steps = on_names.iter().enumerate().map(|(s, on)| {
        let t = trigger_of(Trigger::While(s as u8));
        let take = each_var(quote!(Trigger::#t));
        quote!(if #on { #take })
    });
    let tier_triggers: Vec<&Ident> = (0..spec.tiers.len())
        .map(|t| trigger_of(Trigger::Tier(t as u8)))
        .collect();
    let n_tiers = tier_triggers.len();
    let timeout = trigger_of(Trigger::Timeout);
    let approved = trigger_of(Trigger::Approved);
    let backstop = trigger_of(Trigger::Backstop);
    let action = trigger_of(Trigger::Action);
    let take_phase = each_var(quote!(Machine::phase_trigger(input.phase)));
    let take_approved = each_var(quote!(Trigger::#approved));
    let take_backstop = each_var(quote!(Trigger::#backstop));
    let take_tier = each_var(quote!(trigger));
    let take_action = each_var(quote!(Trigger::#action));
    let region_timeouts = regions.timeout_steps(timeout);
    let region_initials = regions.initial_ids();
    let region_fit = regions.fit();
    let region_fits = regions.fits();
    let region_locals = regions.locals();
    let region_vars = regions.vars();
    let region_take_arms = regions.take_arms();
    let region_store = regions.store();
    let n_regions = spec.regions.len();

    // ---- constants ----------------------------------------------------------------------
    let name = &spec.name;
    let hash = &spec.hash;
    let ir_json = serde_json::to_string(spec).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    let ir_json = Literal::string(&ir_json);
    let mut ir_pools = ir_tokens::Pools::default();
    let ir_expr = ir_tokens::Emit::emit(spec, &mut ir_pools);
    let ir_pools = ir_pools.statics();
    let mermaid = gate_spec::diagram::mermaid(spec);
    let dot = gate_spec::diagram::dot(spec);
    let commands = command_table_tokens(&gate_spec::commands::CommandTable::build(spec));
    let state_doc = format!("The control states of spec `{name}`, in declaration order.");
    let trigger_doc = format!("Every trigger spec `{name}` can produce, in evaluation order.");
    let machine_doc = format!("The compiled machine of spec `{name}` ({display_path}).");
    let state_variant_docs = main_states
        .iter()
        .map(|&s| &spec.states[s as usize])
        .map(|s| {
            let mut doc = format!("`{}`", s.name);
            if s.window {
                doc.push_str(" (a window is open)");
            }
            if s.withhold.is_some() {
                doc.push_str(" (withholds every tool action)");
            }
            doc
        });
    let state_names_doc: Vec<String> = state_variant_docs.collect();
    let trigger_variant_docs: Vec<String> =
        trigger_texts.iter().map(|t| format!("`{t}`")).collect();
    let n_signals_lit = n_signals;
    let counter_maxes: Vec<u16> = spec.counters.iter().map(|c| c.max).collect();
    let n_checkpoints_lit = n_checkpoints;

    quote! {
        /// The spec's name (`[machine] name`).
        pub const NAME: &str = #name;
        /// SHA-256 of the spec source.
        pub const HASH: &str = #hash;
        /// The spec file, as given to the macro.
        pub const PATH: &str = #display_path;
        /// The IR as JSON (`gate_spec::ir::Spec`).
        pub const IR_JSON: &str = #ir_json;
        /// The machine's overview as a Mermaid flowchart (`gate_spec::diagram`).
        pub const MERMAID: &str = #mermaid;
        /// The machine as a Graphviz DOT graph.
        pub const DOT: &str = #dot;
        /// Number of declared signals (the length of `Snapshot::level` and `Snapshot::count`).
        pub const N_SIGNALS: usize = #n_signals_lit;
        /// Number of declared checkpoints.
        pub const N_CHECKPOINTS: usize = #n_checkpoints_lit;
        /// Number of declared counters (the length of `Snapshot::counters`).
        pub const N_COUNTERS: usize = #n_counters;
        /// Number of declared regions (the length of `Snapshot::regions`).
        pub const N_REGIONS: usize = #n_regions;
        /// Number of state variables: the main machine's and one per region.
        pub const N_VARS: usize = #n_vars;
        /// Each counter's `max`, by counter id.
        pub const COUNTER_MAX: [u16; N_COUNTERS] = [#(#counter_maxes),*];
        /// The re-arm floor's action count.
        pub const MIN_ACTIONS: u16 = #min_actions;
        /// Every command pattern of the spec, parsed and indexed by program at build time.
        pub static COMMANDS: ::gate_spec::commands::CommandTable = #commands;

        #[doc(hidden)]
        const _: &str = ::core::include_str!(#abs_path);

        /// The IR, built from literals: what [`COMPILED`] runs once per process. Texts are
        /// borrowed from the binary, so only the non-empty lists are allocated.
        #[allow(clippy::too_many_lines)]
        pub fn build_ir() -> ::gate_spec::ir::Spec {
            use ::gate_spec::ir;
            use ::std::borrow::Cow;
            #ir_pools
            #ir_expr
        }

        #[doc = #state_doc]
        #[allow(non_camel_case_types, clippy::enum_variant_names)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum State {
            #(#[doc = #state_names_doc] #state_variants = #state_ids,)*
        }

        impl State {
            /// Every state, in declaration order (index = id).
            pub const ALL: [State; #n_states] = [#(State::#state_variants),*];
            /// The initial state.
            pub const INITIAL: State = State::#initial;
            /// The state's id (its index in the IR).
            pub const fn id(self) -> u8 {
                self as u8
            }
            /// The state with this id.
            pub const fn from_id(id: u8) -> ::core::option::Option<State> {
                match id {
                    #(#state_ids => ::core::option::Option::Some(State::#state_variants),)*
                    _ => ::core::option::Option::None,
                }
            }
            /// The state's name in the spec.
            pub const fn name(self) -> &'static str {
                match self {
                    #(State::#state_variants => #state_names,)*
                }
            }
        }

        #[doc = #trigger_doc]
        #[allow(non_camel_case_types, clippy::enum_variant_names)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Trigger {
            #(#[doc = #trigger_variant_docs] #trigger_variants,)*
        }

        impl Trigger {
            /// Every trigger, in evaluation order (as `Spec::all_triggers`).
            pub const ALL: [Trigger; #n_triggers] = [#(Trigger::#trigger_variants),*];
            /// The trigger in the spec's syntax (`signal:shift`).
            pub const fn text(self) -> &'static str {
                match self {
                    #(Trigger::#trigger_variants => #trigger_texts,)*
                }
            }
            /// The IR trigger.
            pub const fn ir(self) -> ::gate_spec::ir::Trigger {
                match self {
                    #(Trigger::#trigger_variants => #trigger_irs,)*
                }
            }
        }

        /// The trigger of each tier, by tier id.
        const TIER_TRIGGERS: [Trigger; #n_tiers] = [#(Trigger::#tier_triggers),*];

        #[doc = #machine_doc]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct Machine;

        impl Machine {
            /// The transition that fires from `state` on `trigger`, if any: its index in the
            /// IR, its target and whether it arms a window. Guards are tested in declaration
            /// order; `floor` says whether the re-arm floor is met; `vars` holds every state
            /// variable's value now (for `in`). The transition that fires applies its
            /// counter effects to `counters` here.
            #[deny(unreachable_patterns)]
            #[allow(clippy::match_single_binding, clippy::nonminimal_bool, unused_variables, unused_comparisons, clippy::absurd_extreme_comparisons)]
            pub fn select(
                state: State,
                trigger: Trigger,
                input: &::gate_spec::exec::Input<'_>,
                floor: bool,
                counters: &mut [u16; N_COUNTERS],
                vars: &[u8; N_VARS],
            ) -> ::core::option::Option<(u16, State, bool)> {
                match (state, trigger) {
                    #(#match_arms)*
                }
            }

            /// The trigger of an event's hook phase.
            pub const fn phase_trigger(phase: ::gate_spec::ir::Phase) -> Trigger {
                match phase {
                    #(#phase_arms,)*
                }
            }
        }

        /// A memory from another spec version: one level and count per signal of this one,
        /// one value per counter, each within its `max`. Out of line and cold, so the step's
        /// own code stays short.
        #[cold]
        #[inline(never)]
        fn fit_memory(memory: &mut ::gate_spec::exec::Snapshot) {
            memory.level.resize(N_SIGNALS, false);
            memory.count.resize(N_SIGNALS, 0);
            memory.counters.resize(N_COUNTERS, 0);
            for (value, max) in memory.counters.iter_mut().zip(COUNTER_MAX) {
                *value = (*value).min(max);
            }
            memory.regions.resize(N_REGIONS, 0);
            #region_fit
        }

        #region_items

        impl ::gate_spec::exec::Machine for Machine {
            fn commands(&self) -> ::core::option::Option<&'static ::gate_spec::commands::CommandTable> {
                ::core::option::Option::Some(&COMMANDS)
            }

            fn initial(&self) -> ::gate_spec::exec::Snapshot {
                ::gate_spec::exec::Snapshot {
                    state: State::INITIAL.id(),
                    level: ::std::vec![false; N_SIGNALS],
                    count: ::std::vec![0; N_SIGNALS],
                    since_arm: MIN_ACTIONS,
                    counters: ::std::vec![0; N_COUNTERS],
                    regions: #region_initials,
                }
            }

            #[allow(unused_mut, unused_variables, clippy::needless_late_init)]
            fn step(
                &self,
                memory: &mut ::gate_spec::exec::Snapshot,
                input: &::gate_spec::exec::Input<'_>,
                fired: &mut dyn ::core::ops::FnMut(u16),
            ) {
                if memory.level.len() != N_SIGNALS
                    || memory.count.len() != N_SIGNALS
                    || memory.counters.len() != N_COUNTERS
                    || !(#region_fits)
                {
                    fit_memory(memory);
                }
                // Fixed-size views, so the debouncers and guards below index without bounds
                // checks.
                let (
                    ::core::result::Result::Ok(levels),
                    ::core::result::Result::Ok(counts),
                    ::core::result::Result::Ok(counters),
                ) = (
                    <&mut [bool; N_SIGNALS]>::try_from(memory.level.as_mut_slice()),
                    <&mut [u16; N_SIGNALS]>::try_from(memory.count.as_mut_slice()),
                    <&mut [u16; N_COUNTERS]>::try_from(memory.counters.as_mut_slice()),
                ) else {
                    return;
                };
                // 1. The re-arm counter.
                if ::core::matches!(input.phase, ::gate_spec::ir::Phase::PreTool) {
                    memory.since_arm = memory.since_arm.saturating_add(1).min(MIN_ACTIONS);
                }
                // 2. The debouncers.
                #(#debounce)*
                // 3. Triggers in order; each fires at most one transition. A state id outside
                // this spec (state from another spec version is reset by the store) has no
                // transitions.
                let ::core::option::Option::Some(mut state) = State::from_id(memory.state) else {
                    return;
                };
                let mut since_arm = memory.since_arm;
                let mut secs_ok = input.rearm_secs_ok;
                #region_locals
                {
                    let since_arm = &mut since_arm;
                    let secs_ok = &mut secs_ok;
                    let state = &mut state;
                    let mut take = |var: usize, trigger: Trigger| {
                        let floor = #floor_expr;
                        let vars: [u8; N_VARS] = #region_vars;
                        match var {
                            0 => {
                                if let ::core::option::Option::Some((index, to, arms)) =
                                    Machine::select(*state, trigger, input, floor, counters, &vars)
                                {
                                    *state = to;
                                    if arms {
                                        *since_arm = 0;
                                        *secs_ok = false;
                                    }
                                    fired(index);
                                }
                            }
                            #region_take_arms
                            _ => {}
                        }
                    };
                    #take_phase
                    if input.timeout {
                        take(0, Trigger::#timeout);
                    }
                    #region_timeouts
                    if input.approved {
                        #take_approved
                    }
                    #(#checkpoint_steps)*
                    #(#clear_steps)*
                    #(#signal_steps)*
                    #(#while_steps)*
                    if input.backstop {
                        #take_backstop
                    }
                    if ::core::matches!(input.phase, ::gate_spec::ir::Phase::PreTool) {
                        if let ::core::option::Option::Some(&trigger) =
                            input.tier.and_then(|t| TIER_TRIGGERS.get(usize::from(t)))
                        {
                            #take_tier
                        }
                        #take_action
                    }
                }
                memory.since_arm = since_arm;
                memory.state = state.id();
                #region_store
            }
        }

        #registry
    }
}

/// A module body for a spec that does not compile: one `compile_error!` carrying the
/// rendered diagnostics (which start `specs/x.toml:LINE:COL`), and a skeleton with the same
/// public items as [`generate`] so that code using the module reports nothing else.
/// `abs_path`, when the file exists, is included so that fixing the spec triggers a rebuild.
pub fn generate_error(
    display_path: &str,
    abs_path: Option<&str>,
    messages: &[String],
) -> TokenStream {
    let registry = registry_tokens("This spec's registry entry (the spec did not compile).");
    // One `compile_error!` per diagnostic: the compiler prints each as its own `error:`.
    let messages = messages.iter().map(|m| m.trim_end());
    let name = Path::new(display_path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let include = abs_path.map(|p| {
        quote! {
            #[doc(hidden)]
            const _: &[u8] = ::core::include_bytes!(#p);
        }
    });
    quote! {
        #(::core::compile_error!(#messages);)*
        #include
        /// The spec's name (its file name: the spec did not compile).
        pub const NAME: &str = #name;
        /// Empty: the spec did not compile.
        pub const HASH: &str = "";
        /// The spec file, as given to the macro.
        pub const PATH: &str = #display_path;
        /// Empty: the spec did not compile.
        pub const IR_JSON: &str = "";
        /// Never runs: the spec did not compile, so neither does the crate.
        pub fn build_ir() -> ::gate_spec::ir::Spec {
            ::core::unreachable!("the spec did not compile")
        }
        /// Empty: the spec did not compile.
        pub const MERMAID: &str = "";
        /// Empty: the spec did not compile.
        pub const DOT: &str = "";
        /// Zero: the spec did not compile.
        pub const N_SIGNALS: usize = 0;
        /// Zero: the spec did not compile.
        pub const N_CHECKPOINTS: usize = 0;
        /// Zero: the spec did not compile.
        pub const N_COUNTERS: usize = 0;
        /// Zero: the spec did not compile.
        pub const MIN_ACTIONS: u16 = 0;

        /// No states: the spec did not compile.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum State {}

        /// No triggers: the spec did not compile.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Trigger {}

        /// The machine of a spec that did not compile; the build fails before it can run.
        #[derive(Clone, Copy, Debug, Default)]
        pub struct Machine;

        impl ::gate_spec::exec::Machine for Machine {
            fn initial(&self) -> ::gate_spec::exec::Snapshot {
                ::gate_spec::exec::Snapshot {
                    state: 0,
                    level: ::std::vec::Vec::new(),
                    count: ::std::vec::Vec::new(),
                    since_arm: 0,
                    counters: ::std::vec::Vec::new(),
                    regions: ::std::vec::Vec::new(),
                }
            }
            fn step(
                &self,
                _memory: &mut ::gate_spec::exec::Snapshot,
                _input: &::gate_spec::exec::Input<'_>,
                _fired: &mut dyn ::core::ops::FnMut(u16),
            ) {
            }
        }

        #registry
    }
}

/// A spec file resolved for the macros.
#[derive(Clone, Debug)]
pub struct SpecFile {
    /// The path as the user knows it: relative to the workspace root when the file is in one.
    pub display: String,
    /// The absolute path.
    pub abs: PathBuf,
}

impl SpecFile {
    /// Resolve `relative` against `manifest_dir` (the calling crate's `CARGO_MANIFEST_DIR`).
    pub fn resolve(manifest_dir: &Path, relative: &str) -> SpecFile {
        let joined = manifest_dir.join(relative);
        let abs = std::fs::canonicalize(&joined).unwrap_or(joined);
        let display = display_path(&abs);
        SpecFile { display, abs }
    }
}

/// `abs` relative to the nearest enclosing cargo workspace root (a directory whose
/// `Cargo.toml` has a `[workspace]` table), with `/` separators; `abs` itself otherwise.
pub fn display_path(abs: &Path) -> String {
    let mut dir = abs.parent();
    while let Some(d) = dir {
        let manifest = d.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            if text.lines().any(|l| l.trim() == "[workspace]") {
                if let Ok(rel) = abs.strip_prefix(d) {
                    let parts: Vec<String> = rel
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    return parts.join("/");
                }
            }
        }
        dir = d.parent();
    }
    abs.display().to_string()
}

/// How a spec file and its bases are named in diagnostics: relative to the workspace root.
fn shown(path: &Path) -> String {
    display_path(&std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Read, compile and generate one spec file (with the specs it extends): the module body, or
/// the error skeleton. Returns the spec's name too (`None` when it did not compile).
pub fn compile_file(file: &SpecFile) -> (Option<String>, TokenStream) {
    let abs = file.abs.to_string_lossy().into_owned();
    let compiled = match gate_spec::compile_file(&file.abs, &shown) {
        Ok(compiled) => compiled,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            let message = format!("{}: the spec is not UTF-8: {e}", file.display);
            return (None, generate_error(&file.display, Some(&abs), &[message]));
        }
        Err(e) => {
            let message = format!("{}: cannot read the spec: {e}", file.display);
            return (None, generate_error(&file.display, None, &[message]));
        }
    };
    // Every base the spec extends is included too, so cargo rebuilds when one changes.
    let bases: Vec<String> = compiled
        .sources
        .paths()
        .skip(1)
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let watch = quote! {
        #(
            #[doc(hidden)]
            const _: &[u8] = ::core::include_bytes!(#bases);
        )*
    };
    match &compiled.spec {
        Some(spec) => {
            let name = spec.name.to_string();
            let body = generate(spec, &file.display, &abs);
            (Some(name), quote!(#body #watch))
        }
        None => {
            // Errors only, each starting with its place: warnings reach the build through
            // gate-specs' build script ([`build_warnings`]), since a proc-macro cannot warn.
            let rendered: Vec<String> = compiled
                .diags
                .items
                .iter()
                .filter(|d| d.severity == gate_spec::diag::Severity::Error)
                .map(|d| gate_spec::diag::render_for_build_in(&compiled.sources, d))
                .collect();
            let body = generate_error(&file.display, Some(&abs), &rendered);
            (None, quote!(#body #watch))
        }
    }
}

/// Every `*.toml` directly in `dir`, sorted by file name, each as `pub mod <spec name>`, plus
/// `pub static ALL: &[&CompiledSpec]`. A spec that does not compile becomes a module named
/// after its file holding the `compile_error!`.
pub fn compile_dir(manifest_dir: &Path, relative: &str) -> TokenStream {
    let dir = SpecFile::resolve(manifest_dir, relative);
    let names = match spec_files(&dir.abs) {
        Ok(names) => names,
        Err(e) => {
            let message = format!("{}: cannot read the spec directory: {e}", dir.display);
            return quote!(::core::compile_error!(#message););
        }
    };
    let mut modules = Vec::new();
    let mut idents: Vec<Ident> = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for file_name in names {
        let file = SpecFile::resolve(&dir.abs, &file_name);
        let abs = file.abs.to_string_lossy().into_owned();
        let (name, body) = compile_file(&file);
        let module_name = name.unwrap_or_else(|| file_name.trim_end_matches(".toml").to_string());
        let fallback = format_ident!("spec_{}", idents.len());
        let (ident, body) = if let Some(first) = seen.get(&module_name) {
            let message = format!(
                "{}: spec name `{module_name}` is already used by {first}; each spec needs its own name",
                file.display
            );
            (
                fallback,
                generate_error(&file.display, Some(&abs), &[message]),
            )
        } else {
            match module_ident(&module_name) {
                Ok(ident) => (ident, body),
                Err(e) => {
                    let message = format!("{}: {e}", file.display);
                    (
                        fallback,
                        generate_error(&file.display, Some(&abs), &[message]),
                    )
                }
            }
        };
        seen.entry(module_name)
            .or_insert_with(|| file.display.clone());
        let doc = format!("The machine compiled from `{}`.", file.display);
        modules.push(quote! {
            #[doc = #doc]
            pub mod #ident { #body }
        });
        idents.push(ident);
    }
    quote! {
        #(#modules)*
        /// Every compiled spec, sorted by file name.
        pub static ALL: &[&::gate_spec::exec::CompiledSpec] = &[#(&#idents::COMPILED),*];
    }
}

/// The file names of the specs in `dir` that [`compile_dir`] compiles: every `*.toml` directly
/// in it, sorted by name.
pub fn spec_files(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    Ok(names)
}

/// The warnings of every spec [`compile_dir`] compiles, each rendered for cargo's build output
/// (`specs/x.toml:LINE:COL: [G019] …` and its excerpt). A build script prints them as
/// `cargo:warning=` lines: a proc-macro cannot emit a warning on stable Rust. Errors are left
/// to the macro, which fails the build with them; files that cannot be read are its to report.
pub fn build_warnings(manifest_dir: &Path, relative: &str) -> Vec<String> {
    let dir = SpecFile::resolve(manifest_dir, relative);
    let mut out = Vec::new();
    for file_name in spec_files(&dir.abs).unwrap_or_default() {
        let file = SpecFile::resolve(&dir.abs, &file_name);
        let Ok(compiled) = gate_spec::compile_file(&file.abs, &shown) else {
            continue;
        };
        out.extend(
            compiled
                .diags
                .items
                .iter()
                .filter(|d| d.severity == gate_spec::diag::Severity::Warning)
                .map(|d| gate_spec::diag::render_for_build_in(&compiled.sources, d)),
        );
    }
    out
}

/// The registry entry of a generated module (`COMPILED` and its IR cell); the skeleton of a
/// spec that did not compile has the same one, so `ALL` stays type-correct either way.
fn registry_tokens(doc: &str) -> TokenStream {
    // A leading space, as `///` comments have, keeps the generated code byte-identical.
    let doc = format!(" {doc}");
    quote! {
        #[doc(hidden)]
        static IR_CELL: ::std::sync::OnceLock<::gate_spec::ir::Spec> = ::std::sync::OnceLock::new();

        #[doc = #doc]
        pub static COMPILED: ::gate_spec::exec::CompiledSpec = ::gate_spec::exec::CompiledSpec {
            name: NAME,
            hash: HASH,
            path: PATH,
            ir_json: IR_JSON,
            build_ir,
            mermaid: MERMAID,
            dot: DOT,
            machine: &Machine,
            ir_cell: &IR_CELL,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_is_injective_on_spec_names() {
        assert_eq!(camel("plan_read"), "PlanRead");
        assert_eq!(camel("pre_tool"), "PreTool");
        assert_eq!(camel("a_1"), "A_1");
        assert_eq!(camel("a1"), "A1");
        assert_eq!(camel("a__b"), "A_B");
        assert_eq!(camel("ab_"), "Ab_");
    }

    #[test]
    fn variant_names_avoid_self_and_collisions() {
        let v = variant_names(["Self".to_string(), "A".to_string(), "A".to_string()]);
        let v: Vec<String> = v.iter().map(|i| i.to_string()).collect();
        assert_eq!(v, ["Self_", "A", "A_2"]);
    }

    #[test]
    fn module_names_use_raw_identifiers_for_keywords() {
        assert_eq!(
            module_ident("jwc").map(|i| i.to_string()),
            Ok("jwc".to_string())
        );
        assert_eq!(
            module_ident("match").map(|i| i.to_string()),
            Ok("r#match".to_string())
        );
        assert!(module_ident("self").is_err());
    }
}
