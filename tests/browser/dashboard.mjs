// Browser test of the soul dashboard: headless Debian chromium driven by playwright-core.
// Usage: node dashboard.mjs DASHBOARD_URL SCREENSHOT_PATH
// The town runs panda and gorilla here and triceratops "elsewhere" (not at all), so a split
// round stays open. Exits 0 when every part of the control panel did what the owner asked;
// prints what failed otherwise. tests/dashboard.rs then checks the relay for what was signed.
import { chromium } from "playwright-core";

const [url, screenshot] = process.argv.slice(2);
const stamp = Date.now();
const agreed = `Back up the family photos to the external disk every night (${stamp})`;
// A venture with no harm in it: cautious panda refuses it; gorilla, made bold below (risk
// 0.95), takes it with conditions, whatever the stamp (its digits move the learned reading a
// little; this task reads far below its lines).
const split = `Try the new experimental database in production this week (${stamp})`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const T = { timeout: 30000 };
let failed = null;
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
page.on("pageerror", (e) => { failed ||= `page error: ${e}`; });
const step = (what) => console.log(`dashboard: ${what}`);
try {
  await page.goto(url);
  for (const brain of ["panda", "gorilla", "triceratops"]) await page.locator(`.agent[data-name="${brain}"]`).waitFor(T);
  await page.locator("#conn.on").waitFor(T);
  if (page.url().includes("token=")) throw new Error(`the secret stays in the address bar: ${page.url()}`);
  step(`connected to ${await page.locator("#relay").innerText()}`);

  // Params from the start: the seed's, before any retune.
  const risk = (b) => page.locator(`#params .params[data-brain="${b}"] input[name=risk_tolerance]`);
  const seed = await risk("panda").inputValue();
  if (seed !== "0.2") throw new Error(`panda's risk slider shows ${seed}, not the seed's 0.2`);
  const source = await page.locator(`#params .params[data-brain="panda"] .source`).innerText();
  if (!source.includes("seed")) throw new Error(`panda's params say ${source}`);
  step(`sliders show the seed params (panda risk ${seed})`);
  // Move gorilla's risk slider and set it as the owner.
  await risk("gorilla").evaluate((el) => { el.value = "0.95"; el.dispatchEvent(new Event("input", { bubbles: true })); });
  await page.click(`#params .params[data-brain="gorilla"] .save`);
  await page.locator(`#params .params[data-brain="gorilla"] .source`, { hasText: "set by the owner" }).waitFor(T);
  const now = await risk("gorilla").inputValue();
  if (now !== "0.95") throw new Error(`gorilla's slider shows ${now} after the owner set 0.95`);
  step("gorilla's params set by the owner (risk 0.95)");

  // A task both running brains approve: decided, counted in the statistics.
  await page.fill("#title", agreed);
  await page.click("#submit");
  const card = (title) => page.locator(".task", { has: page.locator("h3", { hasText: title }) });
  await card(agreed).locator(".decision").waitFor(T);
  const opinions = await card(agreed).locator(".opinion").count();
  const decision = (await card(agreed).locator(".decision").innerText()).split("\n")[0];
  if (opinions < 2 || !/approved|rejected/.test(decision)) throw new Error(`${opinions} opinions, decision: ${decision}`);
  step(`${opinions} opinions, ${decision}`);
  await page.locator("#stats .round-count[data-round='1']", { hasText: "1: 1" }).waitFor(T);
  const approval = await page.locator("#approval").innerText();
  if (!/%$/.test(approval)) throw new Error(`approval rate shows ${approval}`);
  step(`statistics: ${(await page.locator("#stats").innerText()).replaceAll("\n", " | ")}`);

  // A task panda and gorilla split on: triceratops owes its opinion and shows 検討中.
  await page.fill("#title", split);
  await page.click("#submit");
  await card(split).locator(".opinion").nth(1).waitFor(T);
  await card(split).locator(`.thinking[data-brain="triceratops"]`, { hasText: "検討中" }).waitFor(T);
  if (await card(split).locator(".decision").count()) throw new Error("a split round was decided without triceratops");
  if (await card(split).locator(`.thinking[data-brain="panda"]`).count()) throw new Error("panda spoke but is shown as 検討中");
  step("triceratops 検討中… while the split round is open");

  // The owner's comment, posted from the page, shown inline in the debate.
  await card(agreed).locator(".comment-form input").fill("Use the blue disk, please");
  await card(agreed).locator(".comment-form button").click();
  await card(agreed).locator(".comment", { hasText: "Use the blue disk" }).waitFor(T);
  await card(agreed).locator(".comment-form .muted", { hasText: "posted" }).waitFor(T);
  const left = await card(agreed).locator(".comment-form input").inputValue();
  if (left) throw new Error(`the comment box still holds ${JSON.stringify(left)} after posting`);
  step("the owner's comment is shown in the debate");

  // The owner's word on a doubt: a bare chore the brains refuse on a doubt offers a button;
  // the confirmation it publishes is approved, and the refused card says it was confirmed.
  const doubted = "Buy the concert tickets before they sell out";
  await page.fill("#title", doubted);
  await page.click("#submit");
  await card(doubted).locator(".decision.rejected").waitFor(T);
  await card(doubted).locator("button.confirm").click();
  await card(doubted).locator(".decision.approved").waitFor(T);
  await card(doubted).locator(".muted", { hasText: "the owner confirmed it" }).waitFor(T);
  step("a refusal on a doubt, confirmed with the button, is approved");

  // An evaluation on request: panda and gorilla each score the other two.
  await page.click("#evaluate");
  await page.locator("#evaluations .item").nth(3).waitFor(T);
  step(`${await page.locator("#evaluations .item").count()} evaluations after the button`);

  // The per-agent log: panda's recent events from the relay.
  await page.click(`.agent[data-name="panda"]`);
  await page.locator(`#log .entry[data-kind="opinion"]`).first().waitFor(T);
  await page.locator(`#log .entry[data-kind="evaluation"]`).first().waitFor(T);
  const kinds = new Set(await page.locator("#log .entry").evaluateAll((es) => es.map((e) => e.dataset.kind)));
  step(`panda's log shows ${[...kinds].join(", ")}`);

  // Another tab on another name of this machine, without the secret: it reaches the relay at
  // the host it was served from, and it may read but not write.
  const reader = await (await browser.newContext()).newPage();
  const origin = new URL(url);
  await reader.goto(`http://localhost:${origin.port}/`);
  await reader.locator("#conn.on").waitFor(T);
  const relay = await reader.locator("#relay").innerText();
  if (!relay.startsWith("ws://localhost:")) throw new Error(`a page from localhost connects to ${relay}`);
  if (!(await reader.locator("#submit").isDisabled())) throw new Error("a page without the secret may submit");
  const why = await reader.locator("#writemsg").innerText();
  if (!why.includes("token")) throw new Error(`a page without the secret says ${why}`);
  await reader.locator(".task h3", { hasText: agreed }).waitFor(T);
  step(`a tab on localhost without the secret reads through ${relay} and says: ${why}`);
} catch (e) {
  failed ||= String(e);
} finally {
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  await browser.close();
}

// DNS rebinding in a real browser: evil.example resolves to 127.0.0.1 here; the dashboard
// refuses the page whatever it asks for.
if (!failed) {
  const port = new URL(url).port;
  const rebound = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP evil.example 127.0.0.1"],
  });
  try {
    const evil = await rebound.newPage();
    const r = await evil.goto(`http://evil.example:${port}/`);
    const body = await evil.locator("body").innerText();
    if (r.status() !== 421) failed = `a rebinding page got ${r.status()}: ${body}`;
    else step(`a rebinding page on evil.example:${port} gets 421: ${body.slice(0, 60)}…`);
  } catch (e) {
    failed = String(e);
  } finally {
    await rebound.close();
  }
}
if (failed) {
  console.error(`dashboard test failed: ${failed}`);
  process.exit(1);
}
