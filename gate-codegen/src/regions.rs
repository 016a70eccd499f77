//! The generated code of a spec's regions (`[[region]]`): one enum per region with its own
//! exhaustive `match (state, trigger)`, and the pieces of `Machine::step` that keep each
//! region's state (see rule 6 of `gate_spec::exec`).

use crate::select::Cx;
use crate::{camel, variant_names};
use gate_spec::ir::StateId;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// One region as generated code.
struct Region {
    /// The region's enum (`RegionTests`).
    ident: Ident,
    /// The local in `step` holding its state (`region_0`).
    local: Ident,
    name: String,
    states: Vec<StateId>,
    variants: Vec<Ident>,
    initial: Ident,
    arms: Vec<TokenStream>,
}

/// Every region of a spec, in declaration order.
pub(crate) struct Regions {
    list: Vec<Region>,
}

impl Regions {
    pub fn new(cx: &Cx<'_>) -> Regions {
        let spec = cx.spec;
        // Enum names never collide with each other nor with `State`/`Trigger`/`Machine`.
        let idents = variant_names(
            spec.regions
                .iter()
                .map(|r| format!("Region{}", camel(&r.name))),
        );
        let list = (spec.regions.iter().enumerate().zip(idents))
            .map(|((r, region), ident)| {
                let states: Vec<StateId> = spec.states_of(r + 1).collect();
                let variants = variant_names(states.iter().map(|&s| camel(spec.state_name(s))));
                let initial = states
                    .iter()
                    .position(|&s| s == region.initial)
                    .map_or_else(|| format_ident!("__NoStates"), |i| variants[i].clone());
                let arms = cx.arms(&ident, &states, &variants);
                Region {
                    local: format_ident!("region_{}", r),
                    ident,
                    name: region.name.to_string(),
                    states,
                    variants,
                    initial,
                    arms,
                }
            })
            .collect();
        Regions { list }
    }

    /// The enums and their `select`s.
    pub fn items(&self) -> TokenStream {
        let items = self.list.iter().map(|r| {
            let Region {
                ident,
                name,
                states,
                variants,
                initial,
                arms,
                ..
            } = r;
            let n = states.len();
            let doc = format!("The states of region `{name}`, in declaration order; each variant's value is the state's id in the IR.");
            quote! {
                #[doc = #doc]
                #[allow(non_camel_case_types, clippy::enum_variant_names)]
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
                #[repr(u8)]
                pub enum #ident {
                    #(#variants = #states,)*
                }

                impl #ident {
                    /// Every state of the region, in declaration order.
                    pub const ALL: [#ident; #n] = [#(#ident::#variants),*];
                    /// The region's initial state.
                    pub const INITIAL: #ident = #ident::#initial;
                    /// The state's id (its index in the IR).
                    pub const fn id(self) -> u8 {
                        self as u8
                    }
                    /// The state of this region with this id.
                    pub const fn from_id(id: u8) -> ::core::option::Option<#ident> {
                        match id {
                            #(#states => ::core::option::Option::Some(#ident::#variants),)*
                            _ => ::core::option::Option::None,
                        }
                    }
                    /// The transition of this region that fires from `self` on `trigger`, if
                    /// any (as `Machine::select`; `vars` is every variable's value now).
                    #[deny(unreachable_patterns)]
                    #[allow(clippy::match_single_binding, clippy::nonminimal_bool, unused_variables, unused_comparisons, clippy::absurd_extreme_comparisons)]
                    pub fn select(
                        self,
                        trigger: Trigger,
                        input: &::gate_spec::exec::Input<'_>,
                        floor: bool,
                        counters: &mut [u16; N_COUNTERS],
                        vars: &[u8; N_VARS],
                    ) -> ::core::option::Option<(u16, #ident, bool)> {
                        match (self, trigger) {
                            #(#arms)*
                        }
                    }
                }
            }
        });
        quote!(#(#items)*)
    }

    /// Each region's initial state id, in order (for `Snapshot::regions`).
    pub fn initial_ids(&self) -> TokenStream {
        let ids = self.list.iter().map(|r| {
            let ident = &r.ident;
            quote!(#ident::INITIAL.id())
        });
        quote!(::std::vec![#(#ids),*])
    }

    /// In `fit_memory`: a region state that is not one of the region's becomes its initial.
    pub fn fit(&self) -> TokenStream {
        let fits = self.list.iter().enumerate().map(|(i, r)| {
            let ident = &r.ident;
            quote! {
                if #ident::from_id(memory.regions[#i]).is_none() {
                    memory.regions[#i] = #ident::INITIAL.id();
                }
            }
        });
        quote!(#(#fits)*)
    }

    /// Whether `memory.regions` holds a state of each region (else `fit_memory` runs).
    pub fn fits(&self) -> TokenStream {
        let checks = self.list.iter().enumerate().map(|(i, r)| {
            let ident = &r.ident;
            quote!(&& #ident::from_id(memory.regions[#i]).is_some())
        });
        quote!(memory.regions.len() == N_REGIONS #(#checks)*)
    }

    /// `step`'s locals: each region's state before the event.
    pub fn locals(&self) -> TokenStream {
        let locals = self.list.iter().enumerate().map(|(i, r)| {
            let (ident, local) = (&r.ident, &r.local);
            quote!(let mut #local = #ident::from_id(memory.regions[#i]).unwrap_or(#ident::INITIAL);)
        });
        quote!(#(#locals)*)
    }

    /// Inside `take`: the value of every state variable now, main machine first.
    pub fn vars(&self) -> TokenStream {
        let values = self.list.iter().map(|r| {
            let local = &r.local;
            quote!(#local.id())
        });
        quote!([state.id() #(, #values)*])
    }

    /// The arms of `take`'s `match var` for the regions (variable `1 + r`).
    pub fn take_arms(&self) -> TokenStream {
        let arms = self.list.iter().enumerate().map(|(i, r)| {
            let var = i + 1;
            let local = &r.local;
            quote! {
                #var => {
                    if let ::core::option::Option::Some((index, to, _)) =
                        #local.select(trigger, input, floor, counters, &vars)
                    {
                        #local = to;
                        fired(index);
                    }
                }
            }
        });
        quote!(#(#arms)*)
    }

    /// Each region's own timer, as a `timeout` trigger of that region only.
    pub fn timeout_steps(&self, timeout: &Ident) -> TokenStream {
        let steps = (0..self.list.len()).map(|i| {
            let var = i + 1;
            quote! {
                if input.region_timeouts.get(#i).copied().unwrap_or(false) {
                    take(#var, Trigger::#timeout);
                }
            }
        });
        quote!(#(#steps)*)
    }

    /// After the event: each region's state back into the memory.
    pub fn store(&self) -> TokenStream {
        let stores = self.list.iter().enumerate().map(|(i, r)| {
            let local = &r.local;
            quote!(memory.regions[#i] = #local.id();)
        });
        quote!(#(#stores)*)
    }
}
