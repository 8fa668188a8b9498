// Keyboard only, a second language, themes and the Content-Security-Policy, in Debian Chromium
// against a real gateway.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAGE_CSP } from '../src/http/routes/page.ts';
import { capture, expect, heading, simulator, test, useScheme } from './support/page-helpers.ts';

test.describe('keyboard only', () => {
  test.use({ viewport: { width: 320, height: 720 }, permissions: ['clipboard-read', 'clipboard-write'] });

  test('Tab, Enter and Space through choose → copy → simulate, with a visible focus ring', async ({ page, gw }) => {
    const inv = await gw.invoice({ amount: '15', currency: 'USD', url_return: 'https://shop.example/cart' });
    await page.goto(inv.url);
    await expect(heading(page)).toHaveText('Choose how to pay');
    await expect(heading(page)).not.toBeFocused(); // the first screen does not steal focus

    const focused = page.locator(':focus');
    await page.keyboard.press('Tab');
    await expect(focused).toHaveAccessibleName('Language');
    await page.keyboard.press('Tab');
    await expect(focused).toHaveRole('searchbox');
    await page.keyboard.type('usdt tron');
    await page.keyboard.press('Tab');
    await expect(focused).toHaveAccessibleName('TRON (TRC-20) 15 USDT');
    await capture(page, 'keyboard-choose', ['light', 'dark']);
    await page.keyboard.press('Enter');

    await expect(heading(page)).toHaveText('Send the payment');
    await expect(heading(page)).toBeFocused();
    const info = (await gw.api('/v1/payment/info', { uuid: inv.uuid })).result;

    await page.keyboard.press('Tab');
    await expect(focused).toHaveAccessibleName('Copy amount');
    const ring = await focused.evaluate((el) => {
      const style = getComputedStyle(el);
      return { style: style.outlineStyle, width: style.outlineWidth };
    });
    expect(ring).toEqual({ style: 'solid', width: '3px' });
    await capture(page, 'keyboard-copy-focus', ['light', 'dark']);
    await page.keyboard.press('Space');
    await expect(focused).toHaveText('Copied');
    // The display trims zeros ("15 USDT"); the copy is the exact amount the invoice asks for.
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(info.payer_amount);

    await page.keyboard.press('Tab');
    await expect(focused).toHaveAccessibleName('Copy address');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(info.address);

    await page.keyboard.press('Tab');
    await expect(focused).toHaveAccessibleName('Open in wallet');
    await page.keyboard.press('Tab');
    await expect(focused).toHaveAccessibleName('Cancel and return to the store');
    await page.keyboard.press('Tab');
    await expect(focused).toHaveAccessibleName('Full amount');
    await expect(simulator(page).getByRole('button', { name: 'Full amount' })).toBeFocused();
    await page.keyboard.press('Space');

    await expect(heading(page)).toHaveText('Payment received');
    await expect(heading(page)).toBeFocused(); // the button pressed is gone: focus is not lost
  });
});

test.describe('languages', () => {
  test.use({ viewport: { width: 320, height: 720 } });

  test('?lang=es shows Spanish with Spanish number format; the picker switches and the URL keeps it', async ({ page, gw }) => {
    const inv = await gw.invoice({ amount: '1250.5', currency: 'USD' });
    await page.goto(`${inv.url}?lang=es`);
    await expect(heading(page)).toHaveText('Elige cómo pagar');
    await expect(page.locator('html')).toHaveAttribute('lang', 'es-ES');
    await expect(page.getByText('1250,50 USD')).toBeVisible(); // es: no grouping below 10 000
    await capture(page, 'choose-es', ['light']);
    await page.getByRole('searchbox', { name: 'Buscar moneda o red' }).fill('usdt tron');
    await page.getByRole('button', { name: /^TRON \(TRC-20\)/ }).click();
    await expect(heading(page)).toHaveText('Envía el pago');
    await expect(page.locator('#amount')).toHaveText('1250,5 USDT');
    await expect(page.getByRole('button', { name: 'Copiar importe' })).toBeVisible();
    await capture(page, 'pay-es');

    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('ru');
    await expect(heading(page)).toHaveText('Отправьте платёж');
    await expect(page.locator('#amount')).toHaveText(/^1\s250,5 USDT$/);
    expect(new URL(page.url()).searchParams.get('lang')).toBe('ru');
    await capture(page, 'pay-ru', ['dark']);
    await page.reload();
    await expect(heading(page)).toHaveText('Отправьте платёж');
    await expect(page.getByRole('combobox', { name: 'Язык' })).toHaveValue('ru');
  });

  test('the browser language is used without ?lang=', async ({ browser, gw }) => {
    const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: 320, height: 720 } });
    const page = await context.newPage();
    const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON' });
    await page.goto(inv.url);
    await expect(heading(page)).toHaveText('Envie o pagamento');
    await context.close();
  });
});

