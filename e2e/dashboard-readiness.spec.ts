// Settings → Readiness in Chromium: an instance admin runs the `satchel doctor` checks and reads
// each result with what to do; the card is axe-clean in both themes. A shop owner has no such card.
import { acceptLink, expect, heading, shoot, test } from './support/dashboard.ts';

test.use({ viewport: { width: 1280, height: 900 } });

test('an instance admin runs the readiness checks from the settings page', async ({ page, gw }) => {
  await acceptLink(page, await gw.user('ops@e2e.example', 'admin'), 'admin password 1');
  await expect(heading(page)).toHaveText('Overview');
  await page.getByRole('link', { name: 'Settings' }).click();
  const card = page.getByRole('region', { name: 'Readiness for real money' });
  await card.getByRole('button', { name: 'Run the checks' }).click();
  // The embedded gateway simulates every network: not ready, and the table says what to do.
  await expect(card.getByRole('status')).toContainText('failed: not ready for real money yet');
  const networks = card.getByRole('row', { name: /networks/ });
  await expect(networks).toContainText('FAIL');
  await expect(networks).toContainText('configure a real driver');
  await expect(card.getByRole('row', { name: /backups/ })).toContainText('WARN');
  await shoot(page, 'settings-readiness');

  await page.context().clearCookies();
  await acceptLink(page, await gw.user('owner-readiness@e2e.example', 'owner'), 'owner password 1');
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('region', { name: 'Networks' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Readiness for real money' })).toHaveCount(0);
});
