// The `gg` module as programs see it. Every call crosses into Rust through
// one op; grants, limits and argument checks all happen host-side.
import {
  op_gg_call,
  op_gg_close,
  op_gg_bind_module,
  op_gg_open_text,
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

// The typed ops throw their refusals as GgErrors themselves.
op_gg_bind_module(GgError);

// `views.openText` and `views.close` are the typed ops themselves: no
// JavaScript frame between a program and the host. They read primitive
// strings directly and send anything else (a String object, a number, a
// missing argument) as `call` would, so the refusals read alike.
// Each keeps the name and arity a method of that signature would have.
// Every function of the API is frozen, as the objects holding them are: a
// property a program hung on one would outlive the program in this isolate
// but not in the next, and a long-lived agent must see what a fresh one
// sees.
function method(op, name, length) {
  defineProperty(op, "name", { value: name, configurable: true });
  defineProperty(op, "length", { value: length, configurable: true });
  return freeze(op);
}
const views = {
  openFile(path, options) {
    call("views.openFile", [path, options]);
  },
  openText: method(op_gg_open_text, "openText", 2),
  close: method(op_gg_close, "close", 1),
};
freeze(views.openFile);
freeze(views);

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
  const memoryCall = (arg) => call(qualified, [arg]);
  defineProperty(memoryCall, "name", { value: name, configurable: true });
  memoriesObject[name] = freeze(memoryCall);
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
freeze(tools.call);
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
