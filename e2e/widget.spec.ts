// The widget on a merchant's site, cross-origin: the demo shop (standalone, 127.0.0.2) embeds
// invoices of a real gateway (127.0.0.1) in a modal and inline, and pays them with the simulator.
import { mkdirSync } from 'node:fs';
import { expect, test, type Frame, type Page } from '@playwright/test';
import { startGatewayWithDemo, startWidgetSetup, type WidgetSetup } from './support/widget-shop.ts';

const SHOTS = 'test-results/widget';
let setup: WidgetSetup;

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  setup = await startWidgetSetup();
});
test.afterAll(async () => {
  await setup?.stop();
});

const events = (page: Page) => page.locator('#events li');

async function openShop(page: Page, mode: 'modal' | 'inline' = 'modal') {
  await page.goto(setup.shopUrl);
  await page.waitForFunction(() => Boolean(window.Satchel));
  if (mode === 'inline') await page.getByLabel('On this page').check();
}

/** The gateway's frame of the widget instance whose iframe matches `selector`. */
async function gatewayFrame(page: Page, selector: string): Promise<{ frame: Frame; instance: string }> {
  const iframe = page.locator(selector);
  await expect(iframe).toHaveCount(1);
  const src = (await iframe.getAttribute('src'))!;
  const instance = new URL(src).searchParams.get('instance')!;
  const handle = await iframe.elementHandle();
  const frame = (await handle!.contentFrame())!;
  return { frame, instance };
}

/** Texts of the shop's event log, without intermediate `check` statuses the poller may or may not see. */
async function logged(page: Page): Promise<string[]> {
  return (await events(page).allTextContents()).filter((text) => !text.endsWith('status check'));
}

/** The modal is as tall as the page in it (capped by the viewport), after its height transition. */
async function modalSettled(page: Page, frame: Frame) {
  await expect
    .poll(async () => {
      const dialog = await page.locator('satchel-modal dialog').evaluate((d) => Math.round(d.getBoundingClientRect().height));
      const content = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      const max = await page.evaluate(() => window.innerHeight - 48);
      return Math.abs(dialog - Math.min(content, max));
    })
    .toBeLessThanOrEqual(1);
  await page.waitForTimeout(250); // the cross-origin frame paints its new size
}

/**
 * A full-page capture paints only the part of a cross-origin frame that was on screen, so the
 * viewport is made tall enough for the frame instead.
 */
async function inlineScreenshot(page: Page, selector: string, name: string) {
  const size = page.viewportSize()!;
  const box = (await page.locator(selector).boundingBox())!;
  const scrollY = await page.evaluate(() => window.scrollY);
  await page.setViewportSize({ width: size.width, height: Math.ceil(box.y + scrollY + box.height + 40) });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
  await page.setViewportSize(size);
}

/** Records deep links the widget opens in the shop's window, instead of following them. */
async function spyOnOpenedLinks(page: Page) {
  await page.evaluate(() => {
    (window as any).__opened = [];
    document.addEventListener(
      'click',
      (event) => {
        const target = event.composedPath()[0];
        if (target instanceof HTMLAnchorElement) {
          (window as any).__opened.push(target.href);
          event.preventDefault();
        }
      },
      true,
    );
  });
}

test('modal: pay an invoice, events in order, wallet link opened on top, close returns focus', async ({ page }) => {
  await openShop(page);
  const buy = page.getByRole('button', { name: 'Buy with crypto' }).first();
  await buy.click();

  const dialog = page.locator('satchel-modal dialog');
  await expect(dialog).toBeVisible();
  const pay = page.frameLocator('satchel-modal iframe');
  await expect(pay.getByRole('heading', { level: 1, name: 'Send the payment' })).toBeVisible();
  await expect(events(page)).toHaveText(['modal · loaded', 'modal · status process']);
  const { frame } = await gatewayFrame(page, 'satchel-modal iframe');
  expect(new URL(frame.url()).origin).toBe(setup.gateway.url);
  expect(setup.shopOrigin).not.toBe(setup.gateway.url);

  // The page behind does not scroll while the modal is open.
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).overflow)).toBe('hidden');
  await modalSettled(page, frame);
  await page.screenshot({ path: `${SHOTS}/modal.png` });

  // Deep links do not open from inside an iframe: the loader opens them in the shop's window.
  await spyOnOpenedLinks(page);
  await pay.getByRole('link', { name: 'Open in wallet' }).click();
  await expect.poll(() => page.evaluate(() => (window as any).__opened)).toEqual([expect.stringMatching(/^tron:T\w+\?amount=/)]);

  await pay.getByRole('button', { name: 'Full amount' }).click();
  await expect(pay.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('#order-status')).toContainText('is paid (confirmed by the shop’s server)');
  await modalSettled(page, frame);
  await page.screenshot({ path: `${SHOTS}/modal-paid.png` });

  await pay.getByRole('button', { name: 'Close' }).click();
  await expect(page.locator('satchel-modal')).toHaveCount(0);
  await expect(buy).toBeFocused();
  expect(await logged(page)).toEqual([
    'modal · loaded',
    'modal · status process',
    'modal · status paid',
    'modal · paid',
    'modal · closed (user)',
  ]);
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).overflow)).not.toBe('hidden');
});

