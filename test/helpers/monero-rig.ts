// Test rig for the Monero family: Debian's monerod in --regtest (mainnet address formats, network
// type "fakechain") on free loopback ports in a temporary folder, mined with generateblocks, and a
// payer wallet in its own monero-wallet-rpc whose coins come from mining to it. Everything real:
// the tests pay with `transfer` from the payer and the gateway sees the payment the way it would on
// mainnet. `startWalletRpc` starts further wallet RPCs for tests that need one (a payout wallet).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../chain/evm/anvil.ts';

export const MONEROD = process.env.SATCHEL_MONEROD ?? '/usr/bin/monerod';
export const MONERO_WALLET_RPC = process.env.SATCHEL_MONERO_WALLET_RPC ?? '/usr/bin/monero-wallet-rpc';
/** Coinbase outputs unlock after 60 blocks; ten more so the first payments find decoys. */
const COINBASE_LOCK = 60;

export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

/** JSON-RPC 2.0 on `<url>/json_rpc` (monerod and monero-wallet-rpc speak the same envelope). */
export async function jsonRpc<T = any>(url: string, method: string, params: unknown = {}, timeoutMs = 120_000): Promise<T> {
  const res = await fetch(`${url}/json_rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: '0', method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: { result?: T; error?: { code: number; message: string } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${method}: HTTP ${res.status} ${text.slice(0, 200)}`);
  }
  if (body.error) throw new RpcError(method, body.error.code, body.error.message);
  return body.result as T;
}

