//! TypeScript declarations of a server's tools, made from the JSON Schemas
//! the server publishes, so a program type-checks its calls before running.
//!
//! Schemas come from servers gg does not control: rendering never panics,
//! stops descending at a fixed depth, follows a bounded number of `$ref`s,
//! renders a bounded number of nodes, and escapes descriptions so no text
//! can close the comment it sits in. What it cannot express becomes
//! `unknown`, which is always sound.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};

/// One tool as its module declares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDeclaration {
    /// The JavaScript function a program calls (from `function_names`).
    pub function: String,
    /// The MCP tool's own name.
    pub tool: String,
    /// The tool's description, as the server wrote it.
    pub description: Option<String>,
    /// The tool's input JSON Schema (MCP's `inputSchema`).
    pub input_schema: Value,
    /// The tool's output JSON Schema (MCP's `outputSchema`), when it has one.
    pub output_schema: Option<Value>,
}

/// How deep a schema is followed before the rest is `unknown`.
const MAX_DEPTH: usize = 32;

/// How many `$ref`s one path follows before the rest is `unknown`.
const MAX_REFS: usize = 16;

/// How many schema nodes one rendering visits before the rest is `unknown`:
/// `$ref`s reused at every level could otherwise multiply the output
/// exponentially.
const MAX_NODES: usize = 20_000;

/// The most characters of a description kept; the rest becomes `…`.
const MAX_DESCRIPTION_CHARS: usize = 2_000;

/// The declaration of module `gg/tools/<server>`: one exported async
/// function per tool, documented with the tool's description.
pub fn module_declaration(server: &str, tools: &[ToolDeclaration]) -> String {
    let specifier = Value::String(format!("gg/tools/{server}")).to_string();
    let mut out = format!("declare module {specifier} {{\n");
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut lines = tool
            .description
            .as_deref()
            .map(description_lines)
            .unwrap_or_default();
        lines.extend(comment_lines(&format!(
            "(MCP tool `{}` of server `{server}`.)",
            tool.tool
        )));
        jsdoc(&mut out, "  ", &lines);
        let args = arguments(&tool.input_schema);
        let returns = match &tool.output_schema {
            Some(schema) => Renderer::new(schema).ty(schema, 1, 0).text,
            None => "string".to_string(),
        };
        out.push_str(&format!(
            "  export function {}({args}): Promise<{returns}>;\n",
            tool.function
        ));
    }
    out.push_str("}\n");
    out
}

/// The parameter list of a tool's function: `args: {...}`, optional when no
/// field is required, `args?: {}` when the tool takes no fields.
fn arguments(input: &Value) -> String {
    let effective = follow_refs(input, input);
    let fields = effective
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    let combined = ["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| effective.get(k).is_some_and(Value::is_array));
    let required = effective
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty());
    let ty = Renderer::new(input).ty(input, 1, 0).text;
    if !fields && !combined {
        let record = effective
            .get("additionalProperties")
            .is_some_and(Value::is_object);
        return if record {
            format!("args?: {ty}")
        } else {
            "args?: {}".to_string()
        };
    }
    let optional = if required || combined { "" } else { "?" };
    format!("args{optional}: {ty}")
}

/// The schema a chain of `$ref`s at the top of `schema` leads to (bounded).
fn follow_refs<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_REFS {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => match resolve(root, r) {
                Some(target) => schema = target,
                None => break,
            },
            None => break,
        }
    }
    schema
}

/// The TypeScript type a JSON Schema describes, with `schema` as its own
/// root for `$ref`s: `{"type":"array","items":{"type":"string"}}` →
/// `string[]`. What the schema does not pin down is `unknown`.
pub fn schema_type(schema: &Value) -> String {
    Renderer::new(schema).ty(schema, 0, 0).text
}

