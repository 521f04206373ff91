// The web globals of every isolate, in order: deno_web's, cut down to what
// gg loads (web.js), then Intl backed by ICU4X (intl.js).
import "ext:gg_web/web.js";
import "ext:gg_web/intl.js";
