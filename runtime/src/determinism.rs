//! `--seed` and `--clock`: what a run may pin so that a recorded session
//! replays byte for byte.

pub use crate::engine::Determinism;

/// A clock that is not an ISO-8601 instant (the text as given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the clock {0:?} is not an ISO-8601 instant; write it like 2026-01-02T03:04:05Z (or 2026-01-02 for midnight UTC)"
)]
pub struct ClockError(pub String);

/// Reads an ISO-8601 instant (`2026-01-02T03:04:05Z`, with an offset, or a
/// bare date `2026-01-02` meaning midnight UTC) as ms since the epoch.
pub fn parse_clock(text: &str) -> Result<i64, ClockError> {
    let text = text.trim();
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(at.timestamp_millis());
    }
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        if let Some(midnight) = date.and_hms_opt(0, 0, 0) {
            return Ok(midnight.and_utc().timestamp_millis());
        }
    }
    Err(ClockError(text.to_string()))
}

impl Determinism {
    /// From a seed and an ISO-8601 clock, as the CLI and session files give them.
    pub fn from_parts(seed: Option<u64>, clock: Option<&str>) -> Result<Self, ClockError> {
        Ok(Determinism {
            seed,
            clock_ms: clock.map(parse_clock).transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_instants_dates_and_offsets() {
        assert_eq!(parse_clock("1970-01-01T00:00:01Z"), Ok(1000));
        assert_eq!(parse_clock("1970-01-02"), Ok(86_400_000));
        assert_eq!(parse_clock("1970-01-01T01:00:00+01:00"), Ok(0));
        let err = parse_clock("yesterday").unwrap_err().to_string();
        assert!(
            err.contains("\"yesterday\"") && err.contains("2026-01-02T03:04:05Z"),
            "{err}"
        );
    }
}
