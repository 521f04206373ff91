// The web-standard globals programs expect (console, URL, encoding, base64,
// structuredClone, timers, AbortController, events, performance, crypto),
// taken from Deno's own `deno_web` extension. They are loaded before the
// first run whose code names one of them (`loadWebLayer`, called by the
// host), and only while the isolate has run no program: deno_web's scripts
// then run in the realm the bootstrap left, untouched, exactly as they would
// have run at the bootstrap. A run that needs them in an isolate that has
// already run a program gets a fresh isolate (the host's choice, see the
// engine). Until they are loaded, each of these globals is a placeholder
// that refuses to be read (a program reaching one without naming it) and
// that an assignment replaces, as it would replace the real one.
//
// gg's own additions: `crypto.getRandomValues`/`randomUUID`, the optional
// pinned seed and clock, the record of pending timers, and refusals for what
// a program must not reach (fetch, Deno, files, network).
import { core, primordials, releasePrimordials } from "ext:core/mod.js";
import {
  op_gg_console,
  op_gg_heap_room,
  op_gg_random_fill,
  op_gg_room_for,
  op_gg_tick,
  op_gg_timers,
  op_set_captured_bootstrap,
} from "ext:core/ops";

const {
  ArrayBufferPrototypeGetByteLength,
  ArrayPrototypeJoin,
  DataViewPrototypeGetByteLength,
  MathMax,
  ObjectKeys,
  RangeError,
  SharedArrayBufferPrototypeGetByteLength,
  StringPrototypeSlice,
  TypedArrayPrototypeGetByteLength,
  BigIntPrototypeToString,
  DatePrototypeToISOString,
  ObjectPrototypeToString,
  PromiseReject,
  SymbolPrototypeToString,
  MathFloor,
  NumberPrototypeToString,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  ReflectApply,
  ReflectConstruct,
  SafeMap,
  SafeSet,
  MapPrototypeDelete,
  MapPrototypeGet,
  MapPrototypeSet,
  SymbolToPrimitive,
  SetPrototypeAdd,
  SetPrototypeDelete,
  StringPrototypePadStart,
  StringPrototypeToWellFormed,
  TypeError,
  Uint8Array,
} = primordials;

function define(name, value) {
  ObjectDefineProperty(globalThis, name, {
    __proto__: null,
    value,
    enumerable: false,
    configurable: true,
    writable: true,
  });
}

// The globals loaded with deno_web's scripts (theirs, and gg's `crypto`), in
// the order they are defined. The host's scan of a run's code
// (`runtime/src/engine/web_names.rs`) lists the same names; a unit test
// there keeps the two lists equal.
const WEB_GLOBALS = [
  "console", "URL", "URLSearchParams", "DOMException", "Event", "EventTarget",
  "CustomEvent", "ErrorEvent", "reportError", "structuredClone",
  "AbortController", "AbortSignal", "atob", "btoa", "TextEncoder",
  "TextDecoder", "performance", "Performance", "setTimeout", "setInterval",
  "clearTimeout", "clearInterval", "crypto",
];

// name -> its placeholder's getter, while the placeholder is in place.
const placeholders = new SafeMap();
for (const name of WEB_GLOBALS) {
  const get = function () {
    throw new ReferenceError(
      `${name} is not loaded in this run: gg loads the web globals (console, URL, timers, crypto and the rest) before a run whose code names one of them, and this run reached ${name} without naming it. Write ${name} in the program's text.`,
    );
  };
  MapPrototypeSet(placeholders, name, get);
  ObjectDefineProperty(globalThis, name, {
    __proto__: null,
    get,
    set(value) {
      define(name, value);
    },
    enumerable: false,
    configurable: true,
  });
}

// Each web global in place of its placeholder, unless the program has
// replaced or removed the placeholder since.
function install(name, value) {
  const descriptor = ObjectGetOwnPropertyDescriptor(globalThis, name);
  if (descriptor !== undefined && descriptor.get === MapPrototypeGet(placeholders, name)) {
    define(name, value);
  }
}

