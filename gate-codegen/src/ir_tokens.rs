//! The IR as a Rust expression that builds it: what a compiled spec runs (once) instead of decoding bytes.
//!
//! Every text becomes `Cow::Borrowed("literal")` and every list `vec![…]`, so building the
//! IR copies no text and decodes nothing: the code stores the literals' addresses (taken
//! relative to the instruction pointer, so they need no load-time relocation) and allocates
//! only the non-empty lists. The expression uses the paths `ir::…` and `Cow`, which the
//! generated function imports.
//!
//! Each impl destructures its value without `..`, so a field added to the IR does not compile
//! here until it is emitted too.

use gate_spec::ir::{
    ActionClass, Backstop, Baseline, Block, Checkpoint, Effect, FailPolicy, Family, Guard, Mode,
    Named, Pattern, Phase, Rearm, Role, Rule, Scope, Signal, Span, Spec, State, StatusFilter,
    Telemetry, Template, TemplatePart, TemplateVar, Text, Tier, Transition, Trigger, Withhold,
};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// A value of the IR as an expression of its type.
pub(crate) trait Emit {
    fn emit(&self) -> TokenStream;
}

/// The variant of a fieldless enum whose `as_str` is its snake_case serde name.
fn variant(snake: &str) -> Ident {
    Ident::new(&crate::camel(snake), proc_macro2::Span::call_site())
}