/** monerod's plain JSON endpoints (/pop_blocks, /get_transactions, ...). */
export async function otherRpc<T = any>(url: string, path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(`${url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

interface Child {
  proc: ChildProcess;
  output: () => string;
}

function launch(bin: string, args: string[]): Child {
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 20_000) out = out.slice(-10_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const onExit = () => proc.kill('SIGKILL');
  process.once('exit', onExit);
  proc.once('exit', () => process.removeListener('exit', onExit));
  return { proc, output: () => out };
}

async function stopChild(proc: ChildProcess | null, graceMs = 20_000): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), graceMs).unref();
  });
}

async function waitForRpc(url: string, child: Child, what: string, method: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(`${what} exited (${child.proc.exitCode ?? child.proc.signalCode}): ${child.output().slice(-2000)}`);
    }
    try {
      await jsonRpc(url, method, {}, 5000);
      return;
    } catch (err) {
      if (err instanceof RpcError) return; // it answers, even if with an error (wallet RPC with no wallet open)
      if (Date.now() > deadline) {
        child.proc.kill('SIGKILL');
        throw new Error(`${what} did not answer: ${child.output().slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export interface WalletRpc {
  /** http://127.0.0.1:<port>, without login (started with --disable-rpc-login). */
  url: string;
  walletDir: string;
  rpc<T = any>(method: string, params?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/**
 * A monero-wallet-rpc on a free port with its own wallet folder, talking to `daemonUrl` (or
 * offline). No wallet is open: the caller creates or opens one (`create_wallet`, `generate_from_keys`).
 */
export async function startWalletRpc(opts: { daemonUrl?: string; walletDir?: string; offline?: boolean; extraArgs?: string[] } = {}): Promise<WalletRpc> {
  const walletDir = opts.walletDir ?? mkdtempSync(join(tmpdir(), 'satchel-xmr-wallet-'));
  mkdirSync(walletDir, { recursive: true });
  let lastErr: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const args = [
      `--rpc-bind-port=${port}`, '--rpc-bind-ip=127.0.0.1', '--disable-rpc-login', `--wallet-dir=${walletDir}`,
      `--shared-ringdb-dir=${join(walletDir, '.ringdb')}`, `--log-file=${join(walletDir, 'wallet-rpc.log')}`,
      '--non-interactive', '--no-dns', '--log-level=0',
      ...(opts.offline || !opts.daemonUrl ? ['--offline'] : [`--daemon-address=${opts.daemonUrl.replace(/^https?:\/\//, '')}`, '--trusted-daemon']),
      ...(opts.extraArgs ?? []),
    ];
    const child = launch(MONERO_WALLET_RPC, args);
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForRpc(url, child, 'monero-wallet-rpc', 'get_version');
    } catch (err) {
      lastErr = err;
      continue;
    }
    const created = opts.walletDir === undefined;
    return {
      url,
      walletDir,
      rpc: (method, params) => jsonRpc(url, method, params ?? {}),
      async stop() {
        try {
          await jsonRpc(url, 'close_wallet', {}, 10_000);
        } catch {
          /* no wallet open, or already gone */
        }
        await stopChild(child.proc);
        if (created) rmSync(walletDir, { recursive: true, force: true });
      },
    };
  }
  throw lastErr;
}

export interface MoneroRig {
  /** The daemon's RPC, as the gateway is configured with it (`daemon_url`). */
  daemonUrl: string;
  dataDir: string;
  /** The payer: a full wallet holding mined coins. */
  payer: WalletRpc & { address: string };
  daemon<T = any>(method: string, params?: unknown): Promise<T>;
  /** Mines `n` blocks (to the payer unless `to` is given); returns the new block count. */
  mine(n?: number, to?: string): Promise<number>;
  /** Pays `amountAtomic` piconero to `address` from the payer (relayed to the pool); returns the txid. */
  pay(address: string, amountAtomic: bigint): Promise<string>;
  /** Pays several destinations in one transaction; returns the txid. */
  payMany(destinations: Array<{ address: string; amountAtomic: bigint }>): Promise<string>;
  /** Removes the top `n` blocks (their transactions go back to the pool). */
  popBlocks(n: number): Promise<number>;
  /** Drops every transaction from the daemon's pool (after popBlocks, so they never come back). */
  flushPool(txids?: string[]): Promise<void>;
  /** Block count (the height the next block will get). */
  height(): Promise<number>;
  /** Stops monerod (the chain stays on disk). */
  stopDaemon(): Promise<void>;
  /** Starts monerod again on the same data folder and port, keeping the chain. */
  startDaemon(): Promise<void>;
  startWalletRpc(opts?: { walletDir?: string; extraArgs?: string[] }): Promise<WalletRpc>;
  /** Stops every process the rig started and removes its folders. */
  close(): Promise<void>;
}

export async function startMoneroRig(opts: { fund?: boolean } = {}): Promise<MoneroRig> {
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-xmr-'));
  const wallets: WalletRpc[] = [];
  let daemon: Child | null = null;
  let rpcPort = 0;
  let p2pPort = 0;
  let daemonUrl = '';

  const startDaemon = async (keep: boolean) => {
    const args = [
      '--regtest', '--offline', '--fixed-difficulty', '1', '--non-interactive', `--data-dir=${dataDir}`,
      `--rpc-bind-ip=127.0.0.1`, `--rpc-bind-port=${rpcPort}`, `--p2p-bind-ip=127.0.0.1`, `--p2p-bind-port=${p2pPort}`,
      '--no-zmq', '--no-igd', '--hide-my-port', `--log-file=${join(dataDir, 'monerod.log')}`, '--log-level=0',
      '--max-txpool-weight=268435456', ...(keep ? ['--keep-fakechain'] : []),
    ];
    const child = launch(MONEROD, args);
    await waitForRpc(daemonUrl, child, 'monerod', 'get_info', 120_000);
    daemon = child;
  };

  let lastErr: unknown;
  for (let attempt = 0; attempt < 3 && !daemon; attempt++) {
    rpcPort = await freePort();
    p2pPort = await freePort();
    daemonUrl = `http://127.0.0.1:${rpcPort}`;
    try {
      await startDaemon(false);
    } catch (err) {
      lastErr = err;
    }
  }
  if (!daemon) {
    rmSync(dataDir, { recursive: true, force: true });
    throw lastErr;
  }
  const rpcd = <T,>(method: string, params?: unknown) => jsonRpc<T>(daemonUrl, method, params ?? {});
  const height = async () => (await rpcd<{ count: number }>('get_block_count')).count;
  let burn = '';
  const poolHashes = async () => (await otherRpc<{ tx_hashes?: string[] }>(daemonUrl, 'get_transaction_pool_hashes', {})).tx_hashes ?? [];
  const mine = async (n = 1, to = burn) => {
    let left = n;
    // monerod keeps a transaction just handed to it out of the blocks it makes while Dandelion++
    // holds it in its stem phase, which on a loaded machine can outlast the next block. A test that
    // pays and mines one block means "the payment is now one block deep": the first block is made
    // again (popped, then mined after a pause) until it holds every transaction the pool held.
    const pending = left > 0 ? await poolHashes() : [];
    if (pending.length > 0) {
      for (let tries = 1; ; tries++) {
        const at = await height();
        await rpcd('generateblocks', { amount_of_blocks: 1, wallet_address: to });
        const block = await rpcd<{ tx_hashes?: string[] }>('get_block', { height: at });
        const held = new Set(block.tx_hashes ?? []);
        if (pending.every((t) => held.has(t))) break;
        if (tries >= 120) throw new Error(`the pool's ${pending.join(', ')} still not in a block after ${tries} tries`);
        await otherRpc(daemonUrl, 'pop_blocks', { nblocks: 1 });
        await new Promise((r) => setTimeout(r, 250));
      }
      left -= 1;
    }
    while (left > 0) {
      const step = Math.min(left, 100);
      await rpcd('generateblocks', { amount_of_blocks: step, wallet_address: to });
      left -= step;
    }
    return height();
  };

  const startWallet = async (o: { walletDir?: string; extraArgs?: string[] } = {}) => {
    const w = await startWalletRpc({ daemonUrl, ...o });
    wallets.push(w);
    return w;
  };

  const payerRpc = await startWallet({ walletDir: join(dataDir, 'payer-wallets') });
  await payerRpc.rpc('create_wallet', { filename: 'payer', password: '', language: 'English' });
  const { address } = await payerRpc.rpc<{ address: string }>('get_address', { account_index: 0 });
  const payer = { ...payerRpc, address };
  burn = address; // blocks nobody asked for pay the payer: harmless, and no second wallet to keep
  if (opts.fund !== false) {
    await mine(20, address);
    await mine(COINBASE_LOCK + 10);
    await payerRpc.rpc('refresh', {});
  }

  // After the daemon was stopped and started, the payer's wallet RPC answers "no connection to
  // daemon" (-38) until its next connection check; a loaded machine makes that take seconds.
  const whenConnected = async <T>(call: () => Promise<T>): Promise<T> => {
    const until = Date.now() + 60_000;
    for (;;) {
      try {
        return await call();
      } catch (e) {
        if (!(e instanceof RpcError && e.code === -38) || Date.now() > until) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  const transfer = async (destinations: Array<{ address: string; amountAtomic: bigint }>) => {
    await whenConnected(() => payerRpc.rpc('refresh', {}));
    const r = await whenConnected(() => payerRpc.rpc<{ tx_hash: string }>('transfer', {
      destinations: destinations.map((d) => ({ address: d.address, amount: Number(d.amountAtomic) })),
      priority: 0,
      ring_size: 16,
      get_tx_key: false,
    }));
    return r.tx_hash;
  };

  return {
    daemonUrl,
    dataDir,
    payer,
    daemon: rpcd,
    mine,
    pay: (address, amountAtomic) => {
      if (amountAtomic > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('the rig pays at most 2^53-1 piconero in one output');
      return transfer([{ address, amountAtomic }]);
    },
    payMany: (d) => transfer(d),
    async popBlocks(n) {
      await otherRpc(daemonUrl, 'pop_blocks', { nblocks: n });
      return height();
    },
    async flushPool(txids) {
      await rpcd('flush_txpool', txids ? { txids } : {});
    },
    height,
    async stopDaemon() {
      await stopChild(daemon?.proc ?? null, 60_000);
    },
    async startDaemon() {
      if (daemon && daemon.proc.exitCode === null && daemon.proc.signalCode === null) return;
      await startDaemon(true);
    },
    startWalletRpc: startWallet,
    async close() {
      for (const w of wallets.splice(0)) await w.stop().catch(() => undefined);
      await stopChild(daemon?.proc ?? null, 60_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
