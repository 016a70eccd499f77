//! Calendar windows (the `calendar` signal family): weekdays and a time of day in a named
//! IANA time zone, read from the clock as one boolean. The time zone database is bundled
//! (jiff's copy of the IANA database), so a zone means the same on every machine and a spec
//! that checks on one machine runs on every other.

use jiff::tz::TimeZone;

/// The weekdays a spec writes, Monday first (the index is the IR's day number).
pub const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// Minutes in a day: the largest `before` (the end of the day).
pub const DAY_MINUTES: u16 = 24 * 60;

/// Why a calendar window could not be read; the sample is false (fail open) and the
/// engine records a fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The clock gave no usable time (zero, negative, or beyond what a calendar holds).
    Clock(i64),
    /// The time zone is not in the database.
    Zone(String),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Clock(ms) => write!(f, "the clock reads {ms} ms since the epoch"),
            Fault::Zone(z) => write!(f, "unknown time zone `{z}`"),
        }
    }
}

/// `HH:MM` (00:00 to 24:00) as minutes of the day.
pub fn parse_time(text: &str) -> Option<u16> {
    let (h, m) = text.trim().split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
    let minutes = h.checked_mul(60)?.checked_add(m)?;
    (m < 60 && minutes <= DAY_MINUTES).then_some(minutes)
}

/// Minutes of the day as `HH:MM`.
pub fn time_text(minutes: u16) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The weekday number (0 = Monday) of a spec's `mon` … `sun`.
pub fn parse_day(text: &str) -> Option<u8> {
    DAYS.iter().position(|d| *d == text).map(|i| i as u8)
}

/// Whether the bundled database has this zone.
pub fn zone_exists(name: &str) -> bool {
    jiff::tz::db().get(name).is_ok()
}

/// Every zone name the bundled database has (for "did you mean").
pub fn zone_names() -> Vec<String> {
    jiff::tz::db()
        .available()
        .map(|n| n.as_str().to_string())
        .collect()
}

/// The local weekday (0 = Monday) and minute of the day of `now_ms` in `zone`.
pub fn local(now_ms: i64, zone: &str) -> Result<(u8, u16), Fault> {
    if now_ms <= 0 {
        return Err(Fault::Clock(now_ms));
    }
    let at = jiff::Timestamp::from_millisecond(now_ms).map_err(|_| Fault::Clock(now_ms))?;
    let tz: TimeZone = jiff::tz::db()
        .get(zone)
        .map_err(|_| Fault::Zone(zone.to_string()))?;
    let dt = tz.to_datetime(at);
    let day = dt.weekday().to_monday_zero_offset() as u8;
    let minute = dt.hour() as u16 * 60 + dt.minute() as u16;
    Ok((day, minute))
}

/// Whether `now_ms` falls in the window: on one of `days`, at or after `after` and before
/// `before` (local minutes of the day).
pub fn holds(days: &[u8], after: u16, before: u16, zone: &str, now_ms: i64) -> Result<bool, Fault> {
    let (day, minute) = local(now_ms, zone)?;
    Ok(days.contains(&day) && after <= minute && minute < before)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-27 (a Friday) at `hh:mm` UTC, in milliseconds.
    fn friday_utc(hh: i64, mm: i64) -> i64 {
        // 2026-11-27T00:00:00Z
        let midnight = 1_795_737_600_000;
        midnight + (hh * 60 + mm) * 60_000
    }

    #[test]
    fn the_fixture_midnight_is_a_friday() {
        assert_eq!(local(friday_utc(0, 0), "UTC"), Ok((4, 0)));
    }

    #[test]
    fn friday_after_three_in_berlin_is_two_in_utc_in_winter() {
        let fri = [4];
        // 14:00 UTC is 15:00 in Berlin (CET, UTC+1) in November.
        assert_eq!(
            holds(
                &fri,
                15 * 60,
                DAY_MINUTES,
                "Europe/Berlin",
                friday_utc(13, 59)
            ),
            Ok(false)
        );
        assert_eq!(
            holds(
                &fri,
                15 * 60,
                DAY_MINUTES,
                "Europe/Berlin",
                friday_utc(14, 0)
            ),
            Ok(true)
        );
        // 23:30 UTC is already Saturday in Berlin.
        assert_eq!(
            holds(
                &fri,
                15 * 60,
                DAY_MINUTES,
                "Europe/Berlin",
                friday_utc(23, 30)
            ),
            Ok(false)
        );
        // ... and still Friday afternoon in New York (EST, UTC-5): 18:30.
        assert_eq!(
            holds(
                &fri,
                15 * 60,
                DAY_MINUTES,
                "America/New_York",
                friday_utc(23, 30)
            ),
            Ok(true)
        );
    }

    #[test]
    fn a_bad_clock_or_zone_is_a_fault() {
        assert_eq!(holds(&[4], 0, 1440, "UTC", 0), Err(Fault::Clock(0)));
        assert_eq!(
            holds(&[4], 0, 1440, "UTC", i64::MAX),
            Err(Fault::Clock(i64::MAX))
        );
        assert_eq!(
            holds(&[4], 0, 1440, "Europe/Berlinn", friday_utc(12, 0)),
            Err(Fault::Zone("Europe/Berlinn".into()))
        );
        assert!(zone_exists("Europe/Berlin") && !zone_exists("Europe/Berlinn"));
        assert!(zone_names().iter().any(|z| z == "Asia/Tokyo"));
    }

    #[test]
    fn times_of_day_read_and_print() {
        assert_eq!(parse_time("15:00"), Some(900));
        assert_eq!(parse_time("00:00"), Some(0));
        assert_eq!(parse_time("24:00"), Some(1440));
        for bad in ["24:01", "15", "3:00", "15:60", "aa:bb", "15:00:00"] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
        assert_eq!(time_text(905), "15:05");
        assert_eq!(parse_day("fri"), Some(4));
        assert_eq!(parse_day("friday"), None);
    }
}
