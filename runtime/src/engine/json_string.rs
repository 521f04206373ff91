//! A program's string value quoted as `JSON.stringify` quotes it, from the
//! string's characters copied out of the isolate: no allocation in the
//! program's heap, so a string the program could make is always shown,
//! however little heap is left.

use deno_core::v8;

/// `JSON.stringify(value)` for a string, written from outside the heap.
pub fn quote(scope: &mut v8::PinScope<'_, '_>, value: v8::Local<'_, v8::String>) -> String {
    let view = v8::ValueView::new(scope, value);
    match view.data() {
        // Most values: ASCII with nothing to escape, copied as it is.
        v8::ValueViewData::OneByte(bytes)
            if bytes
                .iter()
                .all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\') =>
        {
            let mut out = String::with_capacity(bytes.len() + 2);
            out.push('"');
            out.push_str(std::str::from_utf8(bytes).expect("ASCII is UTF-8"));
            out.push('"');
            out
        }
        v8::ValueViewData::OneByte(bytes) => quote_units(bytes.iter().map(|&b| u16::from(b))),
        v8::ValueViewData::TwoByte(units) => quote_units(units.iter().copied()),
    }
}

/// Quotes UTF-16 code units as ECMAScript's `QuoteJSONString` does: the
/// short escapes for `"`, `\` and the five control characters that have
/// them, `\u00XX` for the other controls, and `\uDXXX` for a lone surrogate
/// (well-formed `JSON.stringify`); everything else as it is.
pub fn quote_units(units: impl Iterator<Item = u16> + Clone) -> String {
    let mut out = String::with_capacity(units.clone().count() + 2);
    out.push('"');
    for decoded in char::decode_utf16(units) {
        match decoded {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            Ok(c) => out.push(c),
            Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quote_units;

    fn quote(text: &str) -> String {
        quote_units(text.encode_utf16())
    }

    #[test]
    fn well_formed_text_quotes_as_serde_json_does() {
        for text in [
            "",
            "plain",
            "quote \" and backslash \\",
            "tab\tnew\nline\rret",
            "\u{8}\u{c}\u{1}\u{1f}\u{7f}",
            "é ẞ 日本 😀",
        ] {
            assert_eq!(
                quote(text),
                serde_json::to_string(text).unwrap(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_lone_surrogate_is_escaped_and_a_pair_is_kept() {
        assert_eq!(
            quote_units([0x61, 0xd800, 0x62].into_iter()),
            "\"a\\ud800b\""
        );
        assert_eq!(quote_units([0xdc00].into_iter()), "\"\\udc00\"");
        assert_eq!(quote_units([0xd83d, 0xde00].into_iter()), "\"😀\"");
    }
}
