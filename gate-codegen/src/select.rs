//! The transition choice of one state variable (the main machine or a region) as the arms of
//! one exhaustive `match (state, trigger)`: every pair named, no wildcard arm.

use gate_spec::ir::{Spec, StateId, Transition, Trigger};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// What every variable's match is built from.
pub(crate) struct Cx<'a> {
    pub spec: &'a Spec,
    /// `Spec::all_triggers()`, and the `Trigger` variant of each.
    pub triggers: &'a [Trigger],
    pub trigger_variants: &'a [Ident],
}

impl Cx<'_> {
    /// The arms for the states `states` (one variable's, as ids), whose variants of enum
    /// `enum_ident` are `variants` (in the same order). Each arm returns the fired transition's
    /// index, its target and whether it arms a window.
    pub fn arms(
        &self,
        enum_ident: &Ident,
        states: &[StateId],
        variants: &[Ident],
    ) -> Vec<TokenStream> {
        let spec = self.spec;
        let variant_of = |s: StateId| -> &Ident {
            let i = states.iter().position(|&x| x == s).unwrap_or_default();
            &variants[i]
        };
        let mut match_arms = Vec::new();
        for (&s, state_variant) in states.iter().zip(variants) {
            let mut idle_triggers = Vec::new();
            for (trigger, trigger_variant) in self.triggers.iter().zip(self.trigger_variants) {
                let candidates: Vec<(usize, &Transition)> = spec
                    .transitions
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.from == s && t.trigger == *trigger)
                    .collect();
                if candidates.is_empty() {
                    idle_triggers.push(trigger_variant);
                    continue;
                }
                let tests = candidates.iter().map(|(index, t)| {
                    let index = *index as u16;
                    let arms = crate::arms_window(t);
                    let to = variant_of(t.to);
                    let cond = crate::guard_tokens(spec, &t.guard, arms);
                    let count = crate::counter_tokens(spec, t);
                    quote! {
                        if #cond {
                            #count
                            return ::core::option::Option::Some((#index, #enum_ident::#to, #arms));
                        }
                    }
                });
                match_arms.push(quote! {
                    (#enum_ident::#state_variant, Trigger::#trigger_variant) => {
                        #(#tests)*
                        ::core::option::Option::None
                    }
                });
            }
            if !idle_triggers.is_empty() {
                match_arms.push(quote! {
                    (#enum_ident::#state_variant, #(Trigger::#idle_triggers)|*) => ::core::option::Option::None,
                });
            }
        }
        match_arms
    }
}
