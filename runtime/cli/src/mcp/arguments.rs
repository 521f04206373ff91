//! A tool call's arguments checked against the input schema `tools/list`
//! declared for the tool, before the agent sees them: what the schema
//! promises (required properties, types, no undeclared properties) is what
//! the server enforces, the same way in both modes. A call that breaks it is
//! an invalid-params protocol error naming what was wrong; what the agent
//! refuses on its own terms (a memory that does not exist, a limit) stays a
//! tool result marked as an error.
//!
//! The schemas gg declares use a small part of JSON Schema: `type`
//! (`object`, `string`, `integer`, `array`), `properties`, `required`,
//! `additionalProperties: false`, `items`, `minimum` and `minItems`; that
//! part is what this checks.

use serde_json::Value;

/// Checks `arguments` against `schema`; `Err` names the first violation.
pub fn check(schema: &Value, arguments: &Value) -> Result<(), String> {
    check_at(schema, arguments, "arguments")
}

fn check_at(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let Some(object) = value.as_object() else {
                return Err(format!(
                    "{at} must be an object, got {}",
                    gg_module::json_kind(value)
                ));
            };
            let properties = schema.get("properties").and_then(Value::as_object);
            for name in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !object.contains_key(name) {
                    return Err(format!("{at} lack the required property `{name}`"));
                }
            }
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
            for (name, property) in object {
                match properties.and_then(|p| p.get(name)) {
                    Some(declared) => check_at(declared, property, &format!("`{name}`"))?,
                    None if closed => {
                        let known: Vec<&str> = properties
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        return Err(format!(
                            "{at} have an undeclared property `{name}`; this tool takes: {}",
                            known.join(", ")
                        ));
                    }
                    None => {}
                }
            }
            Ok(())
        }
        Some("string") if !value.is_string() => Err(format!(
            "{at} must be a string, got {}",
            gg_module::json_kind(value)
        )),
        Some("integer") => {
            let Some(number) = value.as_i64() else {
                return Err(format!(
                    "{at} must be an integer, got {}",
                    gg_module::json_kind(value)
                ));
            };
            match schema.get("minimum").and_then(Value::as_i64) {
                Some(minimum) if number < minimum => {
                    Err(format!("{at} must be at least {minimum}, got {number}"))
                }
                _ => Ok(()),
            }
        }
        Some("array") => {
            let Some(items) = value.as_array() else {
                return Err(format!(
                    "{at} must be an array, got {}",
                    gg_module::json_kind(value)
                ));
            };
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
                if (items.len() as u64) < min {
                    return Err(format!("{at} must have at least {min} items"));
                }
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_at(item_schema, item, &format!("{at}[{i}]"))?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "offset": { "type": "integer", "minimum": 1 },
                "keywords": { "type": "array", "items": { "type": "string" }, "minItems": 1 }
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn what_the_schema_declares_is_enforced() {
        assert!(check(&schema(), &json!({ "path": "a", "offset": 2 })).is_ok());
        let e = check(&schema(), &json!({})).unwrap_err();
        assert!(e.contains("required property `path`"), "{e}");
        let e = check(&schema(), &json!({ "path": "a", "extra": 1 })).unwrap_err();
        assert!(
            e.contains("undeclared property `extra`") && e.contains("path, offset"),
            "{e}"
        );
        let e = check(&schema(), &json!({ "path": 3 })).unwrap_err();
        assert!(e.contains("`path` must be a string, got a number"), "{e}");
        let e = check(&schema(), &json!({ "path": "a", "offset": 0 })).unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
        let e = check(&schema(), &json!({ "path": "a", "keywords": [] })).unwrap_err();
        assert!(e.contains("at least 1 items"), "{e}");
        let e = check(&schema(), &json!({ "path": "a", "keywords": ["x", 2] })).unwrap_err();
        assert!(e.contains("`keywords`[1] must be a string"), "{e}");
    }
}
