// A crash between building a Monero payout and relaying it, on a real monerod --regtest chain and
// both databases: the gateway runs as its own process; its float wallet is reached through a proxy
// that holds the first `relay_tx` it sees (the transaction is built with do_not_relay and stored by
// then), and the test kills the gateway with SIGKILL while that call is held, so the transaction was
// never handed to the daemon. Restarted, the gateway relays the stored transaction (never a second
// one), the payee receives the payout exactly once and the payout ends `paid`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/compose.ts';
import { openStorage, type Storage } from '../../src/db/dialect.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { post as postLedger } from '../../src/ledger/index.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { Decimal } from '../../src/money/decimal.ts';
import { backends } from '../helpers/backends.ts';
import { STATIC_RATES, TEST_MNEMONIC } from '../helpers/gateway.ts';
import { startScript, type Proc } from '../helpers/spawn.ts';
import { otherRpc, startMoneroRig, type MoneroRig, type WalletRpc } from '../helpers/monero-rig.ts';
import { fundedFloat } from '../helpers/monero-pay.ts';

const pico = (xmr: string) => Decimal.parse(xmr).toBaseUnits(12);

/** An HTTP proxy to the float wallet that, while `holding`, never answers a relay_tx (and never forwards it). */
async function relayHoldingProxy(target: string): Promise<{ url: string; holding: boolean; held: Promise<void>; close(): Promise<void> }> {
  let seen!: () => void;
  const state = { holding: true, held: new Promise<void>((r) => (seen = r)) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (state.holding && body.toString().includes('"relay_tx"')) {
        seen();
        return; // held: the gateway dies waiting
      }
      const up = request(`${target}${req.url ?? '/'}`, { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  });
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

let rig: MoneroRig;
let recipient: WalletRpc;
let recipientAddress: string;
beforeAll(async () => {
  rig = await startMoneroRig();
  recipient = await rig.startWalletRpc();
  await recipient.rpc('create_wallet', { filename: 'recipient', password: '', language: 'English' });
  recipientAddress = (await recipient.rpc<{ address: string }>('get_address', { account_index: 0 })).address;
}, 600_000);
afterAll(async () => {
  await rig?.close();
}, 120_000);

describe.each(await backends())('a gateway killed between building and relaying an XMR payout ($name)', (backend) => {
  let dir: string;
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let float: WalletRpc;
  let proxy: Awaited<ReturnType<typeof relayHoldingProxy>>;
  let env: Record<string, string>;
  let merchant: Merchant;
  let storage: Storage;
  let gw: Proc | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-xmr-crash-'));
    db = await backend.create();
    float = await fundedFloat(rig, `crash-float-${backend.name}`, [pico('10'), pico('10')]);
    proxy = await relayHoldingProxy(float.url);
    const network = { driver: 'monero', daemon_url: rig.daemonUrl, network: 'mainnet', confirmations: 2, payout_wallet_rpc_url: proxy.url };
    env = {
      SATCHEL_DATA_DIR: dir,
      SATCHEL_MNEMONIC: TEST_MNEMONIC,
      SATCHEL_NETWORKS: JSON.stringify({ XMR: network }),
      SATCHEL_RATES: STATIC_RATES,
      LOG_LEVEL: 'warn',
      PORT: '0',
      SATCHEL_WORKER_INTERVAL_MS: '100',
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    const setup = await createContext(loadConfig(env));
    merchant = await createMerchant(setup.storage.db, 'XMR crash shop');
    await setup.storage.write((trx) =>
      postLedger(trx, { merchantId: merchant.id, wallet: 'business', currency: 'XMR', amount: '5', reason: 'test_funding', ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: Date.now() }),
    );
    await setup.storage.close();
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: join(dir, 'satchel.sqlite') });
  }, 600_000);
  afterAll(async () => {
    await gw?.stop();
    await storage?.close();
    await proxy?.close();
    await float?.stop();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  const api = async (path: string, body: Record<string, unknown>) => {
    const raw = JSON.stringify(body);
    const res = await fetch(gw!.url + path, { method: 'POST', headers: { 'content-type': 'application/json', merchant: merchant.id, sign: signBody(raw, merchant.payout_key) }, body: raw });
    return { status: res.status, body: (await res.json()) as { state: number; result: Record<string, any> } };
  };
  const rowOf = async (uuid: string) => (await storage.db.selectFrom('scan_outgoing').selectAll().where('request_id', '=', uuid).execute());

  it('relays the stored transaction once after the restart: the payee receives once, the payout is paid', { timeout: 600_000 }, async () => {
    // Each database's run pays its own amount, so the payee's transfers tell the two apart.
    const amount = backend.name === 'sqlite' ? '0.75' : '0.8';
    gw = await startScript('src/main.ts', env);
    const created = await api('/v1/payout', { amount, currency: 'XMR', network: 'XMR', address: recipientAddress, is_subtract: true, order_id: `crash-${backend.name}` });
    expect(created.status).toBe(200);
    const uuid = created.body.result.uuid as string;
    // The worker built (do_not_relay) and stored the transaction, and now asks the wallet to relay it.
    await proxy.held;
    gw.child.kill('SIGKILL');
    await new Promise((r) => gw!.child.once('exit', r));
    const [stored] = await rowOf(uuid);
    expect(stored).toMatchObject({ status: 'signed', to_address: recipientAddress, amount });
    // Never handed to the daemon.
    const before = await otherRpc<{ missed_tx?: string[] }>(rig.daemonUrl, 'get_transactions', { txs_hashes: [stored!.txid] });
    expect(before.missed_tx).toEqual([stored!.txid]);

    proxy.holding = false;
    gw = await startScript('src/main.ts', env);
    await until('the stored transaction relayed', async () => (await rowOf(uuid))[0]!.status !== 'signed');
    for (let i = 0; i < 3; i++) await rig.mine(1);
    const paid = await until('the payout paid', async () => {
      const r = await api('/v1/payout/info', { uuid });
      return r.body.result.status === 'paid' ? r.body.result : null;
    });
    expect(paid).toMatchObject({ status: 'paid', is_final: true, txid: stored!.txid });
    // One transaction for the payout, the stored one; the payee received the amount once.
    const rows = await rowOf(uuid);
    expect(rows.map((r) => r.txid)).toEqual([stored!.txid]);
    await recipient.rpc('refresh', {});
    const incoming = await recipient.rpc<{ in?: Array<{ txid: string; amount: number }> }>('get_transfers', { in: true });
    expect((incoming.in ?? []).filter((t) => BigInt(t.amount) === pico(amount)).map((t) => t.txid)).toEqual([stored!.txid]);
    await float.rpc('refresh', {});
    const out = await float.rpc<{ out?: Array<{ txid: string }>; pending?: Array<{ txid: string }> }>('get_transfers', { out: true, pending: true });
    expect([...(out.out ?? []), ...(out.pending ?? [])].map((t) => t.txid)).toEqual([stored!.txid]);
    await gw.stop();
    gw = null;
    await rig.mine(10);
  });
});
