// The view-only wallet RPC the `monero` driver starts for itself (src/chain/monero/wallets.ts), a
// real monero-wallet-rpc: it asks for a login (HTTP digest) made at random at each start and never
// put on its command line, which the driver's client answers; a wallet RPC orphaned by a gateway
// killed with SIGKILL (its owner's pid, in the pid file, names no live process) is stopped at the
// next start, one whose owner is alive (another gateway process on the same data directory) is left
// running, and a pid file that names anything else (another program, another folder's wallet RPC)
// stops nothing. The pid file is removed only once the child has exited.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ViewWallets } from '../../../src/chain/monero/wallets.ts';
import { MoneroRpc } from '../../../src/chain/monero/rpc.ts';
import { NodeError } from '../../../src/chain/errors.ts';
import { MONERO_WALLET_RPC } from '../../helpers/monero-rig.ts';

const root = mkdtempSync(join(tmpdir(), 'satchel-xmr-wallets-'));
const started: ViewWallets[] = [];
afterAll(async () => {
  for (const w of started) await w.close().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
}, 60_000);

let dirs = 0;
/** View wallets in `dir`; the daemon is not there (the wallet RPC answers get_version without it). */
function wallets(dir = join(root, `w${++dirs}`)): ViewWallets {
  const w = new ViewWallets({ binary: MONERO_WALLET_RPC, dir, daemonUrl: 'http://127.0.0.1:9', netType: 'mainnet', maxResponseBytes: 1 << 20, log: () => {} });
  started.push(w);
  return w;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the view-only wallet RPC', () => {
  it('asks for a login the driver answers; without it, or with another, nothing is served; the login is on no command line and in no file', { timeout: 120_000 }, async () => {
    const w = wallets();
    const rpc = await w.rpc();
    expect(await rpc.call('get_version')).toMatchObject({ version: expect.any(Number) });
    const plain = await fetch(`${rpc.url}/json_rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: '0', method: 'get_version' }) });
    expect(plain.status).toBe(401);
    expect(plain.headers.get('www-authenticate')).toMatch(/^Digest /);
    // Refused (401), not a server that is away or faulty (subclasses of NodeError).
    await expect(new MoneroRpc(rpc.url, { login: { user: 'satchel', password: 'guessed' } }).call('get_version')).rejects.toMatchObject({ code: 401 });
    await expect(new MoneroRpc(rpc.url, { login: { user: 'satchel', password: 'guessed' } }).call('get_version')).rejects.toThrow(NodeError);
    const argv = readFileSync(`/proc/${w.pid}/cmdline`, 'utf8').split('\0');
    expect(argv.some((a) => a.startsWith('--rpc-login'))).toBe(false);
    expect(argv).toContain(`--config-file=${join(root, `w${dirs}`, 'wallet-rpc.conf')}`);
    expect(argv.some((a) => a === '--disable-rpc-login')).toBe(false);
    expect(argv).toContain('--rpc-bind-ip=127.0.0.1');
    // The file that handed the login over is gone once the process answers.
    expect(readdirSync(join(root, `w${dirs}`)).filter((f) => f.endsWith('.conf'))).toEqual([]);
  });

  it('stops the wallet RPC a killed gateway left behind in the same folder, leaves one whose gateway is alive, and nothing a pid file merely names', { timeout: 240_000 }, async () => {
    const dir = join(root, 'shared');
    const pidFile = join(dir, 'wallet-rpc.pid');
    // The pid file names the child and its owner, this process.
    const first = wallets(dir);
    await first.rpc();
    const orphan = first.pid!;
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(`${orphan} ${process.pid}`);

    // Its owner is alive (another gateway process on the same data directory): left running.
    const second = wallets(dir);
    await second.rpc();
    expect(alive(orphan)).toBe(true);
    expect(second.pid).not.toBe(orphan);
    const live = second.pid!;
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(`${live} ${process.pid}`);

    // The gateway that owns `live` dies without stopping it: the pid file names a dead owner.
    const gone = spawn('true', [], { stdio: 'ignore' });
    await new Promise((r) => gone.once('exit', r));
    writeFileSync(pidFile, `${live} ${gone.pid}\n`);
    const next = wallets(dir);
    await next.rpc();
    await vi.waitFor(() => expect(alive(live)).toBe(false), { timeout: 30_000, interval: 100 });
    expect(alive(orphan)).toBe(true);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(`${next.pid} ${process.pid}`);

    // The older format (the wallet's pid alone) is read as before: its wallet RPC is stopped.
    writeFileSync(pidFile, `${orphan}\n`);
    const after = wallets(dir);
    await after.rpc();
    await vi.waitFor(() => expect(alive(orphan)).toBe(false), { timeout: 30_000, interval: 100 });
    // The stopped child's owner removes no pid file that names another child.
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(`${after.pid} ${process.pid}`);

    // The file stays while the child is stopping, and goes once it has exited.
    const stopping = after.pid!;
    const closing = after.close();
    expect(existsSync(pidFile)).toBe(true);
    expect(alive(stopping)).toBe(true);
    await closing;
    expect(alive(stopping)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
    await next.close();

    // A pid file naming another program, then another folder's wallet RPC: both left running.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    const neighbour = wallets();
    await neighbour.rpc();
    for (const pid of [other.pid!, neighbour.pid!]) {
      const dir2 = join(root, `named-${pid}`);
      const w = wallets(dir2);
      await w.rpc(); // makes the folder; now pretend the file names `pid`
      await w.close();
      writeFileSync(join(dir2, 'wallet-rpc.pid'), `${pid}\n`);
      const again = wallets(dir2);
      await again.rpc();
      expect(alive(pid)).toBe(true);
      await again.close();
    }
    other.kill('SIGKILL');
  });
});
