//! `toLocaleLowerCase`/`toLocaleUpperCase`: ICU4X's case mapper, which
//! applies the language's special rules (Turkish and Azeri dotted and
//! dotless i, Lithuanian dot above).

use deno_core::op2;
use icu_casemap::CaseMapper;

use super::locale;

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

#[op2]
#[string]
pub fn op_gg_intl_change_case(#[string] locale: &str, #[string] text: &str, upper: bool) -> String {
    super::guarded("op_gg_intl_change_case", || {
        change_case(locale, text, upper)
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
