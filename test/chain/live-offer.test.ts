// Live mode never offers what nothing watches (issue 23): a gateway started the way an operator
// starts it (src/server.ts), with ETH on a real node (anvil) and the other networks left
// simulated, refuses the simulated ones everywhere a merchant or payer could pick them, in the
// spec's words; a test-mode invoice and wallet made before the switch show no address any more;
// `enabled: false` removes a network; a node that is down at start leaves its network unavailable
// (not simulated) until it answers.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { formatNetworkTable } from '../../src/chain/network-report.ts';
import type { NetworkReport } from '../../src/contracts/network-report.ts';
import { backends, type Backend } from '../helpers/backends.ts';
import { STATIC_RATES, type TestGateway } from '../helpers/gateway.ts';
import { signedInOwner } from '../dashboard/browser.ts';
import { CHAIN_ID, freePort, startAnvil, type Anvil } from './evm/anvil.ts';
import { GATEWAY_MNEMONIC } from './gateway-setup.ts';

const SIMULATED = ['BTC', 'LTC', 'DOGE', 'TRON', 'SOL', 'TON', 'XMR', 'BSC', 'POLYGON', 'ARBITRUM', 'AVALANCHE'];

interface Started {
  gw: Gateway;
  api(path: string, body: Record<string, unknown>, key?: 'payment' | 'payout'): Promise<{ status: number; body: any }>;
  get(path: string): Promise<{ status: number; body: any }>;
}

