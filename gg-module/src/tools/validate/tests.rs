use super::*;
use serde_json::json;

fn err(schema: Value, value: Value) -> String {
    validate(&schema, &value).unwrap_err().0
}

fn ok(schema: Value, value: Value) {
    if let Err(e) = validate(&schema, &value) {
        panic!("refused {value}: {e}");
    }
}

fn read_file() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": { "type": "string" },
            "tail": { "type": "number", "minimum": 1 }
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

#[test]
fn objects_check_types_required_and_unknown_fields() {
    ok(read_file(), json!({ "path": "a" }));
    ok(read_file(), json!({ "path": "a", "tail": 3 }));
    assert_eq!(
        err(read_file(), json!({ "path": 1 })),
        "args.path must be a string, got a number"
    );
    assert_eq!(
        err(read_file(), json!({ "tail": 1 })),
        r#"args is missing the required field "path""#
    );
    assert_eq!(
        err(read_file(), json!({ "pth": "a" })),
        r#"args has an unknown field "pth"; its fields are path, tail"#
    );
    assert_eq!(
        err(read_file(), json!({ "path": "a", "tail": 0 })),
        "args.tail must be at least 1, got 0"
    );
    assert_eq!(
        err(read_file(), json!("a")),
        "args must be an object, got a string"
    );
    assert_eq!(
        err(
            json!({ "type": "object", "additionalProperties": false }),
            json!({ "x": 1 })
        ),
        r#"args has an unknown field "x"; it takes no fields"#
    );
    // Without `additionalProperties: false`, extras pass.
    ok(
        json!({ "type": "object", "properties": { "a": { "type": "string" } } }),
        json!({ "b": 1 }),
    );
    // With patterns, extras cannot be judged.
    ok(
        json!({ "properties": {}, "patternProperties": { "^x": {} }, "additionalProperties": false }),
        json!({ "x1": 1 }),
    );
    let typed_extras = json!({ "type": "object", "additionalProperties": { "type": "number" } });
    ok(typed_extras.clone(), json!({ "a": 1 }));
    assert_eq!(
        err(typed_extras, json!({ "a": 1, "my key": "x" })),
        r#"args["my key"] must be a number, got a string"#
    );
}

#[test]
fn paths_name_nested_fields_and_items() {
    let schema = json!({
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": { "name": { "type": "string" } },
                    "required": ["name"]
                }
            }
        }
    });
    ok(schema.clone(), json!({ "items": [{ "name": "a" }] }));
    assert_eq!(
        err(
            schema.clone(),
            json!({ "items": [{ "name": "a" }, { "name": "b" }, { "name": 3 }] })
        ),
        "args.items[2].name must be a string, got a number"
    );
    assert_eq!(
        err(schema, json!({ "items": [{}] })),
        r#"args.items[0] is missing the required field "name""#
    );
}

#[test]
fn types_integers_and_unions_of_types() {
    let count = json!({ "properties": { "count": { "type": "integer", "minimum": 1 } } });
    ok(count.clone(), json!({ "count": 2 }));
    ok(count.clone(), json!({ "count": 2.0 }));
    assert_eq!(
        err(count.clone(), json!({ "count": 1.5 })),
        "args.count must be an integer, got 1.5"
    );
    assert_eq!(
        err(count.clone(), json!({ "count": "1" })),
        "args.count must be an integer, got a string"
    );
    assert_eq!(
        err(count, json!({ "count": 0 })),
        "args.count must be at least 1, got 0"
    );
    let maybe = json!({ "type": ["string", "integer", "null"] });
    ok(maybe.clone(), json!(null));
    ok(maybe.clone(), json!(3));
    assert_eq!(
        err(maybe.clone(), json!(true)),
        "args must be a string, an integer or null, got a boolean"
    );
    assert_eq!(
        err(maybe, json!(0.5)),
        "args must be a string, an integer or null, got 0.5"
    );
    let nullable = json!({ "type": "string", "nullable": true });
    ok(nullable.clone(), json!(null));
    assert_eq!(
        err(nullable, json!([])),
        "args must be a string or null, got an array"
    );
    assert_eq!(
        err(json!({ "type": "boolean" }), json!({})),
        "args must be a boolean, got an object"
    );
    // A type JSON Schema does not have cannot be checked.
    ok(json!({ "type": "date" }), json!(1));
}

#[test]
fn enum_and_const() {
    let mode = json!({ "properties": { "mode": { "enum": ["a", "b"] } } });
    ok(mode.clone(), json!({ "mode": "a" }));
    assert_eq!(
        err(mode, json!({ "mode": "c" })),
        r#"args.mode must be one of "a", "b", got "c""#
    );
    assert_eq!(
        err(json!({ "enum": [1] }), json!(2)),
        "args must be 1, got 2"
    );
    ok(json!({ "enum": [1] }), json!(1.0));
    ok(
        json!({ "const": { "a": [1, 2] } }),
        json!({ "a": [1.0, 2] }),
    );
    assert_eq!(
        err(json!({ "const": "x" }), json!("y")),
        r#"args must be "x", got "y""#
    );
    let many: Vec<Value> = (0..25).map(|i| json!(i)).collect();
    let message = err(json!({ "enum": many }), json!(99));
    assert!(message.ends_with("18, 19, …, got 99"), "{message}");
}

