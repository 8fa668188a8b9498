// `satchel merchant custody set --network SOL`, run as an operator runs it on a gateway whose SOL
// runs the `solana` driver (watch-only): a wallet's public key is stored; a program-derived
// address (a token account), malformed base58 and anything that looks like a secret are refused
// with exit code 2, never printed back, and nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { address as kitAddress } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { backends } from '../helpers/backends.ts';
import { STATIC_RATES, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { everythingStored } from '../custody/setup.ts';
import { satchel } from './in-process.ts';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
const WALLET = base58.encode(ed25519.getPublicKey(SEED));
const SECRET64 = base58.encode(new Uint8Array([...SEED, ...ed25519.getPublicKey(SEED)]));
const USDC = 'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

describe.each(await backends())('satchel merchant custody on SOL ($name)', (backend) => {
  let gw: TestGateway;
  // No node answers: setting custody never asks one.
  const networks = JSON.stringify({ SOL: { driver: 'solana', rpc_url: 'http://127.0.0.1:9/', cluster: 'localnet' } });
  const saved = { networks: process.env.SATCHEL_NETWORKS, rates: process.env.SATCHEL_RATES };
  const run = (...args: string[]) => satchel(gw, 'merchant', 'custody', ...args);
  const stored = async (merchantId: string) => gw.ctx.storage.db.selectFrom('merchant_custody').select(['network', 'material']).where('merchant_id', '=', merchantId).execute();

  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_NETWORKS: networks, SATCHEL_RATES: STATIC_RATES } });
    process.env.SATCHEL_NETWORKS = networks;
    process.env.SATCHEL_RATES = JSON.stringify({ sources: { static: { enabled: true } } });
  });
  afterAll(async () => {
    for (const [k, v] of [['SATCHEL_NETWORKS', saved.networks], ['SATCHEL_RATES', saved.rates]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await gw?.close();
  });

  it('stores a wallet\'s public key and shows it', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Sol shop');
    const set = await run('set', '--merchant', m.id, '--network', 'sol', '--address', WALLET);
    expect(set, set.err).toMatchObject({ code: 0, err: '' });
    expect(set.out).toContain(`SOL of ${m.id} now receives into ${WALLET}.`);
    expect(await stored(m.id)).toEqual([{ network: 'SOL', material: WALLET }]);
    const shown = await run('show', '--merchant', m.id);
    expect(shown.out).toMatch(new RegExp(`^SOL {2}watch-only\\n {2}receives into: ${WALLET}$`, 'm'));
  });

  it('refuses a token account (PDA), malformed base58 and secrets, exit code 2, nothing stored or printed back', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Careful sol shop');
    const [ata] = await findAssociatedTokenPda({ owner: kitAddress(WALLET), mint: kitAddress(USDC), tokenProgram: kitAddress(TOKEN_PROGRAM) });
    const cases: Array<[string, RegExp]> = [
      [ata, /not a wallet/],
      [`${WALLET.slice(0, -1)}0`, /base58/],
      [WALLET.slice(0, 30), /32 to 44 base58 characters/],
      [SECRET64, /secret key.*not stored/],
      [JSON.stringify([...base58.decode(SECRET64)]), /keypair file.*not stored/],
      ['abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', /recovery phrase.*not stored/],
    ];
    for (const [address, message] of cases) {
      const r = await run('set', '--merchant', m.id, '--network', 'SOL', '--address', address);
      expect(r.code, address).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.out).toBe('');
      if (address.length > 44) expect(r.err).not.toContain(address.slice(0, 20));
    }
    expect(await stored(m.id)).toEqual([]);
    const everything = await everythingStored(gw);
    expect(everything).not.toContain(SECRET64.slice(0, 20));
    expect(everything).not.toContain(ata);
  });
});
