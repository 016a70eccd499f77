//! The `calendar` signal family's parameters: `days`, `from`, `until` and `zone`, with
//! did-you-mean for a weekday or a time zone. (`after` and `before` are composition's words
//! for where an entry goes, so a time of day is `from` and `until`.)
//!
//! ```toml
//! [[signal]]
//! name = "friday_afternoon"
//! family = "calendar"
//! days = ["fri"]
//! from = "15:00"             # default 00:00
//! until = "24:00"            # default 24:00 (the end of the day)
//! zone = "Europe/Berlin"     # an IANA time zone, required
//! enter = 1
//! exit = 1
//! requires = ["timestamp"]
//! ```

use super::{truncate, Obj};
use crate::calendar::{self, DAYS, DAY_MINUTES};
use crate::diag::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::ir::Family;

/// Read a calendar signal's parameters; `None` after reporting what is wrong.
pub(super) fn parse_family(o: &Obj<'_, '_>, diags: &mut Diagnostics) -> Option<Family> {
    let mut ok = true;
    let mut days: Vec<u8> = Vec::new();
    for (text, span) in o.strings("days", diags) {
        match calendar::parse_day(text.trim()) {
            Some(d) if !days.contains(&d) => days.push(d),
            Some(_) => {}
            None => {
                ok = false;
                let mut d = Diagnostic::error(
                    Code::InvalidValue,
                    span,
                    format!("`{}` is not a weekday", truncate(&text)),
                );
                // A day written out (`friday`) starts with its short name.
                let lower = text.trim().to_ascii_lowercase();
                let written_out = DAYS.iter().copied().find(|d| lower.starts_with(d));
                d = match written_out.or_else(|| did_you_mean(&lower, DAYS)) {
                    Some(s) => d.with_help(format!("did you mean `{s}`?")),
                    None => d.with_help(format!("a weekday is one of {}", DAYS.join(", "))),
                };
                diags.push(d);
            }
        }
    }
    if o.get("days").is_none() {
        o.missing("days", diags);
        ok = false;
    } else if days.is_empty() && ok {
        diags.push(Diagnostic::error(
            Code::InvalidValue,
            o.span,
            "`days` is empty: a calendar signal needs at least one weekday",
        ));
        ok = false;
    }
    let mut time = |key: &str, default: u16| match o.str(key, diags) {
        None => Some(default),
        Some((text, span)) => {
            let t = calendar::parse_time(&text);
            if t.is_none() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        span,
                        format!(
                            "`{key}` must be a time of day `HH:MM` from 00:00 to 24:00, found `{}`",
                            truncate(&text)
                        ),
                    )
                    .with_help(
                        "write hours and minutes with two digits each, in 24-hour time (`15:00`)",
                    ),
                );
            }
            t
        }
    };
    let after = time("from", 0);
    let before = time("until", DAY_MINUTES);
    if let (Some(a), Some(b)) = (after, before) {
        if a >= b {
            diags.push(Diagnostic::error(
                Code::InvalidValue,
                o.get("until").map_or(o.span, super::span_of),
                format!(
                    "`until` ({}) is not later than `from` ({}): this window is never open",
                    calendar::time_text(b),
                    calendar::time_text(a)
                ),
            ).with_help("a window that spans midnight is two signals, or two `days`: one until 24:00, one from 00:00"));
            ok = false;
        }
    }
    let zone = match o.req_str("zone", diags) {
        Some((z, _)) if calendar::zone_exists(&z) => Some(z),
        Some((z, span)) => {
            let names = calendar::zone_names();
            let mut d = Diagnostic::error(
                Code::InvalidValue,
                span,
                format!("unknown time zone `{}`", truncate(&z)),
            );
            d = match did_you_mean(&z, names.iter().map(String::as_str)) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(
                    "name an IANA time zone (`Europe/Berlin`, `America/New_York`, `UTC`)",
                ),
            };
            diags.push(d);
            None
        }
        None => None,
    };
    let (after, before, zone) = (after?, before?, zone?);
    ok.then(|| Family::Calendar {
        days: days.into(),
        after,
        before,
        zone: zone.into(),
    })
}
