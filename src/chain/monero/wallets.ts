// The view-only wallets the `monero` driver scans with, kept by the driver itself: the operator runs
// only the daemon. One `monero-wallet-rpc` child process per network, started on a free loopback
// port the first time a poll needs it (and again whenever it has died), with its wallet files in a
// folder of the gateway's data directory. Each merchant's receiving material (a custody row: the
// primary address and the private view key) becomes one view-only wallet file, made with
// `generate_from_keys` the first time and opened in turn afterwards: the process holds one open
// wallet at a time, so the count of merchants costs disk, not memory or processes.
//
// The wallet files are encrypted with a password the driver makes once and keeps beside them
// (`wallet-password.secret`, mode 0600). The RPC listens on 127.0.0.1 only and asks for a login
// (HTTP digest): a random one made at each start, handed to the process in a config file of mode
// 0600 (never on its command line, which every local user may read) that is removed once the process
// answers. What it serves is view-only, nothing on it can spend; the login keeps another local user
// from reading which payments the merchants received.
//
// The child's pid is kept in `wallet-rpc.pid`, with the gateway's own ("walletPid ownerPid"), until
// the child has exited. A gateway killed with SIGKILL cannot stop its child: at the next start that
// pid file names the orphan, which still holds the wallet files, and it is stopped, but only when its
// owner is gone and /proc shows it really is a monero-wallet-rpc serving this very folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { NodeError, NodeUnreachableError } from '../errors.ts';
import { MONERO_WALLET_START_MS } from './limits.ts';
import { MoneroRpc, MoneroRpcError } from './rpc.ts';
import { parsePidFile, pidFileText, reapOrphan } from './orphan.ts';

export type MoneroNetType = 'mainnet' | 'stagenet' | 'testnet';

export interface WalletKeys {
  /** The merchant's primary address. */
  address: string;
  /** The private view key, 64 hex digits. */
  viewKey: string;
}

export interface ViewWalletsOptions {
  /** The monero-wallet-rpc binary (a path, or a name looked up on PATH). */
  binary: string;
  /** Where the wallet files live (made when missing, mode 0700). */
  dir: string;
  /** The daemon, as the network's `daemon_url` names it. */
  daemonUrl: string;
  netType: MoneroNetType;
  maxResponseBytes: number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

/** A wallet file name for a custody row (ids are letters, digits and dashes). */
export function walletName(custodyId: string): string {
  if (!/^[0-9A-Za-z-]{1,64}$/.test(custodyId)) throw new Error(`not a custody id: ${custodyId}`);
  return `view-${custodyId}`;
}

export class ViewWallets {
  private child: ChildProcess | null = null;
  private rpcClient: MoneroRpc | null = null;
  private starting: Promise<MoneroRpc> | null = null;
  private openName: string | null = null;
  private output = '';
  private closed = false;
  /** Times the child was started (the first start and every restart). */
  starts = 0;

  constructor(private readonly o: ViewWalletsOptions) {}

  /** The wallet RPC with the wallet of `custodyId` open, made from `keys` when it has no file yet. */
  async open(custodyId: string, keys: WalletKeys, restoreHeight: number): Promise<MoneroRpc> {
    const rpc = await this.rpc();
    const name = walletName(custodyId);
    if (this.openName === name) return rpc;
    this.openName = null;
    const password = this.password();
    if (existsSync(join(this.o.dir, name)) || existsSync(join(this.o.dir, `${name}.keys`))) {
      await rpc.call('open_wallet', { filename: name, password });
    } else {
      try {
        await rpc.call('generate_from_keys', { filename: name, address: keys.address, viewkey: keys.viewKey, password, restore_height: Math.max(0, restoreHeight), autosave_current: true });
      } catch (err) {
        // The view key was checked against the address when the merchant set it; the wallet says
        // otherwise only if the row was changed behind the gateway's back. Never echo the key.
        if (err instanceof MoneroRpcError) throw new NodeError('generate_from_keys', null, `the view-only wallet of custody ${custodyId} could not be made: ${err.message.replace(keys.viewKey, '<view key>')}`);
        throw err;
      }
      this.o.log('info', 'monero: view-only wallet made', { custody: custodyId, restore_height: restoreHeight });
    }
    // The driver refreshes when it polls; a background refresh would only compete with it.
    await rpc.call('auto_refresh', { enable: false });
    this.openName = name;
    return rpc;
  }

  /** The running wallet RPC, started (again) when it is not running. */
  async rpc(): Promise<MoneroRpc> {
    if (this.closed) throw new NodeUnreachableError('monero-wallet-rpc', null, 'the driver is closed');
    if (this.rpcClient && this.child && this.child.exitCode === null && this.child.signalCode === null) return this.rpcClient;
    this.starting ??= this.start().finally(() => (this.starting = null));
    return this.starting;
  }

  /** Points the wallet RPC at the daemon again (after the daemon was away). */
  async reconnect(rpc: MoneroRpc): Promise<void> {
    await rpc.call('set_daemon', { address: this.daemonAddress().address, trusted: true });
  }