#[test]
fn string_lengths_count_characters() {
    let s = json!({ "type": "string", "minLength": 2, "maxLength": 3 });
    ok(s.clone(), json!("éé"));
    ok(s.clone(), json!("ééé"));
    assert_eq!(
        err(s.clone(), json!("é")),
        "args must be at least 2 characters, got 1"
    );
    assert_eq!(
        err(s, json!("éééé")),
        "args must be at most 3 characters, got 4"
    );
    assert_eq!(
        err(json!({ "minLength": 1 }), json!("")),
        "args must be at least 1 character, got 0"
    );
    // Length limits concern strings only.
    ok(json!({ "minLength": 1 }), json!(5));
}

#[test]
fn number_bounds_in_both_drafts() {
    let n = json!({ "minimum": 1, "maximum": 10 });
    ok(n.clone(), json!(1));
    ok(n.clone(), json!(10));
    assert_eq!(
        err(n.clone(), json!(10.5)),
        "args must be at most 10, got 10.5"
    );
    assert_eq!(err(n, json!(-3)), "args must be at least 1, got -3");
    let x = json!({ "exclusiveMinimum": 0, "exclusiveMaximum": 1 });
    ok(x.clone(), json!(0.5));
    assert_eq!(
        err(x.clone(), json!(0)),
        "args must be greater than 0, got 0"
    );
    assert_eq!(err(x, json!(1)), "args must be less than 1, got 1");
    let d4 =
        json!({ "minimum": 0, "exclusiveMinimum": true, "maximum": 1, "exclusiveMaximum": true });
    ok(d4.clone(), json!(0.5));
    assert_eq!(
        err(d4.clone(), json!(0)),
        "args must be greater than 0, got 0"
    );
    assert_eq!(err(d4, json!(1)), "args must be less than 1, got 1");
    let d4_inclusive = json!({ "minimum": 0, "exclusiveMinimum": false });
    ok(d4_inclusive, json!(0));
}

#[test]
fn arrays_items_tuples_and_counts() {
    let list =
        json!({ "type": "array", "items": { "type": "string" }, "minItems": 1, "maxItems": 2 });
    ok(list.clone(), json!(["a"]));
    assert_eq!(
        err(list.clone(), json!([])),
        "args must have at least 1 item, got 0"
    );
    assert_eq!(
        err(list.clone(), json!(["a", "b", "c"])),
        "args must have at most 2 items, got 3"
    );
    assert_eq!(
        err(list, json!(["a", 1])),
        "args[1] must be a string, got a number"
    );
    let pair =
        json!({ "prefixItems": [{ "type": "number" }, { "type": "string" }], "items": false });
    ok(pair.clone(), json!([1, "a"]));
    ok(pair.clone(), json!([1]));
    assert_eq!(
        err(pair.clone(), json!(["a"])),
        "args[0] must be a number, got a string"
    );
    assert_eq!(
        err(pair, json!([1, "a", 2])),
        "args must have at most 2 items, got 3"
    );
    let rest = json!({ "prefixItems": [{ "type": "number" }], "items": { "type": "boolean" } });
    ok(rest.clone(), json!([1, true, false]));
    assert_eq!(
        err(rest, json!([1, true, 3])),
        "args[2] must be a boolean, got a number"
    );
    let draft4 = json!({ "items": [{ "type": "number" }], "additionalItems": false });
    ok(draft4.clone(), json!([1]));
    assert_eq!(
        err(draft4, json!([1, 2])),
        "args must have at most 1 item, got 2"
    );
    let open = json!({ "items": [{ "type": "number" }] });
    ok(open, json!([1, "anything"]));
}

#[test]
fn combinators() {
    let any =
        json!({ "properties": { "x": { "anyOf": [{ "type": "string" }, { "type": "number" }] } } });
    ok(any.clone(), json!({ "x": "a" }));
    ok(any.clone(), json!({ "x": 1 }));
    assert_eq!(
            err(any, json!({ "x": null })),
            "args.x matches none of the 2 forms the tool accepts; against the first: args.x must be a string, got null"
        );
    // Overlapping oneOf branches are not held against the caller.
    ok(
        json!({ "oneOf": [{ "type": "number" }, { "type": "integer" }] }),
        json!(1),
    );
    assert_eq!(
            err(json!({ "oneOf": [{ "const": 1 }] }), json!(2)),
            "args matches none of the 1 form the tool accepts; against the first: args must be 1, got 2"
        );
    let all = json!({ "allOf": [{ "type": "number" }, { "minimum": 5 }] });
    ok(all.clone(), json!(5));
    assert_eq!(err(all, json!(4)), "args must be at least 5, got 4");
    let not = json!({ "not": { "type": "null" } });
    ok(not.clone(), json!(1));
    assert_eq!(
        err(not, json!(null)),
        r#"args must not match the schema under "not", got null"#
    );
}

