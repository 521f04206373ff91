// The `gg` module as programs see it. Every call crosses into Rust through
// one op; grants, limits and argument checks all happen host-side.
import { op_gg_call, op_gg_console } from "ext:core/ops";

const { freeze, defineProperty } = Object;
const ReflectApply = Reflect.apply;
const JSONStringify = JSON.stringify;
const StringCtor = String;
const ArrayIsArray = Array.isArray;

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
  const reply = op_gg_call(name, args);
  // A reply is [true, value] or [false, code, message]: an array, so that a
  // polluted Object.prototype cannot change how it reads.
  if (reply[0] === true) return reply[1];
  throw new GgError(reply[1], reply[2]);
}

const views = freeze({
  openFile(path, options) {
    call("views.openFile", [path, options]);
  },
  openText(label, body) {
    call("views.openText", [label, body]);
  },
  close(labelOrPath) {
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

// Handed to the user-facing "gg" module (gg:gg), which takes it and deletes
// it before any program runs: programs only ever see these frozen wrappers.
defineProperty(globalThis, Symbol.for("gg.internal.api"), {
  value: freeze({ memories, views, GgError }),
  configurable: true,
  enumerable: false,
  writable: false,
});

// console: formatted here, captured host-side (capped by the output limit).
function formatValue(value, depth, seen) {
  switch (typeof value) {
    case "string":
      return depth === 0 ? value : JSONStringify(value);
    case "number":
    case "boolean":
    case "undefined":
    case "symbol":
      return StringCtor(value);
    case "bigint":
      return StringCtor(value) + "n";
    case "function":
      return value.name ? `[Function: ${value.name}]` : "[Function (anonymous)]";
  }
  if (value === null) return "null";
  if (value instanceof Error) {
    return value.stack ? StringCtor(value.stack) : `${value.name}: ${value.message}`;
  }
  if (seen.includes(value)) return "[Circular]";
  if (depth > 4) return ArrayIsArray(value) ? "[Array]" : "[Object]";
  seen = [...seen, value];
  if (value instanceof Map) {
    const parts = [];
    for (const [k, v] of value) parts.push(`${formatValue(k, depth + 1, seen)} => ${formatValue(v, depth + 1, seen)}`);
    return `Map(${value.size}) { ${parts.join(", ")} }`;
  }
  if (value instanceof Set) {
    const parts = [];
    for (const v of value) parts.push(formatValue(v, depth + 1, seen));
    return `Set(${value.size}) { ${parts.join(", ")} }`;
  }
  if (value instanceof Date) return isNaN(value) ? "Invalid Date" : value.toISOString();
  if (ArrayIsArray(value)) {
    return `[ ${value.map((v) => formatValue(v, depth + 1, seen)).join(", ")} ]`.replace("[  ]", "[]");
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return "{}";
  const body = keys.map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSONStringify(k)}: ${formatValue(value[k], depth + 1, seen)}`);
  return `{ ${body.join(", ")} }`;
}

function format(args) {
  let out = "";
  for (let i = 0; i < args.length; i++) {
    if (i > 0) out += " ";
    try {
      out += formatValue(args[i], 0, []);
    } catch (e) {
      out += "[unprintable]";
    }
  }
  return out;
}

const levels = { log: 0, info: 1, debug: 2, warn: 3, error: 4 };
const consoleObject = {};
for (const level of Object.keys(levels)) {
  const code = levels[level];
  consoleObject[level] = function (...args) {
    op_gg_console(code, format(args));
  };
}
consoleObject.trace = consoleObject.debug;
consoleObject.table = consoleObject.log;
consoleObject.dir = consoleObject.log;
consoleObject.assert = function (condition, ...args) {
  if (!condition) op_gg_console(4, "Assertion failed" + (args.length ? ": " + format(args) : ""));
};
defineProperty(globalThis, "console", {
  value: freeze(consoleObject),
  writable: true,
  enumerable: false,
  configurable: true,
});