/// Where a schema `$ref` points, resolved against the root: `#`, or a JSON
/// pointer below it such as `#/$defs/X`, `#/definitions/X` or
/// `#/properties/a` (what zod-to-json-schema emits for reused parts).
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    if !pointer.starts_with('/') {
        return None;
    }
    // Refs are URI fragments, so a key may be percent-encoded; only `%25`
    // and the common `%20` matter in practice beside plain names.
    root.pointer(&pointer.replace("%20", " ").replace("%25", "%"))
}

/// How tightly a rendered type binds, to know when it needs parentheses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// A name, literal, object, tuple or array: binds tightest.
    Atom,
    /// `A & B`.
    Intersection,
    /// `A | B`.
    Union,
}

/// A rendered type.
#[derive(Debug, Clone)]
struct Ty {
    text: String,
    binding: Binding,
}

impl Ty {
    fn atom(text: impl Into<String>) -> Ty {
        Ty {
            text: text.into(),
            binding: Binding::Atom,
        }
    }

    fn unknown() -> Ty {
        Ty::atom("unknown")
    }

    fn never() -> Ty {
        Ty::atom("never")
    }

    fn is(&self, text: &str) -> bool {
        self.text == text
    }

    /// `T[]`, parenthesizing `T` when it is a union or intersection.
    fn array(self) -> Ty {
        match self.binding {
            Binding::Atom => Ty::atom(format!("{}[]", self.text)),
            _ => Ty::atom(format!("({})[]", self.text)),
        }
    }
}

/// `A | B`: `unknown` absorbs everything, `never` vanishes, duplicates
/// collapse, and no member is left means `never`.
fn union(parts: Vec<Ty>) -> Ty {
    if parts.iter().any(|p| p.is("unknown")) {
        return Ty::unknown();
    }
    let mut seen = HashSet::new();
    let mut kept: Vec<Ty> = parts
        .into_iter()
        .filter(|p| !p.is("never") && seen.insert(p.text.clone()))
        .collect();
    match kept.len() {
        0 => Ty::never(),
        1 => kept.remove(0),
        _ => Ty {
            text: kept
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
            binding: Binding::Union,
        },
    }
}

/// `A & B`: `never` absorbs everything, `unknown` vanishes, duplicates
/// collapse, and no member is left means `unknown`.
fn intersection(parts: Vec<Ty>) -> Ty {
    if parts.iter().any(|p| p.is("never")) {
        return Ty::never();
    }
    let mut seen = HashSet::new();
    let mut kept: Vec<Ty> = parts
        .into_iter()
        .filter(|p| !p.is("unknown") && seen.insert(p.text.clone()))
        .collect();
    match kept.len() {
        0 => Ty::unknown(),
        1 => kept.remove(0),
        _ => Ty {
            text: kept
                .iter()
                .map(|p| match p.binding {
                    Binding::Union => format!("({})", p.text),
                    _ => p.text.clone(),
                })
                .collect::<Vec<_>>()
                .join(" & "),
            binding: Binding::Intersection,
        },
    }
}

/// One rendering: the root `$ref`s resolve against, the refs being followed
/// (to stop at recursion) and the nodes left to visit.
struct Renderer<'a> {
    root: &'a Value,
    refs: Vec<&'a str>,
    nodes_left: usize,
}

impl<'a> Renderer<'a> {
    fn new(root: &'a Value) -> Self {
        Renderer {
            root,
            refs: Vec::new(),
            nodes_left: MAX_NODES,
        }
    }

    /// The type of `schema`, laid out for a line indented `indent` levels.
    fn ty(&mut self, schema: &'a Value, indent: usize, depth: usize) -> Ty {
        if depth > MAX_DEPTH || self.nodes_left == 0 {
            return Ty::unknown();
        }
        self.nodes_left -= 1;
        match schema {
            Value::Bool(false) => Ty::never(),
            Value::Object(o) => self.object_schema(o, indent, depth),
            _ => Ty::unknown(),
        }
    }

