//! `Intl.DateTimeFormat`: ICU4X's datetime formatter (any locale, its
//! default calendar) over jiff's zoned time. ICU4X names time zones but has
//! no transition rules; jiff's bundled tzdb gives each instant its offset and
//! DST, and icu_datetime reads a `jiff::Zoned` directly.

use std::cell::RefCell;

use deno_core::{op2, v8};
use icu_calendar::AnyCalendarKind;
use icu_datetime::fieldbag::DateTimeFieldBag;
use icu_datetime::fieldsets::builder::{DateFields, FieldSetBuilder, ZoneStyle};
use icu_datetime::fieldsets::enums::CompositeFieldSet;
use icu_datetime::options::{Length, TimePrecision};
use icu_datetime::preferences::HourCycle;
use icu_datetime::range::DateRangeFormatter;
use icu_datetime::{DateTimeFormatter, DateTimeFormatterPreferences};
use jiff::tz::{Offset, TimeZone};
use jiff::Timestamp;
use writeable::Writeable;

use super::cache::Bounded;
use super::parts::to_parts;
use super::{date_patterns, locale, narrow};

/// Longest skeleton or time zone name accepted (the longest real ones are
/// about 30 characters); bounds cache keys.
const MAX_OPTION: usize = 64;

/// What a formatter is built from: the locale, and either a UTS 35 skeleton
/// (`yMMMdjm`, from the component options) or a date and/or time style.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Spec {
    pub locale: String,
    pub skeleton: String,
    pub date_style: String,
    pub time_style: String,
    /// `h11`, `h12`, `h23`, `h24`, or "" for the locale's own.
    pub hour_cycle: String,
}

type Formatter = DateTimeFormatter<CompositeFieldSet>;
type RangeFormatter = DateRangeFormatter<CompositeFieldSet>;

thread_local! {
    static FORMATTERS: RefCell<Bounded<Spec, Option<Formatter>>> = RefCell::new(Bounded::new());
    static RANGES: RefCell<Bounded<Spec, Option<RangeFormatter>>> = RefCell::new(Bounded::new());
    static ZONES: RefCell<Bounded<String, Option<TimeZone>>> = RefCell::new(Bounded::new());
    static PROBES: RefCell<Bounded<(String, Length), Option<Formatter>>> = RefCell::new(Bounded::new());
}

fn style_length(style: &str) -> Option<Length> {
    match style {
        "full" | "long" => Some(Length::Long),
        "medium" => Some(Length::Medium),
        "short" => Some(Length::Short),
        _ => None,
    }
}

/// ECMA-402's dateStyle/timeStyle as ICU4X field sets: full dates carry the
/// weekday; full and long times carry the zone's long and short name.
fn style_field_set(date_style: &str, time_style: &str) -> Option<CompositeFieldSet> {
    let mut builder = FieldSetBuilder::new();
    if !date_style.is_empty() {
        builder.length = Some(style_length(date_style)?);
        builder.date_fields = Some(if date_style == "full" {
            DateFields::YMDE
        } else {
            DateFields::YMD
        });
    }
    if !time_style.is_empty() {
        let length = style_length(time_style)?;
        builder.length.get_or_insert(length);
        builder.time_precision = Some(if time_style == "short" {
            TimePrecision::Minute
        } else {
            TimePrecision::Second
        });
        builder.zone_style = match time_style {
            "full" => Some(ZoneStyle::SpecificLong),
            "long" => Some(ZoneStyle::SpecificShort),
            _ => None,
        };
    }
    builder.build_composite().ok()
}

/// Skeleton letters of a time of day, and of a time zone.
const TIME_LETTERS: &[char] = &['h', 'H', 'j', 'k', 'K', 'm', 's', 'S', 'a', 'b', 'B'];
const ZONE_LETTERS: &[char] = &['z', 'Z', 'O', 'v', 'V', 'x', 'X'];

/// A date with a time zone and no time. ICU's pattern generator counts the
/// zone as a time field and joins it to the date with the locale's date-time
/// glue (`7/4/2024, EDT`, `July 4 at Eastern Daylight Time`), where ICU4X
/// writes the two side by side; [`glue_zone`] puts the glue back.
fn zone_without_time(skeleton: &str) -> bool {
    skeleton.contains(ZONE_LETTERS) && !skeleton.contains(TIME_LETTERS)
}

