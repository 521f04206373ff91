//! `toLocaleLowerCase`/`toLocaleUpperCase`: ICU4X's case mapper, which
//! applies the language's special rules (Turkish and Azeri dotted and
//! dotless i, Lithuanian dot above).

use deno_core::{op2, v8, OpState};
use icu_casemap::CaseMapper;

use super::{host_memory, locale};

/// `text` in lower (or upper) case by `tag`'s rules.
pub fn change_case(tag: &str, text: &str, upper: bool) -> String {
    let language = locale(tag).id;
    let mapper = CaseMapper::new();
    if upper {
        mapper.uppercase_to_string(text, &language).into_owned()
    } else {
        mapper.lowercase_to_string(text, &language).into_owned()
    }
}

/// At most how many UTF-8 bytes a case mapping writes per byte it reads
/// (`ΐ`, two bytes, upper-cases to three characters, six bytes).
const GROWTH: usize = 3;

/// `text` in the locale's lower or upper case. The copy of `text` and the
/// mapped text are built only when they fit in what the heap has left:
/// past it the turn ends at its heap ceiling.
#[op2]
#[string]
pub fn op_gg_intl_change_case(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] locale: &str,
    text: v8::Local<v8::String>,
    upper: bool,
) -> String {
    let bound = host_memory::utf8_bound(text.length());
    let Some(text) = host_memory::read_text(scope, state, text, bound.saturating_mul(GROWTH))
    else {
        return String::new();
    };
    super::guarded("op_gg_intl_change_case", || {
        change_case(locale, &text, upper)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turkish_has_dotted_and_dotless_i() {
        assert_eq!(change_case("tr", "I", false), "ı");
        assert_eq!(change_case("tr", "i", true), "İ");
        assert_eq!(change_case("en", "I", false), "i");
        assert_eq!(change_case("az", "İ", false), "i");
    }
}
