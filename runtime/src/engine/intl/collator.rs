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

/// Code units (of both strings together) past which two strings are
/// compared by their sort keys. ICU4X's `compare` is quadratic in places
/// (`"a\u0301".repeat(64000)` against itself and one letter more: 7.2 s
/// at full optimization, where the sort keys take 8 ms), and no interrupt
/// reaches it; writing a sort key is linear and stops when told to.
const SORT_KEY_UNITS: usize = 4096;

/// Sort-key bytes written between two looks at whether to stop.
const SORT_KEY_POLL_BYTES: usize = 64 << 10;

/// A sort key written while the program is not being stopped.
struct StoppableKey<'a> {
    bytes: Vec<u8>,
    stopped: &'a dyn Fn() -> bool,
    polled_at: usize,
}

/// Writing a key stopped: the program is being stopped.
struct Stopped;

impl icu_collator::CollationKeySink for StoppableKey<'_> {
    type Error = Stopped;
    type State = ();
    type Output = ();

    fn write(&mut self, _: &mut (), buf: &[u8]) -> Result<(), Stopped> {
        self.bytes.extend_from_slice(buf);
        if self.bytes.len() - self.polled_at >= SORT_KEY_POLL_BYTES {
            self.polled_at = self.bytes.len();
            if (self.stopped)() {
                return Err(Stopped);
            }
        }
        Ok(())
    }

    fn finish(&mut self, _: ()) -> Result<(), Stopped> {
        Ok(())
    }
}

/// `a` and `b` ordered by their sort keys (which order as `compare` does);
/// `None` when `stopped` said to stop first.
fn compare_by_keys(
    c: &CollatorBorrowed,
    a: &Units,
    b: &Units,
    stopped: &dyn Fn() -> bool,
) -> Option<Ordering> {
    let key = |units: &Units| {
        let mut key = StoppableKey {
            bytes: Vec::new(),
            stopped,
            polled_at: 0,
        };
        let written = match units {
            Units::Latin1(bytes) if bytes.is_ascii() => c.write_sort_key_utf8_to(bytes, &mut key),
            other => c.write_sort_key_utf16_to(&other.to_utf16(), &mut key),
        };
        written.ok().map(|()| key.bytes)
    };
    Some(key(a)?.cmp(&key(b)?))
}

/// [`compare`] of two strings read where the engine holds them: ASCII is
/// compared in place, anything else as UTF-16 (a Latin-1 string is widened);
/// long strings by their sort keys, giving up (0) once `stopped` says so.
pub fn compare_units(
    tag: &str,
    options: Options,
    a: Units,
    b: Units,
    stopped: &dyn Fn() -> bool,
) -> i32 {
    if a.len() + b.len() > SORT_KEY_UNITS {
        if let Some(ordering) = with_collator(tag, options, |c| {
            c.map(|c| compare_by_keys(c, &a, &b, stopped))
        }) {
            return ordering.map_or(0, sign);
        }
    }
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
    let stopped = host_memory::stop_flag(state);
    super::guarded("op_gg_intl_compare", || {
        compare_units(locale, options, a, b, &stopped)
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
                    compare_units("sv", o, Units::Utf16(&wa), Units::Utf16(&wb), &never),
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
                        compare_units("sv", o, Units::Latin1(&la), Units::Latin1(&lb), &never),
                        want,
                        "{a} {b}"
                    );
                    assert_eq!(
                        compare_units("sv", o, Units::Latin1(&la), Units::Utf16(&wb), &never),
                        want,
                        "{a} {b}"
                    );
                }
            }
        }
    }

    fn never() -> bool {
        false
    }

    /// Strings of letters, accents, case, digits, spaces and punctuation,
    /// from a seed: what the options and tailorings each order.
    fn strings(seed: &mut u64, n: usize) -> Vec<String> {
        const PIECES: &[&str] = &[
            "a",
            "A",
            "b",
            "z",
            "\u{301}",
            "\u{308}",
            "é",
            "e",
            "ß",
            "ss",
            "å",
            "ä",
            "o",
            "ö",
            "1",
            "2",
            "10",
            "0",
            " ",
            "-",
            ".",
            "ch",
            "ł",
            "ı",
            "İ",
            "\u{e9}",
            "\u{1f600}",
        ];
        (0..n)
            .map(|_| {
                let mut next = || {
                    *seed ^= *seed << 13;
                    *seed ^= *seed >> 7;
                    *seed ^= *seed << 17;
                    *seed
                };
                let len = (next() % 12) as usize;
                (0..len)
                    .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn sort_keys_order_as_compare_does_under_every_option() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let words = strings(&mut seed, 40);
        for tag in ["en", "de", "sv", "tr", "fr-CA", "lt"] {
            for sensitivity in 0..4 {
                for numeric in [false, true] {
                    for case_first in 0..4 {
                        for ignore_punctuation in [false, true] {
                            let o = Options {
                                sensitivity,
                                numeric,
                                case_first,
                                ignore_punctuation,
                            };
                            for a in &words {
                                for b in &words {
                                    let (wa, wb): (Vec<u16>, Vec<u16>) =
                                        (a.encode_utf16().collect(), b.encode_utf16().collect());
                                    let by_keys = with_collator(tag, o, |c| {
                                        compare_by_keys(
                                            c.unwrap(),
                                            &Units::Utf16(&wa),
                                            &Units::Utf16(&wb),
                                            &never,
                                        )
                                    });
                                    assert_eq!(
                                        by_keys.map(sign),
                                        Some(compare(tag, o, a, b)),
                                        "{tag} {o:?} {a:?} {b:?}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn long_strings_compare_in_linear_time_and_stop_when_told() {
        // Quadratic in ICU4X's compare: minutes at this length.
        let a: Vec<u16> = "a\u{301}".repeat(1 << 19).encode_utf16().collect();
        let mut b = a.clone();
        b.push(u16::from(b'b'));
        let started = std::time::Instant::now();
        assert_eq!(
            compare_units(
                "de",
                o(3, false),
                Units::Utf16(&a),
                Units::Utf16(&b),
                &never
            ),
            -1
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        // Told to stop, it gives up at once with no answer.
        let stop = || true;
        let started = std::time::Instant::now();
        assert_eq!(
            compare_units("de", o(3, false), Units::Utf16(&a), Units::Utf16(&b), &stop),
            0
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // Long ASCII ones too, by their keys.
        let x = "file10 ".repeat(2000);
        let y = "file2 ".repeat(2000);
        assert_eq!(
            compare_units(
                "en",
                o(3, true),
                Units::Latin1(x.as_bytes()),
                Units::Latin1(y.as_bytes()),
                &never
            ),
            compare("en", o(3, true), &x, &y)
        );
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
