//! A program's string value quoted as `JSON.stringify` quotes it, from the
//! string's characters copied out of the isolate: no allocation in the
//! program's heap, so a string the program could make is always shown,
//! however little heap is left. What is built outside the heap is held to
//! a size the caller gives (the heap limit, for the program's value): past
//! it the text is cut, as the value shown is cut to the profile's
//! `outputChars` anyway. That is still work in proportion to the heap limit,
//! done for the program: every loop here asks `stopped` every
//! [`CHECK_EVERY`] characters and gives up when the program is being
//! stopped, as the engine's own loops poll their interrupt.

use deno_core::v8;

/// How many characters a loop here copies between two looks at whether the
/// program is being stopped: 64 Ki, well under a millisecond of work.
const CHECK_EVERY: usize = 64 * 1024;

/// `JSON.stringify(value)` for a string, written from outside the heap, of
/// at most `max_bytes` bytes (cut at a character, the closing quote
/// dropped, when it is longer), less the copy of the string the engine
/// makes to read a two-byte one. Cut short, at any length, once `stopped`
/// answers true.
pub fn quote(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::String>,
    max_bytes: usize,
    stopped: &dyn Fn() -> bool,
) -> String {
    let view = v8::ValueView::new(scope, value);
    let max_bytes = less_the_copy(&view, max_bytes);
    match view.data() {
        // Most values: ASCII with nothing to escape, copied as it is.
        v8::ValueViewData::OneByte(bytes) if plain_ascii(bytes, stopped) => {
            let whole = bytes.len().saturating_add(2) <= max_bytes;
            let kept = if whole {
                bytes.len()
            } else {
                max_bytes.saturating_sub(1).min(bytes.len())
            };
            let mut out = String::with_capacity(kept + 2);
            out.push('"');
            out.push_str(std::str::from_utf8(&bytes[..kept]).expect("ASCII is UTF-8"));
            if whole {
                out.push('"');
            }
            out
        }
        v8::ValueViewData::OneByte(bytes) => quote_latin1(bytes, max_bytes, stopped),
        v8::ValueViewData::TwoByte(units) => quote_units(units.iter().copied(), max_bytes, stopped),
    }
}

/// Whether `bytes` are printable ASCII with no `"` or `\\` (quoted as they
/// are); false too when the program was stopped while they were read.
fn plain_ascii(bytes: &[u8], stopped: &dyn Fn() -> bool) -> bool {
    bytes.chunks(CHECK_EVERY).all(|chunk| {
        !stopped()
            && chunk
                .iter()
                .all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\')
    })
}

/// `max_bytes` less what reading `view` copied: QuickJS keeps a flat
/// one-byte string where the view reads it, and a two-byte one is copied
/// out whole (never less than a floor that always shows something).
fn less_the_copy(view: &v8::ValueView, max_bytes: usize) -> usize {
    match view.data() {
        v8::ValueViewData::OneByte(_) => max_bytes,
        v8::ValueViewData::TwoByte(units) => max_bytes
            .saturating_sub(units.len().saturating_mul(2))
            .max(super::host_memory::ALWAYS),
    }
}

/// A string's text (a lone surrogate as U+FFFD), copied out of the heap, of
/// at most `max_bytes` bytes of UTF-8 (cut at a character when longer, and
/// anywhere once `stopped` answers true).
pub fn text(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::String>,
    max_bytes: usize,
    stopped: &dyn Fn() -> bool,
) -> String {
    let view = v8::ValueView::new(scope, value);
    let max_bytes = less_the_copy(&view, max_bytes);
    let mut out = String::new();
    let mut count = 0usize;
    let mut push = |c: char| -> bool {
        count += 1;
        if out.len() + c.len_utf8() > max_bytes || (count.is_multiple_of(CHECK_EVERY) && stopped())
        {
            return false;
        }
        out.push(c);
        true
    };
    match view.data() {
        v8::ValueViewData::OneByte(bytes) => {
            let _ = bytes.iter().all(|&b| push(char::from(b)));
        }
        v8::ValueViewData::TwoByte(units) => {
            let _ = char::decode_utf16(units.iter().copied())
                .all(|c| push(c.unwrap_or(char::REPLACEMENT_CHARACTER)));
        }
    }
    out
}

/// Quotes UTF-16 code units as ECMAScript's `QuoteJSONString` does: the
/// short escapes for `"`, `\` and the five control characters that have
/// them, `\u00XX` for the other controls, and `\uDXXX` for a lone surrogate
/// (well-formed `JSON.stringify`); everything else as it is. At most
/// `max_bytes` bytes: a longer quotation is cut before the piece that would
/// pass them, without its closing quote (and anywhere once `stopped`
/// answers true).
pub fn quote_units(
    units: impl ExactSizeIterator<Item = u16>,
    max_bytes: usize,
    stopped: &dyn Fn() -> bool,
) -> String {
    let mut out = String::with_capacity(most_quoted(units.len(), max_bytes));
    out.push('"');
    let mut escaped = String::new();
    for (i, decoded) in char::decode_utf16(units).enumerate() {
        if i % CHECK_EVERY == CHECK_EVERY - 1 && stopped() {
            return out;
        }
        escaped.clear();
        match decoded {
            Ok('"') => escaped.push_str("\\\""),
            Ok('\\') => escaped.push_str("\\\\"),
            Ok('\u{8}') => escaped.push_str("\\b"),
            Ok('\u{c}') => escaped.push_str("\\f"),
            Ok('\n') => escaped.push_str("\\n"),
            Ok('\r') => escaped.push_str("\\r"),
            Ok('\t') => escaped.push_str("\\t"),
            Ok(c) if (c as u32) < 0x20 => push_escape(&mut escaped, c as u16),
            Ok(c) => escaped.push(c),
            Err(lone) => push_escape(&mut escaped, lone.unpaired_surrogate()),
        }
        if out.len() + escaped.len() > max_bytes {
            return out;
        }
        out.push_str(&escaped);
    }
    if out.len() < max_bytes {
        out.push('"');
    }
    out
}

