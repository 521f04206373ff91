//! `Intl.RelativeTimeFormat`: ICU4X's (experimental) relative time formatter
//! ("in 3 days", "vor 2 Stunden", "yesterday") with its compiled data.

use std::cell::RefCell;

use deno_core::op2;
use icu_decimal::input::Decimal;
use icu_experimental::relativetime::options::Numeric;
use icu_experimental::relativetime::{
    RelativeTimeFormatter, RelativeTimeFormatterOptions, RelativeTimeFormatterPreferences,
};
use writeable::Writeable;

use super::cache::Bounded;
use super::locale;

type Key = (String, u8, u8, bool);

thread_local! {
    static FORMATTERS: RefCell<Bounded<Key, Option<RelativeTimeFormatter>>> = RefCell::new(Bounded::new());
}

fn build(tag: &str, style: u8, unit: u8, auto: bool) -> Option<RelativeTimeFormatter> {
    let prefs = RelativeTimeFormatterPreferences::from(&locale(tag));
    let mut options = RelativeTimeFormatterOptions::default();
    options.numeric = Some(if auto { Numeric::Auto } else { Numeric::Always });
    macro_rules! by_unit {
        ($($n:literal => $long:ident, $short:ident, $narrow:ident;)*) => {
            match (unit, style) {
                $(
                    ($n, 0) => RelativeTimeFormatter::$narrow(prefs, options),
                    ($n, 1) => RelativeTimeFormatter::$short(prefs, options),
                    ($n, _) => RelativeTimeFormatter::$long(prefs, options),
                )*
                _ => return None,
            }
        };
    }
    let built = by_unit! {
        0 => try_new_long_second, try_new_short_second, try_new_narrow_second;
        1 => try_new_long_minute, try_new_short_minute, try_new_narrow_minute;
        2 => try_new_long_hour, try_new_short_hour, try_new_narrow_hour;
        3 => try_new_long_day, try_new_short_day, try_new_narrow_day;
        4 => try_new_long_week, try_new_short_week, try_new_narrow_week;
        5 => try_new_long_month, try_new_short_month, try_new_narrow_month;
        6 => try_new_long_quarter, try_new_short_quarter, try_new_narrow_quarter;
        7 => try_new_long_year, try_new_short_year, try_new_narrow_year;
    };
    built
        .map_err(|e| tracing::debug!(tag, error = %e, "no relative time formatter"))
        .ok()
}

/// `digits` (a plain decimal string, `-3`, `2.5`) of `unit` (ECMA-402's
/// second, minute, hour, day, week, month, quarter, year as 0..7) from now;
/// None when the unit or the number is not one.
pub fn format(tag: &str, style: u8, unit: u8, auto: bool, digits: &str) -> Option<String> {
    if digits.len() > 64 {
        return None;
    }
    let value: Decimal = digits.parse().ok()?;
    FORMATTERS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let formatter = cache
            .get_or_insert_with((tag.to_string(), style, unit, auto), || {
                build(tag, style, unit, auto)
            })
            .as_ref()?;
        Some(formatter.format(value).write_to_string().into_owned())
    })
}

/// The formatted relative time, or "" when it cannot be formatted.
#[op2]
#[string]
pub fn op_gg_intl_relative_time(
    #[string] locale: &str,
    style: u32,
    unit: u32,
    auto: bool,
    #[string] digits: &str,
) -> String {
    super::guarded("op_gg_intl_relative_time", || {
        let (Ok(style), Ok(unit)) = (u8::try_from(style.min(2)), u8::try_from(unit.min(255)))
        else {
            return String::new();
        };
        format(locale, style, unit, auto, digits).unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_in_the_locale() {
        assert_eq!(
            format("en", 2, 3, false, "-1").as_deref(),
            Some("1 day ago")
        );
        assert_eq!(format("en", 2, 3, true, "-1").as_deref(), Some("yesterday"));
        assert_eq!(
            format("en", 2, 4, false, "2").as_deref(),
            Some("in 2 weeks")
        );
        assert_eq!(
            format("de", 2, 2, false, "-3").as_deref(),
            Some("vor 3 Stunden")
        );
    }

    #[test]
    fn bad_units_and_numbers_are_errors() {
        assert_eq!(format("en", 2, 9, false, "1"), None);
        assert_eq!(format("en", 2, 3, false, "one"), None);
        assert_eq!(format("en", 2, 3, false, &"9".repeat(100)), None);
    }
}
