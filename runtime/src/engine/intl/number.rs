//! `Intl.NumberFormat`'s separators and `Intl.PluralRules`' categories:
//! ICU4X's decimal formatter and plural rules, with their compiled data.

use std::cell::RefCell;

use deno_core::{op2, v8, OpState};
use icu_decimal::input::Decimal;
use icu_decimal::options::{DecimalFormatterOptions, GroupingStrategy};
use icu_decimal::DecimalFormatter;
use icu_plurals::{PluralCategory, PluralRules};

use super::cache::Bounded;
use super::{host_memory, locale};

type Cache<V> = RefCell<Bounded<(String, bool), Option<V>>>;

thread_local! {
    static DECIMAL: Cache<DecimalFormatter> = RefCell::new(Bounded::new());
    static PLURAL: Cache<PluralRules> = RefCell::new(Bounded::new());
}

/// Formats a plain decimal string (`-1234.50`: digits, at most one point,
/// trailing zeros kept) with the locale's separators and, when `grouping`,
/// its digit grouping.
pub fn format_decimal(tag: &str, digits: &str, grouping: bool) -> String {
    let Ok(value) = digits.parse::<Decimal>() else {
        return digits.to_string();
    };
    DECIMAL.with(|cache| {
        let mut cache = cache.borrow_mut();
        let formatter = cache.get_or_insert_with((tag.to_string(), grouping), || {
            let mut options = DecimalFormatterOptions::default();
            options.grouping_strategy = Some(if grouping {
                GroupingStrategy::Auto
            } else {
                GroupingStrategy::Never
            });
            DecimalFormatter::try_new(locale(tag).into(), options).ok()
        });
        match formatter {
            Some(f) => f.format_to_string(&value),
            None => digits.to_string(),
        }
    })
}

/// The plural category (`one`, `other`, ...) of a plain decimal string.
pub fn plural(tag: &str, ordinal: bool, digits: &str) -> &'static str {
    let Ok(value) = digits.parse::<Decimal>() else {
        return "other";
    };
    // Rules are built once per locale and kind, as decimal formatters are.
    let category = PLURAL.with(|cache| {
        let mut cache = cache.borrow_mut();
        let rules = cache.get_or_insert_with((tag.to_string(), ordinal), || {
            if ordinal {
                PluralRules::try_new_ordinal(locale(tag).into()).ok()
            } else {
                PluralRules::try_new_cardinal(locale(tag).into()).ok()
            }
        });
        rules.as_ref().map(|r| r.category_for(&value))
    });
    let Some(category) = category else {
        return "other";
    };
    match category {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    }
}

/// Bytes ICU4X builds per digit it formats, at most: its decimal (one per
/// digit), the grouped text (a separator, up to three bytes, per three
/// digits) and the copy handed back.
const BYTES_PER_DIGIT: usize = 4;

/// A decimal string with the locale's separators. The digits (a BigInt's
/// may be as many as the heap holds) are copied out, and formatted, only
/// when that fits in what the heap has left: past it the turn ends at its
/// heap ceiling.
#[op2]
#[string]
pub fn op_gg_intl_format_decimal(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] locale: &str,
    digits: v8::Local<v8::String>,
    grouping: bool,
) -> String {
    let extra = digits.length().saturating_mul(BYTES_PER_DIGIT);
    let Some(digits) = host_memory::read_text(scope, state, digits, extra) else {
        return String::new();
    };
    super::guarded("op_gg_intl_format_decimal", || {
        format_decimal(locale, &digits, grouping)
    })
}

/// The plural category of a decimal string, read under the same check.
#[op2]
#[string]
pub fn op_gg_intl_plural(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] locale: &str,
    ordinal: bool,
    digits: v8::Local<v8::String>,
) -> String {
    let extra = digits.length();
    let Some(digits) = host_memory::read_text(scope, state, digits, extra) else {
        return String::new();
    };
    super::guarded("op_gg_intl_plural", || {
        plural(locale, ordinal, &digits).to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_take_the_locale_separators() {
        assert_eq!(
            format_decimal("en-US", "1234567.891", true),
            "1,234,567.891"
        );
        assert_eq!(
            format_decimal("de-DE", "-1234567.50", true),
            "-1.234.567,50"
        );
        assert_eq!(format_decimal("en-US", "1234567", false), "1234567");
        assert_eq!(format_decimal("not a locale!", "1000", true), "1,000");
    }

    #[test]
    fn plural_categories_follow_the_locale() {
        assert_eq!(plural("en", false, "1"), "one");
        assert_eq!(plural("en", false, "2"), "other");
        assert_eq!(plural("en", true, "2"), "two");
        assert_eq!(plural("en", true, "23"), "few");
        assert_eq!(plural("pl", false, "5"), "many");
    }
}