// deno_web's modules, once loaded.
let consoleModule;
let domException;
let timers;
let performanceModule;
let webLoaded = false;

function loadWebLayer() {
  if (webLoaded) return;
  webLoaded = true;
  const load = (name) => core.loadExtScript(`ext:deno_web/${name}.js`);
  consoleModule = load("01_console");
  const url = load("00_url");
  domException = load("01_dom_exception");
  const event = load("02_event");
  const structuredCloneModule = load("02_structured_clone");
  timers = load("02_timers");
  const abortSignal = load("03_abort_signal");
  const base64 = load("05_base64");
  const encoding = load("08_text_encoding");
  performanceModule = load("15_performance");

  // console: Deno's formatting, captured host-side per line with its level.
  // Deno's print levels: 0 debug, 1 log/info, 2 warn, 3 error (4: a stack).
  // Programs print to a capture, never a terminal: no colours.
  consoleModule.setNoColorFns(() => true, () => true);
  const LEVEL_CODES = [2, 0, 3, 4, 4];
  const console = new consoleModule.Console((message, level) => {
    let text = message;
    if (text.endsWith("\n")) text = text.slice(0, -1);
    // A lone surrogate is one U+FFFD, as a terminal shows it.
    text = StringPrototypeToWellFormed(text);
    op_gg_console(LEVEL_CODES[level] ?? 0, text);
  });

  // deno_web's ops throw some errors as DOMExceptions by class name.
  for (const name of ["IndexSizeError", "InvalidCharacterError", "InvalidStateError", "SyntaxError"]) {
    core.registerErrorBuilder(
      `DOMException${name}`,
      (message) => new domException.DOMException(message, name),
    );
  }

  guardConsole(console);
  guardEncoding(base64, encoding);

  const values = {
    __proto__: null,
    console,
    URL: url.URL,
    URLSearchParams: url.URLSearchParams,
    DOMException: domException.DOMException,
    Event: event.Event,
    EventTarget: event.EventTarget,
    CustomEvent: event.CustomEvent,
    ErrorEvent: event.ErrorEvent,
    reportError,
    structuredClone: structuredCloneModule.structuredClone,
    AbortController: abortSignal.AbortController,
    AbortSignal: abortSignal.AbortSignal,
    atob: base64.atob,
    btoa: base64.btoa,
    TextEncoder: encoding.TextEncoder,
    TextDecoder: encoding.TextDecoder,
    performance: performanceModule.performance,
    Performance: performanceModule.Performance,
    ...makeTimers(),
    crypto: ObjectFreeze({ getRandomValues, randomUUID, subtle }),
  };
  for (const name of WEB_GLOBALS) install(name, values[name]);
  performanceModule.setTimeOrigin();
}

// `reportError(error)`: with no `error` listener to cancel it (gg's global
// is not an EventTarget), Deno reports the error as uncaught and the script
// ends with it; so does a turn here, as a program that threw it. deno_web's
// own dispatches on a global reference gg never hands it.
function reportError(error) {
  if (arguments.length < 1) {
    throw new TypeError(
      "Failed to execute 'reportError': 1 argument required, but only 0 present.",
    );
  }
  core.reportUnhandledException(error);
}

// What the web layer builds outside the heap for a program (the text a
// console line is formatted into, bytes decoded or encoded, base64) is
// sized before it is built, against what the heap has left (see
// `host_memory.rs`). Encoding work that does not fit ends the turn at its
// heap ceiling, as the same work in the heap would; a console line's long
// strings are cut instead, as its output is cut to the profile's
// outputChars anyway.
function roomFor(bytes, what) {
  if (!op_gg_room_for(bytes)) {
    throw new RangeError(`${what} needs more memory than the heap limit leaves`);
  }
}

function byteLengthOf(input) {
  if (core.isTypedArray(input)) return TypedArrayPrototypeGetByteLength(input);
  if (core.isDataView(input)) return DataViewPrototypeGetByteLength(input);
  if (core.isArrayBuffer(input)) return ArrayBufferPrototypeGetByteLength(input);
  if (core.isSharedArrayBuffer(input)) return SharedArrayBufferPrototypeGetByteLength(input);
  return 0;
}

