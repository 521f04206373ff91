use super::*;
use serde_json::json;

/// Whether this build's `serde_json::Map` keeps insertion order (the
/// `preserve_order` feature, on when the whole workspace is built)
/// rather than sorting keys.
fn maps_keep_order() -> bool {
    let map: Map<String, Value> = serde_json::from_str(r#"{"b":1,"a":2}"#).unwrap();
    map.keys().next().map(String::as_str) == Some("b")
}

fn decl(tool: &str, function: &str, description: Option<&str>, input: Value) -> ToolDeclaration {
    ToolDeclaration {
        function: function.into(),
        tool: tool.into(),
        description: description.map(str::to_string),
        input_schema: input,
        output_schema: None,
    }
}

#[test]
fn a_filesystem_module_declares_its_tools() {
    // server-filesystem's read_text_file, as it publishes it.
    let read = decl(
            "read_text_file",
            "readTextFile",
            Some("Read the complete contents of a file from the file system as text.\nOnly works within allowed directories."),
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string" },
                    "tail": { "type": "number", "description": "If provided, returns only the last N lines of the file" },
                    "head": { "type": "number", "description": "If provided, returns only the first N lines of the file" }
                },
                "required": ["path"],
                "additionalProperties": false,
                "$schema": "http://json-schema.org/draft-07/schema#"
            }),
        );
    let list = decl(
        "list_allowed_directories",
        "listAllowedDirectories",
        Some("Returns the list of directories that this server is allowed to access."),
        json!({ "type": "object", "properties": {}, "required": [] }),
    );
    let head =
        "    /** If provided, returns only the first N lines of the file */\n    head?: number;\n";
    let path = "    path: string;\n";
    let tail =
        "    /** If provided, returns only the last N lines of the file */\n    tail?: number;\n";
    let fields = if maps_keep_order() {
        format!("{path}{tail}{head}")
    } else {
        format!("{head}{path}{tail}")
    };
    let expected = format!(
        r#"declare module "gg/tools/files" {{
  /**
   * Read the complete contents of a file from the file system as text.
   * Only works within allowed directories.
   * (MCP tool `read_text_file` of server `files`.)
   */
  export function readTextFile(args: {{
{fields}  }}): Promise<string>;

  /**
   * Returns the list of directories that this server is allowed to access.
   * (MCP tool `list_allowed_directories` of server `files`.)
   */
  export function listAllowedDirectories(args?: {{}}): Promise<string>;
}}
"#
    );
    assert_eq!(module_declaration("files", &[read, list]), expected);
}

#[test]
fn optional_arguments_output_schemas_and_undocumented_tools() {
    let mut t = decl(
        "echo",
        "echo",
        None,
        json!({ "type": "object", "properties": { "message": { "type": "string" } } }),
    );
    t.output_schema = Some(json!({
        "type": "object",
        "properties": { "echoed": { "type": "string" } },
        "required": ["echoed"]
    }));
    let none = decl("ping", "ping", None, json!({}));
    let record = decl(
        "set",
        "set",
        None,
        json!({ "type": "object", "additionalProperties": { "type": "number" } }),
    );
    assert_eq!(
        module_declaration("x", &[t, none, record]),
        r#"declare module "gg/tools/x" {
  /** (MCP tool `echo` of server `x`.) */
  export function echo(args?: {
    message?: string;
  }): Promise<{
    echoed: string;
  }>;

  /** (MCP tool `ping` of server `x`.) */
  export function ping(args?: {}): Promise<string>;

  /** (MCP tool `set` of server `x`.) */
  export function set(args?: Record<string, number>): Promise<string>;
}
"#
    );
}

#[test]
fn a_description_cannot_close_its_comment() {
    let evil = decl(
        "x*/y",
        "xY",
        Some("Ends here */ declare const pwned: 1; /*\r\n\r\n\r\nsecond paragraph **/"),
        json!({
            "type": "object",
            "properties": { "a": { "type": "string", "description": "a */ b" } },
            "required": ["a"]
        }),
    );
    let out = module_declaration("s", &[evil]);
    assert_eq!(
        out,
        r#"declare module "gg/tools/s" {
  /**
   * Ends here *\/ declare const pwned: 1; /*
   *
   * second paragraph **\/
   * (MCP tool `x*\/y` of server `s`.)
   */
  export function xY(args: {
    /** a *\/ b */
    a: string;
  }): Promise<string>;
}
"#
    );
    // Exactly the comments' own closers remain.
    assert_eq!(out.matches("*/").count(), 2);
}

#[test]
fn long_descriptions_are_cut() {
    let long = "x".repeat(2500);
    let out = module_declaration("s", &[decl("t", "t", Some(&long), json!({}))]);
    assert!(
        out.contains(&format!("   * {}…\n", "x".repeat(2000))),
        "{out}"
    );
    assert!(!out.contains(&"x".repeat(2001)));
}

