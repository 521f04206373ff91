//! `Intl.Collator` and `localeCompare`: ICU4X's collator (the locale's
//! tailoring, with ECMA-402's sensitivity, numeric, caseFirst and
//! ignorePunctuation) with its compiled data.

use std::cell::RefCell;
use std::cmp::Ordering;

use deno_core::{op2, v8, OpState};
use icu_collator::options::{AlternateHandling, CaseLevel, CollatorOptions, Strength};
use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};
use icu_collator::{CollatorBorrowed, CollatorPreferences};

use super::cache::Bounded;
use super::{host_memory, locale};

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

fn sign(ordering: Ordering) -> i32 {
    match ordering {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// Runs `f` with the collator for `tag` and `options` (None when ICU4X has
/// none for them).
fn with_collator<T>(
    tag: &str,
    options: Options,
    f: impl FnOnce(Option<&CollatorBorrowed>) -> T,
) -> T {
    COLLATORS.with(|cache| {
        let mut cache = cache.borrow_mut();
        f(cache
            .get_or_insert_with((tag.to_string(), options), || build(tag, options))
            .as_ref())
    })
}

/// -1, 0 or 1 as `a` sorts before, with or after `b` in `tag`'s order.
#[cfg(test)]
pub fn compare(tag: &str, options: Options, a: &str, b: &str) -> i32 {
    sign(with_collator(tag, options, |c| {
        c.map_or_else(|| a.cmp(b), |c| c.compare(a, b))
    }))
}

/// A string's characters as the engine holds them.
pub enum Units<'a> {
    /// Latin-1, one byte per character.
    Latin1(&'a [u8]),
    /// UTF-16 code units (a lone surrogate compares as U+FFFD).
    Utf16(&'a [u16]),
}

impl Units<'_> {
    fn len(&self) -> usize {
        match self {
            Units::Latin1(bytes) => bytes.len(),
            Units::Utf16(units) => units.len(),
        }
    }

    fn unit(&self, at: usize) -> u16 {
        match self {
            Units::Latin1(bytes) => u16::from(bytes[at]),
            Units::Utf16(units) => units[at],
        }
    }

    fn to_utf16(&self) -> std::borrow::Cow<'_, [u16]> {
        match self {
            Units::Latin1(bytes) => bytes.iter().map(|&b| u16::from(b)).collect(),
            Units::Utf16(units) => std::borrow::Cow::Borrowed(units),
        }
    }
}

/// [`compare`] of two strings read where the engine holds them: ASCII is
/// compared in place, anything else as UTF-16 (a Latin-1 string is widened).
pub fn compare_units(tag: &str, options: Options, a: Units, b: Units) -> i32 {
    if let (Units::Latin1(a), Units::Latin1(b)) = (&a, &b) {
        if a.is_ascii() && b.is_ascii() {
            return sign(with_collator(tag, options, |c| {
                c.map_or_else(|| a.cmp(b), |c| c.compare_utf8(a, b))
            }));
        }
    }
    let (a, b) = (a.to_utf16(), b.to_utf16());
    sign(with_collator(tag, options, |c| match c {
        Some(c) => c.compare_utf16(&a, &b),
        None => {
            let chars = |units: &[u16]| {
                char::decode_utf16(units.to_vec())
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect::<Vec<_>>()
            };
            chars(&a).cmp(&chars(&b))
        }
    }))
}

/// How many code units `a` and `b` share at their start.
fn common_prefix(a: &Units, b: &Units) -> usize {
    match (a, b) {
        (Units::Latin1(a), Units::Latin1(b)) => {
            a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count()
        }
        (Units::Utf16(a), Units::Utf16(b)) => {
            a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count()
        }
        _ => (0..a.len().min(b.len()))
            .take_while(|&i| a.unit(i) == b.unit(i))
            .count(),
    }
}

fn units_of<'v>(view: &'v v8::ValueView) -> Units<'v> {
    match view.data() {
        v8::ValueViewData::OneByte(bytes) => Units::Latin1(bytes),
        v8::ValueViewData::TwoByte(units) => Units::Utf16(units),
    }
}

/// Bytes ICU4X's collator may hold per UTF-16 unit of the two strings it
/// compares: past their common prefix it keeps the secondary and tertiary
/// weights of everything it has read until the primary weights differ
/// (`"a".repeat(8e6)` against `"A".repeat(8e6)` holds about 200 MB), and a
/// Latin-1 string is widened to UTF-16 first.
const BYTES_PER_UNIT: usize = 32;

/// `Intl.Collator.prototype.compare` and `localeCompare`. The strings are
/// read where the engine holds them; the comparison runs only when what
/// the collator may hold fits in what the heap has left: past it the turn
/// ends at its heap ceiling.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_gg_intl_compare(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] locale: &str,
    sensitivity: u32,
    numeric: bool,
    case_first: u32,
    ignore_punctuation: bool,
    a: v8::Local<v8::String>,
    b: v8::Local<v8::String>,
) -> i32 {
    let options = Options {
        sensitivity: sensitivity.min(3) as u8,
        numeric,
        case_first: case_first.min(3) as u8,
        ignore_punctuation,
    };
    let (a, b) = (v8::ValueView::new(scope, a), v8::ValueView::new(scope, b));
    let (a, b) = (units_of(&a), units_of(&b));
    // The collator skips the strings' common prefix before it holds
    // anything.
    let after_prefix = a.len() + b.len() - 2 * common_prefix(&a, &b);
    if !host_memory::fits(scope, after_prefix.saturating_mul(BYTES_PER_UNIT)) {
        host_memory::hit_ceiling(state);
        return 0;
    }
    super::guarded("op_gg_intl_compare", || {
        compare_units(locale, options, a, b)
    })
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
    fn strings_as_the_engine_holds_them_compare_as_text_does() {
        let utf16 = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        for (a, b) in [
            ("a", "A"),
            ("file10", "file2"),
            ("é", "e\u{301}"),
            ("å", "z"),
            ("z", "ä"),
        ] {
            for o in [o(0, false), o(3, false), o(3, true)] {
                let (wa, wb) = (utf16(a), utf16(b));
                let want = compare("sv", o, a, b);
                assert_eq!(
                    compare_units("sv", o, Units::Utf16(&wa), Units::Utf16(&wb)),
                    want,
                    "{a} {b}"
                );
                let latin1 = |s: &str| {
                    s.chars()
                        .map(|c| c as u32)
                        .all(|c| c < 256)
                        .then(|| s.chars().map(|c| c as u8).collect::<Vec<u8>>())
                };
                if let (Some(la), Some(lb)) = (latin1(a), latin1(b)) {
                    assert_eq!(
                        compare_units("sv", o, Units::Latin1(&la), Units::Latin1(&lb)),
                        want,
                        "{a} {b}"
                    );
                    assert_eq!(
                        compare_units("sv", o, Units::Latin1(&la), Units::Utf16(&wb)),
                        want,
                        "{a} {b}"
                    );
                }
            }
        }
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