// `original` behind `check(args)`, with its name and length.
function guarded(original, name, check) {
  const wrapper = {
    [name](...args) {
      check(args);
      return ReflectApply(original, this, args);
    },
  }[name];
  ObjectDefineProperty(wrapper, "length", {
    __proto__: null,
    value: original.length,
    configurable: true,
  });
  return wrapper;
}

function guardMethod(prototype, name, check) {
  const descriptor = ObjectGetOwnPropertyDescriptor(prototype, name);
  ObjectDefineProperty(prototype, name, {
    __proto__: null,
    value: guarded(descriptor.value, name, check),
    writable: descriptor.writable,
    enumerable: descriptor.enumerable,
    configurable: descriptor.configurable,
  });
}

// Bytes built outside the heap per unit of input, at most: base64 decoding
// copies its input and decodes it (3/4 as long); encoding copies it and
// writes 4/3 as much, handed over as one more copy; UTF-8 is up to three
// bytes a character; decoding writes two bytes of UTF-16 per byte and hands
// them over again.
const ATOB_BYTES = 2;
const BTOA_BYTES = 4;
const ENCODE_BYTES = 3;
const DECODE_BYTES = 4;

function guardEncoding(base64, encoding) {
  base64.atob = guarded(base64.atob, "atob", (args) => {
    if (typeof args[0] === "string") roomFor(args[0].length * ATOB_BYTES, "atob");
  });
  base64.btoa = guarded(base64.btoa, "btoa", (args) => {
    if (typeof args[0] === "string") roomFor(args[0].length * BTOA_BYTES, "btoa");
  });
  guardMethod(encoding.TextEncoder.prototype, "encode", (args) => {
    if (typeof args[0] === "string") {
      roomFor(args[0].length * ENCODE_BYTES, "TextEncoder.encode");
    }
  });
  guardMethod(encoding.TextDecoder.prototype, "decode", (args) => {
    roomFor(byteLengthOf(args[0]) * DECODE_BYTES, "TextDecoder.decode");
  });
}

// A console argument's string is cut to at most this many characters or
// an eighth of what the heap has left, shared among the line's strings:
// deno_web formats a line in host memory, then in the heap, and cannot
// fail gracefully when the heap cannot hold it.
const CONSOLE_STRING_FLOOR = 65536;

// The engine's own `stack` accessor, which every error gets and which
// formats the frames captured at its creation when first read: reading it
// runs nothing of a program's.
const ErrorStackGetter = ObjectGetOwnPropertyDescriptor(new Error(), "stack")?.get;

function cutConsoleArgs(args) {
  let strings = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg === "string" || core.isNativeError(arg)) strings++;
  }
  if (strings === 0) return 0;
  const cap = MathMax(CONSOLE_STRING_FLOOR, MathFloor(op_gg_heap_room() / (8 * strings)));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg === "string") {
      if (arg.length > cap) args[i] = StringPrototypeSlice(arg, 0, cap);
    } else if (core.isNativeError(arg)) {
      // An error is shown by its stack, which holds its message: a long
      // one is shown as its text, cut. A stack the program made an accessor
      // of, or took away, is not read here: the error is shown as its text.
      const stack = ObjectGetOwnPropertyDescriptor(arg, "stack");
      let text;
      if (stack !== undefined && "value" in stack) {
        text = stack.value;
      } else if (stack !== undefined && stack.get === ErrorStackGetter) {
        text = ReflectApply(ErrorStackGetter, arg, []);
      } else {
        args[i] = StringPrototypeSlice(`${arg}`, 0, cap);
        continue;
      }
      if (typeof text === "string" && text.length > cap) {
        args[i] = StringPrototypeSlice(text, 0, cap);
      }
    }
  }
  return cap;
}

