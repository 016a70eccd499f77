//! Role resolution: which of the spec's roles an identity carries.

use super::Engine;
use crate::event::Event;
use gate_spec::ir::RoleId;

impl Engine<'_> {
    /// The role an identity carries: by subagent type, then by `NAME=VALUE` environment
    /// matches, then by an explicit role name (flag, `GATE_ROLE`, config).
    pub fn resolve_role(
        &self,
        event: &Event,
        env: &dyn Fn(&str) -> Option<String>,
        explicit: Option<&str>,
    ) -> Option<RoleId> {
        let roles = &self.spec.roles;
        if let Some(t) = event.agent_type.as_deref() {
            if let Some(i) = roles.iter().position(|r| {
                r.subagent_types
                    .iter()
                    .any(|g| crate::glob::text(&g.text, t))
            }) {
                return Some(i as RoleId);
            }
        }
        if let Some(i) = roles.iter().position(|r| {
            r.env
                .iter()
                .any(|(k, v)| env(k).as_deref() == Some(v.as_ref()))
        }) {
            return Some(i as RoleId);
        }
        explicit.and_then(|name| {
            roles
                .iter()
                .position(|r| r.name == name)
                .map(|i| i as RoleId)
        })
    }
}
