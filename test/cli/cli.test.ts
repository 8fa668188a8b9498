// The `satchel` command as an operator runs it: a real process, the same database as the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { buildApp } from '../../src/http/app.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { ROOT } from '../helpers/spawn.ts';
import { writeFileSync } from 'node:fs';
import { solidPng } from '../merchants/png.ts';

const run = promisify(execFile);

describe('satchel CLI', () => {
  let dir: string;
  let env: Record<string, string>;
  let ctx: Ctx;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-cli-'));
    env = { ...(process.env as Record<string, string>), SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: TEST_MNEMONIC, LOG_LEVEL: 'silent', DATABASE_URL: '' };
  });
  afterAll(async () => {
    await ctx?.storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const satchel = async (...args: string[]) => {
    try {
      const r = await run(process.execPath, [join(ROOT, 'bin/satchel.js'), ...args], { env, cwd: ROOT });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  };

  it('creates, lists, blocks and unblocks merchants; simulates a payment; lists webhooks', { timeout: 120_000 }, async () => {
    const created = await satchel('merchant', 'create', '--name', 'Corner shop', '--json');
    expect(created.code).toBe(0);
    const m = JSON.parse(created.out) as { merchant: string; payment_key: string; payout_key: string };
    expect(Object.keys(m)).toEqual(['merchant', 'payment_key', 'payout_key']);
    expect(m.merchant).toMatch(/^[0-9a-f-]{36}$/);

    const list = await satchel('merchant', 'list');
    expect(list.out).toContain(m.merchant);
    expect(list.out).toContain('Corner shop');

    // The gateway on the same database: a signed request works until the merchant is blocked.
    ctx = await createContext(loadConfig(env));
    const app = await buildApp(ctx, { logger: false });
    const post = async (body: Record<string, unknown>) => {
      const raw = JSON.stringify(body);
      ctx.merchants.invalidate(m.merchant);
      const res = await app.inject({ method: 'POST', url: '/v1/payment', payload: raw, headers: { 'content-type': 'application/json', merchant: m.merchant, sign: signBody(raw, m.payment_key) } });
      return res.json();
    };
    const inv = await post({ amount: '10', currency: 'USDT', network: 'TRON', order_id: 'cli-1', url_callback: 'http://127.0.0.1:9/cb' });
    expect(inv.state).toBe(0);

    expect((await satchel('merchant', 'block', m.merchant)).code).toBe(0);
    expect(await post({ amount: '10', currency: 'USDT', network: 'TRON', order_id: 'cli-2' })).toEqual({ state: 1, message: 'You are forbidden' });
    expect((await satchel('merchant', 'unblock', m.merchant)).code).toBe(0);
    expect((await post({ amount: '10', currency: 'USDT', network: 'TRON', order_id: 'cli-2' })).state).toBe(0);

    const paid = await satchel('simulate', 'pay', '--invoice', inv.result.uuid, '--json');
    expect(paid.code).toBe(0);
    expect(JSON.parse(paid.out)).toMatchObject({ amount: '10', currency: 'USDT', network: 'TRON', confirmed: true });
    const row = await ctx.storage.db.selectFrom('invoices').select(['status', 'payment_amount']).where('id', '=', inv.result.uuid).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'paid', payment_amount: '10' });

    const hooks = await satchel('webhooks', 'list', '--invoice', inv.result.uuid);
    expect(hooks.code).toBe(0);
    expect(hooks.out).toContain(inv.result.uuid);

    expect((await satchel('merchant', 'block', 'not-a-uuid')).code).toBe(2);
    expect((await satchel('simulate', 'pay', '--invoice', '00000000-0000-4000-8000-000000000000')).err).toContain('Invoice not found');
    expect((await satchel('nonsense')).code).toBe(2);
    expect((await satchel('migrate')).out).toContain('up to date');
    await app.close();
  });

  it('sets the public profile a payer sees, and refuses an SVG logo', { timeout: 120_000 }, async () => {
    const m = JSON.parse((await satchel('merchant', 'create', '--name', 'Profile shop', '--json')).out) as { merchant: string; payment_key: string };
    const logo = join(dir, 'logo.png');
    writeFileSync(logo, solidPng(8, [10, 127, 90]));
    const svg = join(dir, 'logo.svg');
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

    const set = await satchel('merchant', 'update', m.merchant, '--display-name', 'Profile Shop GmbH', '--logo', logo, '--accent', '#0A7F5A', '--theme', 'dark');
    expect(set.code).toBe(0);
    expect(set.out).toContain('display name: Profile Shop GmbH');
    expect(set.out).toContain('logo:         image/png');

    const refused = await satchel('merchant', 'update', m.merchant, '--display-name', 'Changed', '--logo', svg);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('SVG logos are not accepted');

    // What the payer API then shows: the profile as set, untouched by the refused update.
    ctx ??= await createContext(loadConfig(env));
    const app = await buildApp(ctx, { logger: false });
    const raw = JSON.stringify({ amount: '10', currency: 'USDT', network: 'TRON', order_id: 'profile-cli' });
    const inv = (await app.inject({ method: 'POST', url: '/v1/payment', payload: raw, headers: { 'content-type': 'application/json', merchant: m.merchant, sign: signBody(raw, m.payment_key) } })).json();
    const view = (await app.inject({ method: 'GET', url: `/api/pay/${inv.result.uuid}` })).json().result;
    expect(view.merchant).toMatchObject({ display_name: 'Profile Shop GmbH', accent: '#0a7f5a', theme: 'dark' });
    const served = await app.inject({ method: 'GET', url: view.merchant.logo_url });
    expect(served.headers['content-type']).toBe('image/png');

    const cleared = await satchel('merchant', 'update', m.merchant, '--remove-logo', '--display-name', '', '--json');
    expect(JSON.parse(cleared.out)).toMatchObject({ display_name: null, logo: null, accent: '#0a7f5a' });
    await app.close();
  });
});
