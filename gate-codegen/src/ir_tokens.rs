//! The IR as a Rust expression that builds it: what a compiled spec runs (once) instead of decoding bytes.
//!
//! Every text becomes `Cow::Borrowed("literal")`, so building the IR copies no text and
//! decodes nothing: the code stores the literals' addresses (taken relative to the
//! instruction pointer, so they need no load-time relocation). A [`List`] (phases, classes,
//! kind and role ids, modes, effects) is a range of one static array per element type
//! ([`Pools`]; equal lists share a range), so it is not allocated; only the effects' array
//! holds pointers (the `record` labels) and so needs relocations, one per label. A list of
//! patterns (the bulk of a spec) is a range of one static array of plain records `[text
//! start, text end, span start, span end]` whose texts are ranges of one literal: as code,
//! ~50 bytes per pattern made the default spec's function 91 KB instead of 53 KB, and a hook
//! process maps what it runs. The other lists are `vec![…]`. The expression uses the paths `ir::…` and `Cow`, which the generated
//! function imports, and the pools' statics, which it declares.
//!
//! Each impl destructures its value without `..`, so a field added to the IR does not compile
//! here until it is emitted too.

use gate_spec::invariant::{Answer, Claim, Invariant, When};
use gate_spec::ir::{
    Act, ActionClass, Backstop, Baseline, Block, Checkpoint, Counter, CounterGuard, Effect,
    FailPolicy, Family, Guard, List, Mode, Named, Pattern, Phase, Place, Profile, Quiet, Rearm,
    Region, Role, Rule, Scope, Signal, Span, Spec, State, StatusFilter, Telemetry, Template,
    TemplatePart, TemplateVar, Text, Tier, Transition, Trigger, Withhold,
};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// A value of the IR as an expression of its type; the items of its [`List`]s go to `cx`.
pub(crate) trait Emit {
    fn emit(&self, cx: &mut Pools) -> TokenStream;
}

/// The items of one element type's lists, in one array: a list is a range of it, and equal
/// lists share their range.
#[derive(Default)]
pub(crate) struct Pool {
    items: Vec<TokenStream>,
    lists: BTreeMap<Vec<String>, (usize, usize)>,
}

impl Pool {
    fn add(&mut self, items: Vec<TokenStream>) -> (usize, usize) {
        let key: Vec<String> = items.iter().map(ToString::to_string).collect();
        if let Some(&range) = self.lists.get(&key) {
            return range;
        }
        let start = self.items.len();
        self.items.extend(items);
        let range = (start, self.items.len());
        self.lists.insert(key, range);
        range
    }
}

/// One [`Pool`] per element type of the IR's [`List`]s.
#[derive(Default)]
pub(crate) struct Pools {
    classes: Pool,
    phases: Pool,
    telemetry: Pool,
    ids: Pool,
    role_ids: Pool,
    modes: Pool,
    effects: Pool,
    acts: Pool,
    places: Pool,
    /// `[text start, text end, span start, span end]` per pattern, texts in `pattern_text`.
    patterns: Pool,
    pattern_text: String,
    pattern_texts: BTreeMap<String, (u32, u32)>,
}

