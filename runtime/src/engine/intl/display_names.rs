//! `Intl.DisplayNames`: ICU4X's (experimental) locale display names for
//! languages, regions and scripts, with their compiled data.

use std::cell::RefCell;

use deno_core::{op2, v8};
use icu_experimental::displaynames::multi::{
    LocaleDisplayNamesFormatter, RegionDisplayNames, ScriptDisplayNames,
};
use icu_experimental::displaynames::{DisplayNamesOptions, DisplayNamesPreferences, Style};
use icu_locale_core::subtags::{Region, Script};
use icu_locale_core::Locale;

use super::cache::Bounded;
use super::locale;

/// The code kinds ECMA-402 names that ICU4X has data for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    Language,
    Region,
    Script,
}

enum Names {
    Language(Box<LocaleDisplayNamesFormatter>),
    Region(RegionDisplayNames),
    Script(ScriptDisplayNames),
}

thread_local! {
    static NAMES: RefCell<Bounded<(String, Kind, u8), Option<Names>>> = RefCell::new(Bounded::new());
}

/// Why `of` fails: V8 throws RangeError for a malformed code.
#[derive(Debug, PartialEq, Eq)]
pub enum NameError {
    Code,
}

fn build(tag: &str, kind: Kind, style: u8) -> Option<Names> {
    let prefs = DisplayNamesPreferences::from(&locale(tag));
    let mut options = DisplayNamesOptions::default();
    options.style = Some(match style {
        0 => Style::Narrow,
        1 => Style::Short,
        _ => Style::Long,
    });
    let names = match kind {
        Kind::Language => LocaleDisplayNamesFormatter::try_new(prefs, options)
            .map(|f| Names::Language(Box::new(f))),
        Kind::Region => RegionDisplayNames::try_new(prefs, options).map(Names::Region),
        Kind::Script => ScriptDisplayNames::try_new(prefs, options).map(Names::Script),
    };
    names
        .map_err(|e| tracing::debug!(tag, error = %e, "no display names"))
        .ok()
}

/// `code`'s name in `tag`'s language, None when there is no data for it;
/// `style` 0 narrow, 1 short, 2 long.
pub fn display_name(
    tag: &str,
    kind: Kind,
    style: u8,
    code: &str,
) -> Result<Option<String>, NameError> {
    if code.len() > 64 {
        return Err(NameError::Code);
    }
    enum Code {
        Language(Locale),
        Region(Region),
        Script(Script),
    }
    let parsed = match kind {
        Kind::Language => Code::Language(code.parse().map_err(|_| NameError::Code)?),
        Kind::Region => Code::Region(code.parse().map_err(|_| NameError::Code)?),
        Kind::Script => Code::Script(code.parse().map_err(|_| NameError::Code)?),
    };
    Ok(NAMES.with(|cache| {
        let mut cache = cache.borrow_mut();
        let names = cache
            .get_or_insert_with((tag.to_string(), kind, style), || build(tag, kind, style))
            .as_ref()?;
        match (names, &parsed) {
            (Names::Language(f), Code::Language(l)) => {
                let name = f.of(l).into_owned();
                // ICU4X echoes the tag when it has no name for it.
                (name != l.to_string()).then_some(name)
            }
            (Names::Region(f), Code::Region(r)) => f.of(*r).map(str::to_string),
            (Names::Script(f), Code::Script(s)) => f.of(*s).map(str::to_string),
            _ => None,
        }
    }))
}

/// The name, "\u{0}" when there is none, "" when the code is malformed
/// (one longer than a locale tag is, without being copied out of the heap).
#[op2]
#[string]
pub fn op_gg_intl_display_name(
    scope: &mut v8::PinScope,
    #[string] locale: &str,
    kind: u32,
    style: u32,
    code: v8::Local<v8::String>,
) -> String {
    let Some(code) = super::host_memory::read_short(scope, code, super::MAX_TAG) else {
        return String::new();
    };
    let code = code.as_str();
    super::guarded("op_gg_intl_display_name", || {
        let kind = match kind {
            0 => Kind::Language,
            1 => Kind::Region,
            _ => Kind::Script,
        };
        match display_name(locale, kind, style.min(2) as u8, code) {
            Ok(Some(name)) => name,
            Ok(None) => "\u{0}".to_string(),
            Err(_) => String::new(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_the_display_locale() {
        let name = |tag, kind, code| display_name(tag, kind, 2, code).unwrap();
        assert_eq!(name("en", Kind::Region, "DE").as_deref(), Some("Germany"));
        assert_eq!(
            name("de", Kind::Region, "DE").as_deref(),
            Some("Deutschland")
        );
        assert_eq!(name("en", Kind::Language, "fr").as_deref(), Some("French"));
        assert_eq!(
            name("en", Kind::Script, "Cyrl").as_deref(),
            Some("Cyrillic")
        );
        assert_eq!(name("en", Kind::Region, "QZ"), None);
    }

    #[test]
    fn malformed_codes_are_errors() {
        assert_eq!(
            display_name("en", Kind::Region, 2, "Germany"),
            Err(NameError::Code)
        );
        assert_eq!(
            display_name("en", Kind::Script, 2, "C"),
            Err(NameError::Code)
        );
        assert_eq!(
            display_name("en", Kind::Language, 2, &"x".repeat(100)),
            Err(NameError::Code)
        );
    }
}