macro_rules! unsuffixed {
    ($($t:ty => $f:ident),*) => {$(
        impl Emit for $t {
            fn emit(&self) -> TokenStream {
                let lit = Literal::$f(*self);
                quote!(#lit)
            }
        }
    )*};
}
unsuffixed!(u8 => u8_unsuffixed, u16 => u16_unsuffixed, u32 => u32_unsuffixed);

impl Emit for bool {
    fn emit(&self) -> TokenStream {
        quote!(#self)
    }
}

impl Emit for Text {
    fn emit(&self) -> TokenStream {
        let text: &str = self;
        quote!(Cow::Borrowed(#text))
    }
}

impl<T: Emit> Emit for Option<T> {
    fn emit(&self) -> TokenStream {
        match self {
            Some(v) => {
                let v = v.emit();
                quote!(::core::option::Option::Some(#v))
            }
            None => quote!(::core::option::Option::None),
        }
    }
}

impl<T: Emit> Emit for Vec<T> {
    fn emit(&self) -> TokenStream {
        if self.is_empty() {
            return quote!(::std::vec::Vec::new());
        }
        let items = self.iter().map(Emit::emit);
        quote!(::std::vec![#(#items),*])
    }
}

impl<A: Emit, B: Emit> Emit for (A, B) {
    fn emit(&self) -> TokenStream {
        let (a, b) = (self.0.emit(), self.1.emit());
        quote!((#a, #b))
    }
}

impl Emit for Span {
    fn emit(&self) -> TokenStream {
        let Span { start, end } = self;
        let (start, end) = (start.emit(), end.emit());
        quote!(ir::Span { start: #start, end: #end })
    }
}

impl Emit for Spec {
    fn emit(&self) -> TokenStream {
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
        } = self;
        let (name, description, hash) = (name.emit(), description.emit(), hash.emit());
        let (initial, scope, fail) = (initial.emit(), scope.emit(), fail.emit());
        let (tiers, kinds) = (tiers.emit(), kinds.emit());
        let (default_tier, default_kind) = (default_tier.emit(), default_kind.emit());
        let (rules, signals, rearm) = (rules.emit(), signals.emit(), rearm.emit());
        let (checkpoints, states) = (checkpoints.emit(), states.emit());
        let (transitions, templates, roles) = (transitions.emit(), templates.emit(), roles.emit());
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
        })
    }
}

impl Emit for Named {
    fn emit(&self) -> TokenStream {
        let Named { name, span } = self;
        let (name, span) = (name.emit(), span.emit());
        quote!(ir::Named { name: #name, span: #span })
    }
}

impl Emit for Scope {
    fn emit(&self) -> TokenStream {
        let v = match self {
            Scope::Session => quote!(Session),
            Scope::SessionAgent => quote!(SessionAgent),
            Scope::Repo => quote!(Repo),
        };
        quote!(ir::Scope::#v)
    }
}

impl Emit for FailPolicy {
    fn emit(&self) -> TokenStream {
        let v = match self {
            FailPolicy::Open => quote!(Open),
            FailPolicy::Closed => quote!(Closed),
        };
        quote!(ir::FailPolicy::#v)
    }
}

impl Emit for Mode {
    fn emit(&self) -> TokenStream {
        let v = match self {
            Mode::Observe => quote!(Observe),
            Mode::Steer => quote!(Steer),
            Mode::Gate => quote!(Gate),
        };
        quote!(ir::Mode::#v)
    }
}

impl Emit for Tier {
    fn emit(&self) -> TokenStream {
        let Tier {
            name,
            span,
            mode,
            fail,
            backstop,
        } = self;
        let (name, span, mode) = (name.emit(), span.emit(), mode.emit());
        let (fail, backstop) = (fail.emit(), backstop.emit());
        quote!(ir::Tier { name: #name, span: #span, mode: #mode, fail: #fail, backstop: #backstop })
    }
}

impl Emit for Backstop {
    fn emit(&self) -> TokenStream {
        let Backstop {
            max_actions,
            max_secs,
            baseline,
            span,
        } = self;
        let (max_actions, max_secs) = (max_actions.emit(), max_secs.emit());
        let (baseline, span) = (baseline.emit(), span.emit());
        quote!(ir::Backstop {
            max_actions: #max_actions,
            max_secs: #max_secs,
            baseline: #baseline,
            span: #span,
        })
    }
}

impl Emit for Baseline {
    fn emit(&self) -> TokenStream {
        let Baseline {
            min_actions,
            max_actions,
            min_secs,
            max_secs,
        } = self;
        let (min_actions, max_actions) = (min_actions.emit(), max_actions.emit());
        let (min_secs, max_secs) = (min_secs.emit(), max_secs.emit());
        quote!(ir::Baseline {
            min_actions: #min_actions,
            max_actions: #max_actions,
            min_secs: #min_secs,
            max_secs: #max_secs,
        })
    }
}

impl Emit for ActionClass {
    fn emit(&self) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::ActionClass::#v)
    }
}

impl Emit for Phase {
    fn emit(&self) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::Phase::#v)
    }
}

impl Emit for Telemetry {
    fn emit(&self) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::Telemetry::#v)
    }
}

impl Emit for TemplateVar {
    fn emit(&self) -> TokenStream {
        let v = variant(self.as_str());
        quote!(ir::TemplateVar::#v)
    }
}

impl Emit for Rule {
    fn emit(&self) -> TokenStream {
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
            tier,
            kind,
            reason,
        } = self;
        let (name, span, tools) = (name.emit(), span.emit(), tools.emit());
        let (classes, paths, commands) = (classes.emit(), paths.emit(), commands.emit());
        let (except_commands, except_paths) = (except_commands.emit(), except_paths.emit());
        let (phases, tier, kind, reason) = (phases.emit(), tier.emit(), kind.emit(), reason.emit());
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
            tier: #tier,
            kind: #kind,
            reason: #reason,
        })
    }
}

impl Emit for Pattern {
    fn emit(&self) -> TokenStream {
        let Pattern { text, span } = self;
        let (text, span) = (text.emit(), span.emit());
        quote!(ir::Pattern { text: #text, span: #span })
    }
}

impl Emit for Signal {
    fn emit(&self) -> TokenStream {
        let Signal {
            name,
            span,
            family,
            enter,
            exit,
            requires,
            samples,
        } = self;
        let (name, span, family) = (name.emit(), span.emit(), family.emit());
        let (enter, exit) = (enter.emit(), exit.emit());
        let (requires, samples) = (requires.emit(), samples.emit());
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
    fn emit(&self) -> TokenStream {
        let v = match self {
            Family::KindShift => quote!(KindShift),
            Family::TierAtLeast { tier } => {
                let tier = tier.emit();
                quote!(TierAtLeast { tier: #tier })
            }
            Family::FailureStreak { count } => {
                let count = count.emit();
                quote!(FailureStreak { count: #count })
            }
            Family::RepeatedTarget { count } => {
                let count = count.emit();
                quote!(RepeatedTarget { count: #count })
            }
            Family::ScopeChange { depth } => {
                let depth = depth.emit();
                quote!(ScopeChange { depth: #depth })
            }
            Family::Lifecycle { events } => {
                let events = events.emit();
                quote!(Lifecycle { events: #events })
            }
            Family::Budget {
                max_actions,
                max_secs,
            } => {
                let (max_actions, max_secs) = (max_actions.emit(), max_secs.emit());
                quote!(Budget { max_actions: #max_actions, max_secs: #max_secs })
            }
            Family::Rate { max, per_secs } => {
                let (max, per_secs) = (max.emit(), per_secs.emit());
                quote!(Rate { max: #max, per_secs: #per_secs })
            }
            Family::Denied => quote!(Denied),
        };
        quote!(ir::Family::#v)
    }
}

impl Emit for Rearm {
    fn emit(&self) -> TokenStream {
        let Rearm {
            min_actions,
            min_secs,
            span,
        } = self;
        let (min_actions, min_secs, span) = (min_actions.emit(), min_secs.emit(), span.emit());
        quote!(ir::Rearm { min_actions: #min_actions, min_secs: #min_secs, span: #span })
    }
}

impl Emit for Checkpoint {
    fn emit(&self) -> TokenStream {
        let Checkpoint {
            name,
            span,
            tools,
            targets,
            events,
            status,
        } = self;
        let (name, span, tools) = (name.emit(), span.emit(), tools.emit());
        let (targets, events, status) = (targets.emit(), events.emit(), status.emit());
        quote!(ir::Checkpoint {
            name: #name,
            span: #span,
            tools: #tools,
            targets: #targets,
            events: #events,
            status: #status,
        })
    }
}

impl Emit for StatusFilter {
    fn emit(&self) -> TokenStream {
        let v = match self {
            StatusFilter::Any => quote!(Any),
            StatusFilter::Success => quote!(Success),
            StatusFilter::Failure => quote!(Failure),
        };
        quote!(ir::StatusFilter::#v)
    }
}

impl Emit for State {
    fn emit(&self) -> TokenStream {
        let State {
            name,
            span,
            window,
            withhold,
        } = self;
        let (name, span, window, withhold) =
            (name.emit(), span.emit(), window.emit(), withhold.emit());
        quote!(ir::State { name: #name, span: #span, window: #window, withhold: #withhold })
    }
}

impl Emit for Withhold {
    fn emit(&self) -> TokenStream {
        let Withhold {
            block,
            template,
            span,
        } = self;
        let (block, template, span) = (block.emit(), template.emit(), span.emit());
        quote!(ir::Withhold { block: #block, template: #template, span: #span })
    }
}

impl Emit for Block {
    fn emit(&self) -> TokenStream {
        let v = match self {
            Block::Ask => quote!(Ask),
            Block::Deny => quote!(Deny),
        };
        quote!(ir::Block::#v)
    }
}

impl Emit for Trigger {
    fn emit(&self) -> TokenStream {
        crate::ir_trigger_tokens(*self)
    }
}

impl Emit for Guard {
    fn emit(&self) -> TokenStream {
        let Guard {
            tier,
            kinds,
            roles,
            rearm,
            span,
        } = self;
        let (tier, kinds, roles) = (tier.emit(), kinds.emit(), roles.emit());
        let (rearm, span) = (rearm.emit(), span.emit());
        quote!(ir::Guard { tier: #tier, kinds: #kinds, roles: #roles, rearm: #rearm, span: #span })
    }
}

impl Emit for Transition {
    fn emit(&self) -> TokenStream {
        let Transition {
            span,
            from,
            trigger,
            guard,
            to,
            effects,
        } = self;
        let (span, from, trigger) = (span.emit(), from.emit(), trigger.emit());
        let (guard, to, effects) = (guard.emit(), to.emit(), effects.emit());
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
    fn emit(&self) -> TokenStream {
        let v = match self {
            Effect::Arm => quote!(Arm),
            Effect::Close => quote!(Close),
            Effect::Steer { template } => {
                let template = template.emit();
                quote!(Steer { template: #template })
            }
            Effect::Ask { template } => {
                let template = template.emit();
                quote!(Ask { template: #template })
            }
            Effect::Deny { template } => {
                let template = template.emit();
                quote!(Deny { template: #template })
            }
            Effect::Record { label } => {
                let label = label.emit();
                quote!(Record { label: #label })
            }
        };
        quote!(ir::Effect::#v)
    }
}

impl Emit for Template {
    fn emit(&self) -> TokenStream {
        let Template { name, span, parts } = self;
        let (name, span, parts) = (name.emit(), span.emit(), parts.emit());
        quote!(ir::Template { name: #name, span: #span, parts: #parts })
    }
}

impl Emit for TemplatePart {
    fn emit(&self) -> TokenStream {
        match self {
            TemplatePart::Text(text) => {
                let text = text.emit();
                quote!(ir::TemplatePart::Text(#text))
            }
            TemplatePart::Var(var) => {
                let var = var.emit();
                quote!(ir::TemplatePart::Var(#var))
            }
        }
    }
}

impl Emit for Role {
    fn emit(&self) -> TokenStream {
        let Role {
            name,
            span,
            subagent_types,
            env,
            modes,
        } = self;
        let (name, span, subagent_types) = (name.emit(), span.emit(), subagent_types.emit());
        let (env, modes) = (env.emit(), modes.emit());
        quote!(ir::Role {
            name: #name,
            span: #span,
            subagent_types: #subagent_types,
            env: #env,
            modes: #modes,
        })
    }
}
