// `satchel payout-float address --network XMR`: Monero's float is a full monero-wallet-rpc wallet the
// operator runs (`payout_wallet_rpc_url`), so its address is asked of that wallet (a real
// monero-wallet-rpc here, offline: no daemon is needed to tell a wallet's address). A wallet of
// another network type, a wallet that does not answer and a network without a float exit 1 saying why.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.ts';
import { startWalletRpc, type WalletRpc } from '../helpers/monero-rig.ts';
import { freePort } from '../chain/evm/anvil.ts';

const dir = mkdtempSync(join(tmpdir(), 'satchel-xmr-float-cli-'));
const saved = { config: process.env.SATCHEL_CONFIG, data: process.env.SATCHEL_DATA_DIR };
afterEach(() => {
  for (const [k, v] of [['SATCHEL_CONFIG', saved.config], ['SATCHEL_DATA_DIR', saved.data]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

let mainnet: WalletRpc;
let stagenet: WalletRpc;
let mainAddress: string;
beforeAll(async () => {
  mainnet = await startWalletRpc({ offline: true });
  await mainnet.rpc('create_wallet', { filename: 'float', password: '', language: 'English' });
  mainAddress = (await mainnet.rpc<{ address: string }>('get_address', { account_index: 0 })).address;
  stagenet = await startWalletRpc({ offline: true, extraArgs: ['--stagenet'] });
  await stagenet.rpc('create_wallet', { filename: 'float', password: '', language: 'English' });
}, 120_000);
afterAll(async () => {
  await mainnet?.stop();
  await stagenet?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

let files = 0;
async function satchel(networks: Record<string, unknown>, ...args: string[]) {
  const f = join(dir, `config-${++files}.json`);
  writeFileSync(f, JSON.stringify({ networks }));
  process.env.SATCHEL_CONFIG = f;
  process.env.SATCHEL_DATA_DIR = join(dir, 'data-that-is-never-created');
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { log: (s) => out.push(s), error: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

// The daemon is not there: the command asks only the float wallet.
const xmr = (extra: Record<string, unknown>) => ({ XMR: { driver: 'monero', daemon_url: 'http://127.0.0.1:9', network: 'mainnet', ...extra } });

describe('satchel payout-float address --network XMR', () => {
  it('prints the float wallet\'s primary address, as the wallet tells it', async () => {
    expect(mainAddress).toMatch(/^4/);
    const r = await satchel(xmr({ payout_wallet_rpc_url: mainnet.url, payout_float: { max_per_payout: { XMR: '1' } } }), 'payout-float', 'address', '--network', 'XMR');
    expect(r).toEqual({ code: 0, out: mainAddress, err: '' });
  });

  it('exits 1 saying why: a wallet of another network type, a wallet that does not answer, no float', async () => {
    const wrong = await satchel(xmr({ payout_wallet_rpc_url: stagenet.url }), 'payout-float', 'address', '--network', 'XMR');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/is a stagenet wallet; networks\.XMR\.network is mainnet/);
    expect(wrong.out).toBe('');
    const port = await freePort();
    const away = await satchel(xmr({ payout_wallet_rpc_url: `http://127.0.0.1:${port}` }), 'payout-float', 'address', '--network', 'XMR');
    expect(away.code).toBe(1);
    expect(away.err).toMatch(new RegExp(`payout wallet at http://127\\.0\\.0\\.1:${port} does not answer`));
    const none = await satchel(xmr({}), 'payout-float', 'address', '--network', 'XMR');
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/XMR has no payout float: no payout wallet is configured \(networks\.XMR\.payout_wallet_rpc_url\)/);
  });
});
