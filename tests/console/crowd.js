// Drives `gg console` over a large state folder (200 agents, 2 000
// memories; runtime/cli/tests/serve/crowd.rs writes it) in headless
// Chromium: searches memories across stores, pages through them, filters
// and pages the agents, opens an agent's transcript and follows a turn it
// runs live.
//
// Environment: CONSOLE_URL, EXPECT (JSON: the crowd's sizes, the needle
// and where it is, the agent whose turn threw and its program),
// SCREENSHOT (the first screenshot's path; the others beside it),
// LIVE_CMD (JSON argv: a turn of that agent, run while its page is open).

const { execFileSync } = require("child_process");
const { TIMEOUT, check, text, run } = require("./chromium.js");

const url = process.env.CONSOLE_URL;
const expect = JSON.parse(process.env.EXPECT);
const screenshot = process.env.SCREENSHOT;
const live = JSON.parse(process.env.LIVE_CMD);
const shot = (name) => screenshot.replace(/\.png$/, `-${name}.png`);

async function range(page, pager, want) {
  await page.waitForFunction(
    ([sel, w]) => document.querySelector(sel)?.textContent === w,
    [`${pager} [data-testid="page-range"]`, want],
    { timeout: TIMEOUT },
  );
  check(true, `${pager} reads ${want}`);
}

/** The memory list's slugs, or the agent list's ids, in order. */
async function rows(page, list) {
  const attr = list === "#agent-results" ? "data-agent" : "data-slug";
  return page.locator(`${list} tbody tr`).evaluateAll((trs, a) => trs.map((tr) => tr.getAttribute(a)), attr);
}

run(url, async (page) => {
  // Hundreds of stores: picked from a drop-down; the list searches the one picked.
  await page.selectOption("#store-select", "agent.a050");
  await page.waitForSelector('#treemap .tile[data-slug="note-050-0"]', { timeout: TIMEOUT });
  await range(page, "#memory-pager", "1–10 of 10");
  await page.fill("#memory-search", "note 3 of");
  await range(page, "#memory-pager", "1–1 of 1");
  check((await rows(page, "#memory-results"))[0] === "note-050-3", "the search within agent.a050 finds note-050-3");
  await page.fill("#memory-search", "");

  // Every store's memories, a page at a time.
  const all = expect.memories.toLocaleString("en-US");
  await page.check("#memory-all-stores");
  await range(page, "#memory-pager", `1–50 of ${all}`);
  await page.click('#memory-pager [data-testid="page-next"]');
  await range(page, "#memory-pager", `51–100 of ${all}`);
  const second = await rows(page, "#memory-results");
  check(second.length === 50 && second[0] === expect.page2First, `page 2 starts at ${second[0]}`);

  // A search by a word in one memory's text, across every store.
  await page.fill("#memory-search", expect.needle);
  await range(page, "#memory-pager", "1–1 of 1");
  const found = await rows(page, "#memory-results");
  check(found.length === 1 && found[0] === expect.needleSlug, `the search finds ${found.join(", ")}`);
  await page.click(`#memory-results tr[data-slug="${expect.needleSlug}"]`);
  await page.waitForFunction((id) => document.querySelector("#store-select")?.value === id, expect.needleStore, { timeout: TIMEOUT });
  await page.waitForSelector('#history .revision[data-revision="1"] pre.text', { timeout: TIMEOUT });
  check((await text(page, '#history .revision[data-revision="1"] pre.text')).includes(expect.needle), `its history opens in ${expect.needleStore} and reads the needle`);
  await page.screenshot({ path: shot("search"), fullPage: true });

  // The agents: paged, filtered by id, narrowed to a profile.
  await page.click('nav .tab[data-tab="agents"]');
  await range(page, "#agent-pager", `1–50 of ${expect.agents}`);
  await page.click('#agent-pager [data-testid="page-next"]');
  await range(page, "#agent-pager", `51–100 of ${expect.agents}`);
  check((await rows(page, "#agent-results"))[0] === "a050", "agents page 2 starts at a050");
  await page.fill("#agent-filter", "A12");
  await range(page, "#agent-pager", "1–10 of 10");
  const filtered = await rows(page, "#agent-results");
  check(filtered.join(",") === Array.from({ length: 10 }, (_, i) => `a12${i}`).join(","), `the filter finds ${filtered.join(", ")}`);
  await page.selectOption("#agent-profile", "crowd-1");
  await range(page, "#agent-pager", "1–3 of 3");
  check((await rows(page, "#agent-results")).join(",") === "a121,a125,a129", "and the profile narrows it to a121, a125, a129");
  await page.screenshot({ path: shot("agents"), fullPage: true });

  // An agent's transcript: its turn's program and acknowledgement.
  await page.selectOption("#agent-profile", "");
  await page.fill("#agent-filter", expect.threw);
  await range(page, "#agent-pager", "1–1 of 1");
  await page.click(`[data-agent-link="${expect.threw}"]`);
  await page.waitForSelector('#transcript .turn[data-turn="1"] .program pre.source', { timeout: TIMEOUT });
  check(page.url().endsWith(`#agent/${expect.threw}`), "the agent's page has its own address");
  check((await text(page, '#transcript .turn[data-turn="1"] .program pre.source')) === expect.program.trim(), "turn 1 shows its program");
  check((await text(page, '#transcript .ack[data-status="threw"] pre.error')).includes("too long"), "and its acknowledgement: threw, with the error");
  check((await text(page, "#transcript .ack pre.console")).includes(`hello from ${expect.threw}`), "and its console line");
  check((await page.locator('#events li[data-event="memory_pull"]').count()) === 1, "its event stream is listed");
  check((await page.locator("#made-revisions tbody tr").count()) === 10, "and the 10 revisions it made, with their times");
  await page.screenshot({ path: shot("transcript"), fullPage: true });

  // Live: the agent runs a turn; its page follows without a reload.
  await page.evaluate(() => { window.__sameDocument = true; });
  execFileSync(live[0], live.slice(1), { stdio: "ignore" });
  await page.waitForFunction(
    () => [...document.querySelectorAll("#transcript pre.console")].some((p) => p.textContent.includes("the live turn ran")),
    null,
    { timeout: TIMEOUT },
  );
  check(await page.evaluate(() => window.__sameDocument === true), "the live turn arrived on the agent's page without a reload");
  // The live turn's record heads it: how it ended, its duration, its refusals and events.
  const record = await text(page, '#transcript .turn[data-turn="2"] .turn-record');
  check(/^ok · \d+\.\d ms · 0 refused · \d+ events$/.test(record), `the live turn is headed by its record (${record})`);
  await page.screenshot({ path: shot("transcript-live"), fullPage: true });
});
