//! Narrow weekday and month names (`T`, `N`). ICU4X's field sets stop at
//! abbreviated names, so for `{ weekday: "narrow" }` its formatter writes
//! `Tue`; the locale's narrow name, formatted from a one-field pattern over
//! the same names data, replaces that part, as V8 would have written it.

use std::cell::RefCell;

use icu_calendar::{AnyCalendarKind, Date, Gregorian};
use icu_datetime::fieldsets::enums::DateFieldSet;
use icu_datetime::pattern::{
    DateTimePattern, FixedCalendarDateTimeNames, MonthNameLength, WeekdayNameLength,
};
use icu_datetime::DateTimeFormatterPreferences;
use writeable::TryWriteable;

use super::cache::Bounded;
use super::locale;

/// The text fields ECMA-402 can ask narrow and ICU4X cannot.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Field {
    Weekday,
    Month,
}

impl Field {
    /// The part type this field's text carries in `formatToParts`.
    fn part(self) -> &'static str {
        match self {
            Field::Weekday => "weekday",
            Field::Month => "month",
        }
    }

    /// The skeleton letters that ask for this field narrow.
    fn narrow_skeleton(self) -> &'static str {
        match self {
            Field::Weekday => "EEEEE",
            Field::Month => "MMMMM",
        }
    }
}

/// What a narrow name is formatted with: the names for one (locale, field,
/// context) and the one-field pattern that prints them.
struct NarrowFormatter {
    names: FixedCalendarDateTimeNames<Gregorian, DateFieldSet>,
    pattern: DateTimePattern,
}

type Key = (String, Field, bool);

thread_local! {
    static FORMATTERS: RefCell<Bounded<Key, Option<NarrowFormatter>>> = RefCell::new(Bounded::new());
}

fn build(locale_tag: &str, field: Field, alone: bool) -> Option<NarrowFormatter> {
    let prefs = DateTimeFormatterPreferences::from(&locale(locale_tag));
    let mut names = FixedCalendarDateTimeNames::<Gregorian, DateFieldSet>::try_new(prefs).ok()?;
    // The stand-alone form when the name is all there is (`ccccc`), the
    // format form inside a date (`EEEEE`), as ICU's pattern generator picks.
    let pattern = match (field, alone) {
        (Field::Weekday, true) => {
            names
                .include_weekday_names(WeekdayNameLength::StandaloneNarrow)
                .ok()?;
            "ccccc"
        }
        (Field::Weekday, false) => {
            names
                .include_weekday_names(WeekdayNameLength::Narrow)
                .ok()?;
            "EEEEE"
        }
        (Field::Month, true) => {
            names
                .include_month_names(MonthNameLength::StandaloneNarrow)
                .ok()?;
            "LLLLL"
        }
        (Field::Month, false) => {
            names.include_month_names(MonthNameLength::Narrow).ok()?;
            "MMMMM"
        }
    };
    Some(NarrowFormatter {
        names,
        pattern: pattern.parse().ok()?,
    })
}

fn narrow_name(
    locale_tag: &str,
    field: Field,
    alone: bool,
    date: &Date<Gregorian>,
) -> Option<String> {
    FORMATTERS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let formatter = cache
            .get_or_insert_with((locale_tag.to_string(), field, alone), || {
                build(locale_tag, field, alone)
            })
            .as_ref()?;
        formatter
            .names
            .with_pattern_unchecked(&formatter.pattern)
            .format(date)
            .try_write_to_string()
            .ok()
            .map(|name| name.into_owned())
    })
}

/// Replaces the abbreviated weekday and month in `parts` with their narrow
/// names where `skeleton` asks for them narrow. Months only in the Gregorian
/// calendar (the names are the Gregorian months'); weekdays in any.
pub fn apply(
    parts: &mut [(&'static str, String)],
    locale_tag: &str,
    skeleton: &str,
    calendar: AnyCalendarKind,
    date: jiff::civil::Date,
) {
    let fields = [Field::Weekday, Field::Month]
        .into_iter()
        .filter(|f| skeleton.contains(f.narrow_skeleton()))
        .filter(|f| *f == Field::Weekday || calendar == AnyCalendarKind::Gregorian);
    let Ok(date) =
        Date::try_new_gregorian(i32::from(date.year()), date.month() as u8, date.day() as u8)
    else {
        return;
    };
    let alone = parts.iter().filter(|(kind, _)| *kind != "literal").count() == 1;
    for field in fields {
        let Some(name) = narrow_name(locale_tag, field, alone, &date) else {
            continue;
        };
        for (kind, value) in parts.iter_mut() {
            if *kind == field.part() && !value.chars().all(|c| c.is_ascii_digit()) {
                *value = name.clone();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(list: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        list.iter().map(|(k, v)| (*k, v.to_string())).collect()
    }

    #[test]
    fn narrow_names_replace_abbreviated_ones() {
        let tuesday = jiff::civil::date(2024, 11, 5);
        let mut alone = parts(&[("weekday", "Tue")]);
        apply(
            &mut alone,
            "en-US",
            "EEEEE",
            AnyCalendarKind::Gregorian,
            tuesday,
        );
        assert_eq!(alone, parts(&[("weekday", "T")]));
        let mut both = parts(&[("month", "Nov"), ("literal", " "), ("weekday", "Tue")]);
        apply(
            &mut both,
            "en-US",
            "MMMMMEEEEE",
            AnyCalendarKind::Gregorian,
            tuesday,
        );
        assert_eq!(
            both,
            parts(&[("month", "N"), ("literal", " "), ("weekday", "T")])
        );
        let mut german = parts(&[("weekday", "Di.")]);
        apply(
            &mut german,
            "de-DE",
            "EEEEE",
            AnyCalendarKind::Gregorian,
            tuesday,
        );
        assert_eq!(german, parts(&[("weekday", "D")]));
        // Not asked narrow: untouched.
        let mut short = parts(&[("weekday", "Tue")]);
        apply(
            &mut short,
            "en-US",
            "E",
            AnyCalendarKind::Gregorian,
            tuesday,
        );
        assert_eq!(short, parts(&[("weekday", "Tue")]));
    }
}
