// Settings → Payer emails in Chromium: off by default, the card says the gateway has no SMTP, an
// owner ticks the box and saves, the change stays after a reload and is in the audit log as a
// sentence; a viewer reads the setting without a form.
import { acceptLink, expect, heading, test } from './support/dashboard.ts';

test.use({ viewport: { width: 1280, height: 900 } });

test('an owner turns payer emails on; a viewer reads it', async ({ page, gw }) => {
  await acceptLink(page, await gw.user('payer-emails@e2e.example', 'owner'), 'payer emails password 1');
  await expect(heading(page)).toHaveText('Overview');
  await page.getByRole('link', { name: 'Settings' }).click();
  const card = page.getByRole('region', { name: 'Payer emails' });
  await expect(card.getByRole('checkbox', { name: 'Send subscription emails to payers' })).not.toBeChecked();
  await expect(card.getByTestId('payer-emails-no-smtp')).toContainText('smtp_url');
  await card.getByRole('checkbox', { name: 'Send subscription emails to payers' }).check();
  await card.getByRole('button', { name: 'Save payer emails' }).click();
  await expect(page.getByText('The payer email setting was saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('region', { name: 'Payer emails' }).getByRole('checkbox', { name: 'Send subscription emails to payers' })).toBeChecked();
  await expect(page.getByRole('cell', { name: /turned on emails to subscribers/ }).first()).toBeVisible();

  await page.context().clearCookies();
  await acceptLink(page, await gw.user('payer-emails-viewer@e2e.example', 'viewer'), 'viewer password 1');
  await page.getByRole('link', { name: 'Settings' }).click();
  const readOnly = page.getByRole('region', { name: 'Payer emails' });
  await expect(readOnly).toContainText('Payers get subscription emails');
  await expect(readOnly.getByRole('button', { name: 'Save payer emails' })).toHaveCount(0);
});
