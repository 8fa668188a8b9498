// Settings → Receiving for a network that takes a wallet's primary address and its private view key
// (XMR), through the dashboard's API as the form sends it (`address` and `view_key`): the owner
// sets it with the password (shown back as the address only, never the key); a spend key, a
// mismatched key or a missing one is answered 422 naming the problem, nothing stored, the secret
// never in the answer. XMR runs the simulated driver here: the change is stored with the warning
// that the network is still in hot custody.
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { STATIC_RATES, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { encodeMoneroAddress } from '../../src/chain/monero/address.ts';
import { L, leBytesToBigInt, publicKeyOf, scalarToBytes, viewKeyFromSpendKey } from '../../src/chain/monero/keys.ts';
import { signedInOwner, type Browser } from './browser.ts';

const PASSWORD = 'correct horse battery';

function wallet() {
  const spend = scalarToBytes(leBytesToBigInt(randomBytes(32)) % L);
  const view = viewKeyFromSpendKey(spend);
  return { spendKey: bytesToHex(spend), viewKey: bytesToHex(view), address: encodeMoneroAddress('mainnet', 'standard', publicKeyOf(leBytesToBigInt(spend)), publicKeyOf(leBytesToBigInt(view))) };
}

describe.each(await backends())('dashboard receiving settings for XMR on $name', (backend) => {
  let gw: TestGateway;
  let owner: Browser;
  const rows = () => gw.ctx.storage.db.selectFrom('merchant_custody').selectAll().where('merchant_id', '=', gw.merchant.id).where('network', '=', 'XMR').execute();

  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_RATES: STATIC_RATES } });
    owner = await signedInOwner(gw, 'owner', 'owner@shop.example', PASSWORD);
  });
  afterAll(async () => gw?.close());

  it('refuses a spend key, another wallet\'s key and no key (422, nothing stored, the key never answered back)', async () => {
    const w = wallet();
    const other = wallet();
    const cases: Array<[Record<string, string>, RegExp, string | null]> = [
      [{ address: w.address, view_key: w.spendKey }, /SPEND key/, w.spendKey],
      [{ address: w.address, view_key: other.viewKey }, /does not belong to this address/, other.viewKey],
      [{ address: w.address }, /private view key is required/, null],
      [{ address: w.address, view_key: '' }, /private view key is required/, null],
    ];
    for (const [body, message, secret] of cases) {
      const r = await owner.call('POST', '/receiving', { network: 'XMR', ...body, password: PASSWORD });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.message).toMatch(message);
      if (secret) expect(r.raw).not.toContain(secret);
    }
    expect(await rows()).toEqual([]);
  });

  it('an owner sets the address and view key: shown back as the address, the key stored for deriving only', async () => {
    const w = wallet();
    const r = await owner.call('POST', '/receiving', { network: 'XMR', address: w.address, view_key: w.viewKey, password: PASSWORD });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toMatchObject({ outcome: 'set', network: 'XMR', summary: `${w.address} (view key)` });
    expect(r.body.result.warning).toMatch(/XMR runs in hot custody/);
    expect(r.raw).not.toContain(w.viewKey);
    const [row] = await rows();
    expect(JSON.parse(row!.material)).toEqual({ address: w.address, viewKey: w.viewKey, startHeight: null });
    const listed = await owner.call('GET', '/receiving');
    expect(listed.raw).not.toContain(w.viewKey);
  });
});
