// The HTML report in a real browser: Debian's chromium (installed by scripts/setup-browser.sh),
// driven by Playwright through executablePath. Checks what a reader sees: the verdict and
// counts on top, a requirement that expands to its evidence, printing with all expanded,
// no network access and no script from a target's response running.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { runFixture, type FixtureRun } from './run-fixture.ts';

const CHROMIUM = '/usr/bin/chromium';

let browser: Browser | undefined;
let run: FixtureRun;

test.beforeAll(async () => {
  if (!existsSync(CHROMIUM) && process.env.CI) {
    throw new Error(`${CHROMIUM} is missing: CI must install it first (bash scripts/setup-browser.sh)`);
  }
  if (existsSync(CHROMIUM)) run = await runFixture();
});

test.beforeEach(async () => {
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is not installed; run: bash scripts/setup-browser.sh`);
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

test.afterAll(async () => {
  await browser?.close();
});

test('the report shows its verdict and counts, and a requirement expands to its evidence', async () => {
  const page = await browser!.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const dialogs: string[] = [];
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  const url = pathToFileURL(join(run.outDir, 'report.html')).href;
  await page.goto(url);

  await expect(page.locator('#verdict')).toHaveText('NOT CONFORMANT');
  await expect(page.locator('#summary')).toHaveText(/^NOT CONFORMANT \(partial: 1 requirement that applies had no test in this run\) {2}document 2\/4 of 7 checkable \(2 fail\) {2}standard 1\/2 of 2 checkable \(1 non-strict\)/);
  await expect(page.locator('table.counts tr', { hasText: 'document' }).locator('td').nth(2)).toHaveText('2'); // fail column
  await expect(page.locator('section.area h2').first()).toHaveText(/^Alpha <area>/); // escaped text renders as text

  const req = page.locator('details#FIX-002');
  await expect(req.locator('summary')).toContainText('fail FIX-002 document A failing document-level check.');
  const exchange = req.locator('.exchange').first();
  await expect(exchange).toBeHidden();
  await req.locator('summary').click();
  await expect(exchange).toBeVisible();
  await expect(exchange).toContainText('POST http://fixture.invalid/api/core/messages → 202');
  await expect(req).toContainText('Expected: 403');
  await expect(req).toContainText('Schema violations');

  // the target's response carried a <script>: it shows as text and never runs
  await page.locator('details#FIX-001 summary').click();
  await expect(page.locator('details#FIX-001')).toContainText('</pre><script>alert(1)</script>');
  expect(dialogs).toEqual([]);
  expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
  await page.close();
});

test('printing shows every requirement expanded', async () => {
  const page = await browser!.newPage();
  await page.goto(pathToFileURL(join(run.outDir, 'report.html')).href);
  const exchange = page.locator('details#FIX-002 .exchange').first();
  await expect(exchange).toBeHidden();
  await page.emulateMedia({ media: 'print' });
  await expect(exchange).toBeVisible();
  await expect(page.locator('.controls')).toBeHidden();
  await page.close();
});