/// A skeleton of date fields only: all that is written is the date.
fn is_date_only(skeleton: &str) -> bool {
    !skeleton.contains(TIME_LETTERS) && !skeleton.contains(ZONE_LETTERS)
}

/// The length whose date-time glue ICU's pattern generator picks for a date
/// skeleton: long for a spelled-out month, medium for an abbreviated one,
/// short otherwise.
fn glue_length(skeleton: &str) -> Length {
    if skeleton.contains("MMMMM") {
        Length::Short
    } else if skeleton.contains("MMMM") {
        Length::Long
    } else if skeleton.contains("MMM") {
        Length::Medium
    } else {
        Length::Short
    }
}

/// A date and a time at `length`: the formatter whose output shows the
/// locale's glue between a date and a time, and which comes first.
fn glue_probe(locale_tag: &str, length: Length) -> Option<Formatter> {
    let mut builder = FieldSetBuilder::new();
    builder.length = Some(length);
    builder.date_fields = Some(DateFields::YMD);
    builder.time_precision = Some(TimePrecision::Minute);
    let prefs = DateTimeFormatterPreferences::from(&locale(locale_tag));
    DateTimeFormatter::try_new(prefs, builder.build_composite().ok()?).ok()
}

/// The glue between a date and a time in `probe`'s output, and whether the
/// date comes first.
fn glue_of(probe: &[(&'static str, String)]) -> Option<(String, bool)> {
    let is_date = |k: &str| ["era", "year", "month", "day", "weekday", "relatedYear"].contains(&k);
    let is_time = |k: &str| ["hour", "minute", "dayPeriod"].contains(&k);
    let last_date = probe.iter().rposition(|(k, _)| is_date(k))?;
    let first_date = probe.iter().position(|(k, _)| is_date(k))?;
    let first_time = probe.iter().position(|(k, _)| is_time(k))?;
    let last_time = probe.iter().rposition(|(k, _)| is_time(k))?;
    let (between, date_first) = if last_date < first_time {
        (&probe[last_date + 1..first_time], true)
    } else if last_time < first_date {
        (&probe[last_time + 1..first_date], false)
    } else {
        return None;
    };
    between.iter().all(|(k, _)| *k == "literal").then(|| {
        (
            between.iter().map(|(_, v)| v.as_str()).collect(),
            date_first,
        )
    })
}

/// Rejoins a date and its zone (see [`zone_without_time`]) with the glue
/// and order of `probe` (a date and a time in the same locale).
fn glue_zone(parts: &mut Vec<(&'static str, String)>, probe: &[(&'static str, String)]) {
    let Some((glue, date_first)) = glue_of(probe) else {
        return;
    };
    let Some(zone_at) = parts.iter().position(|(k, _)| *k == "timeZoneName") else {
        return;
    };
    let zone = parts.remove(zone_at);
    // ICU4X's separator between the date and the zone goes; what the date
    // pattern itself ends or starts with (`4.`, `4일`) stays.
    let separator = |c: char| c.is_whitespace() || c == ',' || c == '\u{60c}';
    if zone_at >= parts.len() {
        if let Some((kind, text)) = parts.last_mut().filter(|(k, _)| *k == "literal") {
            let _ = kind;
            text.truncate(text.trim_end_matches(separator).len());
            if text.is_empty() {
                parts.pop();
            }
        }
    } else if zone_at == 0 {
        if let Some((_, text)) = parts.first_mut().filter(|(k, _)| *k == "literal") {
            *text = text.trim_start_matches(separator).to_string();
            if text.is_empty() {
                parts.remove(0);
            }
        }
    }
    if date_first {
        parts.push(("literal", glue));
        parts.push(zone);
    } else {
        parts.insert(0, zone);
        parts.insert(1, ("literal", glue));
    }
}

fn field_set_and_prefs(spec: &Spec) -> Option<(CompositeFieldSet, DateTimeFormatterPreferences)> {
    if spec.skeleton.len() > MAX_OPTION || spec.locale.len() > MAX_OPTION * 2 {
        return None;
    }
    let field_set = if spec.date_style.is_empty() && spec.time_style.is_empty() {
        DateTimeFieldBag::try_from_skeleton(&spec.skeleton)
            .ok()?
            .to_composite_field_set()
    } else {
        style_field_set(&spec.date_style, &spec.time_style)?
    };
    let mut prefs = DateTimeFormatterPreferences::from(&locale(&spec.locale));
    match spec.hour_cycle.as_str() {
        "h11" => prefs.hour_cycle = Some(HourCycle::H11),
        "h12" => prefs.hour_cycle = Some(HourCycle::H12),
        // ICU4X has no 1-24 clock; h24 is all but unused.
        "h23" | "h24" => prefs.hour_cycle = Some(HourCycle::H23),
        _ => {}
    }
    Some((field_set, prefs))
}

fn build(spec: &Spec) -> Option<Formatter> {
    let (field_set, prefs) = field_set_and_prefs(spec)?;
    match DateTimeFormatter::try_new(prefs, field_set) {
        Ok(f) => Some(f),
        Err(e) => {
            tracing::debug!(?spec, error = %e, "no datetime formatter");
            None
        }
    }
}

fn build_range(spec: &Spec) -> Option<RangeFormatter> {
    let (field_set, prefs) = field_set_and_prefs(spec)?;
    match DateRangeFormatter::try_new(prefs, field_set) {
        Ok(f) => Some(f),
        Err(e) => {
            tracing::debug!(?spec, error = %e, "no datetime range formatter");
            None
        }
    }
}

/// `+05:30`, `-08`, `+0530` as an offset in seconds.
fn parse_offset(name: &str) -> Option<i32> {
    let bytes = name.as_bytes();
    let sign = match bytes.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = &name[1..];
    let (h, m) = match rest.len() {
        2 => (rest, "00"),
        4 => (&rest[..2], &rest[2..]),
        5 if rest.as_bytes()[2] == b':' => (&rest[..2], &rest[3..]),
        _ => return None,
    };
    if !h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    (h <= 23 && m <= 59).then_some(sign * (h * 3600 + m * 60))
}

/// The names ECMA-402 resolves to "UTC".
fn is_utc_alias(name: &str) -> bool {
    ["utc", "etc/utc", "etc/gmt", "gmt"].contains(&name.to_ascii_lowercase().as_str())
}

/// An IANA name or offset as a jiff zone (bundled tzdb), cached.
fn zone(name: &str) -> Option<TimeZone> {
    if name.len() > MAX_OPTION {
        return None;
    }
    ZONES.with(|cache| {
        cache
            .borrow_mut()
            .get_or_insert_with(name.to_string(), || {
                if let Some(seconds) = parse_offset(name) {
                    return Offset::from_seconds(seconds).ok().map(TimeZone::fixed);
                }
                let name = if is_utc_alias(name) { "UTC" } else { name };
                TimeZone::get(name).ok()
            })
            .clone()
    })
}

/// The time zone's name as `resolvedOptions().timeZone` shows it (`UTC`,
/// `America/New_York` in the tzdb's casing, `+05:30`), or None when it is
/// not a time zone (V8 throws RangeError).
pub fn canonical_time_zone(name: &str) -> Option<String> {
    if let Some(seconds) = parse_offset(name) {
        let (sign, s) = if seconds < 0 {
            ('-', -seconds)
        } else {
            ('+', seconds)
        };
        return Some(format!("{sign}{:02}:{:02}", s / 3600, s % 3600 / 60));
    }
    if is_utc_alias(name) {
        return Some("UTC".to_string());
    }
    let tz = zone(name)?;
    Some(tz.iana_name().unwrap_or(name).to_string())
}

/// Why a datetime could not be formatted: V8 throws RangeError for each.
#[derive(Debug, PartialEq, Eq)]
pub enum FormatError {
    Options,
    TimeZone,
    Time,
}

/// `epoch_ms` formatted by `spec` in `time_zone`, as parts.
pub fn format_parts(
    spec: &Spec,
    time_zone: &str,
    epoch_ms: f64,
) -> Result<Vec<(&'static str, String)>, FormatError> {
    let tz = zone(time_zone).ok_or(FormatError::TimeZone)?;
    let instant = zoned(&tz, epoch_ms)?;
    FORMATTERS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let formatter = cache
            .get_or_insert_with(spec.clone(), || build(spec))
            .as_ref()
            .ok_or(FormatError::Options)?;
        let calendar = formatter.calendar().kind();
        let date = date_patterns::format(&spec.locale, &spec.skeleton, calendar, instant.date());
        let mut parts = match date {
            Some(date) if is_date_only(&spec.skeleton) => date,
            date => {
                let mut parts = to_parts(&formatter.format(&instant));
                if let Some(date) = date {
                    date_patterns::splice(&mut parts, date);
                }
                parts
            }
        };
        as_icu_writes_it(&mut parts, spec, calendar, &instant);
        Ok(parts)
    })
}

