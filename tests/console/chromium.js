// What the console's browser scripts share: headless Chromium (Debian's,
// through playwright-core) in a throwaway profile, and one `ok ...` line
// per check. A script calls run(async (page) => ...); the first failed
// check, page error or request outside the console exits 1.

const { chromium } = require("playwright-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

const TIMEOUT = 15000;

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
  console.log(`ok ${what}`);
}

async function text(page, selector) {
  return (await page.locator(selector).first().textContent({ timeout: TIMEOUT })).trim();
}

/** Opens `url` in a fresh headless Chromium, waits for the live badge, runs `body(page)`. */
function run(url, body) {
  (async () => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "gg-console-chromium-"));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      // The page must load nothing from outside the console (it works offline).
      const outside = [];
      page.on("request", (r) => { if (!r.url().startsWith(url)) outside.push(r.url()); });
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      // What the page's Content-Security-Policy refused: the page must need
      // nothing it forbids (an inline script or style, a style attribute).
      const refused = [];
      page.on("console", (m) => {
        if (m.type() === "error" && /Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      await page.goto(url);
      await page.waitForSelector('#live[data-state="live"]', { timeout: TIMEOUT });
      check(true, "the page connected to /api/events");
      await body(page);
      check(outside.length === 0, `nothing loaded from outside the console (${outside.join(", ")})`);
      check(errors.length === 0, `no page errors (${errors.join("; ")})`);
      check(refused.length === 0, `nothing refused by the page's Content-Security-Policy (${refused.join("; ")})`);
    } finally {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  })().catch((e) => {
    console.error(e && e.stack ? e.stack : String(e));
    process.exit(1);
  });
}

module.exports = { TIMEOUT, check, text, run };
