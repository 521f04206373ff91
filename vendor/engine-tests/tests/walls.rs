//! The engine's own walls, tested on a bare deno_core runtime (every op
//! registered, none of gg's filtering): forged structured-clone bytes can
//! never make a SharedArrayBuffer over an address the bytes name.

use deno_core::{v8, JsRuntime, RuntimeOptions};

/// Builds serialized values by hand and hands them to the deserializer.
const FORGE: &str = r#"
const MAGIC = [0xff, 0x0f, 0x51, 0x4a, 0x53, 0x56, 0x56]; // header, "QJSV", TAG_VALUE
const BC_VERSION = 28;
const BC_TAG_SHARED_ARRAY_BUFFER = 16;
// QuickJS's bc_csum, byte for byte (including its tail quirk).
function csum(p) {
  let h = 0, i = 0;
  const n = p.length;
  for (; i + 4 < n; i += 4) {
    h = (h + (p[i] | (p[i + 1] << 8) | (p[i + 2] << 16) | (p[i + 3] << 24))) >>> 0;
    h = Math.imul(h, 0x9e370001) >>> 0;
  }
  const r = n - i;
  const a = r >= 1 && r <= 3 ? p[i] : 0;
  const b = r >= 2 && r <= 3 ? p[i + 1] : 0;
  const c = r === 3 ? p[i + 2] : 0;
  h = (h + (a | (b << 8) | (c << 16))) >>> 0;
  return Math.imul(h, 0x9e370001) >>> 0;
}
function wire(checksum, body) {
  const blob = [BC_VERSION, checksum & 0xff, (checksum >>> 8) & 0xff, (checksum >>> 16) & 0xff, checksum >>> 24, ...body];
  const n = blob.length;
  return new Uint8Array([...MAGIC, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24, ...blob]);
}
// No atoms; a SharedArrayBuffer of 8 bytes at address 0x1000.
const sab = [0, BC_TAG_SHARED_ARRAY_BUFFER, 8, 8, 0x00, 0x10, 0, 0, 0, 0, 0, 0];
function attempt(bytes) {
  try {
    const value = Deno.core.deserialize(bytes);
    return "accepted " + Object.prototype.toString.call(value);
  } catch (e) {
    return "refused";
  }
}
const out = {
  escapeChecksum: attempt(wire(0xffffffff, sab)),
  validChecksum: attempt(wire(csum(sab), sab)),
  roundTrip: JSON.stringify(Deno.core.deserialize(Deno.core.serialize({ a: [1, "two"] }))),
};
try {
  Deno.core.serialize({ s: new SharedArrayBuffer(8) });
  out.serializeShared = "serialized";
} catch (e) {
  out.serializeShared = "refused";
}
JSON.stringify(out)
"#;

#[test]
fn forged_bytes_never_become_shared_memory() {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    let result = runtime.execute_script("forge", FORGE).expect("forge ran");
    deno_core::scope!(scope, &mut runtime);
    let local = v8::Local::new(scope, result);
    let report: serde_json::Value =
        serde_json::from_str(&local.to_rust_string_lossy(scope)).unwrap();
    assert_eq!(report["escapeChecksum"], "refused", "{report}");
    assert_eq!(report["validChecksum"], "refused", "{report}");
    assert_eq!(report["serializeShared"], "refused", "{report}");
    // The deserializer still works for what it is for.
    assert_eq!(report["roundTrip"], r#"{"a":[1,"two"]}"#, "{report}");
}
