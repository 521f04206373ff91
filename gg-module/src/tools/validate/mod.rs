//! The host's check of a program's argument against a tool's input JSON
//! Schema, before the call leaves for the server: a mistake is refused with a
//! message naming the field (`args.items[2].name must be a string, got a
//! number`) instead of whatever the server would say.
//!
//! The check is a courtesy, not the guard: the server validates again. So
//! whatever this cannot decide is accepted — `format` and `pattern` (regex
//! dialects differ), unresolvable `$ref`s, schemas nested past a depth, and
//! checks that would take too many steps — rather than refusing a call the
//! server would take.

use serde_json::{Map, Value};

use crate::SchemaError;

use super::typescript::resolve;

/// How deep the schema is followed (each subschema one level) before the
/// rest is accepted.
const MAX_DEPTH: usize = 256;

/// How many `$ref`s one path follows before the rest is accepted.
const MAX_REFS: usize = 64;

/// How many subschemas one check visits before the rest is accepted:
/// nested `anyOf`s over `$ref`s could otherwise take exponential time.
const MAX_STEPS: usize = 100_000;

/// Checks `value` against `schema` (the root for `$ref`s). `Err`: the first
/// problem, naming the field from the argument's root as `args`:
/// `args.path must be a string, got a number`.
pub fn validate(schema: &Value, value: &Value) -> Result<(), SchemaError> {
    Checker {
        root: schema,
        refs: 0,
        steps_left: MAX_STEPS,
        path: Vec::new(),
    }
    .check(schema, value, 0)
}

/// One step of a field's path.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

struct Checker<'s, 'v> {
    root: &'s Value,
    refs: usize,
    steps_left: usize,
    path: Vec<Step<'v>>,
}