impl Pools {
    /// The statics the lists borrow from (the non-empty pools), for the building function.
    pub(crate) fn statics(&self) -> TokenStream {
        let pools = [
            (&self.classes, ActionClass::POOL, ActionClass::ty()),
            (&self.phases, Phase::POOL, Phase::ty()),
            (&self.telemetry, Telemetry::POOL, Telemetry::ty()),
            (&self.ids, u8::POOL, u8::ty()),
            (&self.role_ids, Option::<u8>::POOL, Option::<u8>::ty()),
            (&self.modes, Option::<Mode>::POOL, Option::<Mode>::ty()),
            (&self.effects, Effect::POOL, Effect::ty()),
            (&self.acts, Act::POOL, Act::ty()),
            (&self.places, Place::POOL, Place::ty()),
        ];
        let mut statics: Vec<TokenStream> = Vec::new();
        if !self.patterns.items.is_empty() {
            let text = &self.pattern_text;
            let (items, n) = (&self.patterns.items, self.patterns.items.len());
            statics.push(quote! {
                const PATTERN_TEXT: &str = #text;
                static PATTERNS: [[u32; 4]; #n] = [#(#items),*];
            });
        }
        for (p, name, ty) in pools {
            if !p.items.is_empty() {
                let name = Ident::new(name, proc_macro2::Span::call_site());
                let (items, n) = (&p.items, p.items.len());
                statics.push(quote!(static #name: [#ty; #n] = [#(#items),*];));
            }
        }
        quote!(#(#statics)*)
    }

    /// A list of patterns: a range of the spec's pattern records, whose texts are ranges of one
    /// literal (see [`Pattern::list`](gate_spec::ir::Pattern::list)).
    fn patterns(&mut self, list: &[Pattern]) -> TokenStream {
        if list.is_empty() {
            return quote!(::std::vec::Vec::new());
        }
        let records = list
            .iter()
            .map(|p| {
                let (from, to) = match self.pattern_texts.get(&*p.text) {
                    Some(&range) => range,
                    None => {
                        let from = self.pattern_text.len() as u32;
                        self.pattern_text.push_str(&p.text);
                        let range = (from, self.pattern_text.len() as u32);
                        self.pattern_texts.insert(p.text.to_string(), range);
                        range
                    }
                };
                let (start, end) = (p.span.start, p.span.end);
                quote!([#from, #to, #start, #end])
            })
            .collect();
        let (start, end) = self.patterns.add(records);
        quote!(ir::Pattern::list(PATTERN_TEXT, &PATTERNS[#start..#end]))
    }
}

/// An element type of a [`List`]: its pool, and the name and type of the pool's static.
pub(crate) trait Pooled: Emit {
    const POOL: &'static str;
    fn ty() -> TokenStream;
    fn pool(cx: &mut Pools) -> &mut Pool;
}

macro_rules! pooled {
    ($($t:ty => $field:ident, $name:literal, $ty:expr;)*) => {$(
        impl Pooled for $t {
            const POOL: &'static str = $name;
            fn ty() -> TokenStream {
                $ty
            }
            fn pool(cx: &mut Pools) -> &mut Pool {
                &mut cx.$field
            }
        }
    )*};
}
pooled! {
    ActionClass => classes, "CLASSES", quote!(ir::ActionClass);
    Phase => phases, "PHASES", quote!(ir::Phase);
    Telemetry => telemetry, "TELEMETRY", quote!(ir::Telemetry);
    u8 => ids, "IDS", quote!(u8);
    Option<u8> => role_ids, "ROLE_IDS", quote!(::core::option::Option<u8>);
    Option<Mode> => modes, "MODES", quote!(::core::option::Option<ir::Mode>);
    Effect => effects, "EFFECTS", quote!(ir::Effect);
    Act => acts, "ACTS", quote!(ir::Act);
    Place => places, "PLACES", quote!(ir::Place);
}

/// The variant of a fieldless enum whose `as_str` is its snake_case serde name.
fn variant(snake: &str) -> Ident {
    Ident::new(&crate::camel(snake), proc_macro2::Span::call_site())
}

macro_rules! unsuffixed {
    ($($t:ty => $f:ident),*) => {$(
        impl Emit for $t {
            fn emit(&self, _cx: &mut Pools) -> TokenStream {
                let lit = Literal::$f(*self);
                quote!(#lit)
            }
        }
    )*};
}
unsuffixed!(u8 => u8_unsuffixed, u16 => u16_unsuffixed, u32 => u32_unsuffixed);

impl Emit for bool {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        quote!(#self)
    }
}

impl Emit for Text {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let text: &str = self;
        quote!(Cow::Borrowed(#text))
    }
}

impl<T: Emit> Emit for Option<T> {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        match self {
            Some(v) => {
                let v = v.emit(cx);
                quote!(::core::option::Option::Some(#v))
            }
            None => quote!(::core::option::Option::None),
        }
    }
}

impl<T: Pooled + Clone> Emit for List<T> {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        if self.is_empty() {
            return quote!(ir::List::borrowed(&[]));
        }
        let items: Vec<TokenStream> = self.iter().map(|v| v.emit(cx)).collect();
        let (start, end) = T::pool(cx).add(items);
        let name = Ident::new(T::POOL, proc_macro2::Span::call_site());
        quote!(ir::List::borrowed(&#name[#start..#end]))
    }
}

impl<T: Emit> Emit for Vec<T> {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        if self.is_empty() {
            return quote!(::std::vec::Vec::new());
        }
        let items: Vec<TokenStream> = self.iter().map(|v| v.emit(cx)).collect();
        quote!(::std::vec![#(#items),*])
    }
}

impl<A: Emit, B: Emit> Emit for (A, B) {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let (a, b) = (self.0.emit(cx), self.1.emit(cx));
        quote!((#a, #b))
    }
}

impl Emit for Span {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Span { start, end } = self;
        let (start, end) = (start.emit(cx), end.emit(cx));
        quote!(ir::Span { start: #start, end: #end })
    }
}

impl Emit for Spec {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Spec {
            name,
            description,
            hash,
            initial,
            scope,
            fail,
            tiers,
            kinds,
            default_tier,
            default_kind,
            rules,
            signals,
            rearm,
            checkpoints,
            states,
            transitions,
            templates,
            roles,
            counters,
            regions,
            profiles,
            invariants,
            alongside,
        } = self;
        let counters = counters.emit(cx);
        let regions = regions.emit(cx);
        let profiles = profiles.emit(cx);
        let alongside = alongside.emit(cx);
        let (name, description, hash) = (name.emit(cx), description.emit(cx), hash.emit(cx));
        let (initial, scope, fail) = (initial.emit(cx), scope.emit(cx), fail.emit(cx));
        let (tiers, kinds) = (tiers.emit(cx), kinds.emit(cx));
        let (default_tier, default_kind) = (default_tier.emit(cx), default_kind.emit(cx));
        let (rules, signals, rearm) = (rules.emit(cx), signals.emit(cx), rearm.emit(cx));
        let (checkpoints, states) = (checkpoints.emit(cx), states.emit(cx));
        let (transitions, templates, roles) =
            (transitions.emit(cx), templates.emit(cx), roles.emit(cx));
        let invariants = invariants.emit(cx);
        quote!(ir::Spec {
            name: #name,
            description: #description,
            hash: #hash,
            initial: #initial,
            scope: #scope,
            fail: #fail,
            tiers: #tiers,
            kinds: #kinds,
            default_tier: #default_tier,
            default_kind: #default_kind,
            rules: #rules,
            signals: #signals,
            rearm: #rearm,
            checkpoints: #checkpoints,
            states: #states,
            transitions: #transitions,
            templates: #templates,
            roles: #roles,
            counters: #counters,
            regions: #regions,
            profiles: #profiles,
            invariants: #invariants,
            alongside: #alongside,
        })
    }
}

impl Emit for Profile {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Profile { name, span, detect } = self;
        let (name, span, detect) = (name.emit(cx), span.emit(cx), detect.emit(cx));
        quote!(ir::Profile {
            name: #name,
            span: #span,
            detect: #detect,
        })
    }
}

impl Emit for Named {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Named { name, span } = self;
        let (name, span) = (name.emit(cx), span.emit(cx));
        quote!(ir::Named { name: #name, span: #span })
    }
}

impl Emit for Scope {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = match self {
            Scope::Session => quote!(Session),
            Scope::SessionAgent => quote!(SessionAgent),
            Scope::Repo => quote!(Repo),
        };
        quote!(ir::Scope::#v)
    }
}

impl Emit for FailPolicy {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = match self {
            FailPolicy::Open => quote!(Open),
            FailPolicy::Closed => quote!(Closed),
        };
        quote!(ir::FailPolicy::#v)
    }
}

impl Emit for Mode {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = match self {
            Mode::Observe => quote!(Observe),
            Mode::Steer => quote!(Steer),
            Mode::Reversible => quote!(Reversible),
            Mode::Gate => quote!(Gate),
        };
        quote!(ir::Mode::#v)
    }
}

impl Emit for Tier {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Tier {
            name,
            span,
            mode,
            fail,
            backstop,
        } = self;
        let (name, span, mode) = (name.emit(cx), span.emit(cx), mode.emit(cx));
        let (fail, backstop) = (fail.emit(cx), backstop.emit(cx));
        quote!(ir::Tier { name: #name, span: #span, mode: #mode, fail: #fail, backstop: #backstop })
    }
}

impl Emit for Backstop {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Backstop {
            max_actions,
            max_secs,
            baseline,
            span,
        } = self;
        let (max_actions, max_secs) = (max_actions.emit(cx), max_secs.emit(cx));
        let (baseline, span) = (baseline.emit(cx), span.emit(cx));
        quote!(ir::Backstop {
            max_actions: #max_actions,
            max_secs: #max_secs,
            baseline: #baseline,
            span: #span,
        })
    }
}

impl Emit for Baseline {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Baseline {
            min_actions,
            max_actions,
            min_secs,
            max_secs,
        } = self;
        let (min_actions, max_actions) = (min_actions.emit(cx), max_actions.emit(cx));
        let (min_secs, max_secs) = (min_secs.emit(cx), max_secs.emit(cx));
        quote!(ir::Baseline {
            min_actions: #min_actions,
            max_actions: #max_actions,
            min_secs: #min_secs,
            max_secs: #max_secs,
        })
    }
}

impl Emit for ActionClass {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::ActionClass::#v)
    }
}

impl Emit for Act {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::Act::#v)
    }
}

impl Emit for Place {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = match self {
            // `none` is spelled `Nowhere` in Rust (`None` would shadow `Option::None`).
            Place::Nowhere => Ident::new("Nowhere", proc_macro2::Span::call_site()),
            p => variant(p.as_str()),
        };
        quote!(ir::Place::#v)
    }
}

impl Emit for Phase {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::Phase::#v)
    }
}

impl Emit for Telemetry {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::Telemetry::#v)
    }
}

impl Emit for TemplateVar {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::TemplateVar::#v)
    }
}

impl Emit for Rule {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Rule {
            name,
            span,
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
            reason,
            profiles,
            roles,
        } = self;
        let (profiles, roles) = (profiles.emit(cx), roles.emit(cx));
        let (name, span, tools) = (name.emit(cx), span.emit(cx), cx.patterns(tools));
        let (classes, paths, commands) =
            (classes.emit(cx), cx.patterns(paths), cx.patterns(commands));
        let (except_commands, except_paths) =
            (cx.patterns(except_commands), cx.patterns(except_paths));
        let (effects, locations) = (effects.emit(cx), locations.emit(cx));
        let (phases, tier, kind, reason) = (
            phases.emit(cx),
            tier.emit(cx),
            kind.emit(cx),
            reason.emit(cx),
        );
        quote!(ir::Rule {
            name: #name,
            span: #span,
            tools: #tools,
            classes: #classes,
            paths: #paths,
            commands: #commands,
            except_commands: #except_commands,
            except_paths: #except_paths,
            phases: #phases,
            effects: #effects,
            locations: #locations,
            tier: #tier,
            kind: #kind,
            reason: #reason,
            profiles: #profiles,
            roles: #roles,
        })
    }
}

impl Emit for Signal {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Signal {
            name,
            span,
            family,
            enter,
            exit,
            requires,
            samples,
        } = self;
        let (name, span, family) = (name.emit(cx), span.emit(cx), family.emit(cx));
        let (enter, exit) = (enter.emit(cx), exit.emit(cx));
        let (requires, samples) = (requires.emit(cx), samples.emit(cx));
        quote!(ir::Signal {
            name: #name,
            span: #span,
            family: #family,
            enter: #enter,
            exit: #exit,
            requires: #requires,
            samples: #samples,
        })
    }
}

impl Emit for Family {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let v = match self {
            Family::KindShift => quote!(KindShift),
            Family::TierAtLeast { tier } => {
                let tier = tier.emit(cx);
                quote!(TierAtLeast { tier: #tier })
            }
            Family::FailureStreak { count } => {
                let count = count.emit(cx);
                quote!(FailureStreak { count: #count })
            }
            Family::RepeatedTarget { count } => {
                let count = count.emit(cx);
                quote!(RepeatedTarget { count: #count })
            }
            Family::ScopeChange { depth } => {
                let depth = depth.emit(cx);
                quote!(ScopeChange { depth: #depth })
            }
            Family::Lifecycle { events } => {
                let events = events.emit(cx);
                quote!(Lifecycle { events: #events })
            }
            Family::Budget {
                max_actions,
                max_secs,
            } => {
                let (max_actions, max_secs) = (max_actions.emit(cx), max_secs.emit(cx));
                quote!(Budget { max_actions: #max_actions, max_secs: #max_secs })
            }
            Family::Rate { max, per_secs } => {
                let (max, per_secs) = (max.emit(cx), per_secs.emit(cx));
                quote!(Rate { max: #max, per_secs: #per_secs })
            }
            Family::Denied => quote!(Denied),
            Family::Calendar {
                days,
                after,
                before,
                zone,
            } => {
                let (days, after) = (days.emit(cx), after.emit(cx));
                let (before, zone) = (before.emit(cx), zone.emit(cx));
                quote!(Calendar { days: #days, after: #after, before: #before, zone: #zone })
            }
        };
        quote!(ir::Family::#v)
    }
}

impl Emit for Rearm {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Rearm {
            min_actions,
            min_secs,
            span,
        } = self;
        let (min_actions, min_secs, span) =
            (min_actions.emit(cx), min_secs.emit(cx), span.emit(cx));
        quote!(ir::Rearm { min_actions: #min_actions, min_secs: #min_secs, span: #span })
    }
}

impl Emit for Checkpoint {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Checkpoint {
            name,
            span,
            tools,
            targets,
            commands,
            except_commands,
            events,
            status,
        } = self;
        let (name, span, tools) = (name.emit(cx), span.emit(cx), cx.patterns(tools));
        let (targets, events, status) = (cx.patterns(targets), events.emit(cx), status.emit(cx));
        let (commands, except_commands) = (cx.patterns(commands), cx.patterns(except_commands));
        quote!(ir::Checkpoint {
            name: #name,
            span: #span,
            tools: #tools,
            targets: #targets,
            commands: #commands,
            except_commands: #except_commands,
            events: #events,
            status: #status,
        })
    }
}

impl Emit for StatusFilter {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = match self {
            StatusFilter::Any => quote!(Any),
            StatusFilter::Success => quote!(Success),
            StatusFilter::Failure => quote!(Failure),
        };
        quote!(ir::StatusFilter::#v)
    }
}

impl Emit for State {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let State {
            name,
            span,
            window,
            withhold,
            timeout_secs,
            restart,
            group,
            region,
        } = self;
        let region = region.emit(cx);
        let (name, span, window, withhold, timeout_secs, restart, group) = (
            name.emit(cx),
            span.emit(cx),
            window.emit(cx),
            withhold.emit(cx),
            timeout_secs.emit(cx),
            restart.emit(cx),
            group.emit(cx),
        );
        quote!(ir::State { name: #name, span: #span, window: #window, withhold: #withhold, timeout_secs: #timeout_secs, restart: #restart, group: #group, region: #region })
    }
}

impl Emit for Withhold {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Withhold {
            block,
            template,
            span,
        } = self;
        let (block, template, span) = (block.emit(cx), template.emit(cx), span.emit(cx));
        quote!(ir::Withhold { block: #block, template: #template, span: #span })
    }
}

impl Emit for Block {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = match self {
            Block::Ask => quote!(Ask),
            Block::Deny => quote!(Deny),
        };
        quote!(ir::Block::#v)
    }
}

impl Emit for Trigger {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        crate::ir_trigger_tokens(*self)
    }
}

impl Emit for Answer {
    fn emit(&self, _cx: &mut Pools) -> TokenStream {
        let v = variant(self.as_str());
        quote!(::gate_spec::invariant::Answer::#v)
    }
}

impl Emit for When {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let When {
            states,
            window,
            phases,
            tier,
            kinds,
            roles,
            signals,
            first,
            approved,
            timeout,
            backstop,
        } = self;
        let (states, window, phases) = (states.emit(cx), window.emit(cx), phases.emit(cx));
        let (tier, kinds, roles) = (tier.emit(cx), kinds.emit(cx), roles.emit(cx));
        let (signals, first) = (signals.emit(cx), first.emit(cx));
        let (approved, timeout, backstop) =
            (approved.emit(cx), timeout.emit(cx), backstop.emit(cx));
        quote!(::gate_spec::invariant::When {
            states: #states,
            window: #window,
            phases: #phases,
            tier: #tier,
            kinds: #kinds,
            roles: #roles,
            signals: #signals,
            first: #first,
            approved: #approved,
            timeout: #timeout,
            backstop: #backstop,
        })
    }
}

impl Emit for Claim {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        match self {
            Claim::Never(list) => {
                let list = list.emit(cx);
                quote!(::gate_spec::invariant::Claim::Never(#list))
            }
            Claim::Always(list) => {
                let list = list.emit(cx);
                quote!(::gate_spec::invariant::Claim::Always(#list))
            }
            Claim::Reach(list) => {
                let list = list.emit(cx);
                quote!(::gate_spec::invariant::Claim::Reach(#list))
            }
        }
    }
}

impl Emit for Invariant {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Invariant {
            name,
            span,
            when,
            claim,
        } = self;
        let (name, span, when, claim) =
            (name.emit(cx), span.emit(cx), when.emit(cx), claim.emit(cx));
        quote!(::gate_spec::invariant::Invariant { name: #name, span: #span, when: #when, claim: #claim })
    }
}

impl Emit for Guard {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Guard {
            tier,
            kinds,
            roles,
            rearm,
            counters,
            states,
            span,
        } = self;
        let (tier, kinds, roles) = (tier.emit(cx), kinds.emit(cx), roles.emit(cx));
        let (rearm, counters, span) = (rearm.emit(cx), counters.emit(cx), span.emit(cx));
        let states = states.emit(cx);
        quote!(ir::Guard { tier: #tier, kinds: #kinds, roles: #roles, rearm: #rearm, counters: #counters, states: #states, span: #span })
    }
}

impl Emit for CounterGuard {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let CounterGuard { counter, lo, hi } = self;
        let (counter, lo, hi) = (counter.emit(cx), lo.emit(cx), hi.emit(cx));
        quote!(ir::CounterGuard { counter: #counter, lo: #lo, hi: #hi })
    }
}

impl Emit for Region {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Region {
            name,
            span,
            initial,
        } = self;
        let (name, span, initial) = (name.emit(cx), span.emit(cx), initial.emit(cx));
        quote!(ir::Region { name: #name, span: #span, initial: #initial })
    }
}

impl Emit for Counter {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Counter { name, span, max } = self;
        let (name, span, max) = (name.emit(cx), span.emit(cx), max.emit(cx));
        quote!(ir::Counter { name: #name, span: #span, max: #max })
    }
}

impl Emit for Transition {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Transition {
            span,
            from,
            trigger,
            guard,
            to,
            effects,
        } = self;
        let (span, from, trigger) = (span.emit(cx), from.emit(cx), trigger.emit(cx));
        let (guard, to, effects) = (guard.emit(cx), to.emit(cx), effects.emit(cx));
        quote!(ir::Transition {
            span: #span,
            from: #from,
            trigger: #trigger,
            guard: #guard,
            to: #to,
            effects: #effects,
        })
    }
}

impl Emit for Effect {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let v = match self {
            Effect::Arm => quote!(Arm),
            Effect::Close => quote!(Close),
            Effect::Steer { template } => {
                let template = template.emit(cx);
                quote!(Steer { template: #template })
            }
            Effect::Ask { template } => {
                let template = template.emit(cx);
                quote!(Ask { template: #template })
            }
            Effect::Deny { template } => {
                let template = template.emit(cx);
                quote!(Deny { template: #template })
            }
            Effect::Record { label } => {
                let label = label.emit(cx);
                quote!(Record { label: #label })
            }
            Effect::Inc { counter } => {
                let counter = counter.emit(cx);
                quote!(Inc { counter: #counter })
            }
            Effect::Reset { counter } => {
                let counter = counter.emit(cx);
                quote!(Reset { counter: #counter })
            }
        };
        quote!(ir::Effect::#v)
    }
}

impl Emit for Template {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Template {
            name,
            span,
            parts,
            quiet,
        } = self;
        let (name, span, parts, quiet) =
            (name.emit(cx), span.emit(cx), parts.emit(cx), quiet.emit(cx));
        quote!(ir::Template { name: #name, span: #span, parts: #parts, quiet: #quiet })
    }
}

impl Emit for Quiet {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Quiet { actions, secs } = self;
        let (actions, secs) = (actions.emit(cx), secs.emit(cx));
        quote!(ir::Quiet { actions: #actions, secs: #secs })
    }
}

impl Emit for TemplatePart {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        match self {
            TemplatePart::Text(text) => {
                let text = text.emit(cx);
                quote!(ir::TemplatePart::Text(#text))
            }
            TemplatePart::Var(var) => {
                let var = var.emit(cx);
                quote!(ir::TemplatePart::Var(#var))
            }
        }
    }
}

impl Emit for Role {
    fn emit(&self, cx: &mut Pools) -> TokenStream {
        let Role {
            name,
            span,
            subagent_types,
            env,
            modes,
        } = self;
        let (name, span, subagent_types) =
            (name.emit(cx), span.emit(cx), cx.patterns(subagent_types));
        let (env, modes) = (env.emit(cx), modes.emit(cx));
        quote!(ir::Role {
            name: #name,
            span: #span,
            subagent_types: #subagent_types,
            env: #env,
            modes: #modes,
        })
    }
}
