// `satchel doctor` as an operator reads it: one line per check, and the exit code a deployment
// pipeline stops on. The node is a fake driver (its status() answers what each case needs); the
// network, DNS and the public URL are fakes too, so nothing here leaves the machine.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createContext, driverFactories } from '../../src/compose.ts';
import { checkCustody, writeCustody } from '../../src/custody/store.ts';
import type { ChainDriver, DriverFactories, NodeStatus } from '../../src/chain/contract.ts';
import { doctorCli } from '../../src/cli/doctor.ts';
import type { DoctorDeps } from '../../src/doctor/index.ts';
import { createMerchant, listMerchants, setMerchantDefaults } from '../../src/merchants/store.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

describe('satchel doctor', () => {
  let dir: string;
  let seedFile: string;
  let node: { status: NodeStatus; answers: boolean };
  const fake = (deps: Parameters<DriverFactories['simulated']>[0]): ChainDriver => ({
    kind: 'fake',
    network: deps.network,
    watchesAddresses: true,
    watch() {},
    async poll() {},
    async canCover() {
      return { covered: true };
    },
    async send() {
      throw new Error('not in this test');
    },
    async status() {
      if (!node.answers) throw new Error('connect ECONNREFUSED 127.0.0.1:8545');
      return node.status;
    },
    async close() {},
  });
  const drivers: DriverFactories = { ...driverFactories, fake };
  const deps: DoctorDeps = {
    get: async () => 200,
    lookup: async () => ['93.184.216.34'],
    connect: async () => {},
  };
  const env = (extra: Record<string, string> = {}) =>
    loadConfig({
      SATCHEL_CONFIG: '',
      SATCHEL_DATA_DIR: dir,
      SATCHEL_MNEMONIC_FILE: seedFile,
      SATCHEL_PUBLIC_URL: 'https://pay.example.test',
      SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'fake', chain_id: 1 } }),
      SATCHEL_BACKUP: 'nightly sqlite3 .backup to the NAS',
      LOG_LEVEL: 'silent',
      ...extra,
    });
  const doctor = async (extra: Record<string, string> = {}, args: string[] = []) => {
    const lines: string[] = [];
    const config = env(extra);
    const code = await doctorCli(args, config, { log: (s) => lines.push(s), error: (s) => lines.push(s) }, () => createContext(config, { drivers, now: () => NOW }), deps);
    return { code, lines };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-doctor-'));
    seedFile = join(dir, 'seed.txt');
    writeFileSync(seedFile, TEST_MNEMONIC + '\n', { mode: 0o600 });
    const ctx = await createContext(env(), { drivers });
    await createMerchant(ctx.storage.db, 'Live shop');
    await ctx.storage.close();
  });
  beforeEach(() => {
    node = { status: { chain: '1', head: 100, headTime: NOW - 12_000 }, answers: true };
    chmodSync(seedFile, 0o600);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a ready gateway: every line OK (the hot seed a WARN), exit 0; --json gives the same list', async () => {
    const { code, lines } = await doctor();
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(code).toBe(0);
    expect(lines).toContain('OK   public URL: https://pay.example.test is https');
    expect(lines).toContain('OK   public URL reachable: https://pay.example.test/healthz answers from this host');
    expect(lines).toContain('OK   node ETH: chain 1, head 100, 12 s old');
    expect(lines).toContain('OK   confirmations ETH: 12');
    expect(lines).toContain(`OK   HD seed: ${seedFile} has mode 0600`);
    expect(lines).toContain('OK   backups: nightly sqlite3 .backup to the NAS');
    expect(lines).toContain('WARN custody ETH: watch-only, but no receiving material: the network is not offered to this merchant (1 merchant). Fix: satchel merchant custody set --merchant ID --network ETH (--xpub | --descriptor | --address)');
    const json = await doctor({}, ['--json']);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.lines[0]!) as Array<{ status: string; name: string }>;
    expect(list.map((f) => `${f.status} ${f.name}`)).toContain('OK node ETH');
  });

  it('custody: hot custody is a WARN naming the seed; watch-only with the merchant\'s material is OK', async () => {
    const hot = await doctor({ SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'fake', chain_id: 1, custody: 'hot' } }) });
    expect(hot.lines.find((l) => l.startsWith('WARN custody ETH'))).toMatch(/hot custody: deposits derive from the seed on this server/);
    const ctx = await createContext(env(), { drivers });
    const [m] = await listMerchants(ctx.storage.db);
    const req = { merchantId: m!.id, network: 'ETH', input: { address: '0x1111111111111111111111111111111111111111' }, actor: 'test', replace: false };
    const checked = await checkCustody(ctx, req);
    await ctx.storage.write((trx) => writeCustody(trx, req, checked, NOW));
    await ctx.storage.close();
    const { lines } = await doctor();
    expect(lines).toContain("OK   custody ETH: watch-only: payments go to the merchant's own wallet (1 merchant)");
  });

  it('a node on another chain: FAIL, exit 1', async () => {
    node.status = { chain: '11155111', head: 100, headTime: NOW - 12_000 };
    const { code, lines } = await doctor();
    expect(code).toBe(1);
    expect(lines.find((l) => l.startsWith('FAIL node ETH'))).toMatch(/^FAIL node ETH: the node serves chain 11155111, the gateway is configured for 1\. Fix: point networks\.ETH\.rpc_url at a node of chain 1 /);
  });

  it('a node that does not answer: FAIL with the setting to check', async () => {
    node.answers = false;
    const { code, lines } = await doctor();
    expect(code).toBe(1);
    expect(lines).toContain('FAIL node ETH: no sane answer from the node (connect ECONNREFUSED 127.0.0.1:8545). Fix: check networks.ETH.rpc_url and that the node runs');
  });

  it('a stale head: FAIL (payments would not be seen), with the configurable limit; a head ahead of the clock: WARN', async () => {
    node.status = { chain: '1', head: 100, headTime: NOW - 3 * 3600_000 };
    const stale = await doctor();
    expect(stale.code).toBe(1);
    expect(stale.lines.find((l) => l.startsWith('FAIL node ETH'))).toContain('head 100 is 180 min old (limit 10 min)');
    expect((await doctor({ SATCHEL_DOCTOR_MAX_HEAD_AGE_MINUTES: '240' })).code).toBe(0);

    node.status = { chain: '1', head: 100, headTime: NOW + 10 * 60_000 };
    const ahead = await doctor();
    expect(ahead.lines.find((l) => l.startsWith('WARN clock ETH'))).toContain('10 min ahead of this host\'s clock');
  });

  it('an anvil-like chain (31337, mines on demand): WARN', async () => {
    node.status = { chain: '31337', head: 3, headTime: NOW - 3600_000 };
    const { lines } = await doctor({ SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'fake', chain_id: 31337 } }) });
    expect(lines.find((l) => l.startsWith('WARN node ETH'))).toContain('development chain that mines only on demand');
  });

  it('plain http: WARN on a loopback address, FAIL on a public host', async () => {
    const loop = await doctor({ SATCHEL_PUBLIC_URL: 'http://127.0.0.1:8080' });
    expect(loop.lines.find((l) => l.includes('public URL:'))).toMatch(/^WARN public URL: http:\/\/127\.0\.0\.1:8080 is plain http on a loopback address/);
    expect(loop.code).toBe(0);
    const open = await doctor({ SATCHEL_PUBLIC_URL: 'http://pay.example.com' });
    expect(open.lines.find((l) => l.includes('public URL:'))).toMatch(/^FAIL public URL: http:\/\/pay\.example\.com is plain http/);
    expect(open.code).toBe(1);
  });

  it('a seed file others can read: FAIL with the chmod to run', async () => {
    chmodSync(seedFile, 0o644);
    const { code, lines } = await doctor();
    expect(code).toBe(1);
    expect(lines).toContain(`FAIL HD seed: ${seedFile} has mode 0644: other accounts on this host can read it. Fix: chmod 600 ${seedFile}`);
  });

  it('a merchant\'s default webhook target in a private network: FAIL while real networks run, fine in test mode', async () => {
    const ctx = await createContext(env(), { drivers });
    const m = await createMerchant(ctx.storage.db, 'Intranet shop');
    await setMerchantDefaults(ctx.storage.db, m.id, { url_callback: 'http://10.1.2.3/hook', url_return: null, url_success: null });
    await ctx.storage.close();
    try {
      const live = await doctor();
      expect(live.code).toBe(1);
      expect(live.lines.find((l) => l.includes('webhook target of Intranet shop'))).toMatch(/^FAIL webhook target of Intranet shop: http:\/\/10\.1\.2\.3\/hook resolves to the private address 10\.1\.2\.3/);
      const test = await doctor({ SATCHEL_NETWORKS: '{}' });
      expect(test.lines.find((l) => l.includes('webhook target of Intranet shop'))).toMatch(/^OK /);
      // Test mode itself is not ready for real money.
      expect(test.lines.find((l) => l.startsWith('FAIL networks'))).toContain('simulated chain');
    } finally {
      const c = await createContext(env(), { drivers });
      await c.storage.db.deleteFrom('merchants').where('id', '=', m.id).execute();
      await c.storage.close();
    }
  });
});
