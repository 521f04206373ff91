// A small stand-in for gg's `gg` module, so the bench's 3-call program runs
// unchanged under Node.js (and, as gg-standin.ts, under Deno). It keeps open
// text views in a Map, as the host's window would, and nothing more.
const open = new Map();
export const views = Object.freeze({
  openText(label, text) {
    if (typeof label !== "string" || typeof text !== "string") throw new TypeError("openText(label, text)");
    open.set(label, text);
  },
  close(label) {
    return open.delete(label);
  },
});
export const memories = Object.freeze({});
export default { views, memories };
