//! Where effects come from: while a caller asks ([`begin_sources`], as `gate explain`
//! does), each effect a command model written as data produced is recorded with its file
//! and entry (`commands/cloud.toml: kubectl delete`). Off, it costs one check per command
//! read from data.

use std::cell::RefCell;

use super::Effect;

thread_local! {
    static SOURCES: RefCell<Option<Vec<(Effect, &'static str)>>> = const { RefCell::new(None) };
}

/// Start recording where effects come from.
pub fn begin_sources() {
    SOURCES.with(|s| *s.borrow_mut() = Some(Vec::new()));
}

/// Every effect recorded since [`begin_sources`] with its source, and stop recording.
pub fn end_sources() -> Vec<(Effect, &'static str)> {
    SOURCES.with(|s| s.borrow_mut().take().unwrap_or_default())
}

/// Whether sources are being recorded.
pub(crate) fn recording() -> bool {
    SOURCES.with(|s| s.borrow().is_some())
}

/// Record that `effects` came from `source`.
pub(crate) fn note(effects: &[Effect], source: &'static str) {
    SOURCES.with(|s| {
        if let Some(v) = s.borrow_mut().as_mut() {
            v.extend(effects.iter().map(|e| (e.clone(), source)));
        }
    });
}

/// The source of `e` among `recorded`: the same effect, else the same act and place (an
/// effect read on another machine is placed again after it is recorded).
pub fn source_of(e: &Effect, recorded: &[(Effect, &'static str)]) -> Option<&'static str> {
    recorded
        .iter()
        .find(|(r, _)| r == e)
        .or_else(|| {
            recorded
                .iter()
                .find(|(r, _)| r.act == e.act && r.place == e.place)
        })
        .map(|(_, s)| *s)
}
