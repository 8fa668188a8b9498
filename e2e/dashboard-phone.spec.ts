// Every dashboard screen on a 360 px phone: nothing overflows the viewport sideways or hides part of
// itself behind a clip, and the form controls of one row line up; axe stays clean in both themes.
// Each screen is also saved at 390 px (a common phone) and at 1280 px, light and dark, under
// test-results/screens/ to be looked at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { startReceiver, type Receiver } from '../test/helpers/receiver.ts';
import { acceptLink, expect, heading, test } from './support/dashboard.ts';
import { axe, SCREENS_DIR, settled } from './support/page-helpers.ts';
import { layoutProblems } from './support/layout.ts';

let rx: Receiver;
/** The screens the first test opened by address ([path, name]), for the right-to-left pass. */
const visited: Array<[path: string, name: string]> = [['/', 'overview']];
test.beforeAll(async () => {
  rx = await startReceiver(500); // a failing shop: its webhooks fill the Failing list
});
test.afterAll(async () => {
  await rx?.close();
});

type Scheme = 'light' | 'dark';

async function paint(page: Page, scheme: Scheme): Promise<void> {
  await page.evaluate((s) => (document.documentElement.dataset.theme = s), scheme);
}

/** Checks the screen as it is now: the layout at 360 px, axe in both themes, screenshots at 390 and 1280 px. */
async function look(page: Page, name: string, layout: (page: Page) => Promise<unknown[]> = layoutProblems): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  await page.setViewportSize({ width: 360, height: 780 });
  await settled(page);
  expect.soft(await layout(page), `layout of ${name} at 360 px`).toEqual([]);
  for (const scheme of ['light', 'dark'] as const) {
    await paint(page, scheme);
    expect.soft(await axe(page), `axe on ${name} (${scheme}, 360 px)`).toEqual([]);
  }
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await settled(page);
    // Wide, the fields of a form share rows: their controls must line up there too.
    if (width === 1280) expect.soft((await layoutProblems(page)).filter((p) => p.kind === 'misaligned'), `form rows of ${name} at 1280 px`).toEqual([]);
    for (const scheme of ['light', 'dark'] as const) {
      await paint(page, scheme);
      await page.screenshot({ path: join(SCREENS_DIR, `phone-${name}-${width}-${scheme}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
    }
  }
  await paint(page, 'light');
}

test('every dashboard screen fits a 360 px phone, lines its forms up and is saved at 390 and 1280 px', async ({ page, gw }) => {
  test.setTimeout(480_000);
  const simulate = (body: Record<string, unknown>) => fetch(gw.url + '/simulator/pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  const ids: string[] = [];
  for (const [order, amount] of [['shop-order-1', '10'], ['subscription-2026-11-renewal-000123', '1234.5'], ['shop-order-3', '30']] as const) {
    const r = await gw.api('/v1/payment', { amount, currency: 'USDT', network: 'TRON', order_id: order, url_callback: rx.url });
    expect(r.state, JSON.stringify(r)).toBe(0);
    ids.push(r.result.uuid);
  }
  expect((await simulate({ invoice: ids[0] })).state).toBe(0);
  const fiat = await gw.api('/v1/payment', { amount: '130', currency: 'USD', to_currency: 'BTC', order_id: 'phone-fiat-1' });
  expect(fiat.state, JSON.stringify(fiat)).toBe(0);
  const w = await gw.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'phone-customer-1', url_callback: rx.url });
  expect(w.state, JSON.stringify(w)).toBe(0);
  expect((await simulate({ wallet: w.result.uuid, amount: '25' })).state).toBe(0);

  await page.setViewportSize({ width: 360, height: 780 });
  await page.goto(gw.url + '/dashboard');
  await expect(heading(page)).toHaveText('Sign in');
  await look(page, 'sign-in');
  const link = await gw.user('phone-owner@e2e.example', 'owner');
  await page.goto(link);
  await expect(heading(page)).toHaveText('Choose a password');
  await look(page, 'set-password');
  await acceptLink(page, link, 'phone owner password 1');
  await expect(heading(page)).toHaveText('Overview');
  await expect(page.locator('.chart canvas')).toBeVisible();
  await look(page, 'overview');

  const open = async (path: string, title: string | RegExp) => {
    await page.goto(gw.url + '/dashboard' + path);
    await expect(heading(page)).toHaveText(title);
    if (!visited.some(([p]) => p === path)) visited.push([path, `${visited.length}${path.replace(/\/[0-9a-f-]{36}$/, '/one').replace(/\//g, '-')}`]);
  };
  await open('/invoices', 'Invoices');
  await expect(page.getByRole('link', { name: 'subscription-2026-11-renewal-000123' })).toBeVisible();
  await look(page, 'invoices');
  await open(`/invoices/${ids[0]}`, 'Invoice shop-order-1');
  await look(page, 'invoice');
  await open(`/invoices/${String(fiat.result.uuid)}`, 'Invoice phone-fiat-1');
  await look(page, 'invoice-rates');

  await open('/wallets', 'Static wallets');
  await look(page, 'wallets');
  await open(`/wallets/${String(w.result.uuid)}`, 'Wallet phone-customer-1');
  await expect(page.getByRole('region', { name: 'Top-ups' }).getByRole('cell', { name: '25 USDT' })).toBeVisible();
  await page.getByRole('button', { name: 'Block…' }).click();
  await look(page, 'wallet');

  await open('/payouts', 'Payouts');
  await look(page, 'payouts-empty');
  await open('/payouts/new', 'New payout');
  await page.getByLabel('Order ID').fill('withdraw-1');
  await page.getByLabel('Amount').fill('5');
  await page.getByLabel('Address').fill('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');
  await page.getByRole('button', { name: 'Calculate' }).click();
  const check = page.getByRole('region', { name: 'Check before sending' });
  await expect(check).toContainText('The address receives');
  await look(page, 'payout-new');
  await check.getByRole('button', { name: 'Confirm payout' }).click();
  await expect(heading(page)).toHaveText('Payout withdraw-1');
  await look(page, 'payout');
  await open('/payouts', 'Payouts');
  await expect(page.getByRole('link', { name: 'withdraw-1' })).toBeVisible();
  await look(page, 'payouts');

  await open('/webhooks', 'Webhooks');
  await expect(page.getByRole('region', { name: 'Failing' }).getByRole('link').first()).toBeVisible({ timeout: 15_000 });
  await page.getByRole('region', { name: 'Failing' }).getByText('Attempts and body').first().click();
  await look(page, 'webhooks');
  await open('/unmatched', /Unmatched/);
  await look(page, 'unmatched');
  await open('/no-such-page', 'Not found');
  await look(page, 'not-found');

  await open('/settings', 'Settings');
  const users = page.getByRole('region', { name: 'Users' });
  await users.getByRole('textbox').fill('new-colleague@e2e.example');
  await users.getByRole('button', { name: /Invite|invite link/ }).click();
  await expect(users.getByText(/One-time link for/)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  await look(page, 'settings');

  await page.context().clearCookies();
  await acceptLink(page, await gw.user('phone-admin@e2e.example', 'admin'), 'phone admin password 1');
  await open('/settings', 'Settings');
  const card = page.getByRole('region', { name: 'Readiness for real money' });
  await card.getByRole('button', { name: 'Run the checks' }).click();
  await expect(card.getByRole('status')).toContainText('not ready for real money yet');
  await look(page, 'settings-admin');
});

test.describe('in Arabic', () => {
  // A browser that asks for Arabic: the screens before sign-in are in Arabic (right to left) too.
  test.use({ locale: 'ar' });

  test('in Arabic (right to left) every screen, sign-in and set-password among them, fits a 360 px phone and is saved at 390 and 1280 px', async ({ page, gw }) => {
    test.setTimeout(300_000);
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(gw.url + '/dashboard');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.locator('input[type=password]')).toHaveCount(1);
    await look(page, 'ar-sign-in');
    const link = await gw.user('phone-arabic@e2e.example', 'owner');
    await page.goto(link);
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.locator('input[type=password]')).toHaveCount(2);
    await look(page, 'ar-set-password');
    // Labels and buttons are in Arabic here: the form is filled by its fields' types.
    await page.locator('input[type=password]').nth(0).fill('phone arabic password 1');
    await page.locator('input[type=password]').nth(1).fill('phone arabic password 1');
    await page.locator('form button[type=submit]').click();
    await expect(page.locator('.account')).toBeVisible();
    await page.locator('.lang-pick select').selectOption('ar');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    for (const [path, name] of visited) {
      await page.goto(gw.url + '/dashboard' + (path === '/' ? '' : path));
      await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
      await expect(heading(page)).toBeVisible();
      await look(page, `ar-${name}`);
    }
  });
});
