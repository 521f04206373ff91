// gg's stand-in for deno_web's `00_infra.js`, of which the scripts gg loads
// use one function: `03_abort_signal.js` takes `assert` from it. The whole
// script (a dozen HTTP and path regular expressions compiled at load, the
// byte-case and base64 helpers of fetch, files and MIME sniffing, which gg
// does not offer) cost every isolate for an assertion; this keeps the
// assertion exactly as deno_web writes it.
(function () {
const { primordials } = __bootstrap;
const { Error } = primordials;

class AssertionError extends Error {
  constructor(msg) {
    super(msg);
    this.name = "AssertionError";
  }
}

/**
 * @param {unknown} cond
 * @param {string=} msg
 * @returns {asserts cond}
 */
function assert(cond, msg = "Assertion failed.") {
  if (!cond) {
    throw new AssertionError(msg);
  }
}

return {
  assert,
  AssertionError,
};
})();
