// Settings → Refunds in Chromium: an owner reads the risk next to the choice, allows the payment
// key for refunds, and finds the change in the audit log; a viewer sees the setting, read-only.
import { acceptLink, expect, heading, test } from './support/dashboard.ts';

test.use({ viewport: { width: 1280, height: 900 } });

test('an owner allows the payment key for refunds, with the risk stated; a viewer cannot change it', async ({ page, gw }) => {
  await acceptLink(page, await gw.user('refunds@e2e.example', 'owner'), 'refunds password 1');
  await expect(heading(page)).toHaveText('Overview');
  await page.getByRole('link', { name: 'Settings' }).click();
  const card = page.getByRole('region', { name: 'Refunds' });
  await expect(card.getByRole('radio', { name: /Payout key only/ })).toBeChecked();
  await expect(card.getByTestId('refund-key-risk')).toContainText('can refund paid invoices to any address');
  await card.getByRole('radio', { name: /Payout or payment key/ }).check();
  await card.getByRole('button', { name: 'Save refund key' }).click();
  await expect(page.getByText('The refund key setting was saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('region', { name: 'Refunds' }).getByRole('radio', { name: /Payout or payment key/ })).toBeChecked();
  await expect(page.getByRole('cell', { name: /allowed refunds with/ }).first()).toBeVisible();

  await page.context().clearCookies();
  await acceptLink(page, await gw.user('refunds-viewer@e2e.example', 'viewer'), 'viewer password 1');
  await page.getByRole('link', { name: 'Settings' }).click();
  const readOnly = page.getByRole('region', { name: 'Refunds' });
  await expect(readOnly).toContainText('Payout or payment key');
  await expect(readOnly.getByTestId('refund-key-risk')).toBeVisible();
  await expect(readOnly.getByRole('button', { name: 'Save refund key' })).toHaveCount(0);
});