#[test]
fn scalar_enum_and_const_types() {
    assert_eq!(schema_type(&json!({ "type": "string" })), "string");
    assert_eq!(schema_type(&json!({ "type": "integer" })), "number");
    assert_eq!(schema_type(&json!({ "type": "boolean" })), "boolean");
    assert_eq!(schema_type(&json!({ "type": "null" })), "null");
    assert_eq!(
        schema_type(&json!({ "type": ["string", "null"] })),
        "string | null"
    );
    assert_eq!(
        schema_type(&json!({ "type": "string", "enum": ["a", "b\"c", 1, null] })),
        r#""a" | "b\"c" | 1 | null"#
    );
    assert_eq!(schema_type(&json!({ "enum": [] })), "never");
    assert_eq!(schema_type(&json!({ "const": "fixed" })), r#""fixed""#);
    assert_eq!(schema_type(&json!({ "const": { "a": 1 } })), "unknown");
    assert_eq!(
        schema_type(&json!({ "type": "string", "nullable": true })),
        "string | null"
    );
    assert_eq!(schema_type(&json!(true)), "unknown");
    assert_eq!(schema_type(&json!({})), "unknown");
    assert_eq!(schema_type(&json!(false)), "never");
    assert_eq!(schema_type(&json!({ "type": "date" })), "unknown");
}

#[test]
fn arrays_tuples_and_unions_nest_with_parentheses() {
    assert_eq!(
        schema_type(
            &json!({ "type": "array", "items": { "type": "array", "items": { "type": "number" } } })
        ),
        "number[][]"
    );
    assert_eq!(
        schema_type(
            &json!({ "type": "array", "items": { "anyOf": [{ "type": "string" }, { "type": "number" }] } })
        ),
        "(string | number)[]"
    );
    assert_eq!(
        schema_type(&json!({ "type": "array", "items": { "type": ["string", "null"] } })),
        "(string | null)[]"
    );
    assert_eq!(schema_type(&json!({ "type": "array" })), "unknown[]");
    assert_eq!(
        schema_type(
            &json!({ "type": "array", "prefixItems": [{ "type": "number" }, { "type": "string" }] })
        ),
        "[number, string]"
    );
    assert_eq!(
        schema_type(
            &json!({ "type": "array", "prefixItems": [{ "type": "number" }], "items": { "type": ["string", "boolean"] } })
        ),
        "[number, ...(string | boolean)[]]"
    );
    assert_eq!(
        schema_type(
            &json!({ "type": "array", "items": [{ "type": "number" }, { "type": "number" }] })
        ),
        "[number, number]"
    );
    assert_eq!(
        schema_type(&json!({ "oneOf": [{ "type": "string" }, { "type": "string" }, false] })),
        "string"
    );
    assert_eq!(
        schema_type(&json!({ "anyOf": [{ "type": "string" }, {}] })),
        "unknown"
    );
    assert_eq!(
        schema_type(&json!({ "allOf": [
                { "type": "object", "properties": { "a": { "type": "string" } }, "required": ["a"] },
                { "anyOf": [{ "type": "object", "properties": { "b": { "type": "number" } } }, { "type": "null" }] }
            ] })),
        "{\n  a: string;\n} & ({\n  b?: number;\n} | null)"
    );
}

#[test]
fn objects_quote_odd_keys_and_document_fields() {
    assert_eq!(
        schema_type(&json!({
            "type": "object",
            "properties": {
                "a-b": { "type": "string", "description": "dashed\nand two lines" },
                "b c": { "type": "object", "properties": { "d": { "type": "boolean" } }, "required": ["d"] },
                "c$_1": { "type": "number" },
                "d\"": {},
                "e": true
            },
            "required": ["a-b"],
            "additionalProperties": true
        })),
        r#"{
  /**
   * dashed
   * and two lines
   */
  "a-b": string;
  "b c"?: {
    d: boolean;
  };
  c$_1?: number;
  "d\""?: unknown;
  e?: unknown;
  [key: string]: unknown;
}"#
    );
    assert_eq!(
        schema_type(&json!({ "type": "object" })),
        "Record<string, unknown>"
    );
    assert_eq!(
        schema_type(&json!({ "type": "object", "additionalProperties": false })),
        "Record<string, never>"
    );
    assert_eq!(
        schema_type(
            &json!({ "additionalProperties": { "type": "array", "items": { "type": "string" } } })
        ),
        "Record<string, string[]>"
    );
}

