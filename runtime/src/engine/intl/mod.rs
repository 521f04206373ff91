//! The locale data behind gg's `Intl` (QuickJS's own ignores the locale):
//! ICU4X services with their compiled data, one file per service, called by
//! `js/intl.js` through the ops re-exported here. Every formatter is built
//! once per (locale, options) into a bounded per-thread cache ([`cache`]).

mod cache;
mod casemap;
mod collator;
mod date_patterns;
mod datetime;
mod display_names;
mod narrow;
mod number;
mod parts;
mod relative_time;
mod segmenter;

use deno_core::{op2, v8};
use icu_locale_core::Locale;

use super::host_memory;

pub use casemap::op_gg_intl_change_case;
pub use collator::op_gg_intl_compare;
pub use datetime::{
    op_gg_intl_datetime_format, op_gg_intl_datetime_format_range, op_gg_intl_time_zone,
};
pub use display_names::op_gg_intl_display_name;
pub use number::{op_gg_intl_format_decimal, op_gg_intl_plural};
pub use relative_time::op_gg_intl_relative_time;
pub use segmenter::op_gg_intl_segment;

/// Runs an op's ICU4X call. ICU4X debug-asserts on data it did not expect
/// (a debug build panics where a release build writes a fallback), and a
/// panic cannot unwind out of an op through the engine: it would abort the
/// host. A panic here becomes the op's empty answer instead, which the
/// JavaScript side treats as "cannot format" (a RangeError, or the
/// unlocalized fallback).
fn guarded<T: Default>(op: &'static str, call: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).unwrap_or_else(|_| {
        tracing::warn!(op, "ICU4X panicked; the op answers empty");
        T::default()
    })
}

/// Longest locale tag accepted: real tags are a few dozen characters; this
/// bounds the cache keys a program can make.
const MAX_TAG: usize = 128;

/// `tag` parsed, or en-US when it is not a locale (callers validated it with
/// [`canonical_locale`] already; this keeps a bad tag from panicking).
fn locale(tag: &str) -> Locale {
    tag.parse()
        .unwrap_or_else(|_| "en-US".parse().expect("a valid locale"))
}

/// The canonical form of a BCP 47 tag (`EN-us` -> `en-US`), or None when it
/// is not one (V8 throws RangeError then).
pub fn canonical_locale(tag: &str) -> Option<String> {
    if tag.len() > MAX_TAG {
        return None;
    }
    Locale::try_from_str(tag).ok().map(|l| l.to_string())
}

/// The canonical tag, or "" when `tag` is not a locale (one too long to
/// be one is not copied out of the heap).
#[op2]
#[string]
pub fn op_gg_intl_locale(scope: &mut v8::PinScope, tag: v8::Local<v8::String>) -> String {
    let Some(tag) = host_memory::read_short(scope, tag, MAX_TAG) else {
        return String::new();
    };
    guarded("op_gg_intl_locale", || {
        canonical_locale(&tag).unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locales_are_canonicalized_or_rejected() {
        assert_eq!(canonical_locale("EN-us").as_deref(), Some("en-US"));
        assert_eq!(canonical_locale("de").as_deref(), Some("de"));
        assert_eq!(canonical_locale("en_US"), None);
        assert_eq!(canonical_locale(""), None);
        assert_eq!(canonical_locale(&"a".repeat(1000)), None);
    }
}
