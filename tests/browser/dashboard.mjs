// Browser test of the soul dashboard: headless Debian chromium driven by playwright-core.
// Usage: node dashboard.mjs DASHBOARD_URL SCREENSHOT_PATH
// Exits 0 when the page loads, shows the three brains, and a task submitted through the form
// appears with its opinions and its decision; prints what failed otherwise.
import { chromium } from "playwright-core";

const [url, screenshot] = process.argv.slice(2);
const title = `Back up the family photos to the external disk every night (${Date.now()})`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let failed = null;
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
try {
  await page.goto(url);
  for (const brain of ["panda", "gorilla", "triceratops"]) {
    await page.locator(`.agent[data-name="${brain}"]`).waitFor({ timeout: 15000 });
  }
  await page.locator("#conn.on").waitFor({ timeout: 15000 });
  await page.fill("#title", title);
  await page.click("#submit");
  const card = page.locator(".task", { has: page.locator("h3", { hasText: title }) });
  await card.waitFor({ timeout: 30000 });
  await card.locator(".opinion").first().waitFor({ timeout: 30000 });
  await card.locator(".decision").waitFor({ timeout: 30000 });
  const opinions = await card.locator(".opinion").count();
  const decision = await card.locator(".decision").innerText();
  if (opinions < 2) failed = `only ${opinions} opinions shown`;
  if (!/approved|rejected/.test(decision)) failed = `decision text: ${decision}`;
  console.log(`dashboard: ${opinions} opinions, ${decision.split("\n")[0]}`);
} catch (e) {
  failed = String(e);
} finally {
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  await browser.close();
}
if (failed) {
  console.error(`dashboard test failed: ${failed}`);
  process.exit(1);
}