function guardConsole(console) {
  for (const name of ObjectKeys(console)) {
    const method = console[name];
    if (typeof method !== "function") continue;
    const dir = name === "dir" || name === "dirxml";
    console[name] = guarded(method, name, (args) => {
      const cap = cutConsoleArgs(args);
      // Inspection options may lift the string limit: never past the cut.
      if (dir && args[1] !== null && typeof args[1] === "object") {
        const most = cap || CONSOLE_STRING_FLOOR;
        const asked = args[1].maxStringLength;
        if (typeof asked === "number" && !(asked <= most)) {
          args[1] = { __proto__: null, ...args[1], maxStringLength: most };
        }
      }
    });
  }
}

// Every explicit `then` (and every thenable resolution) crosses into the host
// first, where a program stopped at its time limit is stopped for good: with
// QuickJS a chain of promise jobs could otherwise outrun the termination.
const PromisePrototypeThenOriginal = Promise.prototype.then;
ObjectDefineProperty(Promise.prototype, "then", {
  __proto__: null,
  value: function then(onFulfilled, onRejected) {
    op_gg_tick();
    return ReflectApply(PromisePrototypeThenOriginal, this, [onFulfilled, onRejected]);
  },
  writable: true,
  enumerable: false,
  configurable: true,
});

// The same for queued microtasks: a job that queues two more (a fan-out)
// would otherwise run between the engine's termination checks forever.
const QueueMicrotaskOriginal = globalThis.queueMicrotask;
define("queueMicrotask", function queueMicrotask(callback) {
  if (typeof callback !== "function") {
    return ReflectApply(QueueMicrotaskOriginal, globalThis, [callback]);
  }
  return ReflectApply(QueueMicrotaskOriginal, globalThis, [function () {
    op_gg_tick();
    return ReflectApply(callback, undefined, []);
  }]);
});