test('modal: focus stays inside, Esc closes from the page and from the shop, focus returns to the opener', async ({ page }) => {
  await openShop(page);
  const buy = page.getByRole('button', { name: 'Buy with crypto' }).nth(1);
  await buy.click();
  const pay = page.frameLocator('satchel-modal iframe');
  await expect(pay.getByRole('heading', { level: 1, name: 'Send the payment' })).toBeVisible();
  await expect(events(page)).toHaveText(['modal · loaded', 'modal · status process']);

  // Tab through the page and past its end, then back past its start: focus never reaches the
  // shop behind the modal. (Focus crosses processes asynchronously: each step is awaited.)
  const { frame } = await gatewayFrame(page, 'satchel-modal iframe');
  const focusedInShop = () => page.evaluate(() => document.activeElement?.tagName ?? 'none');
  const focusedInPage = () =>
    frame.evaluate(() => {
      const active = document.activeElement;
      return active && active !== document.body ? (active.textContent || active.tagName).trim() : '';
    });
  const trail: Record<string, string[]> = { Tab: [], 'Shift+Tab': [] };
  for (const key of [...Array<string>(24).fill('Tab'), ...Array<string>(24).fill('Shift+Tab')]) {
    await page.keyboard.press(key);
    await expect.poll(focusedInShop, { timeout: 2000 }).toBe('SATCHEL-MODAL');
    trail[key]!.push(await focusedInPage());
  }
  // Both ways, focus went through the page's controls and wrapped around (each seen twice).
  for (const keys of Object.values(trail)) {
    expect(keys.filter((text) => text === 'Full amount').length).toBeGreaterThanOrEqual(2);
    expect(keys.filter((text) => text === 'Open in wallet').length).toBeGreaterThanOrEqual(2);
  }
  // Esc on a control inside the gateway's page closes the modal.
  await pay.getByRole('button', { name: 'Copy' }).first().focus();
  await expect(pay.getByRole('button', { name: 'Copy' }).first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.locator('satchel-modal')).toHaveCount(0);
  await expect(buy).toBeFocused();
  await expect(events(page).last()).toHaveText('modal · closed (user)');

  // Closed unpaid: the shop offers the payment again with a declarative button (added later).
  const again = page.getByRole('button', { name: 'Pay with crypto' });
  await again.click();
  await expect(pay.getByRole('heading', { level: 1, name: 'Send the payment' })).toBeVisible();
  await expect(events(page).last()).toHaveText('modal · status process');
  // Esc with focus in the shop's document (on the frame element itself).
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.locator('satchel-modal iframe').focus();
  await page.keyboard.press('Escape');
  await expect(page.locator('satchel-modal')).toHaveCount(0);
  await expect(again).toBeFocused();
  expect(await logged(page)).toEqual([
    'modal · loaded',
    'modal · status process',
    'modal · closed (user)',
    'modal · loaded',
    'modal · status process',
    'modal · closed (user)',
  ]);
});

