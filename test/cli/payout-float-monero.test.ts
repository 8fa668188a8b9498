// `satchel payout-float address --network XMR`: Monero's float is a full monero-wallet-rpc wallet the
// operator runs (`payout_wallet_rpc_url`), so its address is asked of that wallet (a real
// monero-wallet-rpc here, offline: no daemon is needed to tell a wallet's address), also one started
// with `--rpc-login` (HTTP digest, the login in the URL or the settings). A wallet of
// another network type, a wallet that does not answer and a network without a float exit 1 saying why.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.ts';
import { MoneroHttp } from '../../src/chain/monero/payout.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { MONERO_WALLET_RPC, startWalletRpc, type WalletRpc } from '../helpers/monero-rig.ts';
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
let locked: { proc: ChildProcess; url: string; address: string; dir: string };
beforeAll(async () => {
  // A wallet RPC with a login, given in a config file as an operator might.
  const lockedDir = mkdtempSync(join(dir, 'locked-'));
  writeFileSync(join(lockedDir, 'rpc.conf'), 'rpc-login=operator:s3cret\n', { mode: 0o600 });
  const port = await freePort();
  const proc = spawn(MONERO_WALLET_RPC, [`--config-file=${join(lockedDir, 'rpc.conf')}`, '--rpc-bind-ip=127.0.0.1', `--rpc-bind-port=${port}`, `--wallet-dir=${lockedDir}`, '--offline', '--non-interactive', `--log-file=${join(lockedDir, 'rpc.log')}`], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const client = new MoneroHttp(url, { user: 'operator', password: 's3cret' }, 'test wallet');
  for (let i = 0; ; i++) {
    try {
      await client.call('get_version');
      break;
    } catch (err) {
      if (i > 600) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await client.call('create_wallet', { filename: 'float', password: '', language: 'English' });
  locked = { proc, url, dir: lockedDir, address: String((await client.call('get_address', { account_index: 0 })).address) };

  mainnet = await startWalletRpc({ offline: true });
  await mainnet.rpc('create_wallet', { filename: 'float', password: '', language: 'English' });
  mainAddress = (await mainnet.rpc<{ address: string }>('get_address', { account_index: 0 })).address;
  stagenet = await startWalletRpc({ offline: true, extraArgs: ['--stagenet'] });
  await stagenet.rpc('create_wallet', { filename: 'float', password: '', language: 'English' });
}, 120_000);
afterAll(async () => {
  locked?.proc.kill('SIGTERM');
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

  it('logs in to a wallet started with --rpc-login, with the login in the URL or in the settings; a wrong one is refused', { timeout: 60_000 }, async () => {
    const inUrl = await satchel(xmr({ payout_wallet_rpc_url: locked.url.replace('http://', 'http://operator:s3cret@') }), 'payout-float', 'address', '--network', 'XMR');
    expect(inUrl).toEqual({ code: 0, out: locked.address, err: '' });
    const inSettings = await satchel(xmr({ payout_wallet_rpc_url: locked.url, payout_wallet_rpc_user: 'operator', payout_wallet_rpc_password: 's3cret' }), 'payout-float', 'address', '--network', 'XMR');
    expect(inSettings).toEqual({ code: 0, out: locked.address, err: '' });
    const wrong = await satchel(xmr({ payout_wallet_rpc_url: locked.url, payout_wallet_rpc_user: 'operator', payout_wallet_rpc_password: 'guess' }), 'payout-float', 'address', '--network', 'XMR');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/refused the login/);
    expect(wrong.err).not.toContain('guess');
    const none = await satchel(xmr({ payout_wallet_rpc_url: locked.url }), 'payout-float', 'address', '--network', 'XMR');
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/asks for a login/);
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
