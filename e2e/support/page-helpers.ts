// Browser tests of the hosted payment page: one real gateway per worker, a watcher that fails a
// test on any console error or CSP violation, and `capture()`, which checks a screen with axe-core
// and saves a screenshot of it in both themes.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { test as base, expect, type Page } from '@playwright/test';
import { startGatewayProcess, type E2EGateway } from './gateway.ts';

export { expect };

export const SCREENS_DIR = join(process.cwd(), 'test-results', 'screens');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Served by a route on the page's own origin, so the strict CSP allows it like any page script. */
const AXE_PATH = '/__e2e__/axe.min.js';

export interface PageGateway extends E2EGateway {
  /** Creates an invoice through the signed merchant API; returns its `result`. */
  invoice(body: Record<string, unknown>): Promise<Invoice>;
  /** POST /simulator/{action} (pay, confirm, drop, expire). */
  simulate(action: 'pay' | 'confirm' | 'drop' | 'expire', body: Record<string, unknown>): Promise<any>;
  /** Sets an invoice's status straight in the database (refunds and holds have no API yet). */
  setStatus(uuid: string, status: string, isFinal: boolean): void;
}

export interface Invoice {
  uuid: string;
  url: string;
  address: string | null;
  payer_amount: string | null;
  [key: string]: unknown;
}

let orders = 0;

async function startPageGateway(): Promise<PageGateway> {
  // Many tests poll from one address: the per-address limit must not be what a test measures.
  const gw = await startGatewayProcess({ env: { SATCHEL_PAYER_RATE_LIMIT: '100000' } });
  const db = new Database(join(gw.dataDir, 'satchel.sqlite'));
  db.pragma('busy_timeout = 5000');
  const update = db.prepare('update invoices set status = ?, is_final = ?, version = version + 1, updated_at = ? where id = ?');
  return {
    ...gw,
    async invoice(body) {
      const created = await gw.api('/v1/payment', { order_id: `e2e-${process.pid}-${++orders}`, ...body });
      expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
      return created.result as Invoice;
    },
    async simulate(action, body) {
      const res = await fetch(`${gw.url}/simulator/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { state: number; result?: unknown; message?: string };
      expect(json, JSON.stringify(json)).toMatchObject({ state: 0 });
      return json.result;
    },
    setStatus(uuid, status, isFinal) {
      update.run(status, isFinal ? 1 : 0, Date.now(), uuid);
    },
    async stop() {
      db.close();
      await gw.stop();
    },
  };
}

export interface Problems {
  console: string[];
  csp: string[];
}

/** Listens for console errors, uncaught exceptions and CSP violations, from before the first script. */
async function watch(page: Page): Promise<Problems> {
  const problems: Problems = { console: [], csp: [] };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.console.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.console.push(`pageerror: ${error.message}`));
  await page.exposeBinding('__reportCsp', (_source, text: string) => void problems.csp.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __reportCsp(text: string): void }).__reportCsp(`${e.violatedDirective} blocked ${e.blockedURI}`);
    });
  });
  await page.route(`**${AXE_PATH}`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: AXE_SOURCE }),
  );
  return problems;
}

type Fixtures = { problems: Problems; allowConsole: RegExp[] };
type WorkerFixtures = { gw: PageGateway };

/** Tests of the payment page: `gw` is shared by the worker; every test ends with a clean console. */
export const test = base.extend<Fixtures, WorkerFixtures>({
  gw: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const gw = await startPageGateway();
      await use(gw);
      await gw.stop();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  allowConsole: [[], { option: true }],
  problems: [
    async ({ page, allowConsole }, use) => {
      const problems = await watch(page);
      await use(problems);
      expect(problems.csp, 'CSP violations').toEqual([]);
      expect(problems.console.filter((line) => !allowConsole.some((re) => re.test(line))), 'console errors').toEqual([]);
    },
    { auto: true },
  ],
});

export type Scheme = 'light' | 'dark';

/** Shows the page in a colour scheme (as the system preference) and waits until it applies. */
export async function useScheme(page: Page, scheme: Scheme): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
}

/** Waits until nothing is loading: lazy screens, the QR code, fonts, icons. */
export async function settled(page: Page): Promise<void> {
  await expect(page.locator('.loading, .qr-wait')).toHaveCount(0);
  await page.evaluate(async () => {
    await document.fonts.ready;
    await Promise.all(
      [...document.images].map((img) => (img.complete ? null : new Promise((resolve) => img.addEventListener('load', resolve, { once: true })))),
    );
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core over the whole document; only serious and critical findings are returned. */
export async function axe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ url: AXE_PATH });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: { target: string[] }) => n.target.join(' ')) }));
  });
}

/** The page must never scroll sideways (320 px phones included). */
export async function expectNoOverflow(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, 'horizontal overflow').toBeLessThanOrEqual(client);
}

/**
 * Checks the current screen in light and dark: no serious or critical axe finding, no sideways
 * scrolling; saves test-results/screens/{name}-{scheme}.png. Leaves the page in light.
 */
export async function capture(page: Page, name: string, schemes: Scheme[] = ['light', 'dark']): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  await settled(page);
  for (const scheme of schemes) {
    await useScheme(page, scheme);
    await expectNoOverflow(page);
    expect(await axe(page), `axe on ${name} (${scheme})`).toEqual([]);
    await page.screenshot({ path: join(SCREENS_DIR, `${name}-${scheme}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
  }
  if (schemes.at(-1) !== 'light') await useScheme(page, 'light');
}

export const heading = (page: Page) => page.getByRole('heading', { level: 1 });

/** The test-mode control of the page, as a person sees it. */
export const simulator = (page: Page) => page.getByRole('region', { name: 'Simulate a payment' });