test('inline: the frame sizes itself to the page, pays, and follows the page as it changes', async ({ page }) => {
  await openShop(page, 'inline');
  await page.getByRole('button', { name: 'Buy with crypto' }).first().click();
  const selector = '#pay-here iframe';
  const pay = page.frameLocator(selector);
  await expect(pay.getByRole('heading', { level: 1, name: 'Send the payment' })).toBeVisible();
  await expect(events(page)).toHaveText(['inline · loaded', 'inline · status process']);
  const { frame } = await gatewayFrame(page, selector);

  const sizes = async () => {
    const outer = (await page.locator(selector).boundingBox())!.height;
    const inner = await frame.evaluate(() => ({
      content: Math.ceil(document.body.getBoundingClientRect().height),
      scrolls: document.documentElement.scrollHeight > document.documentElement.clientHeight + 1,
    }));
    return { outer: Math.round(outer), ...inner };
  };
  // Below the fold the browser pauses the frame's rendering; the payer sees it once scrolled to.
  await page.locator(selector).scrollIntoViewIfNeeded();
  await expect.poll(async () => {
    const s = await sizes();
    return Math.abs(s.outer - s.content) <= 1 && !s.scrolls;
  }).toBe(true);
  const before = await sizes();
  await inlineScreenshot(page, selector, 'inline');

  await pay.getByRole('button', { name: 'Full amount' }).click();
  await expect(pay.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('#order-status')).toContainText('is paid');
  // The paid screen is shorter (no address, no simulator): the frame shrinks with it, never scrolls.
  await expect.poll(async () => {
    const s = await sizes();
    return Math.abs(s.outer - s.content) <= 1 && !s.scrolls && s.outer < before.outer;
  }).toBe(true);
  await inlineScreenshot(page, selector, 'inline-paid');
  expect(await logged(page)).toEqual(['inline · loaded', 'inline · status process', 'inline · status paid', 'inline · paid']);
});

test('messages from another origin or another instance are ignored; the JS API, theme and expiry', async ({ page }) => {
  await openShop(page);
  const created = await setup.gateway.api('/v1/payment', { amount: '3', currency: 'USDT', network: 'TRON', order_id: 'widget-guard' });
  expect(created.state).toBe(0);
  const uuid: string = created.result.uuid;

  // The JS API, on an element the shop adds itself, with a callback.
  await page.evaluate((invoice) => {
    const box = document.createElement('div');
    box.id = 'api-box';
    box.innerHTML = '<p>fallback</p>';
    document.querySelector('main')!.append(box);
    (window as any).__events = [];
    (window as any).__handle = window.Satchel!.mount(box, invoice, {
      theme: 'dark',
      lang: 'es',
      onEvent: (event) => (window as any).__events.push(event.type === 'status' ? `status ${(event.payload as { status: string }).status}` : event.type),
    });
  }, uuid);
  const seen = () => page.evaluate(() => (window as any).__events as string[]);
  await expect.poll(seen).toEqual(['loaded', 'status process']);
  const { frame, instance } = await gatewayFrame(page, '#api-box iframe');
  expect(await frame.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  expect(await frame.evaluate(() => document.documentElement.lang)).toMatch(/^es\b/);
  const height = () => page.locator('#api-box iframe').evaluate((f) => (f as HTMLIFrameElement).style.height);
  await expect.poll(height).not.toBe('480px');
  const natural = await height();

  const forged = (overrides: Record<string, unknown>) => ({ source: 'satchel', version: 1, instance, ...overrides });
  // From the shop's own origin (any script on the merchant's page), with the right instance.
  await page.evaluate((messages) => messages.forEach((m) => window.postMessage(m, '*')), [
    forged({ type: 'paid', payload: { status: 'paid' } }),
    forged({ type: 'resize', payload: { height: 123 } }),
    forged({ type: 'close-request', payload: null }),
  ]);
  // From the gateway's origin, but for another instance, or not in Satchel's format.
  await frame.evaluate((messages) => messages.forEach((m) => window.parent.postMessage(m, '*')), [
    forged({ instance: 'w-someone-else', type: 'paid', payload: { status: 'paid' } }),
    forged({ instance: 'w-someone-else', type: 'resize', payload: { height: 123 } }),
    forged({ source: 'other', type: 'resize', payload: { height: 123 } }),
    forged({ version: 2, type: 'resize', payload: { height: 123 } }),
  ]);
  await page.waitForTimeout(500);
  expect(await height()).toBe(natural);
  expect(await seen()).toEqual(['loaded', 'status process']);
  // The same message from the right origin and instance is read: the channel itself works.
  await frame.evaluate((m) => window.parent.postMessage(m, '*'), forged({ type: 'resize', payload: { height: 123 } }));
  await expect.poll(height).toBe('123px');

  // Expiry reaches the shop as a status change and `expired`.
  const expired = await fetch(`${setup.gateway.url}/simulator/expire`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invoice: uuid }),
  });
  expect(expired.status).toBe(200);
  await expect.poll(seen, { timeout: 15_000 }).toEqual(['loaded', 'status process', 'status cancel', 'expired']);

  await page.evaluate(() => (window as any).__handle.unmount());
  await expect(page.locator('#api-box')).toHaveText('fallback');
  expect(await seen()).toEqual(['loaded', 'status process', 'status cancel', 'expired', 'closed']);
});

