//! Times on the command line: RFC 3339 timestamps and relative durations (`gate log
//! --since`), as milliseconds since the Unix epoch.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date (year, month, day) of a count of days since 1970-01-01
/// (Howard Hinnant's `civil_from_days`, the inverse of [`days_from_civil`]).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Milliseconds since the epoch as an RFC 3339 time in UTC with milliseconds
/// (`2026-01-02T03:04:05.250Z`), the form [`rfc3339_ms`] reads back.
pub fn rfc3339(ms: i64) -> String {
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        ms_of_day % 1000
    )
}

/// A point in time given on the command line (`gate explain --at`): an RFC 3339 time with
/// its offset, or whole seconds since the Unix epoch; in milliseconds.
pub fn parse_instant(text: &str) -> Result<i64, String> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse::<i64>()
            .ok()
            .and_then(|secs| secs.checked_mul(1000))
            .ok_or_else(|| format!("{text} seconds since the epoch is out of range"));
    }
    rfc3339_ms(text).ok_or_else(|| {
        "expected an RFC 3339 time with its offset (2026-01-02T03:04:05Z) or seconds since          the Unix epoch (1767225600)"
            .to_string()
    })
}

/// An RFC 3339 date-time with its offset (`2026-01-02T03:04:05Z`,
/// `2026-01-02 03:04:05.250+02:00`) as milliseconds since the epoch; `None` for anything
/// else, including a time without an offset (its instant would depend on the machine).
pub fn rfc3339_ms(text: &str) -> Option<i64> {
    let parsed: toml::value::Datetime = text.trim().parse().ok()?;
    let (date, time, offset) = (parsed.date?, parsed.time?, parsed.offset?);
    let days = days_from_civil(
        i64::from(date.year),
        i64::from(date.month),
        i64::from(date.day),
    );
    let offset_minutes = match offset {
        toml::value::Offset::Z => 0,
        toml::value::Offset::Custom { minutes } => i64::from(minutes),
    };
    let secs = days * 86_400
        + i64::from(time.hour) * 3600
        + i64::from(time.minute) * 60
        + i64::from(time.second.unwrap_or(0))
        - offset_minutes * 60;
    Some(secs * 1000 + i64::from(time.nanosecond.unwrap_or(0)) / 1_000_000)
}

/// A duration written as a whole number and a unit: `90s`, `10m`, `2h`, `3d`, `1w`; in
/// milliseconds.
pub fn duration_ms(text: &str) -> Option<i64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let number: i64 = number.parse().ok()?;
    let unit_ms: i64 = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        "w" => 7 * 86_400_000,
        _ => return None,
    };
    number.checked_mul(unit_ms)
}

/// The lower bound of `gate log --since`: a point in time, or a duration before now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Since {
    /// Milliseconds since the epoch.
    At(i64),
    /// Milliseconds before the command runs.
    Ago(i64),
}

impl Since {
    /// Parses `--since`'s value (clap's value parser): the error is the line clap prints.
    pub fn parse(text: &str) -> Result<Since, String> {
        if let Some(ms) = duration_ms(text) {
            return Ok(Since::Ago(ms));
        }
        if let Some(ms) = rfc3339_ms(text) {
            return Ok(Since::At(ms));
        }
        Err(
            "expected an RFC 3339 time with its offset (2026-01-02T03:04:05Z) or a duration \
             before now (90s, 10m, 2h, 3d, 1w)"
                .to_string(),
        )
    }

    /// The bound in milliseconds since the epoch, for a command that runs at `now_ms`.
    pub fn resolve(self, now_ms: i64) -> i64 {
        match self {
            Since::At(ms) => ms,
            Since::Ago(ms) => now_ms.saturating_sub(ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_with_offsets() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(rfc3339_ms("2026-01-01T00:00:00Z"), Some(1_767_225_600_000));
        assert_eq!(
            rfc3339_ms("2026-01-01T02:00:00.250+02:00"),
            Some(1_767_225_600_250)
        );
        assert_eq!(
            rfc3339_ms("2025-12-31 19:00:00-05:00"),
            Some(1_767_225_600_000)
        );
        assert_eq!(rfc3339_ms("2000-02-29T12:00:00Z"), Some(951_825_600_000));
        for bad in [
            "2026-01-01T00:00:00",
            "2026-01-01",
            "00:00:00Z",
            "2026-13-01T00:00:00Z",
            "yesterday",
            "",
        ] {
            assert_eq!(rfc3339_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_round_trips() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_767_225_600_250), "2026-01-01T00:00:00.250Z");
        assert_eq!(rfc3339(951_825_600_000), "2000-02-29T12:00:00.000Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999Z");
        for ms in [
            0,
            1,
            86_399_999,
            951_825_600_000,
            1_767_225_600_250,
            -86_400_001,
        ] {
            assert_eq!(rfc3339_ms(&rfc3339(ms)), Some(ms), "{ms}");
        }
        for days in -800_000..800_000i64 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn instants_in_both_forms() {
        assert_eq!(parse_instant("1767225600"), Ok(1_767_225_600_000));
        assert_eq!(parse_instant("2026-01-01T00:00:00Z"), Ok(1_767_225_600_000));
        assert!(parse_instant("99999999999999999999").is_err());
        assert!(parse_instant("2026-01-01").is_err());
        assert!(parse_instant("-5").is_err());
        assert!(parse_instant("").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(duration_ms("90s"), Some(90_000));
        assert_eq!(duration_ms("10m"), Some(600_000));
        assert_eq!(duration_ms("2h"), Some(7_200_000));
        assert_eq!(duration_ms("3d"), Some(259_200_000));
        assert_eq!(duration_ms("1w"), Some(604_800_000));
        assert_eq!(duration_ms("0m"), Some(0));
        for bad in [
            "10",
            "m",
            "10x",
            "1.5h",
            "-2h",
            "10 m",
            "99999999999999999999d",
        ] {
            assert_eq!(duration_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn since_resolves_against_now() {
        assert_eq!(Since::parse("10m").unwrap().resolve(1_000_000), 400_000);
        assert_eq!(
            Since::parse("1970-01-01T00:00:01Z").unwrap().resolve(5),
            1_000
        );
        assert!(Since::parse("last tuesday").is_err());
    }
}