/// ICU4X's parts brought to what ICU, and so V8, writes for the same
/// options (a date from CLDR's pattern is in already): a lone zone glued
/// to its date, narrow names, and adjacent literals as one part.
fn as_icu_writes_it(
    parts: &mut Vec<(&'static str, String)>,
    spec: &Spec,
    calendar: AnyCalendarKind,
    instant: &jiff::Zoned,
) {
    if spec.date_style.is_empty() && zone_without_time(&spec.skeleton) {
        let length = glue_length(&spec.skeleton);
        let probe = PROBES.with(|probes| {
            probes
                .borrow_mut()
                .get_or_insert_with((spec.locale.clone(), length), || {
                    glue_probe(&spec.locale, length)
                })
                .as_ref()
                .map(|probe| to_parts(&probe.format(instant)))
        });
        if let Some(probe) = probe {
            glue_zone(parts, &probe);
        }
    }
    narrow::apply(
        parts,
        &spec.locale,
        &spec.skeleton,
        calendar,
        instant.date(),
    );
    parts.dedup_by(|next, prev| {
        let merge = prev.0 == "literal" && next.0 == "literal";
        if merge {
            prev.1.push_str(&next.1);
        }
        merge
    });
}

fn zoned(tz: &TimeZone, epoch_ms: f64) -> Result<jiff::Zoned, FormatError> {
    if !epoch_ms.is_finite() {
        return Err(FormatError::Time);
    }
    Ok(Timestamp::from_millisecond(epoch_ms.trunc() as i64)
        .map_err(|_| FormatError::Time)?
        .to_zoned(tz.clone()))
}

/// The span from `start_ms` to `end_ms` formatted by `spec`, joined by the
/// locale's range glue.
pub fn format_range(
    spec: &Spec,
    time_zone: &str,
    start_ms: f64,
    end_ms: f64,
) -> Result<String, FormatError> {
    let tz = zone(time_zone).ok_or(FormatError::TimeZone)?;
    let (start, end) = (zoned(&tz, start_ms)?, zoned(&tz, end_ms)?);
    RANGES.with(|cache| {
        let mut cache = cache.borrow_mut();
        let formatter = cache
            .get_or_insert_with(spec.clone(), || build_range(spec))
            .as_ref()
            .ok_or(FormatError::Options)?;
        Ok(formatter
            .format(&start, &end)
            .write_to_string()
            .into_owned())
    })
}

/// `format_range` for `formatRange`, or "" on error.
#[op2]
#[string]
#[allow(clippy::too_many_arguments)]
pub fn op_gg_intl_datetime_format_range(
    #[string] locale: String,
    #[string] skeleton: String,
    #[string] date_style: String,
    #[string] time_style: String,
    #[string] hour_cycle: String,
    #[string] time_zone: &str,
    start_ms: f64,
    end_ms: f64,
) -> String {
    super::guarded("op_gg_intl_datetime_format_range", || {
        let spec = Spec {
            locale,
            skeleton,
            date_style,
            time_style,
            hour_cycle,
        };
        format_range(&spec, time_zone, start_ms, end_ms).unwrap_or_default()
    })
}

/// Parts of the formatted datetime as JSON (`[["month","11"],...]`), or ""
/// when the options, zone or time cannot be formatted.
#[op2]
#[string]
#[allow(clippy::too_many_arguments)]
pub fn op_gg_intl_datetime_format(
    #[string] locale: String,
    #[string] skeleton: String,
    #[string] date_style: String,
    #[string] time_style: String,
    #[string] hour_cycle: String,
    #[string] time_zone: &str,
    epoch_ms: f64,
) -> String {
    super::guarded("op_gg_intl_datetime_format", || {
        let spec = Spec {
            locale,
            skeleton,
            date_style,
            time_style,
            hour_cycle,
        };
        match format_parts(&spec, time_zone, epoch_ms) {
            Ok(parts) => serde_json::to_string(&parts).unwrap_or_default(),
            Err(_) => String::new(),
        }
    })
}

/// The canonical time zone name, or "" when `name` is not one.
#[op2]
#[string]
pub fn op_gg_intl_time_zone(scope: &mut v8::PinScope, name: v8::Local<v8::String>) -> String {
    // IANA names are a few dozen characters: a longer one is not one, and
    // is not copied out of the heap.
    let Some(name) = super::host_memory::read_short(scope, name, 256) else {
        return String::new();
    };
    super::guarded("op_gg_intl_time_zone", || {
        canonical_time_zone(&name).unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(locale: &str, skeleton: &str) -> Spec {
        Spec {
            locale: locale.into(),
            skeleton: skeleton.into(),
            date_style: String::new(),
            time_style: String::new(),
            hour_cycle: String::new(),
        }
    }

    fn text(spec: &Spec, zone: &str, ms: f64) -> String {
        format_parts(spec, zone, ms)
            .unwrap()
            .into_iter()
            .map(|(_, v)| v)
            .collect()
    }

    // 2024-07-15T16:30:00Z
    const JULY: f64 = 1_721_061_000_000.0;

    #[test]
    fn zones_give_offsets_and_dst() {
        let s = spec("en-US", "jm");
        assert_eq!(text(&s, "UTC", JULY), "4:30\u{202f}PM");
        assert_eq!(text(&s, "America/New_York", JULY), "12:30\u{202f}PM");
        assert_eq!(text(&s, "Asia/Tokyo", JULY), "1:30\u{202f}AM");
        // January: New York is on standard time.
        assert_eq!(
            text(&s, "America/New_York", 1_705_336_200_000.0),
            "11:30\u{202f}AM"
        );
        assert_eq!(text(&s, "+05:30", JULY), "10:00\u{202f}PM");
    }

    #[test]
    fn locales_name_months_and_weekdays() {
        assert_eq!(
            text(&spec("de-DE", "EEEEdMMMM"), "UTC", JULY),
            "Montag, 15. Juli"
        );
        assert_eq!(text(&spec("fr-FR", "yMMMM"), "UTC", JULY), "juillet 2024");
        assert_eq!(text(&spec("ja-JP", "yMMMMd"), "UTC", JULY), "2024年7月15日");
    }

    #[test]
    fn ranges_share_their_common_fields() {
        let day = 86_400_000.0;
        let s = spec("en-US", "yMMMd");
        // ICU4X 2.4 does not yet collapse shared fields for these field
        // sets (V8: `Jul 15 – 17, 2024`); it joins with the locale's glue.
        assert_eq!(
            format_range(&s, "UTC", JULY, JULY + 2.0 * day).unwrap(),
            "Jul 15, 2024\u{2009}–\u{2009}Jul 17, 2024"
        );
        assert_eq!(format_range(&s, "UTC", JULY, JULY).unwrap(), "Jul 15, 2024");
    }

    #[test]
    fn parts_are_typed() {
        let parts = format_parts(&spec("en-US", "yMMdd"), "UTC", JULY).unwrap();
        let kinds: Vec<_> = parts.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, ["month", "literal", "day", "literal", "year"]);
    }

    #[test]
    fn bad_zones_options_and_times_are_errors() {
        assert_eq!(canonical_time_zone("Mars/Olympus"), None);
        assert_eq!(canonical_time_zone("etc/utc").as_deref(), Some("UTC"));
        assert_eq!(canonical_time_zone("+0530").as_deref(), Some("+05:30"));
        assert_eq!(canonical_time_zone(&"A/".repeat(100)), None);
        assert_eq!(
            format_parts(&spec("en", "yMd"), "Nowhere/Else", JULY),
            Err(FormatError::TimeZone)
        );
        assert_eq!(
            format_parts(&spec("en", "yMd"), "UTC", f64::NAN),
            Err(FormatError::Time)
        );
        let mut styled = spec("en", "");
        styled.date_style = "enormous".into();
        assert_eq!(
            format_parts(&styled, "UTC", JULY),
            Err(FormatError::Options)
        );
    }
}
