//! `Intl.Collator` and `localeCompare`: ICU4X's collator (the locale's
//! tailoring, with ECMA-402's sensitivity, numeric, caseFirst and
//! ignorePunctuation) with its compiled data.

use std::cell::RefCell;
use std::cmp::Ordering;

use deno_core::op2;
use icu_collator::options::{AlternateHandling, CaseLevel, CollatorOptions, Strength};
use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};
use icu_collator::{CollatorBorrowed, CollatorPreferences};

use super::cache::Bounded;
use super::locale;

/// ECMA-402's collator options, as the op passes them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Options {
    /// 0 base, 1 accent, 2 case, 3 variant.
    pub sensitivity: u8,
    pub numeric: bool,
    /// 0 the locale's, 1 upper, 2 lower, 3 false.
    pub case_first: u8,
    pub ignore_punctuation: bool,
}

thread_local! {
    static COLLATORS: RefCell<Bounded<(String, Options), Option<CollatorBorrowed<'static>>>> =
        RefCell::new(Bounded::new());
}

fn build(tag: &str, o: Options) -> Option<CollatorBorrowed<'static>> {
    let mut prefs = CollatorPreferences::from(&locale(tag));
    if o.numeric {
        prefs.numeric_ordering = Some(CollationNumericOrdering::True);
    }
    match o.case_first {
        1 => prefs.case_first = Some(CollationCaseFirst::Upper),
        2 => prefs.case_first = Some(CollationCaseFirst::Lower),
        3 => prefs.case_first = Some(CollationCaseFirst::False),
        _ => {}
    }
    let mut options = CollatorOptions::default();
    // ECMA-402's sensitivities as UCA strength (+ case level for "case").
    options.strength = Some(match o.sensitivity {
        0 | 2 => Strength::Primary,
        1 => Strength::Secondary,
        _ => Strength::Tertiary,
    });
    if o.sensitivity == 2 {
        options.case_level = Some(CaseLevel::On);
    }
    if o.ignore_punctuation {
        options.alternate_handling = Some(AlternateHandling::Shifted);
    }
    match CollatorBorrowed::try_new(prefs, options) {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::debug!(tag, error = %e, "no collator");
            None
        }
    }
}

/// -1, 0 or 1 as `a` sorts before, with or after `b` in `tag`'s order.
pub fn compare(tag: &str, options: Options, a: &str, b: &str) -> i32 {
    let ordering = COLLATORS.with(|cache| {
        let mut cache = cache.borrow_mut();
        cache
            .get_or_insert_with((tag.to_string(), options), || build(tag, options))
            .as_ref()
            .map(|c| c.compare(a, b))
    });
    match ordering.unwrap_or_else(|| a.cmp(b)) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_gg_intl_compare(
    #[string] locale: &str,
    sensitivity: u32,
    numeric: bool,
    case_first: u32,
    ignore_punctuation: bool,
    #[string] a: &str,
    #[string] b: &str,
) -> i32 {
    let options = Options {
        sensitivity: sensitivity.min(3) as u8,
        numeric,
        case_first: case_first.min(3) as u8,
        ignore_punctuation,
    };
    super::guarded("op_gg_intl_compare", || compare(locale, options, a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(sensitivity: u8, numeric: bool) -> Options {
        Options {
            sensitivity,
            numeric,
            case_first: 0,
            ignore_punctuation: false,
        }
    }

    #[test]
    fn sensitivity_decides_what_differs() {
        assert_eq!(compare("en", o(0, false), "a", "A"), 0);
        assert_eq!(compare("en", o(0, false), "a", "á"), 0);
        assert_eq!(compare("en", o(1, false), "a", "á"), -1);
        assert_eq!(compare("en", o(1, false), "a", "A"), 0);
        assert_eq!(compare("en", o(2, false), "a", "A"), -1);
        assert_eq!(compare("en", o(2, false), "a", "á"), 0);
        assert_eq!(compare("en", o(3, false), "a", "A"), -1);
    }

    #[test]
    fn numeric_and_locale_orders() {
        assert_eq!(compare("en", o(3, false), "file10", "file2"), -1);
        assert_eq!(compare("en", o(3, true), "file10", "file2"), 1);
        // Swedish puts å after z; English by its base letter.
        assert_eq!(compare("sv", o(3, false), "å", "z"), 1);
        assert_eq!(compare("en", o(3, false), "å", "z"), -1);
        // A bad tag falls back to the root order rather than failing.
        assert_eq!(compare("not a tag", o(3, false), "a", "b"), -1);
    }
}