describe.each(await backends())('live mode offers only what is watched, on $name', (backend: Backend) => {
  let anvil: Anvil;
  let db: Awaited<ReturnType<Backend['create']>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-live-'));
  let merchant: Merchant;
  const open: Gateway[] = [];

  /** A gateway on the shared data folder and database, started as `npm start` starts it (API role: no workers needed). */
  async function start(env: Record<string, string>): Promise<Started> {
    const config = loadConfig({
      SATCHEL_DATA_DIR: dataDir,
      SATCHEL_MNEMONIC: GATEWAY_MNEMONIC,
      SATCHEL_PUBLIC_URL: 'https://pay.example.test',
      SATCHEL_ROLE: 'api',
      PORT: '0',
      LOG_LEVEL: 'silent',
      // Offline: a live gateway prices from the static table only when told to.
      SATCHEL_RATES: STATIC_RATES,
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
      ...env,
    });
    const gw = await startGateway(config, { logger: false, createDemo: false });
    open.push(gw);
    merchant ??= await createMerchant(gw.ctx.storage.db, 'Live shop');
    return {
      gw,
      async api(path, body, key = 'payment') {
        const raw = JSON.stringify(body);
        const res = await gw.app.inject({
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/json', merchant: merchant.id, sign: signBody(raw, key === 'payout' ? merchant.payout_key : merchant.payment_key) },
          payload: raw,
        });
        return { status: res.statusCode, body: res.json() };
      },
      async get(path) {
        const res = await gw.app.inject({ method: 'GET', url: path });
        return { status: res.statusCode, body: res.json() };
      },
    };
  }
  async function stop(s: Started): Promise<void> {
    open.splice(open.indexOf(s.gw), 1);
    await s.gw.close();
  }
  const eth = (rpcUrl: string, more: Record<string, unknown> = {}) =>
    JSON.stringify({ ETH: { driver: 'evm', custody: 'hot', rpc_url: rpcUrl, chain_id: CHAIN_ID, confirmations: 2, ...more } });
  const row = (rows: NetworkReport[], code: string) => rows.find((r) => r.network === code)!;
  const refused = (r: { status: number; body: any }, message: string) => {
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ state: 1, message });
  };

  // Made in test mode, before the operator switched ETH to a real node.
  let btcInvoice: { uuid: string; address: string };
  let btcWallet: { uuid: string; address: string };

  beforeAll(async () => {
    anvil = await startAnvil({ automine: true });
    db = await backend.create();
    const test = await start({});
    expect(test.gw.ctx.chains.simulator).toBe(true);
    const inv = await test.api('/v1/payment', { amount: '0.01', currency: 'BTC', network: 'BTC', order_id: 'test-mode-1' });
    expect(inv.status).toBe(200);
    btcInvoice = { uuid: inv.body.result.uuid, address: inv.body.result.address };
    const w = await test.api('/v1/wallet', { currency: 'BTC', network: 'BTC', order_id: 'test-mode-w1' });
    expect(w.status).toBe(200);
    btcWallet = { uuid: w.body.result.uuid, address: w.body.result.address };
    expect((await test.get(`/api/pay/wallet/${btcWallet.uuid}`)).body.result.address).toBe(btcWallet.address);
    await stop(test);
  });
  afterAll(async () => {
    for (const gw of [...open]) await gw.close();
    await anvil?.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('ETH on a real node, the rest simulated', () => {
    let g: Started;
    beforeAll(async () => {
      g = await start({ SATCHEL_NETWORKS: eth(anvil.url) });
    });
    afterAll(async () => {
      if (g) await stop(g);
    });

    it('the start table lists every network: ETH offered with its node, the simulated ones not, with the reason', async () => {
      const rows = g.gw.networks;
      expect(rows.map((r) => r.network).sort()).toEqual(['ETH', ...SIMULATED].sort());
      expect(row(rows, 'ETH')).toMatchObject({
        driver: 'evm', mode: 'live', custody: 'hot', node_reachable: true, confirmations: 2, chain: String(CHAIN_ID), offered: true, reason: null,
      });
      expect(row(rows, 'ETH').head_height).toBe(await anvil.head());
      for (const code of SIMULATED) {
        expect(row(rows, code)).toMatchObject({ driver: 'simulated', mode: 'test', custody: 'simulated', node_reachable: null, offered: false, reason: 'simulated in live mode' });
      }
      const table = formatNetworkTable(rows);
      expect(table).toMatch(/^ETH\s+evm\s+live\s+hot\s+answers\s+2\s+\d+\s+yes$/m);
      expect(table).toMatch(/^BTC\s+simulated\s+test\s+simulated\s+-\s+\d+\s+\S+\s+no \(simulated in live mode\)$/m);
      // /readyz says the same.
      const ready = await g.get('/readyz');
      expect(ready.body.chains).toEqual(rows);
    });

    it('the services lists hold ETH pairs only', async () => {
      for (const [path, key] of [['/v1/payment/services', 'payment'], ['/v1/payout/services', 'payout']] as const) {
        const r = await g.api(path, {}, key);
        expect(r.status).toBe(200);
        const networks = new Set((r.body.result as Array<{ network: string }>).map((s) => s.network));
        expect([...networks]).toEqual(['ETH']);
      }
    });

    it('/v1/payment refuses a simulated network and a currency only simulated networks carry, and takes ETH', async () => {
      refused(await g.api('/v1/payment', { amount: '0.01', currency: 'BTC', network: 'BTC', order_id: 'live-1' }), 'The network was not found');
      refused(await g.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'live-2' }), 'The network was not found');
      refused(await g.api('/v1/payment', { amount: '0.01', currency: 'BTC', order_id: 'live-3' }), 'The currency was not found');
      refused(await g.api('/v1/payment', { amount: '10', currency: 'USD', to_currency: 'TRX', order_id: 'live-4' }), 'Not found service to_currency');
      const ok = await g.api('/v1/payment', { amount: '0.01', currency: 'ETH', network: 'ETH', order_id: 'live-5' });
      expect(ok.status).toBe(200);
      expect(ok.body.result).toMatchObject({ network: 'ETH', payer_currency: 'ETH' });
      expect(ok.body.result.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      // USDT is carried by several networks, but only ETH is offered: the invoice is fixed to it.
      const usdt = await g.api('/v1/payment', { amount: '10', currency: 'USDT', order_id: 'live-6' });
      expect(usdt.body.result).toMatchObject({ network: 'ETH', payer_currency: 'USDT' });
    });

    it("the payer chooses among ETH's currencies only, and cannot pick a simulated network", async () => {
      const inv = await g.api('/v1/payment', { amount: '25', currency: 'USD', order_id: 'live-choose' });
      expect(inv.status).toBe(200);
      const view = await g.get(`/api/pay/${inv.body.result.uuid}`);
      const networks = new Set((view.body.result.options as Array<{ networks: Array<{ network: string }> }>).flatMap((o) => o.networks.map((n) => n.network)));
      expect([...networks]).toEqual(['ETH']);
      expect(view.body.result.test_mode).toBe(false);
      const pick = await g.gw.app.inject({ method: 'POST', url: `/api/pay/${inv.body.result.uuid}/choose`, payload: { currency: 'BTC', network: 'BTC' } });
      expect(pick.statusCode).toBe(422);
      expect(pick.json().message).toBe('This currency is not available for this invoice');
      const eth = await g.gw.app.inject({ method: 'POST', url: `/api/pay/${inv.body.result.uuid}/choose`, payload: { currency: 'ETH', network: 'ETH' } });
      expect(eth.statusCode).toBe(200);
      expect(eth.json().result.address).toMatch(/^0x/);
    });

    it('static wallets, payouts and their calculation refuse a simulated network ("The service was not found")', async () => {
      refused(await g.api('/v1/wallet', { currency: 'BTC', network: 'BTC', order_id: 'live-w1' }), 'The service was not found');
      const w = await g.api('/v1/wallet', { currency: 'USDT', network: 'ETH', order_id: 'live-w2' });
      expect(w.status).toBe(200);
      const btcPayout = { amount: '0.01', currency: 'BTC', network: 'BTC', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', is_subtract: true };
      refused(await g.api('/v1/payout', { ...btcPayout, order_id: 'live-p1' }, 'payout'), 'The service was not found');
      refused(await g.api('/v1/payout/calc', btcPayout, 'payout'), 'The service was not found');
      refused(await g.api('/v1/payout/calc', { ...btcPayout, network: undefined }, 'payout'), 'The service was not found');
      // ETH gets past the network to the balance, which is empty.
      const ethPayout = { amount: '0.01', currency: 'ETH', network: 'ETH', address: anvil.account(1).address, is_subtract: true };
      refused(await g.api('/v1/payout/calc', ethPayout, 'payout'), 'Not enough funds');
    });

    it('a test-mode invoice and wallet made before the switch show no address and why; the merchant API answers the record', async () => {
      const view = await g.get(`/api/pay/${btcInvoice.uuid}`);
      expect(view.status).toBe(200);
      expect(view.body.result).toMatchObject({ unavailable: 'network', address: null, qr_content: null, wallet_uri: null, options: null, test_mode: false, is_final: false });
      const info = await g.api('/v1/payment/info', { uuid: btcInvoice.uuid });
      expect(info.status).toBe(200);
      expect(info.body.result).toMatchObject({ uuid: btcInvoice.uuid, network: 'BTC', address: btcInvoice.address, status: 'process', is_final: false });
      const wallet = await g.get(`/api/pay/wallet/${btcWallet.uuid}`);
      expect(wallet.body.result).toMatchObject({ unavailable: 'network', address: null, qr_content: null, wallet_uri: null });
      // The page served for it embeds the same view: the address appears nowhere in it.
      const page = await g.gw.app.inject({ method: 'GET', url: `/pay/${btcInvoice.uuid}` });
      expect(page.body).not.toContain(btcInvoice.address);
    });

    it("the dashboard's invoice view says why, and its settings list the networks as the start did", async () => {
      const owner = await signedInOwner({ ctx: g.gw.ctx, app: g.gw.app, merchant, clock: { get now() { return Date.now(); } } } as unknown as TestGateway);
      const detail = await owner.call('GET', `/invoices/${btcInvoice.uuid}`);
      expect(detail.status).toBe(200);
      // The network and the reason as codes: the dashboard says it in the user's language.
      expect(detail.body.result.unavailable).toEqual({ network: 'BTC', reason: 'simulated in live mode' });
      const networks = await owner.call('GET', '/networks');
      expect(networks.body.result.map((r: NetworkReport) => [r.network, r.offered, r.reason])).toEqual(g.gw.networks.map((r) => [r.network, r.offered, r.reason]));
    });
  });

  it('enabled: false on ETH removes it: nothing is offered, and the table says why', async () => {
    const g = await start({ SATCHEL_NETWORKS: eth(anvil.url, { enabled: false }) });
    try {
      expect(row(g.gw.networks, 'ETH')).toMatchObject({ driver: 'evm', custody: 'hot', offered: false, reason: 'disabled' });
      expect(formatNetworkTable(g.gw.networks)).toContain('No network is offered');
      expect((await g.api('/v1/payment/services', {})).body.result).toEqual([]);
      refused(await g.api('/v1/payment', { amount: '0.01', currency: 'ETH', network: 'ETH', order_id: 'off-1' }), 'The network was not found');
      refused(await g.api('/v1/wallet', { currency: 'ETH', network: 'ETH', order_id: 'off-w1' }), 'The service was not found');
    } finally {
      await stop(g);
    }
  });

  it('a real node that is down at start leaves its network unavailable, not simulated, until it answers', async () => {
    const port = await freePort();
    const g = await start({ SATCHEL_NETWORKS: eth(`http://127.0.0.1:${port}`), SATCHEL_NODE_CHECK_INTERVAL_MS: '100' });
    let proxy: Server | undefined;
    try {
      expect(row(g.gw.networks, 'ETH')).toMatchObject({ driver: 'evm', custody: 'hot', mode: 'live', node_reachable: false, offered: false, reason: 'node not answering' });
      expect(g.gw.ctx.chains.simulator).toBe(false);
      refused(await g.api('/v1/payment', { amount: '0.01', currency: 'ETH', network: 'ETH', order_id: 'down-1' }), 'The network was not found');

      // The node comes up at the configured address (a relay to anvil).
      proxy = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
            .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()))
            .catch(() => res.writeHead(502).end());
        });
      });
      await new Promise<void>((resolve) => proxy!.listen(port, '127.0.0.1', resolve));
      const deadline = Date.now() + 10_000;
      while (!(await g.get('/readyz')).body.chains.find((c: NetworkReport) => c.network === 'ETH').offered) {
        if (Date.now() > deadline) throw new Error('ETH was not offered after its node came up');
        await new Promise((r) => setTimeout(r, 50));
      }
      const ok = await g.api('/v1/payment', { amount: '0.01', currency: 'ETH', network: 'ETH', order_id: 'down-2' });
      expect(ok.status).toBe(200);
      expect(ok.body.result.network).toBe('ETH');
    } finally {
      await stop(g);
      await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    }
  });
});
