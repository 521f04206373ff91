//! A memory's import key: its slug in camelCase (`csv-tools` → `csvTools`).
//!
//! Segments are split at `-`, `_` and `.`; the first keeps its case but for
//! its first letter, which is lowered; each later one has its first letter
//! raised (`a.b_c` → `aBC`, `CSV-tools` → `cSVTools`). A key that would start
//! with a digit, or that would be a word JavaScript reserves (`class`,
//! `eval`, `await`, …), is prefixed with `_` (`3d-tools` → `_3dTools`,
//! `class` → `_class`) so that every key is also a valid binding name,
//! which lets a program write `import * as csvTools from "csvTools"` (or
//! `import _class from "_class"`) with the name the docs show.

/// Keys a memory can never take: the host's own module.
pub const RESERVED_KEYS: &[&str] = &["gg"];

/// Words that cannot name a binding in a module (strict mode): reserved
/// words, future reserved words, literals, and `eval`/`arguments`.
pub const NOT_BINDINGS: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// The camelCase key for `slug`, before deduplication.
pub fn module_key(slug: &str) -> String {
    let mut key = String::with_capacity(slug.len());
    for (i, segment) in slug
        .split(['-', '_', '.'])
        .filter(|s| !s.is_empty())
        .enumerate()
    {
        let mut chars = segment.chars();
        let first = chars.next().expect("empty segments are filtered");
        if i == 0 {
            key.extend(first.to_lowercase());
        } else {
            key.extend(first.to_uppercase());
        }
        key.push_str(chars.as_str());
    }
    if key.is_empty() {
        key.push('_');
    }
    if key.starts_with(|c: char| c.is_ascii_digit()) || NOT_BINDINGS.contains(&key.as_str()) {
        key.insert(0, '_');
    }
    key
}

/// The key for `slug`, deduplicated against keys already held: the first
/// free of `key`, `key2`, `key3`, … (reserved keys count as held).
pub fn module_key_avoiding(slug: &str, is_taken: impl Fn(&str) -> bool) -> String {
    let base = module_key(slug);
    let taken = |k: &str| RESERVED_KEYS.contains(&k) || is_taken(k);
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|k| !taken(k))
        .expect("an unbounded range always finds a free key")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_cases_slugs() {
        assert_eq!(module_key("csv-tools"), "csvTools");
        assert_eq!(module_key("a.b_c"), "aBC");
        assert_eq!(module_key("Deploy-runbook"), "deployRunbook");
        assert_eq!(module_key("plain"), "plain");
        assert_eq!(module_key("a--b"), "aB");
        assert_eq!(module_key("trailing-"), "trailing");
    }

    #[test]
    fn leading_digits_and_separator_only_slugs_become_identifiers() {
        assert_eq!(module_key("3d-tools"), "_3dTools");
        assert_eq!(module_key("---"), "_");
        assert_eq!(module_key("-9"), "_9");
    }

    #[test]
    fn reserved_words_become_bindings() {
        assert_eq!(module_key("class"), "_class");
        assert_eq!(module_key("eval"), "_eval");
        assert_eq!(module_key("arguments"), "_arguments");
        assert_eq!(module_key("default"), "_default");
        assert_eq!(module_key("class-list"), "classList");
    }

    #[test]
    fn deduplicates_against_taken_keys() {
        let taken = ["csvTools", "csvTools2"];
        assert_eq!(
            module_key_avoiding("csv-tools", |k| taken.contains(&k)),
            "csvTools3"
        );
        assert_eq!(module_key_avoiding("csv_tools", |_| false), "csvTools");
        assert_eq!(module_key_avoiding("gg", |_| false), "gg2");
    }
}