impl<'s, 'v> Checker<'s, 'v> {
    /// The path to the value being checked: `args.items[2].name`.
    fn at(&self) -> String {
        let mut out = String::from("args");
        for step in &self.path {
            match step {
                Step::Key(k) if is_identifier(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Step::Key(k) => out.push_str(&format!("[{}]", Value::String(k.to_string()))),
                Step::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    fn check(
        &mut self,
        schema: &'s Value,
        value: &'v Value,
        depth: usize,
    ) -> Result<(), SchemaError> {
        if depth > MAX_DEPTH || self.steps_left == 0 {
            return Ok(());
        }
        self.steps_left -= 1;
        match schema {
            Value::Bool(false) => Err(SchemaError(format!(
                "{} is not allowed: the tool's schema accepts no value there",
                self.at()
            ))),
            Value::Object(o) => self.object_schema(o, value, depth),
            // `true`, and anything that is not a schema, accepts everything.
            _ => Ok(()),
        }
    }

    /// A subschema one level down, at a deeper field when `step` is given.
    fn descend(
        &mut self,
        schema: &'s Value,
        value: &'v Value,
        step: Option<Step<'v>>,
        depth: usize,
    ) -> Result<(), SchemaError> {
        let pushed = step.is_some();
        if let Some(step) = step {
            self.path.push(step);
        }
        let result = self.check(schema, value, depth + 1);
        if pushed {
            self.path.pop();
        }
        result
    }

    fn object_schema(
        &mut self,
        o: &'s Map<String, Value>,
        value: &'v Value,
        depth: usize,
    ) -> Result<(), SchemaError> {
        // 2020-12 (MCP's dialect) applies a `$ref` beside its siblings.
        if let Some(reference) = o.get("$ref").and_then(Value::as_str) {
            if self.refs < MAX_REFS {
                if let Some(target) = resolve(self.root, reference) {
                    self.refs += 1;
                    let result = self.descend(target, value, None, depth);
                    self.refs -= 1;
                    result?;
                }
            }
        }
        self.check_type(o, value)?;
        if let Some(expected) = o.get("const") {
            if !json_eq(expected, value) {
                return Err(SchemaError(format!(
                    "{} must be {}, got {}",
                    self.at(),
                    shown(expected),
                    shown(value)
                )));
            }
        }
        if let Some(Value::Array(allowed)) = o.get("enum") {
            if !allowed.iter().any(|a| json_eq(a, value)) {
                return Err(SchemaError(format!(
                    "{} must be {}, got {}",
                    self.at(),
                    one_of(allowed),
                    shown(value)
                )));
            }
        }
        match value {
            Value::String(s) => self.check_string(o, s)?,
            Value::Number(_) => self.check_number(o, value)?,
            Value::Array(items) => self.check_array(o, items, depth)?,
            Value::Object(fields) => self.check_object(o, fields, depth)?,
            _ => {}
        }
        if let Some(Value::Array(all)) = o.get("allOf") {
            for part in all {
                self.descend(part, value, None, depth)?;
            }
        }
        // `oneOf` should match exactly one branch, but overlapping branches
        // are common in generated schemas and the server decides anyway;
        // any match is enough here.
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = o.get(key) {
                self.check_any(branches, value, depth)?;
            }
        }
        if let Some(not) = o.get("not") {
            if self.descend(not, value, None, depth).is_ok() && self.steps_left > 0 {
                return Err(SchemaError(format!(
                    "{} must not match the schema under \"not\", got {}",
                    self.at(),
                    shown(value)
                )));
            }
        }
        Ok(())
    }

    fn check_type(&self, o: &Map<String, Value>, value: &Value) -> Result<(), SchemaError> {
        let mut types: Vec<&str> = match o.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return Ok(()),
        };
        // OpenAPI's spelling of "or null", common in generated schemas.
        if o.get("nullable") == Some(&Value::Bool(true)) {
            types.push("null");
        }
        // A type name this does not know cannot be checked.
        if types.is_empty() || types.iter().any(|t| article(t).is_none()) {
            return Ok(());
        }
        if types.iter().any(|t| has_type(t, value)) {
            return Ok(());
        }
        let expected: Vec<&str> = types.iter().filter_map(|t| article(t)).collect();
        // A fractional number where an integer is wanted: show the number,
        // "got a number" would not say what is wrong.
        let got = if value.is_number() && types.contains(&"integer") {
            shown(value)
        } else {
            crate::json_kind(value).to_string()
        };
        Err(SchemaError(format!(
            "{} must be {}, got {got}",
            self.at(),
            or_list(&expected)
        )))
    }

    fn check_string(&self, o: &Map<String, Value>, s: &str) -> Result<(), SchemaError> {
        let chars = s.chars().count() as u64;
        if let Some(min) = o.get("minLength").and_then(Value::as_u64) {
            if chars < min {
                return Err(SchemaError(format!(
                    "{} must be at least {}, got {chars}",
                    self.at(),
                    count(min, "character")
                )));
            }
        }
        if let Some(max) = o.get("maxLength").and_then(Value::as_u64) {
            if chars > max {
                return Err(SchemaError(format!(
                    "{} must be at most {}, got {chars}",
                    self.at(),
                    count(max, "character")
                )));
            }
        }
        Ok(())
    }

    fn check_number(&self, o: &Map<String, Value>, value: &Value) -> Result<(), SchemaError> {
        let Some(n) = value.as_f64() else {
            return Ok(());
        };
        let bound = |key: &str| o.get(key).filter(|b| b.is_number());
        // Draft 4 writes exclusive bounds as booleans beside minimum/maximum.
        let draft4 = |key: &str| o.get(key) == Some(&Value::Bool(true));
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        if let Some(b) = bound("minimum") {
            lower.push((b, draft4("exclusiveMinimum")));
        }
        if let Some(b) = bound("exclusiveMinimum") {
            lower.push((b, true));
        }
        if let Some(b) = bound("maximum") {
            upper.push((b, draft4("exclusiveMaximum")));
        }
        if let Some(b) = bound("exclusiveMaximum") {
            upper.push((b, true));
        }
        for (b, exclusive) in lower {
            let limit = b.as_f64().unwrap_or(f64::NEG_INFINITY);
            let fails = if exclusive { n <= limit } else { n < limit };
            if fails {
                let words = if exclusive {
                    "greater than"
                } else {
                    "at least"
                };
                return Err(SchemaError(format!(
                    "{} must be {words} {b}, got {value}",
                    self.at()
                )));
            }
        }
        for (b, exclusive) in upper {
            let limit = b.as_f64().unwrap_or(f64::INFINITY);
            let fails = if exclusive { n >= limit } else { n > limit };
            if fails {
                let words = if exclusive { "less than" } else { "at most" };
                return Err(SchemaError(format!(
                    "{} must be {words} {b}, got {value}",
                    self.at()
                )));
            }
        }
        Ok(())
    }

    fn check_array(
        &mut self,
        o: &'s Map<String, Value>,
        items: &'v [Value],
        depth: usize,
    ) -> Result<(), SchemaError> {
        let len = items.len() as u64;
        if let Some(min) = o.get("minItems").and_then(Value::as_u64) {
            if len < min {
                return Err(SchemaError(format!(
                    "{} must have at least {}, got {len}",
                    self.at(),
                    count(min, "item")
                )));
            }
        }
        if let Some(max) = o.get("maxItems").and_then(Value::as_u64) {
            if len > max {
                return Err(SchemaError(format!(
                    "{} must have at most {}, got {len}",
                    self.at(),
                    count(max, "item")
                )));
            }
        }
        // The schemas positions take, and the one the rest take: 2020-12
        // writes `prefixItems` + `items`, earlier drafts an `items` array
        // + `additionalItems`.
        let (prefix, rest): (&[Value], Option<&Value>) =
            match (o.get("prefixItems"), o.get("items")) {
                (Some(Value::Array(prefix)), rest) => (prefix, rest),
                (_, Some(Value::Array(prefix))) => (prefix, o.get("additionalItems")),
                (_, rest) => (&[], rest),
            };
        for (i, item) in items.iter().enumerate() {
            let schema = match prefix.get(i) {
                Some(schema) => schema,
                None => match rest {
                    Some(Value::Bool(false)) => {
                        return Err(SchemaError(format!(
                            "{} must have at most {}, got {len}",
                            self.at(),
                            count(prefix.len() as u64, "item")
                        )))
                    }
                    Some(schema) => schema,
                    None => break,
                },
            };
            self.descend(schema, item, Some(Step::Index(i)), depth)?;
        }
        Ok(())
    }

    fn check_object(
        &mut self,
        o: &'s Map<String, Value>,
        fields: &'v Map<String, Value>,
        depth: usize,
    ) -> Result<(), SchemaError> {
        let properties = o.get("properties").and_then(Value::as_object);
        let declared = |key: &str| properties.is_some_and(|p| p.contains_key(key));
        // Patterns are not evaluated (see the module doc), so with
        // `patternProperties` no field can be called unknown.
        let additional = if o.contains_key("patternProperties") {
            None
        } else {
            o.get("additionalProperties")
        };
        // A misspelt field is better named as unknown than reported as the
        // required field it was meant to be, so extras are checked first.
        if let Some(Value::Bool(false)) = additional {
            if let Some(extra) = fields.keys().find(|k| !declared(k)) {
                let known = match properties {
                    Some(p) if !p.is_empty() => format!(
                        "its fields are {}",
                        p.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
                    ),
                    _ => "it takes no fields".to_string(),
                };
                return Err(SchemaError(format!(
                    "{} has an unknown field {}; {known}",
                    self.at(),
                    Value::String(extra.clone())
                )));
            }
        }
        if let Some(Value::Array(required)) = o.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !fields.contains_key(name) {
                    return Err(SchemaError(format!(
                        "{} is missing the required field {}",
                        self.at(),
                        Value::String(name.to_string())
                    )));
                }
            }
        }
        for (key, field) in fields {
            let schema = match properties.and_then(|p| p.get(key)) {
                Some(schema) => schema,
                None => match additional {
                    Some(schema @ Value::Object(_)) => schema,
                    _ => continue,
                },
            };
            self.descend(schema, field, Some(Step::Key(key)), depth)?;
        }
        Ok(())
    }

