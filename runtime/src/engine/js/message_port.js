// gg's stand-in for deno_web's `13_message_port.js`, of which gg's web
// layer uses one function: `00_url.js` loads the whole script (message
// ports, channels, their converters and serializers) to mark `URL` and
// `URLSearchParams` as not serializable. gg offers no MessagePort,
// MessageChannel or MessageEvent, so every isolate paid for classes no
// program could reach; this script keeps what the loaded scripts read, with
// the same marker (same description, same attributes) on the same
// prototypes.
(function () {
const { primordials } = __bootstrap;
const { ObjectDefineProperty, ObjectFreeze, Symbol } = primordials;

const kNotSerializable = Symbol("[[NotSerializable]]");

function markNotSerializable(target) {
  ObjectDefineProperty(target, kNotSerializable, {
    __proto__: null,
    value: true,
    enumerable: false,
    writable: false,
    configurable: false,
  });
}

return {
  markNotSerializable,
  // Read by `02_event.js` only when a MessageEvent is made with ports; no
  // object has this prototype, so every port is refused as deno_web's own
  // check refuses a non-port.
  MessagePortPrototype: ObjectFreeze({ __proto__: null }),
};
})();
