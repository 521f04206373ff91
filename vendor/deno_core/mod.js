// Copyright 2018-2026 the Deno authors. MIT license.
// Re-export fields from `globalThis.__bootstrap` so that embedders using
// ES modules can import these symbols instead of capturing the bootstrap ns.
const { core, internals } = globalThis.__bootstrap;
// gg patch: a live binding an embedder can clear (`releasePrimordials`) once
// every script that reads it has run, so that the primordials object (its
// ~900 entries, their names, the wrappers nothing else holds) is freed.
let { primordials } = globalThis.__bootstrap;

export { core, internals, primordials };

export function releasePrimordials() {
  primordials = undefined;
}