// Timers: Deno's, behind Node-style `Timeout` objects as Deno 2 and Node
// return them (a number to `+t`, `${t}` and the clear functions, with
// ref/unref/hasRef/refresh/close). A program runs until its event loop is
// empty, as under `deno run`, so a timer fires whether or not anything awaits
// it. The host keeps count of the timers that keep the loop alive, so that a
// program stopped at its time limit is told what it was still waiting on (an
// interval never cleared keeps a program running until then). Made when the
// web layer loads: an isolate that never loads it never holds them.
function makeTimers() {
  const pendingTimeouts = new SafeSet();
  const liveIntervals = new SafeSet();
  function report() {
    op_gg_timers(pendingTimeouts.size, liveIntervals.size);
  }
  // Public id -> its Timeout, while the timer can still fire.
  const liveTimers = new SafeMap();

  class Timeout {
    #id;
    #inner = 0;
    #refed = true;
    #callback;
    #delay;
    #args;
    #repeat;

    constructor(callback, delay, args, repeat) {
      if (typeof callback !== "function") {
        const code = `${callback}`;
        callback = () => (0, eval)(code);
      }
      this.#callback = callback;
      this.#delay = delay;
      this.#args = args;
      this.#repeat = repeat;
      this.#arm();
      this.#id = this.#inner;
      this.#track();
    }

    #arm() {
      const self = this;
      const fired = function (...args) {
        if (!self.#repeat) self.#forget();
        return ReflectApply(self.#callback, this, args);
      };
      const schedule = this.#repeat ? timers.setInterval : timers.setTimeout;
      this.#inner = ReflectApply(schedule, globalThis, [fired, this.#delay, ...this.#args]);
    }

    #track() {
      MapPrototypeSet(liveTimers, this.#id, this);
      if (this.#refed) {
        SetPrototypeAdd(this.#repeat ? liveIntervals : pendingTimeouts, this.#id);
      }
      report();
    }

    #forget() {
      MapPrototypeDelete(liveTimers, this.#id);
      SetPrototypeDelete(pendingTimeouts, this.#id);
      SetPrototypeDelete(liveIntervals, this.#id);
      report();
    }

    /** Cancels the timer; the clear functions end here. */
    close() {
      if (MapPrototypeGet(liveTimers, this.#id) === this) {
        ReflectApply(timers.clearTimeout, globalThis, [this.#inner]);
        this.#forget();
      }
      return this;
    }

    /** Restarts the countdown from now, re-arming a timeout that already fired. */
    refresh() {
      if (MapPrototypeGet(liveTimers, this.#id) === this) {
        ReflectApply(timers.clearTimeout, globalThis, [this.#inner]);
      }
      this.#arm();
      if (!this.#refed) timers.unrefTimer(this.#inner);
      this.#track();
      return this;
    }

    /** Lets the program end while this timer is still pending. */
    unref() {
      this.#refed = false;
      timers.unrefTimer(this.#inner);
      if (MapPrototypeGet(liveTimers, this.#id) === this) {
        SetPrototypeDelete(pendingTimeouts, this.#id);
        SetPrototypeDelete(liveIntervals, this.#id);
        report();
      }
      return this;
    }

    /** Keeps the program running until this timer fires (the default). */
    ref() {
      this.#refed = true;
      timers.refTimer(this.#inner);
      if (MapPrototypeGet(liveTimers, this.#id) === this) this.#track();
      return this;
    }

    hasRef() {
      return this.#refed;
    }

    [SymbolToPrimitive]() {
      return this.#id;
    }
  }

  function setTimeout(callback, delay = 0, ...args) {
    return new Timeout(callback, delay, args, false);
  }
  function setInterval(callback, delay = 0, ...args) {
    return new Timeout(callback, delay, args, true);
  }
  // The two clear either kind, as the web platform's do, by object or by id.
  function clear(handle) {
    const timer = typeof handle === "object" && handle !== null
      ? handle
      : MapPrototypeGet(liveTimers, Number(handle));
    if (timer instanceof Timeout) timer.close();
  }
  function clearTimeout(id = undefined) {
    clear(id);
  }
  function clearInterval(id = undefined) {
    clear(id);
  }
  return { setTimeout, setInterval, clearTimeout, clearInterval };
}

// Randomness: the operating system's, or, with a pinned seed, a seeded
// generator (sfc32, hand-written: no library reaches inside the isolate).
let seeded = null;
function sfc32(a, b, c, d) {
  return function next() {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
}
const originalRandom = Math.random;
function seedWith(seed) {
  const s = MathFloor(seed);
  seeded = sfc32(0x9e3779b9, 0x243f6a88 ^ s, 0xb7e15162, (s / 4294967296) | 0);
  for (let i = 0; i < 15; i++) seeded();
}

function getRandomValues(array) {
  if (
    !ArrayBuffer.isView(array) || array instanceof Float32Array ||
    array instanceof Float64Array || array instanceof DataView
  ) {
    throw new DOMException(
      "The provided ArrayBufferView is not an integer array type",
      "TypeMismatchError",
    );
  }
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  if (bytes.length > 65536) {
    throw new DOMException(
      `The ArrayBufferView's byte length (${bytes.length}) exceeds the number of bytes of entropy available via this API (65536)`,
      "QuotaExceededError",
    );
  }
  if (seeded) {
    for (let i = 0; i < bytes.length; i++) bytes[i] = seeded() & 0xff;
  } else {
    if (!op_gg_random_fill(bytes)) {
      throw new domException.DOMException(
        "crypto.getRandomValues: the operating system's random source is unavailable",
        "OperationError",
      );
    }
  }
  return array;
}

function hex(byte) {
  return StringPrototypePadStart(NumberPrototypeToString(byte, 16), 2, "0");
}

function randomUUID() {
  const b = getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [];
  for (let i = 0; i < 16; i++) h.push(hex(b[i]));
  return ArrayPrototypeJoin([
    ArrayPrototypeJoin(h.slice(0, 4), ""),
    ArrayPrototypeJoin(h.slice(4, 6), ""),
    ArrayPrototypeJoin(h.slice(6, 8), ""),
    ArrayPrototypeJoin(h.slice(8, 10), ""),
    ArrayPrototypeJoin(h.slice(10, 16), ""),
  ], "-");
}

const subtle = new Proxy({}, {
  get(_target, name) {
    if (typeof name === "symbol") return undefined;
    throw new TypeError(
      `crypto.subtle.${name} is not available in gg programs: only crypto.getRandomValues and crypto.randomUUID are.`,
    );
  },
});

// The clock: real, or pinned to one instant.
const RealDate = Date;
function pinnedDate(at) {
  function Date(...args) {
    if (!new.target) return new RealDate(at).toString();
    return ReflectConstruct(RealDate, args.length === 0 ? [at] : args, new.target);
  }
  Date.prototype = RealDate.prototype;
  Date.now = () => at;
  Date.parse = RealDate.parse;
  Date.UTC = RealDate.UTC;
  ObjectDefineProperty(RealDate.prototype, "constructor", {
    __proto__: null, value: Date, writable: true, configurable: true, enumerable: false,
  });
  return Date;
}

// Temporal.Now under a pinned clock: every reading is the pinned instant.
function pinTemporalNow(at) {
  const Temporal = globalThis.Temporal;
  if (!Temporal || !Temporal.Now || !Temporal.Instant) return;
  const realNow = Temporal.Now;
  const timeZoneId = realNow.timeZoneId;
  const instant = () => Temporal.Instant.fromEpochMilliseconds(at);
  const zoned = (timeZone) =>
    ReflectApply(Temporal.Instant.prototype.toZonedDateTimeISO, instant(), [
      timeZone === undefined ? ReflectApply(timeZoneId, realNow, []) : timeZone,
    ]);
  const now = {
    instant,
    timeZoneId: () => ReflectApply(timeZoneId, realNow, []),
    zonedDateTimeISO: (timeZone) => zoned(timeZone),
    plainDateTimeISO: (timeZone) => zoned(timeZone).toPlainDateTime(),
    plainDateISO: (timeZone) => zoned(timeZone).toPlainDate(),
    plainTimeISO: (timeZone) => zoned(timeZone).toPlainTime(),
  };
  ObjectDefineProperty(now, Symbol.toStringTag, { __proto__: null, value: "Temporal.Now" });
  ObjectDefineProperty(Temporal, "Now", {
    __proto__: null, value: ObjectFreeze(now), writable: true, enumerable: false, configurable: true,
  });
}

// What a program must not reach, refused with what to use instead.
function refusal(name, instead) {
  return `${name} is not available in gg programs: a program cannot reach files, the network or the operating system. ${instead}`;
}
define("fetch", function fetch() {
  throw new TypeError(refusal(
    "fetch",
    "To read a workspace file, call views.openFile(path) from \"gg\"; its content arrives next turn.",
  ));
});
for (const name of ["XMLHttpRequest", "WebSocket", "EventSource"]) {
  define(name, function () {
    throw new TypeError(refusal(name, "There is no network access from a program."));
  });
}
const denoRefusal = new Proxy(ObjectFreeze({}), {
  get(_target, name) {
    if (typeof name === "symbol") return undefined;
    throw new TypeError(refusal(
      `Deno.${name}`,
      name === "readTextFile" || name === "readFile" || name === "readDir" || name === "open"
        ? "To read a workspace file, call views.openFile(path) from \"gg\"; its content arrives next turn."
        : "Use the \"gg\" module (memories, views) instead.",
    ));
  },
  set() {
    return false;
  },
});

// Streaming compilation would hand the response to deno_core's wasm
// streaming hook, which gg does not run: refused, with the way that works.
const WebAssemblyObject = globalThis.WebAssembly;
if (WebAssemblyObject) {
  for (const name of ["compileStreaming", "instantiateStreaming"]) {
    ObjectDefineProperty(WebAssemblyObject, name, {
      __proto__: null,
      value: function () {
        return PromiseReject(new TypeError(
          `WebAssembly.${name} is not available in gg programs (there is no fetch); pass the module's bytes to WebAssembly.compile or WebAssembly.instantiate instead.`,
        ));
      },
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }
}

// How the host shows a program's exported value: JSON where it is JSON, the
// JavaScript string form otherwise. Runs in the program's turn, under its
// time limit (a getter may loop). Throws only when the heap has no room to
// render (QuickJS's `InternalError: out of memory`): the turn then ends at
// its heap ceiling, never with a form the heap happened to allow. A string
// value never comes here: the host quotes it from outside the heap.
const JSONStringify = JSON.stringify;
const StringOf = String;
const InternalErrorPrototype = globalThis.InternalError?.prototype;
function rethrowOutOfMemory(error) {
  if (
    InternalErrorPrototype !== undefined &&
    typeof error === "object" && error !== null &&
    ObjectGetPrototypeOf(error) === InternalErrorPrototype &&
    error.message === "out of memory"
  ) {
    throw error;
  }
}
function renderValue(value) {
  if (value === undefined) return undefined;
  if (typeof value === "function") return "[Function]";
  if (typeof value === "symbol") return SymbolPrototypeToString(value);
  if (typeof value === "bigint") return BigIntPrototypeToString(value);
  if (ObjectPrototypeToString(value) === "[object Date]") {
    try {
      return JSONStringify(DatePrototypeToISOString(value));
    } catch {
      return '"Invalid Date"';
    }
  }
  try {
    const json = JSONStringify(value);
    if (json !== undefined) return json;
  } catch (error) {
    // A cycle, a BigInt inside, a throwing getter: the string form below.
    rethrowOutOfMemory(error);
  }
  try {
    return StringOf(value);
  } catch (error) {
    rethrowOutOfMemory(error);
    return "[object]";
  }
}

// Lets go of what only loading scripts needed, once the last has run: the
// primordials object and deno_core's copy of `__bootstrap` (its `core`, a
// copy of every op, the primordials), which it hands each script it loads.
// Every script gg loads has been loaded by then, so `core.loadExtScript`
// answers from its cache and none runs again; one that did would find no
// `__bootstrap` and throw.
function releaseBootstrap() {
  releasePrimordials();
  op_set_captured_bootstrap(undefined);
}

// The host's handle on all this, taken (and removed) by the engine before
// any program runs.
ObjectDefineProperty(globalThis, Symbol.for("gg.internal.web"), {
  __proto__: null,
  value: ObjectFreeze({
    // Pins the seed and the clock (either may be null), once, before the
    // agent's first program.
    configure(seed, clockMs) {
      if (seed !== null) {
        seedWith(seed);
        Math.random = () => seeded() / 4294967296;
      } else {
        Math.random = originalRandom;
      }
      if (clockMs !== null) {
        define("Date", pinnedDate(clockMs));
        // performance.timeOrigin reads the pinned instant now (the host
        // swapped the op behind it), performance.now() stays at 0; a web
        // layer loaded later sets it when it loads.
        if (webLoaded) performanceModule.setTimeOrigin();
        pinTemporalNow(clockMs);
      }
    },
    // Starts the seeded sequence again from `seed` (the host derives one
    // per run, so a run draws the same numbers in whichever isolate it
    // runs). Nothing without a pinned seed.
    reseed(seed) {
      if (seeded) seedWith(seed);
    },
    // Loads deno_web's globals in place of their placeholders (see the top
    // of this file), sets performance.timeOrigin (the moment the isolate
    // was made, or the pinned instant), and lets go of what loading scripts
    // needed. Only the host calls it, and only before any program has run
    // in this isolate.
    loadWebLayer() {
      loadWebLayer();
      releaseBootstrap();
    },
    // Lets go of what loading scripts needs without loading deno_web's:
    // for an isolate whose first run needs none of its globals, where they
    // will never be loaded.
    releaseBootstrap,
    renderValue,
    // Installs the Deno refusal last (deno_core deletes its own `Deno`).
    refuseDeno() {
      define("Deno", denoRefusal);
    },
  }),
  configurable: true,
  enumerable: false,
  writable: false,
});
