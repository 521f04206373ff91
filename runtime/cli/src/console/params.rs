//! A request's query string, read into a [`Query`]: `q` (the text to look
//! for), `store` or `profile` (where), `offset` and `limit` (the page).
//! Parsed by hand: the HTTP stack is built without axum's query extractor.

use gg_module::durable::inspect::Query;

/// The page size when the request names none.
const DEFAULT_LIMIT: usize = 50;

/// Decodes one `application/x-www-form-urlencoded` component: `+` is a
/// space, `%XX` a byte; a malformed escape is kept as written.
fn decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (escaped, bytes[i]) {
            (Some(byte), _) => {
                out.push(byte);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, byte) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads `query` (the URI's query string, if any); `within` names the
/// parameter that narrows the search (`store` or `profile`). A page bound
/// that is not a number is the caller's mistake, named.
pub fn parse(query: Option<&str>, within: &str) -> Result<Query, String> {
    let mut out = Query {
        limit: DEFAULT_LIMIT,
        ..Query::default()
    };
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = decode(value);
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{key} must be a whole number, not {value:?}"))
        };
        match decode(key).as_str() {
            "q" => out.text = value.trim().to_string(),
            "offset" => out.offset = number()?,
            "limit" => out.limit = number()?,
            k if k == within && !value.is_empty() => out.within = Some(value),
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_text_place_and_page() {
        let q = super::parse(
            Some("q=deploy+run%2Fbook&store=agent.a%2B&offset=50&limit=25"),
            "store",
        )
        .unwrap();
        assert_eq!(q.text, "deploy run/book");
        assert_eq!(q.within.as_deref(), Some("agent.a+"));
        assert_eq!((q.offset, q.limit), (50, 25));
        let q = super::parse(None, "profile").unwrap();
        assert_eq!(
            (q.text.as_str(), q.within, q.offset, q.limit),
            ("", None, 0, 50)
        );
        assert_eq!(super::parse(Some("q=%zz%"), "store").unwrap().text, "%zz%");
        assert!(super::parse(Some("limit=ten"), "store")
            .unwrap_err()
            .contains("limit"));
    }
}