test.describe('themes', () => {
  test('system preference, the invoice theme and ?theme=, at desktop width', async ({ page, gw }) => {
    await page.setViewportSize({ width: 1024, height: 900 });
    const inv = await gw.invoice({ amount: '15', currency: 'USDT', network: 'TRON' });
    await page.goto(inv.url);
    await expect(heading(page)).toHaveText('Send the payment');
    await useScheme(page, 'dark');
    await useScheme(page, 'light');
    await capture(page, 'pay-desktop');

    const dark = await gw.invoice({ amount: '15', currency: 'USDT', network: 'TRON', theme: 'dark' });
    await page.goto(dark.url);
    await expect(heading(page)).toHaveText('Send the payment');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark'); // the invoice's theme beats the system's
    await page.goto(`${dark.url}?theme=light`);
    await expect(heading(page)).toHaveText('Send the payment');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light'); // ?theme= beats both
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(238, 240, 244)');
  });
});

test.describe('Content-Security-Policy', () => {
  test('the page comes with the strict CSP, works under it, and inline script is really refused', async ({ page, gw, problems }) => {
    const inv = await gw.invoice({ amount: '15', currency: 'USD' });
    const response = await page.goto(inv.url);
    expect(response?.headers()['content-security-policy']).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).toContain('frame-ancestors *');
    await expect(heading(page)).toHaveText('Choose how to pay');
    await page.getByRole('searchbox').fill('btc');
    await page.getByRole('button', { name: /^Bitcoin/ }).click();
    await expect(page.getByRole('img', { name: /QR code to pay/ })).toBeVisible(); // a data: image, allowed
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zh'); // a lazily loaded chunk
    await expect(heading(page)).toHaveText('发送付款');
    await page.locator('.sim').getByRole('button', { name: '全额' }).click();
    await expect(heading(page)).toHaveText('已收到付款');
    expect(problems.csp).toEqual([]);

    // Enforced, not just sent: an injected inline script does not run and is reported.
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.head.append(script);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return (window as unknown as { __inlineRan?: boolean }).__inlineRan ?? false;
    });
    expect(ran).toBe(false);
    await expect.poll(() => problems.csp.length).toBe(1);
    expect(problems.csp[0]).toMatch(/^script-src/);
    problems.csp.length = 0;
    problems.console.splice(0, problems.console.length, ...problems.console.filter((l) => !/Content Security Policy/.test(l)));
  });

  test('a merchant page on another origin may frame it (frame-ancestors *)', async ({ page, gw }) => {
    const inv = await gw.invoice({ amount: '15', currency: 'USDT', network: 'TRON' });
    // The merchant's page: a real server on another port of this machine, so another origin
    // (Chromium refuses to let a page it thinks public frame a loopback one).
    const shop = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><title>Shop</title><iframe title="Payment" src="${inv.url}" width="420" height="900"></iframe>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    try {
      const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;
      expect(new URL(shopUrl).origin).not.toBe(new URL(inv.url).origin);
      await page.goto(shopUrl);
      const frame = page.frameLocator('iframe[title="Payment"]');
      await expect(frame.getByRole('heading', { level: 1 })).toHaveText('Send the payment');
      await expect(frame.locator('#address')).toHaveText(inv.address!);
    } finally {
      shop.closeAllConnections();
      await new Promise((resolve) => shop.close(resolve));
    }
  });
});
