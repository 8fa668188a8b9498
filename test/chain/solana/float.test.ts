// The Solana payout float: `satchel payout-float address --network SOL` prints the address of the
// key file's key in each form Solana tools write (the address @solana/kit derives), from the
// configuration and the key file alone; a damaged file is refused without its text repeated.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base58 } from '@scure/base';
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { ed25519 } from '@noble/curves/ed25519.js';
import { runCli } from '../../../src/cli/main.ts';
import { solanaPayoutFloat } from '../../../src/chain/solana/float.ts';
import { Registry } from '../../../src/registry/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'satchel-sol-float-'));
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
const sol = (float: Record<string, unknown>) => ({ SOL: { driver: 'solana', rpc_url: 'http://127.0.0.1:9', cluster: 'devnet', payout_float: float } });
const seed = new Uint8Array(32).map((_, i) => (i * 7 + 3) & 0xff);
const publicKey = ed25519.getPublicKey(seed);

describe('the Solana payout float', () => {
  it('prints the address of a CLI keypair file, a base58 secret key and a base58 seed: the one @solana/kit derives', async () => {
    const theirs = (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
    for (const text of [JSON.stringify([...seed, ...publicKey]), base58.encode(Uint8Array.from([...seed, ...publicKey])), base58.encode(seed)]) {
      const r = await satchel(sol({ key_file: file(text + '\n') }), 'payout-float', 'address', '--network', 'SOL');
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toContain(theirs);
    }
  });

  it('refuses a file whose public half is not its seed\'s, without repeating it', async () => {
    const other = ed25519.getPublicKey(new Uint8Array(32).fill(9));
    const text = JSON.stringify([...seed, ...other]);
    const r = await satchel(sol({ key_file: file(text) }), 'payout-float', 'address', '--network', 'SOL');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/networks\.SOL\.payout_float\.key_file/);
    expect(r.err).not.toContain(text.slice(1, 20));
    expect(r.err).not.toContain(base58.encode(seed));
    const open = await satchel(sol({ key_file: file(JSON.stringify([...seed, ...publicKey]), 0o644) }), 'payout-float', 'address', '--network', 'SOL');
    expect(open.err).toMatch(/chmod 600/);
  });

  it('the family form reads the same address', () => {
    const network = Registry.load().network('SOL')!;
    expect(solanaPayoutFloat.address(network, JSON.stringify([...seed, ...publicKey]))).toBe(base58.encode(publicKey));
    expect(() => solanaPayoutFloat.address(network, 'not a key')).toThrow();
  });
});
