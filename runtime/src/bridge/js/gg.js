// The `gg` module as programs see it. Every call crosses into Rust through
// one op; grants, limits and argument checks all happen host-side.
import {
  op_gg_call,
  op_gg_close,
  op_gg_open_text,
  op_gg_take_refusal,
  op_gg_tool_call,
} from "ext:core/ops";

const { freeze, defineProperty } = Object;
// Taken now, before any program runs: what crosses into the host is JSON
// text both ways. Getters and `toJSON` run here, in the program's own
// turn, before the host is entered; symbols and functions cannot reach the
// host's decoder; and a reply is built by JSON.parse, whose own data
// properties no accessor on Array.prototype or Object.prototype can shadow.
const JSONParse = JSON.parse;
const JSONStringify = JSON.stringify;

class GgError extends Error {
  constructor(code, message) {
    super(message);
    defineProperty(this, "name", { value: "GgError", enumerable: false, configurable: true, writable: true });
    defineProperty(this, "code", { value: code, enumerable: true });
  }
}
freeze(GgError.prototype);
freeze(GgError);

function call(name, args) {
  const reply = JSONParse(op_gg_call(name, JSONStringify(args)));
  // A reply is [true, value] or [false, code, message]: an array, so that a
  // polluted Object.prototype cannot change how it reads.
  if (reply[0] === true) return reply[1];
  throw new GgError(reply[1], reply[2]);
}

// What a typed op answers (`TYPED_*` in ops.rs): 0 done; 1 refused, the
// refusal waiting host-side; 2 an argument the op cannot read faithfully,
// so the call goes through `call`.
const REFUSED = 1;
function refused() {
  const reply = JSONParse(op_gg_take_refusal());
  throw new GgError(reply[1], reply[2]);
}

// Primitive strings take the typed ops; anything else (a String object, a
// number, a missing argument) goes through `call`, whose checks phrase the
// refusal.
const views = freeze({
  openFile(path, options) {
    call("views.openFile", [path, options]);
  },
  openText(label, body) {
    if (typeof label === "string" && typeof body === "string") {
      const answer = op_gg_open_text(label, body);
      if (answer === 0) return;
      if (answer === REFUSED) refused();
    }
    call("views.openText", [label, body]);
  },
  close(labelOrPath) {
    if (typeof labelOrPath === "string") {
      const answer = op_gg_close(labelOrPath);
      if (answer === 0) return;
      if (answer === REFUSED) refused();
    }
    call("views.close", [labelOrPath]);
  },
});

const memoryCalls = [
  "writeMemory",
  "updateMemory",
  "createMemory",
  "readMemory",
  "editMemory",
  "deleteMemory",
  "searchMemories",
];
const memoriesObject = {};
for (const name of memoryCalls) {
  const qualified = "memories." + name;
  memoriesObject[name] = function (arg) {
    return call(qualified, [arg]);
  };
}
const memories = freeze(memoriesObject);

// Tool calls are async: the answer comes from another process (an MCP
// server) or the embedder's handler while the program's event loop runs on.
// An argument that is not JSON-encodable is refused host-side by the same
// schema check as any other mistake.
const tools = freeze({
  async call(server, tool, args) {
    const encoded = args === undefined ? "{}" : JSONStringify(args);
    const reply = JSONParse(
      await op_gg_tool_call(String(server), String(tool), encoded === undefined ? "null" : encoded),
    );
    if (reply[0] === true) return reply[1];
    throw new GgError(reply[1], reply[2]);
  },
});
// Handed to the "gg/tools" module (gg:tools), as the API below is to "gg".
defineProperty(globalThis, Symbol.for("gg.internal.tools"), {
  value: tools,
  configurable: true,
  enumerable: false,
  writable: false,
});

// Handed to the user-facing "gg" module (gg:gg), which takes it and deletes
// it before any program runs: programs only ever see these frozen wrappers.
defineProperty(globalThis, Symbol.for("gg.internal.api"), {
  value: freeze({ memories, views, GgError }),
  configurable: true,
  enumerable: false,
  writable: false,
});
