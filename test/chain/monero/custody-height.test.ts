// The start height stored with a merchant's Monero material is the real daemon's height when the
// key is set: Debian's monerod in --regtest, offline, on free ports in a temporary folder, a few
// blocks mined with generateblocks. The same key set again keeps the stored material (its height
// too); no daemon answering stores null, for the driver to take at its first scan.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMoneroAddress } from '../../../src/chain/monero/address.ts';
import { daemonHeight, moneroWatchOnly, parseMoneroMaterial } from '../../../src/chain/monero/custody.ts';
import { L, leBytesToBigInt, publicKeyOf, scalarToBytes, viewKeyFromSpendKey } from '../../../src/chain/monero/keys.ts';
import { Registry } from '../../../src/registry/index.ts';
import { freePort } from '../../helpers/receiver.ts';

const dir = mkdtempSync(join(tmpdir(), 'satchel-xmr-daemon-'));
let daemon: ChildProcess | undefined;
let url = '';

async function rpc<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${url}/json_rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: '0', method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

function wallet() {
  const spend = scalarToBytes(leBytesToBigInt(randomBytes(32)) % L);
  const view = viewKeyFromSpendKey(spend);
  return { viewKey: bytesToHex(view), address: encodeMoneroAddress('mainnet', 'standard', publicKeyOf(leBytesToBigInt(spend)), publicKeyOf(leBytesToBigInt(view))) };
}

beforeAll(async () => {
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  url = `http://127.0.0.1:${rpcPort}`;
  daemon = spawn(
    'monerod',
    ['--regtest', '--offline', '--fixed-difficulty', '1', '--data-dir', dir, '--rpc-bind-ip', '127.0.0.1', '--rpc-bind-port', String(rpcPort), '--p2p-bind-port', String(p2pPort), '--no-zmq', '--non-interactive', '--log-file', join(dir, 'monerod.log')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  daemon.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  daemon.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  for (let i = 0; ; i++) {
    if (daemon.exitCode !== null) throw new Error(`monerod exited:\n${out}`);
    try {
      await rpc('get_block_count');
      break;
    } catch {
      if (i > 1500) throw new Error(`monerod did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await rpc('generateblocks', { amount_of_blocks: 5, wallet_address: wallet().address });
}, 300_000);

afterAll(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    const exited = new Promise((r) => daemon!.once('exit', r));
    daemon.kill('SIGTERM');
    const t = setTimeout(() => daemon!.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  }
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('the start height of a Monero material', () => {
  const network = Registry.load().network('XMR')!;

  it('is the daemon\'s height when the key is set, and kept when the same key is set again', async () => {
    const w = wallet();
    const { count } = await rpc<{ count: number }>('get_block_count');
    expect(count).toBe(6); // genesis and the 5 mined
    expect(await daemonHeight(url)).toBe(count);
    const parsed = moneroWatchOnly.parse(network, { address: w.address, viewKey: w.viewKey });
    const settings = { driver: 'monero', daemon_url: url };
    const settled = await moneroWatchOnly.settle!(network, settings, parsed, null);
    expect(parseMoneroMaterial(settled.material)).toEqual({ address: w.address, viewKey: w.viewKey, startHeight: count });

    await rpc('generateblocks', { amount_of_blocks: 2, wallet_address: w.address });
    // The same wallet again: the stored material as it is, its height too.
    const again = await moneroWatchOnly.settle!(network, settings, moneroWatchOnly.parse(network, { address: w.address, viewKey: w.viewKey }), settled.material);
    expect(again.material).toBe(settled.material);
    // Another wallet after more blocks: the new height.
    const other = wallet();
    const next = await moneroWatchOnly.settle!(network, settings, moneroWatchOnly.parse(network, { address: other.address, viewKey: other.viewKey }), settled.material);
    expect(parseMoneroMaterial(next.material).startHeight).toBe(count + 2);
  });

  it('is null when no daemon answers, or none is configured', async () => {
    const w = wallet();
    const parsed = moneroWatchOnly.parse(network, { address: w.address, viewKey: w.viewKey });
    const down = `http://127.0.0.1:${await freePort()}`;
    expect(parseMoneroMaterial((await moneroWatchOnly.settle!(network, { driver: 'monero', daemon_url: down }, parsed, null)).material).startHeight).toBeNull();
    expect(parseMoneroMaterial((await moneroWatchOnly.settle!(network, undefined, parsed, null)).material).startHeight).toBeNull();
  });
});