#[test]
fn refs_resolve_against_the_root_and_stop_at_recursion() {
    // Keys in sorted order, so the expected text holds whether or not
    // this build's maps keep insertion order.
    let schema = json!({
        "type": "object",
        "properties": {
            "kind": { "$ref": "#/definitions/Kind" },
            "missing": { "$ref": "#/$defs/Nope" },
            "node": { "$ref": "#/$defs/Node" },
            "remote": { "$ref": "https://example.com/schema" },
            "same": { "$ref": "#/properties/kind" }
        },
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } },
                    "name": { "type": "string" }
                }
            }
        },
        "definitions": { "Kind": { "enum": ["file", "dir"] } }
    });
    assert_eq!(
        schema_type(&schema),
        r#"{
  kind?: "file" | "dir";
  missing?: unknown;
  node?: {
    children?: unknown[];
    name?: string;
  };
  remote?: unknown;
  same?: "file" | "dir";
}"#
    );
    assert_eq!(schema_type(&json!({ "$ref": "#" })), "unknown");
    assert_eq!(
        schema_type(&json!({ "$ref": "#/$defs/a~1b", "$defs": { "a/b": { "type": "number" } } })),
        "number"
    );
}

#[test]
fn a_chain_of_refs_stops_at_sixteen() {
    let mut defs = Map::new();
    for i in 0..40 {
        defs.insert(
            format!("D{i}"),
            json!({ "$ref": format!("#/$defs/D{}", i + 1) }),
        );
    }
    defs.insert("D40".into(), json!({ "type": "string" }));
    let schema = json!({ "$ref": "#/$defs/D30", "$defs": defs });
    assert_eq!(schema_type(&schema), "string");
    let schema = json!({ "$ref": "#/$defs/D0", "$defs": schema["$defs"].clone() });
    assert_eq!(schema_type(&schema), "unknown");
}

#[test]
fn refs_reused_at_every_level_do_not_explode() {
    // Each level names the next ten times: 10^16 paths without a budget.
    let mut defs = Map::new();
    for i in 0..16 {
        let next = json!({ "$ref": format!("#/$defs/L{}", i + 1) });
        let props: Map<String, Value> = (0..10).map(|k| (format!("p{k}"), next.clone())).collect();
        defs.insert(
            format!("L{i}"),
            json!({ "type": "object", "properties": props }),
        );
    }
    defs.insert("L16".into(), json!({ "type": "string" }));
    let schema = json!({ "$ref": "#/$defs/L0", "$defs": defs });
    let out = schema_type(&schema);
    assert!(out.len() < 5_000_000, "{}", out.len());
    assert!(out.contains("unknown"));
}

#[test]
fn weird_values_never_panic() {
    let weird = [
        json!(null),
        json!(1),
        json!("string"),
        json!([]),
        json!([1, {"type": "string"}]),
        json!({ "type": 7 }),
        json!({ "type": [1, null] }),
        json!({ "type": [] }),
        json!({ "enum": "a" }),
        json!({ "properties": 3 }),
        json!({ "properties": { "a": 3, "b": null } }),
        json!({ "required": "a", "properties": { "a": {} } }),
        json!({ "items": 3 }),
        json!({ "prefixItems": {} }),
        json!({ "anyOf": 3, "oneOf": [], "allOf": {} }),
        json!({ "$ref": 3 }),
        json!({ "$ref": "#/" }),
        json!({ "$ref": "#x" }),
        json!({ "$ref": "" }),
        json!({ "additionalProperties": 3 }),
        json!({ "description": 3, "type": "object", "properties": { "a": { "description": ["x"] } } }),
        json!({ "type": "object", "properties": { "": {}, "1": {} } }),
    ];
    for schema in &weird {
        let _ = schema_type(schema);
        let _ = module_declaration(
            "w",
            &[ToolDeclaration {
                function: "w".into(),
                tool: "w".into(),
                description: Some("".into()),
                input_schema: schema.clone(),
                output_schema: Some(schema.clone()),
            }],
        );
    }
    assert_eq!(
        schema_type(&json!({ "type": "object", "properties": { "": {}, "1": {} } })),
        "{\n  \"\"?: unknown;\n  \"1\"?: unknown;\n}"
    );
}

#[test]
fn a_schema_ten_thousand_deep_is_cut_not_overflowed() {
    let mut schema = json!({ "type": "string" });
    for _ in 0..10_000 {
        // Not `json!`, which would copy the whole tower recursively.
        let mut level = Map::new();
        level.insert("type".into(), json!("array"));
        level.insert("items".into(), schema);
        schema = Value::Object(level);
    }
    let t = schema_type(&schema);
    assert_eq!(t, format!("unknown{}", "[]".repeat(33)));
    // serde_json drops values recursively; take the tower down by hand
    // so the test itself does not overflow.
    let mut next = Some(schema);
    while let Some(mut s) = next {
        next = s.as_object_mut().and_then(|o| o.remove("items"));
    }
}