    fn object_schema(&mut self, o: &'a Map<String, Value>, indent: usize, depth: usize) -> Ty {
        if let Some(reference) = o.get("$ref") {
            return self.reference(reference, indent, depth);
        }
        let mut parts = vec![self.base(o, indent, depth)];
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = o.get(key).and_then(Value::as_array) {
                if !branches.is_empty() {
                    let branches = branches
                        .iter()
                        .map(|b| self.ty(b, indent, depth + 1))
                        .collect();
                    parts.push(union(branches));
                }
            }
        }
        if let Some(all) = o.get("allOf").and_then(Value::as_array) {
            for part in all {
                let t = self.ty(part, indent, depth + 1);
                parts.push(t);
            }
        }
        intersection(parts)
    }

    fn reference(&mut self, reference: &'a Value, indent: usize, depth: usize) -> Ty {
        let Some(reference) = reference.as_str() else {
            return Ty::unknown();
        };
        if self.refs.len() >= MAX_REFS || self.refs.contains(&reference) {
            return Ty::unknown();
        }
        let Some(target) = resolve(self.root, reference) else {
            return Ty::unknown();
        };
        self.refs.push(reference);
        let t = self.ty(target, indent, depth + 1);
        self.refs.pop();
        t
    }

    /// The type `const`, `enum` or `type` (or, without `type`, the keywords
    /// present) give.
    fn base(&mut self, o: &'a Map<String, Value>, indent: usize, depth: usize) -> Ty {
        let base = if let Some(value) = o.get("const") {
            literal(value)
        } else if let Some(values) = o.get("enum") {
            match values.as_array() {
                Some(values) => union(values.iter().map(literal).collect()),
                None => Ty::unknown(),
            }
        } else {
            match o.get("type") {
                Some(Value::String(t)) => self.named(t, o, indent, depth),
                Some(Value::Array(types)) => {
                    let types: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                    if types.is_empty() {
                        Ty::unknown()
                    } else {
                        let parts = types
                            .into_iter()
                            .map(|t| self.named(t, o, indent, depth))
                            .collect();
                        union(parts)
                    }
                }
                Some(_) => Ty::unknown(),
                // Nested schemas often leave `type` out; the keywords say it.
                None if o.contains_key("properties") || o.contains_key("additionalProperties") => {
                    self.named("object", o, indent, depth)
                }
                None if o.contains_key("items") || o.contains_key("prefixItems") => {
                    self.named("array", o, indent, depth)
                }
                None => Ty::unknown(),
            }
        };
        // OpenAPI's spelling of "or null", common in generated schemas.
        if o.get("nullable") == Some(&Value::Bool(true)) && !base.is("unknown") {
            union(vec![base, Ty::atom("null")])
        } else {
            base
        }
    }

    fn named(&mut self, t: &str, o: &'a Map<String, Value>, indent: usize, depth: usize) -> Ty {
        match t {
            "string" => Ty::atom("string"),
            "number" | "integer" => Ty::atom("number"),
            "boolean" => Ty::atom("boolean"),
            "null" => Ty::atom("null"),
            "array" => self.array(o, indent, depth),
            "object" => self.object(o, indent, depth),
            _ => Ty::unknown(),
        }
    }

    fn array(&mut self, o: &'a Map<String, Value>, indent: usize, depth: usize) -> Ty {
        let items = o.get("items");
        let tuple = match (o.get("prefixItems"), items) {
            (Some(Value::Array(prefix)), _) => Some((prefix, items.filter(|i| i.is_object()))),
            // Drafts before 2020-12 spell a tuple as an `items` array.
            (_, Some(Value::Array(prefix))) => Some((prefix, None)),
            _ => None,
        };
        if let Some((prefix, rest)) = tuple {
            let mut elements: Vec<String> = prefix
                .iter()
                .map(|p| self.ty(p, indent, depth + 1).text)
                .collect();
            if let Some(rest) = rest {
                let rest = self.ty(rest, indent, depth + 1).array();
                elements.push(format!("...{}", rest.text));
            }
            return Ty::atom(format!("[{}]", elements.join(", ")));
        }
        match items {
            Some(items) => self.ty(items, indent, depth + 1).array(),
            None => Ty::unknown().array(),
        }
    }

    fn object(&mut self, o: &'a Map<String, Value>, indent: usize, depth: usize) -> Ty {
        let additional = o.get("additionalProperties");
        let properties = o
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty());
        let Some(properties) = properties else {
            return match additional {
                Some(Value::Bool(false)) => Ty::atom("Record<string, never>"),
                Some(schema @ Value::Object(_)) => {
                    let t = self.ty(schema, indent, depth + 1);
                    Ty::atom(format!("Record<string, {}>", t.text))
                }
                _ => Ty::atom("Record<string, unknown>"),
            };
        };
        let required: HashSet<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let pad = "  ".repeat(indent + 1);
        let mut out = String::from("{\n");
        for (name, schema) in properties {
            if let Some(description) = schema.get("description").and_then(Value::as_str) {
                jsdoc(&mut out, &pad, &description_lines(description));
            }
            let optional = if required.contains(name.as_str()) {
                ""
            } else {
                "?"
            };
            let t = self.ty(schema, indent + 1, depth + 1);
            out.push_str(&format!(
                "{pad}{}{optional}: {};\n",
                property_name(name),
                t.text
            ));
        }
        if matches!(additional, Some(Value::Bool(true) | Value::Object(_))) {
            // An index signature must admit every named property's type
            // too, so only `unknown` is always right.
            out.push_str(&format!("{pad}[key: string]: unknown;\n"));
        }
        out.push_str(&"  ".repeat(indent));
        out.push('}');
        Ty::atom(out)
    }
}