test('declarative elements added later, DOM events, errors', async ({ page }) => {
  await openShop(page);
  const created = await setup.gateway.api('/v1/payment', { amount: '2', currency: 'USDT', network: 'TRON', order_id: 'widget-declared' });
  await page.evaluate(({ uuid, url }) => {
    (window as any).__dom = [];
    for (const type of ['loaded', 'status', 'paid', 'expired', 'closed', 'error']) {
      document.addEventListener(`satchel:${type}`, (e) => {
        const { detail, target } = e as CustomEvent;
        (window as any).__dom.push(`${(target as Element).id || 'document'} ${detail.mode} ${type}${type === 'error' ? ' ' + detail.payload.code : ''}`);
      });
    }
    const main = document.querySelector('main')!;
    main.insertAdjacentHTML(
      'beforeend',
      `<div id="later-inline" data-satchel-invoice="${url}" data-satchel-mode="inline"></div>
       <button id="later-modal" data-satchel-invoice="${uuid}">Pay later-added</button>
       <button id="bad" data-satchel-invoice="javascript:alert(1)">Bad</button>
       <button id="unknown" data-satchel-invoice="00000000-0000-4000-8000-000000000000">Unknown</button>`,
    );
  }, created.result);
  const dom = () => page.evaluate(() => (window as any).__dom as string[]);
  await expect.poll(dom).toEqual(['later-inline inline loaded', 'later-inline inline status']);
  await expect(page.frameLocator('#later-inline iframe').getByRole('heading', { level: 1, name: 'Send the payment' })).toBeVisible();

  await page.locator('#later-modal').click();
  await expect(page.frameLocator('satchel-modal iframe').getByRole('heading', { level: 1, name: 'Send the payment' })).toBeVisible();
  await expect.poll(dom).toEqual(expect.arrayContaining(['later-modal modal loaded', 'later-modal modal status']));
  await page.keyboard.press('Escape');
  await expect(page.locator('#later-modal')).toBeFocused();

  await page.locator('#bad').click();
  await expect(page.locator('satchel-modal')).toHaveCount(0);
  await page.locator('#unknown').click();
  await expect(page.frameLocator('satchel-modal iframe').getByRole('heading', { name: /not found/i })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.locator('satchel-modal')).toHaveCount(0);

  // Removing the inline element unmounts it; the JS API rejects what is not an invoice.
  await page.evaluate(() => document.getElementById('later-inline')!.remove());
  await expect.poll(dom).toContain('document inline closed');
  const thrown = await page.evaluate(() => {
    try {
      window.Satchel!.open('https://elsewhere.example/pay/abc');
      return 'opened';
    } catch (error) {
      return (error as Error).name;
    }
  });
  expect(thrown).toBe('TypeError');
  expect(await dom()).toEqual([
    'later-inline inline loaded',
    'later-inline inline status',
    'later-modal modal loaded',
    'later-modal modal status',
    'later-modal modal closed',
    'bad modal error bad_invoice',
    'unknown modal loaded',
    'unknown modal error not_found',
    'unknown modal closed',
    'document inline closed',
  ]);
});

test("the gateway's own /demo: the same shop on the gateway's origin", async ({ page }) => {
  const gateway = await startGatewayWithDemo();
  try {
    await page.goto(`${gateway.url}/demo`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pay with crypto without leaving the shop');
    await expect(page.getByRole('alert')).toHaveCount(0); // the "Demo shop" merchant was found
    const buy = page.getByRole('button', { name: 'Buy with crypto' }).nth(1);
    await buy.click();
    const pay = page.frameLocator('satchel-modal iframe');
    await pay.getByRole('button', { name: 'Full amount' }).click();
    await expect(pay.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 15_000 });
    await expect(page.locator('#order-status')).toContainText('is paid (confirmed by the shop’s server)');
    await page.keyboard.press('Escape');
    await expect(buy).toBeFocused();
    expect(await logged(page)).toEqual(['modal · loaded', 'modal · status process', 'modal · status paid', 'modal · paid', 'modal · closed (user)']);
  } finally {
    await gateway.stop();
  }
});
