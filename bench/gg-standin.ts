// A small stand-in for gg's `gg` module, so the bench's 3-call program runs
// unchanged under Deno (bench/gg-standin.mjs is the Node.js twin). It keeps
// open text views in a Map, as the host's window would, and nothing more.
const open = new Map<string, string>();
export const views = Object.freeze({
  openText(label: string, text: string): void {
    if (typeof label !== "string" || typeof text !== "string") throw new TypeError("openText(label, text)");
    open.set(label, text);
  },
  close(label: string): boolean {
    return open.delete(label);
  },
});
export const memories = Object.freeze({});
export default { views, memories };
