// docs/going-live.md's local example, run as the page writes it, so the page cannot rot: every
// block marked `<!-- example:NAME -->` is taken from the page and run in order (anvil, the config
// file, `npm start`, the merchant's cold address, creating an invoice with the CLI, paying it with
// curl, reading it back). Only what would collide on a shared machine is changed: the two ports,
// the data folder and where invoice.json is written; the config file is named with SATCHEL_CONFIG
// instead of being put in the repository's folder.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.ts';
import { freePort } from '../chain/evm/anvil.ts';

const run = promisify(execFile);
const DOC = readFileSync(join(ROOT, 'docs/going-live.md'), 'utf8');

/** The fenced block that follows `<!-- example:NAME -->`. */
function block(name: string): string {
  const m = new RegExp(`<!-- example:${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(DOC);
  if (!m) throw new Error(`docs/going-live.md has no example block "${name}"`);
  return m[1]!;
}

describe('docs/going-live.md: the local example on anvil, as written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satchel-going-live-'));
  const procs: ChildProcess[] = [];
  let subst: (s: string) => string;
  let env: NodeJS.ProcessEnv;
  let gateway = '';
  let output = '';

  /** Runs one of the page's shell blocks (not a server) and returns what it printed. */
  const sh = async (name: string): Promise<string> => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', subst(block(name))], { cwd: ROOT, env, timeout: 60_000 });
    return stdout;
  };
  /** Starts one of the page's server blocks in its own process group (npm start spawns children). */
  const serve = (name: string): ChildProcess => {
    const child = spawn('bash', ['-c', `exec ${subst(block(name)).trim()}`], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    procs.push(child);
    return child;
  };
  const waitFor = async (what: string, f: () => Promise<boolean>, ms = 90_000): Promise<void> => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (await f().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${what} did not happen within ${ms / 1000} s:\n${output.slice(-3000)}`);
  };

  beforeAll(async () => {
    const [anvilPort, gatewayPort] = [await freePort(), await freePort()];
    subst = (s) =>
      s
        .replaceAll('8545', String(anvilPort))
        .replaceAll('8080', String(gatewayPort))
        .replaceAll('./data-live', join(dir, 'data'))
        .replaceAll('./invoice.json', join(dir, 'invoice.json'))
        .replaceAll('> invoice.json', `> ${join(dir, 'invoice.json')}`);
    const configFile = join(dir, 'satchel.config.json');
    writeFileSync(configFile, subst(block('config')));
    // The test runner's own settings stay out: the page's config file is all the gateway reads.
    env = { PATH: process.env.PATH, HOME: process.env.HOME, SATCHEL_CONFIG: configFile, LOG_LEVEL: 'warn' };
    gateway = `http://127.0.0.1:${gatewayPort}`;

    serve('anvil');
    await waitFor('anvil answering', async () => (await fetch(`http://127.0.0.1:${anvilPort}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })).ok);
    serve('start');
    await waitFor('the gateway ready', async () => (await fetch(`${gateway}/readyz`)).ok);
  }, 180_000);

  afterAll(async () => {
    for (const p of procs) {
      try {
        process.kill(-p.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const p of procs) {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers only ETH, live, and says why the others are not offered', async () => {
    const ready = (await (await fetch(`${gateway}/readyz`)).json()) as { chains: Array<{ network: string; mode: string; offered: boolean; reason: string | null }> };
    expect(ready.chains.find((c) => c.network === 'ETH')).toMatchObject({ mode: 'live', offered: true, reason: null });
    const others = ready.chains.filter((c) => c.network !== 'ETH');
    expect(others.length).toBeGreaterThan(5);
    for (const c of others) expect(c).toMatchObject({ offered: false, reason: 'simulated in live mode' });
  });

  it('an invoice created with the CLI and paid with curl is paid', async () => {
    // ETH receives watch-only: the merchant's cold address first.
    expect(await sh('custody')).toContain('now receives into 0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    await sh('invoice');
    const invoice = JSON.parse(readFileSync(join(dir, 'invoice.json'), 'utf8')) as { uuid: string; address: string; payer_amount: string; network: string };
    expect(invoice).toMatchObject({ network: 'ETH', payer_amount: '0.01' });
    expect(invoice.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const sent = JSON.parse(await sh('pay')) as { result?: string; error?: unknown };
    expect(sent.error).toBeUndefined();
    expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/);
    let status = '';
    await waitFor('the invoice paid', async () => {
      status = (JSON.parse(await sh('check')) as { payment_status: string }).payment_status;
      return status === 'paid';
    }, 60_000);
    expect(status).toBe('paid');
  }, 120_000);
});