    fn check_any(
        &mut self,
        branches: &'s [Value],
        value: &'v Value,
        depth: usize,
    ) -> Result<(), SchemaError> {
        let mut first = None;
        for branch in branches {
            match self.descend(branch, value, None, depth) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        match first {
            // Out of steps, a failure may be one that was not finished.
            Some(_) if self.steps_left == 0 => Ok(()),
            Some(first) => Err(SchemaError(format!(
                "{} matches none of the {} the tool accepts; against the first: {first}",
                self.at(),
                count(branches.len() as u64, "form")
            ))),
            // An empty list is not a valid schema; nothing to hold against it.
            None => Ok(()),
        }
    }
}

/// Whether `value` has JSON Schema type `t`.
fn has_type(t: &str, value: &Value) -> bool {
    match (t, value) {
        ("string", Value::String(_))
        | ("number", Value::Number(_))
        | ("boolean", Value::Bool(_))
        | ("null", Value::Null)
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// A type name as a message says it (`an integer`); `None` for a name JSON
/// Schema does not have.
fn article(t: &str) -> Option<&'static str> {
    Some(match t {
        "string" => "a string",
        "number" => "a number",
        "integer" => "an integer",
        "boolean" => "a boolean",
        "null" => "null",
        "array" => "an array",
        "object" => "an object",
        _ => return None,
    })
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `one of "a", "b"` (or just `"a"` for one), cut after twenty.
fn one_of(allowed: &[Value]) -> String {
    const SHOWN: usize = 20;
    if let [only] = allowed {
        return shown(only);
    }
    let mut list: Vec<String> = allowed.iter().take(SHOWN).map(shown).collect();
    if allowed.len() > SHOWN {
        list.push("…".to_string());
    }
    format!("one of {}", list.join(", "))
}

/// `1 item`, `3 items`.
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A value as a message shows it: its JSON, cut short.
fn shown(value: &Value) -> String {
    const MAX: usize = 80;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// JSON equality as JSON Schema means it: numbers by value, so `1` equals
/// `1.0`.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            x.as_f64() == y.as_f64()
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Whether a key can follow a `.` in a path.
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests;
