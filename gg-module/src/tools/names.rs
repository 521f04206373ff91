//! The names a tool goes by: the glob an `allow` list matches it with, the
//! JavaScript function a program calls, the native tool a model calls in
//! tool-calling mode, and the module a program imports.

use std::collections::HashSet;

/// Whether `name` matches `pattern`, where `*` stands for any run of
/// characters (the empty one too), `?` for exactly one, and every other
/// character for itself.
///
/// Iterative, remembering only the last `*`: a pattern of many stars cannot
/// make it backtrack exponentially or recurse.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    // The last star seen, and the name position its run currently ends at.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                // Let the last star swallow one more character and retry.
                Some((sp, sn)) => {
                    star = Some((sp, sn + 1));
                    p = sp + 1;
                    n = sn + 1;
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Words that cannot name a function in a module (the transpiler's list,
/// which memory keys avoid too); such a tool's function gets a trailing `_`.
use gg_transpiler::NOT_BINDINGS as RESERVED;

/// Each MCP tool name as the camelCase JavaScript function a program calls,
/// in input order and all distinct: `read_file` → `readFile`,
/// `get-tiny-image` → `getTinyImage`, `GET_USER` → `getUser`.
///
/// A name that would collide gets `2`, `3`, … appended. Every name first
/// keeps its natural spelling if it is the first to claim it, so a tool
/// literally named `a2` is not renamed because an earlier duplicate `a`
/// needed a suffix.
pub fn function_names(tools: &[&str]) -> Vec<String> {
    let natural: Vec<String> = tools.iter().map(|t| function_name(t)).collect();
    let all_natural: HashSet<&str> = natural.iter().map(String::as_str).collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(natural.len());
    for name in &natural {
        let unique = if taken.contains(name) {
            (2u64..)
                .map(|i| format!("{name}{i}"))
                .find(|c| !taken.contains(c) && !all_natural.contains(c.as_str()))
                .expect("an unbounded counter finds a free name")
        } else {
            name.clone()
        };
        taken.insert(unique.clone());
        out.push(unique);
    }
    out
}

/// One tool name as a JavaScript identifier, before collisions are settled.
fn function_name(tool: &str) -> String {
    let mut out = String::new();
    for (i, word) in tool
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .enumerate()
    {
        // An all-caps word is an acronym or SHOUTING, not camelCase: lower it
        // so `GET_USER` reads `getUser`. A mixed-case word is already camel
        // case and keeps its inner capitals.
        let all_caps = word.chars().any(|c| c.is_ascii_uppercase())
            && !word.chars().any(|c| c.is_ascii_lowercase());
        let word = if all_caps {
            word.to_ascii_lowercase()
        } else {
            word.to_string()
        };
        let mut chars = word.chars();
        let first = chars.next().expect("empty words are filtered out");
        if i == 0 {
            out.push(first.to_ascii_lowercase());
        } else {
            out.push(first.to_ascii_uppercase());
        }
        out.extend(chars);
    }
    if out.is_empty() {
        return "tool".to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// The longest native tool name model APIs accept.
const NATIVE_NAME_MAX: usize = 64;

/// The native tool a model calls in tool-calling mode: `{server}__{tool}`,
/// with every character model APIs refuse (anything outside
/// `[A-Za-z0-9_-]`) replaced by `_` and the whole cut to 64 characters.
///
/// Two tools can map to the same native name (`a.b` and `a_b`, or long names
/// sharing a 64-character prefix); the caller that builds the tool list
/// must detect that.
pub fn native_tool_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(NATIVE_NAME_MAX)
        .collect()
}

/// The key of a server's module among gg's modules: programs import
/// `gg/tools/<server>`, and the `gg/` prefix is the module namespace's own.
pub fn module_specifier_key(server: &str) -> String {
    format!("tools/{server}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_stars_question_marks_and_literals() {
        assert!(glob_matches("*", ""));
        assert!(glob_matches("*", "read_file"));
        assert!(glob_matches("read_*", "read_file"));
        assert!(glob_matches("read_*", "read_"));
        assert!(!glob_matches("read_*", "write_file"));
        assert!(glob_matches("*_file", "read_file"));
        assert!(glob_matches("r?ad", "read"));
        assert!(!glob_matches("r?ad", "rad"));
        assert!(glob_matches("a*b*c", "axxbyyc"));
        assert!(glob_matches("a*b*c", "abcbc"));
        assert!(!glob_matches("a*b*c", "abcb"));
        assert!(glob_matches("list_directory", "list_directory"));
        assert!(!glob_matches("list_directory", "list_directory_tree"));
        assert!(!glob_matches("", "x"));
        assert!(glob_matches("", ""));
        // Characters regex or shell globs treat specially are literal here.
        assert!(glob_matches("a.b[1]", "a.b[1]"));
        assert!(!glob_matches("a.b", "axb"));
        assert!(glob_matches("é?*", "éçà"));
    }

    #[test]
    fn a_pathological_glob_finishes_quickly() {
        let pattern = format!("{}b", "a*".repeat(200));
        let name = "a".repeat(2000);
        assert!(!glob_matches(&pattern, &name));
    }

    #[test]
    fn tool_names_become_camel_case_functions() {
        assert_eq!(
            function_names(&[
                "read_file",
                "get-tiny-image",
                "echo",
                "listDirectory",
                "GET_USER",
                "fetch.url/v2 now",
                "ListDirectory",
                "get_fileName",
            ]),
            [
                "readFile",
                "getTinyImage",
                "echo",
                "listDirectory",
                "getUser",
                "fetchUrlV2Now",
                "listDirectory2",
                "getFileName",
            ]
        );
    }

    #[test]
    fn leading_digits_empty_names_and_reserved_words_are_fixed() {
        assert_eq!(
            function_names(&["3d_render", "", "__", "日本", "delete", "new", "default"]),
            [
                "_3dRender",
                "tool",
                "tool2",
                "tool3",
                "delete_",
                "new_",
                "default_"
            ]
        );
        assert_eq!(
            function_names(&["class", "await", "yield", "let", "static", "enum"]),
            ["class_", "await_", "yield_", "let_", "static_", "enum_"]
        );
        assert_eq!(
            function_names(&[
                "implements",
                "interface",
                "package",
                "private",
                "protected",
                "public",
                "arguments",
                "eval",
                "evaluate",
            ]),
            [
                "implements_",
                "interface_",
                "package_",
                "private_",
                "protected_",
                "public_",
                "arguments_",
                "eval_",
                "evaluate",
            ]
        );
    }

    #[test]
    fn collisions_get_numbers_in_input_order() {
        assert_eq!(
            function_names(&["read_file", "read-file", "readFile", "READ_FILE"]),
            ["readFile", "readFile2", "readFile3", "readFile4"]
        );
        // A later tool whose own name is `a2` keeps it.
        assert_eq!(function_names(&["a", "a", "a2"]), ["a", "a3", "a2"]);
        assert_eq!(
            function_names(&["delete", "delete_"]),
            ["delete_", "delete_2"]
        );
    }

    #[test]
    fn native_names_are_sanitized_and_cut() {
        assert_eq!(native_tool_name("files", "read_file"), "files__read_file");
        assert_eq!(
            native_tool_name("docs", "get.page v2/é"),
            "docs__get_page_v2__"
        );
        let long = native_tool_name("s", &"x".repeat(100));
        assert_eq!(long.len(), 64);
        assert!(long.starts_with("s__xxx"));
    }

    #[test]
    fn module_keys_sit_under_tools() {
        assert_eq!(module_specifier_key("files"), "tools/files");
    }
}
