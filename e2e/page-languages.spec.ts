// Every screen in the longest of the page's languages at 320 px: nothing may stick out sideways
// (the document must not scroll horizontally and no element may cross the viewport's edges).
// Plus the right-to-left layout (Persian), axe-clean, in both themes, with screenshots.
import type { Page } from '@playwright/test';
import { LANGUAGES } from '../src/page/i18n/index.ts';
import { en, type Messages } from '../src/page/i18n/en.ts';
import { capture, expect, expectNoOverflow, heading, settled, test, type PageGateway } from './support/page-helpers.ts';

test.use({ viewport: { width: 320, height: 720 } });

async function longestLanguage(): Promise<string> {
  let best = { code: 'en', length: Object.values(en).join('').length };
  for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
    const messages = ((await import(`../src/page/i18n/${code}.ts`)) as { default: Messages }).default;
    const length = Object.values(messages).join('').length;
    if (length > best.length) best = { code, length };
  }
  return best.code;
}

/**
 * Fails on any element whose box crosses the left or right edge of the viewport, or whose content
 * spills out of its own box sideways (text running under a neighbour), unless it is cut with an
 * ellipsis on purpose.
 */
async function expectNothingSticksOut(page: Page, screen: string) {
  await settled(page);
  await expectNoOverflow(page);
  const outside = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => !el.closest('.sr-only') && el.getClientRects().length > 0)
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.right > document.documentElement.clientWidth + 0.5 || r.left < -0.5);
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} "${el.textContent?.slice(0, 40)}"`),
  );
  expect(outside, `elements sticking out on ${screen}`).toEqual([]);
  const spilling = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => !el.closest('.sr-only') && el.getClientRects().length > 0 && !(el instanceof SVGElement))
      .filter((el) => {
        const style = getComputedStyle(el);
        if (style.display === 'inline' || style.textOverflow === 'ellipsis' || el.tagName === 'SELECT' || el.tagName === 'INPUT') return false;
        return el.scrollWidth > el.clientWidth + 1 && style.overflowX === 'visible';
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} "${el.textContent?.slice(0, 40)}"`),
  );
  expect(spilling, `content spilling out of its box on ${screen}`).toEqual([]);
}

async function everyScreen(page: Page, gw: PageGateway, lang: string, check: (name: string) => Promise<void>) {
  const fiat = await gw.invoice({ amount: '1250.5', currency: 'USD', url_success: 'https://shop.example/thanks' });
  await page.goto(`${fiat.url}?lang=${lang}`);
  await expect(page.locator('.choose, .search')).not.toHaveCount(0);
  await check('choose');

  const inv = await gw.invoice({ amount: '1250.378412', currency: 'USDT', network: 'TRON', url_success: 'https://shop.example/thanks' });
  await page.goto(`${inv.url}?lang=${lang}`);
  await expect(page.locator('#address')).toBeVisible();
  await check('pay');
  await gw.simulate('pay', { invoice: inv.uuid, amount: '250', unconfirmed: true });
  await expect(page.locator('.confirmations')).toBeVisible();
  await check('partial-seen');
  await gw.simulate('confirm', { invoice: inv.uuid });
  await gw.simulate('pay', { invoice: inv.uuid, unconfirmed: true });
  await expect(page.locator('progress')).toBeVisible();
  await check('confirming');
  await gw.simulate('confirm', { invoice: inv.uuid });
  await expect(page.locator('.hero-success')).toBeVisible();
  await check('paid');
  await page.locator('.hero-success .btn-quiet').first().click();
  await expect(page.locator('.receipt-list')).toBeVisible();
  await check('receipt');

  for (const [status, final] of [['paid_over', true], ['wrong_amount', true], ['cancel', true], ['fail', true], ['system_fail', true], ['refund_process', false], ['refund_paid', true], ['refund_fail', true], ['locked', false]] as const) {
    const other = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON' });
    gw.setStatus(other.uuid, status, final);
    await page.goto(`${other.url}?lang=${lang}`);
    await expect(page.locator('.hero')).toBeVisible();
    await check(status);
  }
  await page.goto(`${gw.url}/pay/00000000-0000-4000-8000-000000000000?lang=${lang}`);
  await expect(page.locator('.hero')).toBeVisible();
  await check('not-found');
}

test.describe('the longest language', () => {
  test.use({ allowConsole: [/status of 404/] });
  test('every screen fits 320 px', async ({ page, gw }) => {
    test.setTimeout(180_000);
    const lang = await longestLanguage();
    await everyScreen(page, gw, lang, (name) => expectNothingSticksOut(page, `${lang} ${name}`));
  });
});

test('Russian fits 320 px on every screen (the known wrap)', async ({ page, gw }) => {
  test.setTimeout(180_000);
  await everyScreen(page, gw, 'ru', async (name) => {
    await expectNothingSticksOut(page, `ru ${name}`);
    if (name === 'pay' || name === 'receipt') await capture(page, `ru-${name}`, ['light']);
  });
});

test('right to left (Persian): mirrored, axe-clean in both themes', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '20', currency: 'USDT', network: 'TRON', url_success: 'https://shop.example/thanks' });
  await page.goto(`${inv.url}?lang=fa`);
  await expect(heading(page)).toHaveText('پرداخت را ارسال کنید');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  // Mirrored: the order sits on the right of the header, the language picker on the left.
  const order = await page.locator('.order').boundingBox();
  const picker = await page.locator('.lang').boundingBox();
  expect(order!.x).toBeGreaterThan(picker!.x);
  await capture(page, 'rtl-fa-pay');
  await gw.simulate('pay', { invoice: inv.uuid, unconfirmed: true });
  await expect(page.locator('progress')).toBeVisible();
  await capture(page, 'rtl-fa-confirming');
  await gw.simulate('confirm', { invoice: inv.uuid });
  await page.getByRole('button', { name: 'مشاهدهٔ رسید' }).click();
  await expect(heading(page)).toHaveText('رسید');
  await capture(page, 'rtl-fa-receipt');
});
