// Expiry and the screens after it, refunds and holds, against a real gateway. Expiry goes through
// the simulator (`/simulator/expire`); the page's own countdown through Playwright's clock; refunds
// and holds are set in the database (their flows are being built elsewhere).
import { randomUUID } from 'node:crypto';
import { capture, expect, heading, simulator, test } from './support/page-helpers.ts';

test.use({ viewport: { width: 320, height: 720 } });

test('the countdown reaching 0 while the server still says process: "Time is up", no address', async ({ page, gw }) => {
  await page.clock.install();
  const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON', lifetime: 300 });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await expect(page.getByRole('timer')).toHaveText(/^(05:00|04:5\d)$/);
  await expect(page.locator('.timer')).toHaveClass(/is-urgent/); // five minutes or less

  await page.clock.fastForward('04:30');
  await expect(page.getByRole('timer')).toHaveText(/^00:[23]\d$/);
  await page.clock.fastForward('00:40');
  await expect(heading(page)).toHaveText('Time is up');
  await expect(page.getByText('Do not send a payment now. If you already sent one, wait: this page updates by itself.')).toBeVisible();
  await expect(page.getByText(inv.address!)).toHaveCount(0);
  await expect(page.getByRole('img', { name: /QR code/ })).toHaveCount(0);
  await capture(page, 'time-up');
});

test('expired (cancel), and a late payment still shows as paid: the expired screen keeps polling slowly', async ({ page, gw }) => {
  await page.clock.install();
  const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON' });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');

  await gw.simulate('expire', { invoice: inv.uuid });
  await page.clock.fastForward(3000);
  await expect(heading(page)).toHaveText('This payment has expired');
  await expect(page.getByText(`Do not send anything to this address. If you already paid, contact the merchant with order ${inv.order_id}.`)).toBeVisible();
  await expect(simulator(page)).toHaveCount(0);
  await capture(page, 'expired');

  // A payment arrives late: the merchant is credited (D4) and the page finds out on its slow poll.
  const polls: string[] = [];
  page.on('request', (request) => request.url().includes('/api/pay/') && polls.push(request.url()));
  await gw.simulate('pay', { invoice: inv.uuid });
  await page.clock.fastForward(10_000);
  await expect(heading(page)).toHaveText('This payment has expired');
  expect(polls).toEqual([]); // not every 3 s any more
  await page.clock.fastForward(20_000);
  await expect(heading(page)).toHaveText('Payment received');
  expect(polls).toHaveLength(1);
});

test('a payment seen before expiry and dropped after it → failed', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON' });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await gw.simulate('pay', { invoice: inv.uuid, unconfirmed: true });
  await expect(heading(page)).toHaveText('Payment detected');
  await gw.simulate('expire', { invoice: inv.uuid });
  await gw.simulate('drop', { invoice: inv.uuid });
  await expect(heading(page)).toHaveText('Payment failed');
  await expect(page.getByText(/The transaction was not confirmed by the network/)).toBeVisible();
  await expect(page.locator('.tx dd')).toHaveText(/^[0-9a-f]{64}$/);
  await capture(page, 'failed');
});

test('refund in progress, refunded, refund failed', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON' });
  await gw.simulate('pay', { invoice: inv.uuid });
  const screens: Array<[string, string, RegExp]> = [
    ['refund_process', 'Refund in progress', /The merchant is sending your money back/],
    ['refund_paid', 'Refunded', /The merchant has sent your payment back/],
    ['refund_fail', 'Refund failed', /The refund could not be sent/],
  ];
  for (const [status, title, body] of screens) {
    gw.setStatus(inv.uuid, status, true);
    await page.goto(inv.url);
    await expect(heading(page)).toHaveText(title);
    await expect(page.getByText(body)).toBeVisible();
    await expect(page.locator('.summary')).toContainText(`Order number${inv.order_id}`);
    await expect(page.locator('.summary')).toContainText('Amount received10 USDT');
    await capture(page, status.replace('_', '-'));
  }
});

test('an operator hold (locked) shows while the page is open; a system failure too', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON' });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  gw.setStatus(inv.uuid, 'locked', false);
  await expect(heading(page)).toHaveText('Payment on hold');
  await expect(page.getByText(/This payment is being reviewed/)).toBeVisible();
  await expect(simulator(page)).toHaveCount(0);
  await capture(page, 'locked');

  gw.setStatus(inv.uuid, 'system_fail', true);
  await expect(heading(page)).toHaveText('Something went wrong on our side');
  await capture(page, 'system-fail', ['light']);
});

test.describe('an unknown invoice', () => {
  test.use({ allowConsole: [/status of 404/] });
  test('says the link is wrong from the HTML alone, and never asks', async ({ page, gw }) => {
    let polls = 0;
    page.on('request', (request) => request.url().includes('/api/pay/') && polls++);
    await page.goto(`${gw.url}/pay/${randomUUID()}`);
    await expect(heading(page)).toHaveText('Payment not found');
    await capture(page, 'not-found', ['light']);
    await page.waitForTimeout(3500);
    expect(polls).toBe(0);
  });
});