/// Bytes to reserve for quoting `units` characters in at most `max_bytes`:
/// the most it can take (six bytes a character, `\u0001`), so that the
/// text is never moved to grow; the pages never written are never touched.
fn most_quoted(units: usize, max_bytes: usize) -> usize {
    units.saturating_mul(6).saturating_add(2).min(max_bytes)
}

/// [`quote_units`] for Latin-1 text, one byte a character: the common case
/// of a long value, written without decoding.
fn quote_latin1(bytes: &[u8], max_bytes: usize, stopped: &dyn Fn() -> bool) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out: Vec<u8> = Vec::with_capacity(most_quoted(bytes.len(), max_bytes));
    out.push(b'"');
    let mut piece = [0u8; 6];
    for (i, &b) in bytes.iter().enumerate() {
        if i % CHECK_EVERY == CHECK_EVERY - 1 && stopped() {
            return String::from_utf8(out).expect("quoted Latin-1 is UTF-8");
        }
        let len = match b {
            b'"' | b'\\' => {
                piece[..2].copy_from_slice(&[b'\\', b]);
                2
            }
            0x08 | 0x0c | b'\n' | b'\r' | b'\t' => {
                let short = match b {
                    0x08 => b'b',
                    0x0c => b'f',
                    b'\n' => b'n',
                    b'\r' => b'r',
                    _ => b't',
                };
                piece[..2].copy_from_slice(&[b'\\', short]);
                2
            }
            0..=0x1f => {
                piece = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ];
                6
            }
            0x20..=0x7f => {
                piece[0] = b;
                1
            }
            _ => {
                piece[..2].copy_from_slice(&[0xc0 | (b >> 6), 0x80 | (b & 0x3f)]);
                2
            }
        };
        if out.len() + len > max_bytes {
            return String::from_utf8(out).expect("quoted Latin-1 is UTF-8");
        }
        out.extend_from_slice(&piece[..len]);
    }
    if out.len() < max_bytes {
        out.push(b'"');
    }
    String::from_utf8(out).expect("quoted Latin-1 is UTF-8")
}

/// `\uXXXX` for `unit`, in lower-case hex.
fn push_escape(out: &mut String, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[usize::from((unit >> shift) & 0xf)]));
    }
}

#[cfg(test)]
mod tests {
    use super::{quote_units, CHECK_EVERY};

    fn never() -> bool {
        false
    }

    fn quote(text: &str) -> String {
        quote_units(
            text.encode_utf16().collect::<Vec<_>>().into_iter(),
            usize::MAX,
            &never,
        )
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
            quote_units([0x61, 0xd800, 0x62].into_iter(), usize::MAX, &never),
            "\"a\\ud800b\""
        );
        assert_eq!(
            quote_units([0xdc00].into_iter(), usize::MAX, &never),
            "\"\\udc00\""
        );
        assert_eq!(
            quote_units([0xd83d, 0xde00].into_iter(), usize::MAX, &never),
            "\"😀\""
        );
    }

    #[test]
    fn latin1_quotes_as_utf16_does() {
        let all: Vec<u8> = (0..=255).collect();
        let units = |bytes: &[u8]| bytes.iter().map(|&b| u16::from(b)).collect::<Vec<_>>();
        assert_eq!(
            super::quote_latin1(&all, usize::MAX, &never),
            quote_units(units(&all).into_iter(), usize::MAX, &never)
        );
        for max in 0..40 {
            assert_eq!(
                super::quote_latin1(&all[..12], max, &never),
                quote_units(units(&all[..12]).into_iter(), max, &never),
                "{max}"
            );
        }
    }

    #[test]
    fn a_quotation_past_its_bytes_is_cut_before_the_piece_that_would_pass_them() {
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        assert_eq!(quote_units(units("abc").into_iter(), 5, &never), "\"abc\"");
        assert_eq!(quote_units(units("abc").into_iter(), 4, &never), "\"abc");
        // An escape is never split: six bytes of `\u0001` fit, seven do not.
        let ctrl = units("\u{1}\u{1}");
        assert_eq!(
            quote_units(ctrl.clone().into_iter(), 12, &never),
            "\"\\u0001"
        );
        assert_eq!(
            quote_units(ctrl.clone().into_iter(), 13, &never),
            "\"\\u0001\\u0001"
        );
        assert_eq!(
            quote_units(ctrl.into_iter(), 14, &never),
            "\"\\u0001\\u0001\""
        );
        // Nor a character.
        assert_eq!(quote_units(units("é").into_iter(), 2, &never), "\"");
    }

    #[test]
    fn a_stopped_program_s_quotation_is_cut_within_one_stretch() {
        let stopped = || true;
        let long = vec![u16::from(b'a'); 4 * CHECK_EVERY];
        let quoted = quote_units(long.into_iter(), usize::MAX, &stopped);
        assert_eq!(
            quoted.len(),
            CHECK_EVERY,
            "the opening quote and one stretch"
        );
        let latin1 = vec![0xe9u8; 4 * CHECK_EVERY];
        let quoted = super::quote_latin1(&latin1, usize::MAX, &stopped);
        assert_eq!(quoted.chars().count(), CHECK_EVERY);
        assert!(!super::plain_ascii(&[b'a'; 8], &stopped));
        assert!(super::plain_ascii(&[b'a'; 8], &never));
    }
}