/// A JSON value as a TypeScript literal type; objects and arrays have no
/// literal type, so they are `unknown`.
fn literal(value: &Value) -> Ty {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => {
            Ty::atom(value.to_string())
        }
        _ => Ty::unknown(),
    }
}

/// A property key as TypeScript writes it: bare when an identifier, else
/// JSON-quoted.
fn property_name(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        name.to_string()
    } else {
        Value::String(name.to_string()).to_string()
    }
}

/// A description as comment lines: cut to `MAX_DESCRIPTION_CHARS`, made
/// safe inside a block comment, blank lines at either end dropped.
fn description_lines(description: &str) -> Vec<String> {
    let cut = if description.chars().count() > MAX_DESCRIPTION_CHARS {
        let kept: String = description.chars().take(MAX_DESCRIPTION_CHARS).collect();
        format!("{kept}…")
    } else {
        description.to_string()
    };
    comment_lines(&cut)
}

/// Text as lines safe inside a `/** */` comment: `*/` becomes `*\/` so the
/// text cannot end the comment, trailing spaces go, and blank lines at
/// either end are dropped.
fn comment_lines(text: &str) -> Vec<String> {
    let escaped = text.replace("*/", "*\\/");
    let mut lines: Vec<String> = escaped
        .split(['\n', '\r'].as_slice())
        .map(|l| l.trim_end().to_string())
        .collect();
    // `\r\n` splits into a line and an empty one; fold runs of blank lines
    // into one so the comment keeps paragraph breaks, not doubled ones.
    lines.dedup_by(|a, b| a.is_empty() && b.is_empty());
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    lines
}

/// Writes a JSDoc comment at `pad`: one line `/** text */` when it fits on
/// one, else a block. Nothing for no lines.
fn jsdoc(out: &mut String, pad: &str, lines: &[String]) {
    match lines {
        [] => {}
        [line] => out.push_str(&format!("{pad}/** {line} */\n")),
        _ => {
            out.push_str(&format!("{pad}/**\n"));
            for line in lines {
                if line.is_empty() {
                    out.push_str(&format!("{pad} *\n"));
                } else {
                    out.push_str(&format!("{pad} * {line}\n"));
                }
            }
            out.push_str(&format!("{pad} */\n"));
        }
    }
}

#[cfg(test)]
mod tests;
