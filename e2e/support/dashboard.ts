// Browser tests of the merchant dashboard: a real gateway process, users made the way the CLI
// makes them (a one-time link), a watcher that fails a test on console errors or CSP violations,
// and `shoot()`, which checks a view with axe-core at 360 px-safe width and saves it in both themes.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { openStorage, type Storage } from '../../src/db/dialect.ts';
import { createUser, issueSetPasswordLink, setPasswordUrl } from '../../src/dashboard/users.ts';
import { startGatewayProcess, type E2EGateway } from './gateway.ts';
import { axe, expectNoOverflow, settled, SCREENS_DIR } from './page-helpers.ts';

export { expect };

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface DashboardGateway extends E2EGateway {
  storage: Storage;
  /** A user of the e2e merchant and their one-time set-password link. */
  user(email: string, role: 'owner' | 'viewer' | 'admin'): Promise<string>;
}

export async function startDashboardGateway(): Promise<DashboardGateway> {
  const gw = await startGatewayProcess({ env: { SATCHEL_PAYER_RATE_LIMIT: '100000' } });
  const storage = openStorage({ sqlitePath: join(gw.dataDir, 'satchel.sqlite') });
  return {
    ...gw,
    storage,
    async user(email, role) {
      // An instance admin belongs to no merchant.
      const u = await createUser(storage, { merchantId: role === 'admin' ? null : gw.merchant.id, email, role }, Date.now());
      return setPasswordUrl(gw.url, await issueSetPasswordLink(storage, u.id, Date.now()));
    },
    async stop() {
      await storage.close();
      await gw.stop();
    },
  };
}

type Fixtures = { problems: string[] };
type WorkerFixtures = { gw: DashboardGateway };

export const test = base.extend<Fixtures, WorkerFixtures>({
  gw: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const gw = await startDashboardGateway();
      await use(gw);
      await gw.stop();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  problems: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('console', (m) => {
        // A refused request (401/403/429 a test provokes on purpose) is logged by Chromium itself.
        if ((m.type() === 'error' || m.type() === 'warning') && !/Failed to load resource/.test(m.text())) problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      // axe() of page-helpers loads axe-core from this path of the page's own origin (CSP 'self').
      await page.route('**/__e2e__/axe.min.js', (route) => route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: AXE_SOURCE }));
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective} blocked ${e.blockedURI}`));
      });
      await use(problems);
      expect(problems, 'console errors and CSP violations').toEqual([]);
    },
    { auto: true },
  ],
});

export const heading = (page: Page) => page.getByRole('heading', { level: 1 });

/** Signs in through a one-time link, choosing `password`. */
export async function acceptLink(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await expect(heading(page)).toHaveText('Choose a password');
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Repeat the password').fill(password);
  await page.getByRole('button', { name: 'Save and sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible();
}

export async function signIn(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(url + '/dashboard');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible();
}

/** axe-clean, no sideways scrolling, screenshot in light and dark (test-results/screens/dashboard-*). */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  await settled(page);
  const before = await page.evaluate(() => document.documentElement.dataset.theme ?? 'light');
  for (const scheme of ['light', 'dark'] as const) {
    await page.evaluate((s) => (document.documentElement.dataset.theme = s), scheme);
    await expectNoOverflow(page);
    expect(await axe(page), `axe on ${name} (${scheme})`).toEqual([]);
    await page.screenshot({ path: join(SCREENS_DIR, `dashboard-${name}-${scheme}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
  }
  await page.evaluate((s) => (document.documentElement.dataset.theme = s), before);
}
