// Drives `gg console` in headless Chromium (Debian's, through
// playwright-core; runtime/cli/tests/console.rs installs it and runs this).
//
// Environment: CONSOLE_URL (the console), EXPECT (JSON: the totals the
// fixture session leaves), SCREENSHOT (where to save the page), LIVE_CMD
// (JSON argv: a turn to run against the state folder while the page is
// open). Prints one `ok ...` line per check; exits 1 on the first failure.

const { execFileSync } = require("child_process");
const fs = require("fs");
const { TIMEOUT, check, text, run } = require("./chromium.js");

const url = process.env.CONSOLE_URL;
const expect = JSON.parse(process.env.EXPECT);
const screenshot = process.env.SCREENSHOT;
const live = JSON.parse(process.env.LIVE_CMD);

async function totals(page) {
  const out = {};
  for (const kind of ["current", "peak"]) {
    for (const key of ["count", "chars", "lines"]) {
      out[`${kind}-${key}`] = Number((await text(page, `[data-testid="store-${kind}-${key}"]`)).replace(/,/g, ""));
    }
  }
  return out;
}

run(url, async (page) => {
    // The Memories panel, on the shared store.
    await page.click('#store-picker [data-store="profile.notes"]');
    await page.waitForSelector('#store-picker [data-store="profile.notes"][aria-selected="true"]', { timeout: TIMEOUT });
    await page.waitForSelector('#treemap .tile[data-slug="deploy-runbook"]', { timeout: TIMEOUT });
    const got = await totals(page);
    for (const [k, v] of Object.entries(expect.store)) {
      check(got[k] === v, `store ${k} is ${v} (page: ${got[k]})`);
    }
    const ana = Number(await text(page, '[data-testid="agent-ana-peak-chars"]'));
    check(ana === expect.store["peak-chars"], `ana's row shows the peak characters ${ana}`);

    // The deleted memory, marked in the treemap.
    const deleted = page.locator('#treemap .tile[data-slug="scratch-notes"]');
    await deleted.waitFor({ timeout: TIMEOUT });
    check((await deleted.getAttribute("class")).split(" ").includes("deleted"), "scratch-notes is marked deleted in the treemap");
    check((await deleted.textContent()).includes("deleted"), "its tile says deleted");
    const box = await deleted.boundingBox();
    check(box && box.width > 0 && box.height > 0, "its tile is visible, sized by its characters");
    const liveTile = page.locator('#treemap .tile[data-slug="deploy-runbook"]');
    check(!(await liveTile.getAttribute("class")).split(" ").includes("deleted"), "deploy-runbook is not marked deleted");

    // Its revision history: revision 1's text, then the delete.
    await deleted.click();
    await page.waitForSelector('#history .revision[data-revision="2"][data-mutation="delete"]', { timeout: TIMEOUT });
    const first = await text(page, '#history .revision[data-revision="1"] pre.text');
    check(first === expect.scratchRevision1, `scratch-notes revision 1 reads ${JSON.stringify(first)}`);

    // A revised memory: revision 1's text and the diff of revision 2.
    await liveTile.click();
    await page.waitForSelector('#history .revision[data-revision="2"][data-mutation="edit"]', { timeout: TIMEOUT });
    const runbook1 = await text(page, '#history .revision[data-revision="1"] pre.text');
    check(runbook1 === expect.runbookRevision1, `deploy-runbook revision 1 reads ${JSON.stringify(runbook1)}`);
    const diff = await text(page, '#history .revision[data-revision="2"] pre.diff');
    check(diff.includes("-Roll staging first.") && diff.includes("+" + expect.runbookNow), "revision 2 shows its diff to revision 1");

    // Live: a turn runs against the folder; the page follows without a reload.
    await page.evaluate(() => { window.__sameDocument = true; });
    execFileSync(live[0], live.slice(1), { stdio: "ignore" });
    await page.waitForSelector('#treemap .tile[data-slug="live-note"]', { timeout: TIMEOUT });
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="store-current-count"]')?.textContent === String(n),
      expect.store["current-count"] + 1,
      { timeout: TIMEOUT },
    );
    check(await page.evaluate(() => window.__sameDocument === true), "the new memory arrived without a reload");
    check((await text(page, "#history h3")).startsWith("deploy-runbook"), "the open history stayed open");
    await page.screenshot({ path: screenshot, fullPage: true });
    check(fs.statSync(screenshot).size > 0, `screenshot saved to ${screenshot}`);

    // The Modules tab: each store once, with its holders.
    await page.click('nav .tab[data-tab="modules"]');
    await page.waitForSelector('#modules-table [data-testid="module-profile.notes"]', { timeout: TIMEOUT });
    const holders = await page.locator('#modules-table tr:has([data-testid="module-profile.notes"]) [data-holder]').allTextContents();
    check(holders.length === 2 && holders[0].startsWith("ana") && holders[1].startsWith("ben"), `profile.notes is held by ${holders.join("; ")}`);
    check((await page.locator('#modules-table [data-testid^="module-"]').count()) === 2, "two stores, each listed once");
    await page.screenshot({ path: screenshot.replace(/\.png$/, "-modules.png"), fullPage: true });

    // The Agents tab: one store shared, or one each.
    await page.click('nav .tab[data-tab="agents"]');
    await page.waitForSelector('[data-testid="sharing-notes"]', { timeout: TIMEOUT });
    check((await text(page, '[data-testid="sharing-notes"]')) === "share one store", "the notes profile's instances share one store");
    check((await text(page, '[data-testid="sharing-solo"]')) === "one instance", "the solo profile has one instance");
    await page.screenshot({ path: screenshot.replace(/\.png$/, "-agents.png"), fullPage: true });

});