#[test]
fn boolean_schemas() {
    ok(json!(true), json!({ "anything": [1] }));
    assert_eq!(
        err(json!(false), json!(1)),
        "args is not allowed: the tool's schema accepts no value there"
    );
    assert_eq!(
        err(json!({ "properties": { "a": false } }), json!({ "a": 1 })),
        "args.a is not allowed: the tool's schema accepts no value there"
    );
    ok(json!({ "properties": { "a": false } }), json!({}));
}

#[test]
fn refs_resolve_against_the_root() {
    let schema = json!({
        "type": "object",
        "properties": {
            "user": { "$ref": "#/$defs/User" },
            "tree": { "$ref": "#/definitions/Tree" },
            "lost": { "$ref": "#/$defs/Missing" }
        },
        "$defs": {
            "User": { "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] }
        },
        "definitions": {
            "Tree": { "type": "object", "properties": { "kids": { "type": "array", "items": { "$ref": "#/definitions/Tree" } }, "v": { "type": "number" } } }
        }
    });
    ok(
        schema.clone(),
        json!({ "user": { "name": "a" }, "lost": 1 }),
    );
    assert_eq!(
        err(schema.clone(), json!({ "user": {} })),
        r#"args.user is missing the required field "name""#
    );
    assert_eq!(
        err(
            schema.clone(),
            json!({ "tree": { "kids": [{ "kids": [{ "v": "x" }] }] } })
        ),
        "args.tree.kids[0].kids[0].v must be a number, got a string"
    );
    // A ref to itself, forever: given up on, so accepted.
    ok(json!({ "$ref": "#" }), json!(1));
    ok(
        json!({ "$ref": "#/$defs/A", "$defs": { "A": { "$ref": "#/$defs/A" } } }),
        json!(1),
    );
    // 2020-12: siblings of a $ref apply too.
    assert_eq!(
        err(
            json!({ "$ref": "#/$defs/N", "maximum": 3, "$defs": { "N": { "type": "number" } } }),
            json!(4)
        ),
        "args must be at most 3, got 4"
    );
}

#[test]
fn format_and_pattern_are_left_to_the_server() {
    ok(
        json!({ "type": "string", "format": "email", "pattern": "^x$" }),
        json!("nope"),
    );
}

#[test]
fn weird_schemas_and_deep_values_never_panic() {
    let weird = [
        json!(null),
        json!(3),
        json!("type"),
        json!([{ "type": "string" }]),
        json!({ "type": 3, "enum": "a", "const": null, "required": "x", "properties": [] }),
        json!({ "minimum": "a", "maxLength": -1, "minItems": 1.5, "items": 3, "prefixItems": {} }),
        json!({ "anyOf": [], "oneOf": 3, "allOf": {}, "not": 1, "$ref": 4 }),
        json!({ "additionalProperties": 3, "properties": { "a": 3 } }),
        json!({ "$ref": "#/a/b/c/d" }),
        json!({ "$ref": "" }),
    ];
    let values = [
        json!(null),
        json!(1),
        json!("s"),
        json!([1, [2]]),
        json!({ "a": { "b": [] } }),
    ];
    for s in &weird {
        for v in &values {
            let _ = validate(s, v);
        }
    }
    // A value as deep as serde_json parses, under a schema that recurses
    // at every level: the depth limit accepts the bottom.
    let mut text = String::new();
    for _ in 0..127 {
        text.push('[');
    }
    text.push('"');
    text.push('x');
    text.push('"');
    for _ in 0..127 {
        text.push(']');
    }
    let deep: Value = serde_json::from_str(&text).unwrap();
    let nested = json!({ "$ref": "#/$defs/A", "$defs": { "A": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/A" } }, { "type": "number" }] } } });
    let _ = validate(&nested, &deep);
}

#[test]
fn exponential_schemas_give_up_in_time() {
    // Each level tries two branches that both lead to the next level and
    // both fail at the bottom: 2^40 paths without a step budget.
    let mut defs = Map::new();
    for i in 0..40 {
        let next = json!({ "$ref": format!("#/$defs/L{}", i + 1) });
        defs.insert(format!("L{i}"), json!({ "anyOf": [next.clone(), next] }));
    }
    defs.insert("L40".into(), json!({ "type": "string" }));
    let schema = json!({ "$ref": "#/$defs/L0", "$defs": defs });
    let start = std::time::Instant::now();
    // Out of steps, the check accepts.
    ok(schema, json!(1));
    assert!(start.elapsed().as_secs() < 10);
}
