// The oracle for the gateway's own subaddress derivation: Debian's real monero-wallet-rpc, offline
// (no daemon: deriving and writing addresses needs none). A full wallet is created to get a real
// address, view key and spend key; a VIEW-ONLY wallet is then restored from the address and view
// key alone (what a merchant gives the gateway), and every subaddress it makes must be the one
// moneroSubaddress derives, on mainnet, stagenet and testnet. Its integrated addresses and its
// subaddresses must parse as what the wallet says they are.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMoneroAddress, type MoneroNetwork } from '../../../src/chain/monero/address.ts';
import { checkViewKey, MoneroKeyError } from '../../../src/chain/monero/keys.ts';
import { moneroSubaddress } from '../../../src/chain/monero/subaddress.ts';
import { freePort } from '../../helpers/receiver.ts';

interface WalletRpc {
  call<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

const dirs: string[] = [];
const procs: ChildProcess[] = [];

/** monero-wallet-rpc offline on a free port, its wallets in a temporary folder. */
async function startWalletRpc(network: MoneroNetwork): Promise<WalletRpc> {
  const dir = mkdtempSync(join(tmpdir(), 'satchel-xmr-wallet-'));
  dirs.push(dir);
  const port = await freePort();
  // An unused port as the daemon: offline, the wallet never asks it, but it wants one named.
  const daemonPort = await freePort();
  const flags = network === 'mainnet' ? [] : [`--${network}`];
  const child = spawn(
    'monero-wallet-rpc',
    [...flags, '--offline', '--disable-rpc-login', '--wallet-dir', dir, '--rpc-bind-ip', '127.0.0.1', '--rpc-bind-port', String(port), '--daemon-address', `127.0.0.1:${daemonPort}`, '--log-file', join(dir, 'wallet.log'), '--non-interactive'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  procs.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}/json_rpc`;
  const call = async <T,>(method: string, params: Record<string, unknown> = {}): Promise<T> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: '0', method, params }) });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`monero-wallet-rpc exited:\n${out}`);
    try {
      await call('get_version');
      break;
    } catch {
      if (i > 1200) throw new Error(`monero-wallet-rpc did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    call,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

interface Made {
  network: MoneroNetwork;
  address: string;
  viewKey: string;
  spendKey: string;
  mnemonic: string;
  /** (major, minor, address) as the view-only wallet wrote them. */
  subaddresses: Array<[number, number, string]>;
  integrated: Array<{ integrated: string; paymentId: string; standard: string }>;
}

const made = new Map<MoneroNetwork, Made>();
const NETWORKS: MoneroNetwork[] = ['mainnet', 'stagenet', 'testnet'];

async function makeWallets(network: MoneroNetwork): Promise<Made> {
  const rpc = await startWalletRpc(network);
  try {
    await rpc.call('create_wallet', { filename: 'full', password: '', language: 'English' });
    const { address } = await rpc.call<{ address: string }>('get_address', { account_index: 0 });
    const viewKey = (await rpc.call<{ key: string }>('query_key', { key_type: 'view_key' })).key;
    const spendKey = (await rpc.call<{ key: string }>('query_key', { key_type: 'spend_key' })).key;
    const mnemonic = (await rpc.call<{ key: string }>('query_key', { key_type: 'mnemonic' })).key;
    await rpc.call('close_wallet');
    // What the merchant gives the gateway: the address and the view key, nothing else.
    await rpc.call('generate_from_keys', { filename: 'view-only', address, viewkey: viewKey, password: '', restore_height: 0 });
    const subaddresses: Array<[number, number, string]> = [];
    for (let i = 0; i < 12; i++) {
      const r = await rpc.call<{ address: string; address_index: number }>('create_address', { account_index: 0 });
      subaddresses.push([0, r.address_index, r.address]);
    }
    // A second account: major 1, its own minors.
    const acc = await rpc.call<{ account_index: number; address: string }>('create_account');
    subaddresses.push([acc.account_index, 0, acc.address]);
    for (let i = 0; i < 3; i++) {
      const r = await rpc.call<{ address: string; address_index: number }>('create_address', { account_index: acc.account_index });
      subaddresses.push([acc.account_index, r.address_index, r.address]);
    }
    // get_address agrees with what create_address answered, for every index at once.
    const listed = await rpc.call<{ addresses: Array<{ address: string; address_index: number }> }>('get_address', { account_index: 0 });
    for (const a of listed.addresses) if (a.address_index > 0) expect(subaddresses).toContainEqual([0, a.address_index, a.address]);
    const integrated: Made['integrated'] = [];
    for (const paymentId of ['0123456789abcdef', 'ffffffffffffffff']) {
      const r = await rpc.call<{ integrated_address: string; payment_id: string }>('make_integrated_address', { payment_id: paymentId });
      const split = await rpc.call<{ standard_address: string; payment_id: string }>('split_integrated_address', { integrated_address: r.integrated_address });
      integrated.push({ integrated: r.integrated_address, paymentId: split.payment_id, standard: split.standard_address });
    }
    return { network, address, viewKey, spendKey, mnemonic, subaddresses, integrated };
  } finally {
    await rpc.stop();
  }
}

beforeAll(async () => {
  for (const n of await Promise.all(NETWORKS.map(makeWallets))) made.set(n.network, n);
}, 420_000);

afterAll(async () => {
  for (const c of procs) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each(NETWORKS)('Monero subaddresses on %s, against monero-wallet-rpc', (network) => {
  it('derives every subaddress the view-only wallet made, from the address and view key alone', () => {
    const m = made.get(network)!;
    expect(m.subaddresses.length).toBe(16);
    for (const [major, minor, address] of m.subaddresses) expect(moneroSubaddress(m.address, m.viewKey, major, minor)).toBe(address);
    expect(moneroSubaddress(m.address, m.viewKey, 0, 0)).toBe(m.address);
  });

  it('parses the wallet\'s addresses as the network and kind they are', () => {
    const m = made.get(network)!;
    const primary = parseMoneroAddress(m.address);
    expect(primary).toMatchObject({ network, kind: 'standard' });
    expect(primary.paymentId).toBeUndefined();
    for (const [major, minor, address] of m.subaddresses) {
      const expected = major === 0 && minor === 0 ? 'standard' : 'subaddress';
      expect(parseMoneroAddress(address)).toMatchObject({ network, kind: expected });
    }
    for (const i of m.integrated) {
      expect(i.standard).toBe(m.address);
      expect(parseMoneroAddress(i.integrated)).toEqual({ network, kind: 'integrated', publicSpend: primary.publicSpend, publicView: primary.publicView, paymentId: i.paymentId });
    }
  });

  it('accepts the wallet\'s view key and refuses its spend key and mnemonic, never echoing them', () => {
    const m = made.get(network)!;
    const address = parseMoneroAddress(m.address);
    expect(checkViewKey(address, m.viewKey)).toBe(m.viewKey);
    expect(checkViewKey(address, m.viewKey.toUpperCase())).toBe(m.viewKey);
    for (const [secret, problem] of [[m.spendKey, 'spend_key'], [m.mnemonic, 'seed']] as const) {
      let err: unknown;
      try {
        checkViewKey(address, secret);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MoneroKeyError);
      expect((err as MoneroKeyError).problem).toBe(problem);
      expect((err as Error).message).not.toContain(secret);
      expect((err as Error).message).not.toContain(secret.split(' ')[0]!);
    }
    // Another wallet's view key (the next network's) does not fit this address.
    const other = made.get(NETWORKS[(NETWORKS.indexOf(network) + 1) % 3]!)!;
    expect(() => checkViewKey(address, other.viewKey)).toThrow(/does not belong to this address/);
  });
});
