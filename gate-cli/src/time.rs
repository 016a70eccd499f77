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
