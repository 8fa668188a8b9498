// Settings → Receiving in Chromium, on a gateway whose ETH receives watch-only (anvil) and whose
// DOGE runs in hot custody: the owner sees the hot-custody warning and that ETH is not offered
// without material, sets a cold address with the password asked again, and sees it back with who
// set it; a wrong password is refused with nothing changed. The card is axe-clean in both themes.
import { join } from 'node:path';
import { openStorage } from '../src/db/dialect.ts';
import { createUser, issueSetPasswordLink, setPasswordUrl } from '../src/dashboard/users.ts';
import { CHAIN_ID, startAnvil } from '../test/chain/evm/anvil.ts';
import { startGatewayProcess } from './support/gateway.ts';
import { acceptLink, expect, heading, shoot, test } from './support/dashboard.ts';

test.use({ viewport: { width: 1280, height: 900 } });

const COLD = '0x52908400098527886E0F7030069857D2E4169EE7';

test('an owner sets what ETH payments are received into, with the password asked again', async ({ page }) => {
  const anvil = await startAnvil({ automine: true });
  const gw = await startGatewayProcess({
    env: {
      SATCHEL_NETWORKS: JSON.stringify({
        ETH: { driver: 'evm', rpc_url: anvil.url, chain_id: CHAIN_ID, confirmations: 1, start_block: 1 },
        DOGE: { driver: 'bitcoin-core', rpc_url: 'http://127.0.0.1:9/', chain: 'regtest', custody: 'hot' },
      }),
      SATCHEL_RATES: JSON.stringify({ sources: { static: { enabled: true } } }),
      SATCHEL_PAYER_RATE_LIMIT: '100000',
    },
  });
  const storage = openStorage({ sqlitePath: join(gw.dataDir, 'satchel.sqlite') });
  try {
    const user = await createUser(storage, { merchantId: gw.merchant.id, email: 'owner-receiving@e2e.example', role: 'owner' }, Date.now());
    await acceptLink(page, setPasswordUrl(gw.url, await issueSetPasswordLink(storage, user.id, Date.now())), 'owner password 1');
    await expect(heading(page)).toHaveText('Overview');
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.getByRole('region', { name: 'Receiving' });
    await expect(card.getByTestId('hot-warning')).toContainText('DOGE runs in hot custody');
    const eth = card.getByRole('region', { name: /^ETH/ });
    await expect(eth).toContainText('No receiving material: ETH is not offered to payers.');

    await eth.getByLabel('Receive into').fill(COLD);
    await eth.getByLabel('Your password').fill('not the password');
    await eth.getByRole('button', { name: 'Set ETH material' }).click();
    await expect(eth.getByRole('alert')).toContainText('The password is not right: nothing was changed.');

    await eth.getByLabel('Your password').fill('owner password 1');
    await eth.getByRole('button', { name: 'Set ETH material' }).click();
    await expect(eth.getByRole('status')).toContainText(`ETH now receives into ${COLD}.`);
    await expect(eth.getByTestId('material-eth')).toHaveText(COLD);
    await expect(eth).toContainText('by owner-receiving@e2e.example; 0 deposit addresses derived from it.');
    await expect(eth.getByRole('button', { name: 'Replace ETH material' })).toBeVisible();
    await card.scrollIntoViewIfNeeded();
    await shoot(page, 'settings-receiving');
    await card.screenshot({ path: join('test-results', 'screens', 'dashboard-settings-receiving-card.png') });
  } finally {
    await storage.close();
    await gw.stop();
    await anvil.stop();
  }
});