  private daemonAddress(): { address: string; args: string[] } {
    const daemon = new URL(this.o.daemonUrl);
    const address = `${daemon.hostname.replace(/^\[|\]$/g, '')}:${daemon.port || (daemon.protocol === 'https:' ? '443' : '80')}`;
    return {
      address,
      args: [
        `--daemon-address=${address}`,
        `--daemon-ssl=${daemon.protocol === 'https:' ? 'enabled' : 'disabled'}`,
        ...(daemon.username ? [`--daemon-login=${decodeURIComponent(daemon.username)}:${decodeURIComponent(daemon.password)}`] : []),
      ],
    };
  }

  /** The running child's process id (tests), or null. */
  get pid(): number | null {
    return this.child && this.child.exitCode === null && this.child.signalCode === null ? (this.child.pid ?? null) : null;
  }

  private get pidFile(): string {
    return join(this.o.dir, 'wallet-rpc.pid');
  }

  /** Stores the open wallet and stops the child. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    try {
      await this.rpcClient?.call('store', {}, 10_000);
    } catch {
      /* nothing open, or it is going away anyway */
    }
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    });
  }

  /** Removes the pid file when it still names `pid` (another process may have written its own since). */
  private forgetPid(pid: number | undefined): void {
    try {
      if (pid !== undefined && parsePidFile(readFileSync(this.pidFile, 'utf8'))?.pid === pid) rmSync(this.pidFile, { force: true });
    } catch {
      /* no file */
    }
  }

  private password(): string {
    const file = join(this.o.dir, 'wallet-password.secret');
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    return readFileSync(file, 'utf8').trim();
  }

  private async start(): Promise<MoneroRpc> {
    mkdirSync(this.o.dir, { recursive: true, mode: 0o700 });
    this.password();
    const wasRunning = this.starts > 0;
    this.openName = null;
    await reapOrphan(this.pidFile, this.o.dir, this.o.binary, this.o.log);
    let lastErr: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const login = { user: 'satchel', password: randomBytes(24).toString('hex') };
      const loginFile = join(this.o.dir, 'wallet-rpc.conf');
      writeFileSync(loginFile, `rpc-login=${login.user}:${login.password}\n`, { mode: 0o600 });
      chmodSync(loginFile, 0o600);
      const args = [
        `--rpc-bind-ip=127.0.0.1`, `--rpc-bind-port=${port}`, `--config-file=${loginFile}`, `--wallet-dir=${this.o.dir}`,
        ...this.daemonAddress().args, '--trusted-daemon',
        '--non-interactive', '--no-dns', '--log-level=0', `--log-file=${join(this.o.dir, 'wallet-rpc.log')}`, '--max-log-files=2',
        `--shared-ringdb-dir=${join(this.o.dir, 'ringdb')}`,
        ...(this.o.netType === 'mainnet' ? [] : [`--${this.o.netType}`]),
      ];
      this.output = '';
      const child = spawn(this.o.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      if (child.pid !== undefined) writeFileSync(this.pidFile, pidFileText(child.pid), { mode: 0o600 });
      const keep = (b: Buffer) => {
        this.output = (this.output + b.toString()).slice(-4000);
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      const failed = new Promise<Error>((resolve) => {
        child.once('error', (err) => resolve(err));
        child.once('exit', (code, signal) => resolve(new Error(`exited (${code ?? signal})`)));
      });
      const onExit = () => child.kill('SIGKILL');
      process.once('exit', onExit);
      child.once('exit', () => {
        process.removeListener('exit', onExit);
        if (this.child === child) this.openName = null;
        // Only now: a gateway killed while its child was still stopping leaves the file for the next start.
        this.forgetPid(child.pid);
      });
      const rpc = new MoneroRpc(`http://127.0.0.1:${port}`, { maxResponseBytes: this.o.maxResponseBytes, timeoutMs: 30_000, login });
      const deadline = Date.now() + MONERO_WALLET_START_MS;
      let exited: Error | null = null;
      void failed.then((e) => (exited = e));
      for (;;) {
        if (exited) break;
        try {
          await rpc.call('get_version', {}, 2000);
          break;
        } catch (err) {
          if (err instanceof MoneroRpcError) break;
          if (Date.now() > deadline) {
            child.kill('SIGKILL');
            exited = new Error('did not answer in time');
            break;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      rmSync(loginFile, { force: true });
      if (exited) {
        lastErr = new NodeUnreachableError('monero-wallet-rpc', null, `the view-only wallet RPC (${this.o.binary}) ${(exited as Error).message}: ${this.output.slice(-500)}`);
        continue;
      }
      this.child = child;
      this.rpcClient = rpc;
      this.starts++;
      this.o.log(wasRunning ? 'warn' : 'info', wasRunning ? 'monero: the view-only wallet RPC had stopped: started again' : 'monero: view-only wallet RPC started', { port, dir: this.o.dir });
      return rpc;
    }
    throw lastErr;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
