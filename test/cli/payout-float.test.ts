// `satchel payout-float address --network CODE`: prints the address of a watch-only network's
// payout float from the configuration and the key file alone (no node is reachable here, and no
// database is opened), the same address @ton/ton computes for that key and wallet version.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPairFromSeed, mnemonicNew, mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { runCli } from '../../src/cli/main.ts';

const dir = mkdtempSync(join(tmpdir(), 'satchel-payout-float-'));
const saved = { config: process.env.SATCHEL_CONFIG, data: process.env.SATCHEL_DATA_DIR, key: process.env.SATCHEL_PAYOUT_KEY_FILE };
afterEach(() => {
  for (const [k, v] of [['SATCHEL_CONFIG', saved.config], ['SATCHEL_DATA_DIR', saved.data], ['SATCHEL_PAYOUT_KEY_FILE', saved.key]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function file(content: string, mode = 0o600): string {
  const f = join(dir, `f${++files}`);
  writeFileSync(f, content, { mode });
  chmodSync(f, mode);
  return f;
}

async function satchel(networks: Record<string, unknown>, ...args: string[]) {
  process.env.SATCHEL_CONFIG = file(JSON.stringify({ networks }), 0o644);
  process.env.SATCHEL_DATA_DIR = join(dir, 'data-that-is-never-created');
  delete process.env.SATCHEL_PAYOUT_KEY_FILE;
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { log: (s) => out.push(s), error: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

// A node that is not there: the command must not ask it anything.
const ton = (float: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ TON: { driver: 'ton', api_url: 'http://127.0.0.1:9', payout_float: float, ...extra } });
const seedHex = 'a1'.repeat(32);
const keys = keyPairFromSeed(Buffer.from(seedHex, 'hex'));

describe('satchel payout-float address', () => {
  it('prints the v4r2 float (the default) of a hex seed as @ton/ton computes it, non-bounceable', async () => {
    const r = await satchel(ton({ key_file: file(seedHex + '\n') }), 'payout-float', 'address', '--network', 'TON');
    expect(r).toEqual({ code: 0, out: WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }).address.toString({ bounceable: false }), err: '' });
  });

  it('prints the v5r1 float of a TON mnemonic, and the testnet form on a testnet network', async () => {
    const words = await mnemonicNew(24);
    const kp = await mnemonicToPrivateKey(words);
    const key = file(words.join(' '));
    const main = await satchel(ton({ key_file: key, wallet_version: 'v5r1' }), 'payout-float', 'address', '--network', 'TON');
    expect(main.out).toBe(WalletContractV5R1.create({ publicKey: kp.publicKey }).address.toString({ bounceable: false }));
    const test = await satchel(ton({ key_file: key, wallet_version: 'v5r1' }, { network: 'testnet' }), 'payout-float', 'address', '--network', 'ton');
    const theirs = WalletContractV5R1.create({ publicKey: kp.publicKey, walletId: { networkGlobalId: -3, context: { workchain: 0, walletVersion: 'v5r1', subwalletNumber: 0 } } });
    expect(test).toEqual({ code: 0, out: theirs.address.toString({ bounceable: false, testOnly: true }), err: '' });
  });

  it('says what is wrong and exits non-zero: bad version, no float, unknown network, no --network', async () => {
    const bad = await satchel(ton({ key_file: file(seedHex), wallet_version: 'v3r2' }), 'payout-float', 'address', '--network', 'TON');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/networks\.TON\.payout_float\.wallet_version: "v4r2" \(the default\) or "v5r1" is required/);
    const none = await satchel({ TON: { driver: 'ton', api_url: 'http://127.0.0.1:9' } }, 'payout-float', 'address', '--network', 'TON');
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/TON has no payout float: no payout float is configured/);
    const unknown = await satchel({}, 'payout-float', 'address', '--network', 'NOPE');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/NOPE is not a network/);
    expect((await satchel({}, 'payout-float', 'address')).code).toBe(2);
    const open = await satchel(ton({ key_file: file(seedHex, 0o644) }), 'payout-float', 'address', '--network', 'TON');
    expect(open.code).toBe(1);
    expect(open.err).toMatch(/chmod 600/);
    expect(open.err).not.toContain(seedHex);
  });
});
