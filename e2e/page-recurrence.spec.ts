// The payer of a recurrence at its url (docs/recurring.md, "The payer"), against a real gateway:
// see what is subscribed to, choose a currency and network, subscribe, pay the first period on the
// invoice page shown in the frame (simulator), see "Active" and the next date, then cancel after
// confirming. Screens are checked with axe-core in both themes at 390 px (English and Arabic) and
// saved to test-results/screens/.
import { capture, expect, heading, test } from './support/page-helpers.ts';

test.use({ viewport: { width: 390, height: 844 } });

let n = 0;

async function createRecurrence(gw: { api(path: string, body: unknown): Promise<any> }, body: Record<string, unknown> = {}) {
  const created = await gw.api('/v1/recurrence/create', {
    amount: '10', currency: 'USD', name: 'Pro plan', period: 'monthly', discount_days: 7, discount_amount: '2',
    order_id: `e2e-rec-${process.pid}-${++n}`, ...body,
  });
  expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
  return created.result as { uuid: string; url: string };
}

test('subscribe, pay the first period, see it active with the next date, then cancel after confirming', async ({ page, gw }) => {
  const rec = await createRecurrence(gw);
  expect(rec.url).toBe(`${gw.url}/pay/recurrence/${rec.uuid}`);
  await page.goto(rec.url);

  await expect(heading(page)).toHaveText('Pro plan');
  await expect(page.getByText('10.00 USD every month')).toBeVisible();
  await expect(page.getByText('2.00 USD for the first 7 days')).toBeVisible();
  await capture(page, 'recurrence-choose');

  // A wrong email is refused on the page, before anything is asked of the server.
  const email = page.getByRole('textbox', { name: 'Email for reminders (optional)' });
  await email.fill('not an email');
  await page.locator('.option', { hasText: 'Tether' }).getByRole('button', { name: /^TRON \(TRC-20\)/ }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter a valid email address, or leave it empty.');
  await expect(email).toBeFocused();
  await email.fill('payer@example.com');
  await page.locator('.option', { hasText: 'Tether' }).getByRole('button', { name: /^TRON \(TRC-20\)/ }).click();

  // The first period's invoice, on the invoice page in the frame.
  await expect(page.getByRole('heading', { name: 'Pay the first period' })).toBeVisible();
  await expect(page.getByText('USDT on TRON (TRC-20)')).toBeVisible();
  const invoice = page.frameLocator('iframe[title="Payment of this period"]');
  await expect(invoice.getByRole('heading', { level: 1 })).toHaveText(/Send|Pay/);
  await capture(page, 'recurrence-first-period');
  await invoice.getByRole('region', { name: 'Simulate a payment' }).getByRole('button', { name: 'Full amount' }).click();

  // Paid: the worker makes it active; the next payment is when the discount week ends.
  const state = page.getByRole('status').filter({ hasText: 'Active, next payment on' });
  await expect(state).toBeVisible({ timeout: 30_000 });
  const view = (await (await fetch(`${gw.url}/api/pay/recurrence/${rec.uuid}`)).json()).result as { next_payment_at: number; end_of_discount: number };
  // The first full-price period starts when the discount week ends: that is the next payment.
  const end = new Date(view.end_of_discount * 1000);
  expect(view.next_payment_at).toBe(view.end_of_discount);
  expect(end.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  // Said in the payer's language and time zone (the browser's).
  const nextDay = await page.evaluate((s) => new Intl.DateTimeFormat('en-US', { dateStyle: 'long' }).format(s * 1000), view.next_payment_at);
  await expect(state).toHaveText(`Active, next payment on ${nextDay}`);
  await expect(page.getByRole('definition').filter({ hasText: nextDay })).toBeVisible();
  await capture(page, 'recurrence-active');

  // Cancel: a confirmation dialog first; Esc (or "Keep it") leaves everything as it was.
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel this subscription?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('This cannot be undone.');
  await expect(dialog.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(state).toBeVisible();
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  await capture(page, 'recurrence-confirm');
  await dialog.getByRole('button', { name: 'Yes, cancel it' }).click();
  await expect(heading(page)).toHaveText('Subscription cancelled');
  await expect(heading(page)).toBeFocused();
  await capture(page, 'recurrence-cancelled');

  const info = await gw.api('/v1/recurrence/info', { uuid: rec.uuid });
  expect(info.result.status).toBe('cancel_by_user');
});

test('Arabic: the subscription page right to left', async ({ page, gw }) => {
  const rec = await createRecurrence(gw, { name: 'Gold plan' });
  await page.goto(`${rec.url}?lang=ar`);
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(heading(page)).toHaveText('Gold plan');
  await expect(page.getByText('اختر طريقة دفع كل فترة')).toBeVisible();
  await capture(page, 'recurrence-choose-ar');
  await page.locator('.option', { hasText: 'USDT' }).first().getByRole('button').first().click();
  await expect(page.getByRole('heading', { name: 'ادفع الفترة الأولى' })).toBeVisible();
  await expect(page.frameLocator('iframe').locator('html')).toHaveAttribute('dir', 'rtl');
  await capture(page, 'recurrence-first-period-ar');
});

test.describe('unknown link', () => {
  test.use({ allowConsole: [/status of 404/] });
  test('an unknown recurrence shows the not-found screen', async ({ page, gw }) => {
    await page.goto(`${gw.url}/pay/recurrence/00000000-0000-4000-8000-000000000000`);
    await expect(heading(page)).toHaveText('Payment not found');
  });
});
