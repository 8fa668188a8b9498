// A hostile or broken API between the `ton` driver and the chain: a proxy in front of the sandbox
// double rewrites getTransactions answers (huge, malformed JSON, wrong types, another transaction's
// BOC, a comment the API decodes as something else). Each is a node fault: the poll fails, nothing
// is credited, the cursor stays, and once the API is honest again the payment is credited once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { toNano } from '@ton/core';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import type { ChainSink, IncomingTransfer, UnmatchedTransfer } from '../../../src/chain/contract.ts';
import { FaultyNodeError } from '../../../src/chain/errors.ts';
import { depositKey } from '../../../src/chain/watch-paths.ts';
import { createTonDriver } from '../../../src/chain/ton/config.ts';
import { startToncenterDouble, type TonDouble } from './double/toncenter.ts';
import { scenario, type Payer, type Scenario } from './double/scenario.ts';

const TON = Registry.load().network('TON')!;

type Rewrite = ((result: any[]) => unknown) | null;

describe('ton driver behind a hostile API', () => {
  let double: TonDouble;
  let sc: Scenario;
  let storage: Storage;
  let proxy: Server;
  let proxyUrl = '';
  let rewrite: Rewrite = null;
  let raw: string | null = null;
  let merchant: Payer;
  let payer: Payer;

  beforeAll(async () => {
    storage = openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    double = await startToncenterDouble();
    sc = scenario(double);
    merchant = await sc.payerWallet('merchant');
    payer = await sc.payerWallet('payer');
    await sc.sendTon(merchant, payer.address, toNano('0.01'), null);
    proxy = createServer(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      const upstream = await fetch(double.url + req.url, { method: req.method, headers: { 'content-type': 'application/json' }, body: req.method === 'POST' ? body : undefined });
      let text = await upstream.text();
      if (req.url!.includes('getTransactions')) {
        if (raw !== null) text = raw;
        else if (rewrite) {
          const parsed = JSON.parse(text);
          text = JSON.stringify({ ...parsed, result: rewrite(parsed.result) });
        }
      }
      res.statusCode = upstream.status;
      res.setHeader('content-type', 'application/json');
      res.end(text);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise<void>((r) => proxy?.close(() => r()));
    await double?.close();
    await storage?.close();
  });

  it('refuses every hostile answer as a node fault, credits nothing, then credits once when honest', async () => {
    const driver = createTonDriver(TON, { driver: 'ton', api_url: proxyUrl, confirmations: 1, max_response_bytes: 200_000 }, { seed: new Uint8Array(), storage });
    const account = merchant.address.toString({ bounceable: false });
    driver.watch([{ address: depositKey(account, 'Pay1'), path: 'reference:x/0' }]);
    const transfers: IncomingTransfer[] = [];
    const unmatched: UnmatchedTransfer[] = [];
    const sink: ChainSink = { transfer: async (t) => void transfers.push(t), unmatched: async (u) => void unmatched.push(u), dropped: async () => {}, outgoing: async () => {} };
    await driver.poll(sink);
    const paid = await sc.sendTon(payer, merchant.address, toNano('3'), 'Pay1');
    // An earlier transaction of the wallet, to lie with.
    const other = double.transactionsOf(merchant.address)[0]!;
    const cases: Array<[string, Rewrite, string | null]> = [
      ['a huge answer', null, JSON.stringify({ ok: true, result: [{ pad: 'x'.repeat(400_000) }] })],
      ['malformed JSON', null, '{"ok":true,"result":[{"transaction_id":'],
      ['an lt as a JSON number', (r) => r.map((t: any) => ({ ...t, transaction_id: { ...t.transaction_id, lt: Number(t.transaction_id.lt) + 0.5 } })), null],
      ['a hash that is not 32 bytes', (r) => r.map((t: any) => ({ ...t, transaction_id: { ...t.transaction_id, hash: 'AAAA' } })), null],
      ['another transaction\'s BOC', (r) => r.map((t: any) => ({ ...t, data: other.raw.toBoc().toString('base64') })), null],
      ['a BOC that is not one', (r) => r.map((t: any) => ({ ...t, data: Buffer.from('not a bag of cells at all').toString('base64') })), null],
      ['a result that is not a list', () => ({ transactions: 'none' }), null],
      ['a transaction listed twice', (r) => [...r, ...r], null],
    ];
    for (const [what, rw, text] of cases) {
      rewrite = rw;
      raw = text;
      const err = await driver.poll(sink).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, what).toBeInstanceOf(FaultyNodeError);
      expect(transfers, what).toEqual([]);
    }
    raw = null;
    rewrite = null;
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    expect(transfers.map((t) => [t.txid, t.amount, t.confirmations])).toEqual([
      [paid.received!.hash().toString('hex'), '3', 0],
      [paid.received!.hash().toString('hex'), '3', 1],
    ]);
    await driver.close();
  });

  it('does not credit a payment whose API-decoded comment matches but whose body does not', async () => {
    const own = openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(own);
    const driver = createTonDriver(TON, { driver: 'ton', api_url: proxyUrl, confirmations: 1 }, { seed: new Uint8Array(), storage: own });
    const account = merchant.address.toString({ bounceable: false });
    driver.watch([{ address: depositKey(account, 'Real9'), path: 'reference:x/1' }]);
    const transfers: IncomingTransfer[] = [];
    const unmatched: UnmatchedTransfer[] = [];
    const sink: ChainSink = { transfer: async (t) => void transfers.push(t), unmatched: async (u) => void unmatched.push(u), dropped: async () => {}, outgoing: async () => {} };
    await driver.poll(sink);
    await sc.sendTon(payer, merchant.address, toNano('1'), 'Wrong9');
    rewrite = (r) => r.map((t: any) => (t.in_msg ? { ...t, in_msg: { ...t.in_msg, message: 'Real9', msg_data: { '@type': 'msg.dataText', text: Buffer.from('Real9').toString('base64') } } } : t));
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    rewrite = null;
    expect(transfers).toEqual([]);
    expect(unmatched.map((u) => [u.reason, u.memo])).toEqual([['unknown_reference', 'Wrong9']]);
    await driver.close();
    await own.close();
  });
});
