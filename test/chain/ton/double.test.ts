// The toncenter double answers as toncenter's API v2 does, with what @ton/sandbox executed: checked
// over HTTP with plain fetch and read back with @ton/core (the transaction BOC in `data`, its hash,
// the message cells), so the TON driver's tests stand on real TVM results in the real shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Address, beginCell, Cell, loadTransaction } from '@ton/core';
import { startToncenterDouble, FIRST_SEQNO, type TonDouble } from './double/toncenter.ts';
import { scenario, type Scenario } from './double/scenario.ts';

let d: TonDouble;
let s: Scenario;

beforeAll(async () => {
  d = await startToncenterDouble();
  s = scenario(d);
});
afterAll(async () => {
  await d?.close();
});

async function get(method: string, params: Record<string, string | number> = {}, headers: Record<string, string> = {}) {
  const q = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const r = await fetch(`${d.url}/api/v2/${method}?${q}`, { headers });
  return { status: r.status, body: (await r.json()) as any };
}

export async function post(method: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${d.url}/api/v2/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

const eq = (a: Address) => a.toString({ urlSafe: true, bounceable: true, testOnly: false });

describe('toncenter double: TON with a comment', () => {
  it('serves the recipient transaction with the comment, the amount, and a hash that is the hash of its BOC', async () => {
    const payer = await s.payerWallet('alice');
    const merchant = s.freshAddress('merchant-1');
    const before = (await get('getMasterchainInfo')).body.result.last.seqno as number;
    expect(before).toBeGreaterThanOrEqual(FIRST_SEQNO);

    await s.sendTon(payer, merchant.toString({ bounceable: false }), 1_500_000_000n, 'INV-7Q4K');

    const { status, body } = await get('getTransactions', { address: merchant.toRawString(), limit: 10 });
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.result).toHaveLength(1);
    const tx = body.result[0];
    expect(tx['@type']).toBe('raw.transaction');
    expect(tx.address).toEqual({ '@type': 'accountAddress', account_address: eq(merchant) });
    expect(tx.in_msg.message).toBe('INV-7Q4K');
    expect(tx.in_msg.msg_data['@type']).toBe('msg.dataText');
    expect(Buffer.from(tx.in_msg.msg_data.text, 'base64').toString('utf8')).toBe('INV-7Q4K');
    expect(tx.in_msg.value).toBe('1500000000');
    expect(tx.in_msg.source).toBe(eq(payer.address));
    expect(tx.in_msg.destination).toBe(eq(merchant));
    expect(tx.out_msgs).toEqual([]);
    expect(typeof tx.utime).toBe('number');

    // The BOC in `data` is the transaction itself: its hash is transaction_id.hash, and @ton/core
    // reads the same lt, the same incoming value and the same comment from it.
    const cell = Cell.fromBase64(tx.data);
    expect(cell.hash().toString('base64')).toBe(tx.transaction_id.hash);
    const parsed = loadTransaction(cell.beginParse());
    expect(parsed.lt.toString()).toBe(tx.transaction_id.lt);
    const info = parsed.inMessage!.info;
    expect(info.type === 'internal' && info.value.coins).toBe(1_500_000_000n);
    const body0 = parsed.inMessage!.body.beginParse();
    expect(body0.loadUint(32)).toBe(0);
    expect(body0.loadStringTail()).toBe('INV-7Q4K');
    expect(BigInt(tx.fee)).toBe(parsed.totalFees.coins);
    expect(BigInt(tx.storage_fee) + BigInt(tx.other_fee)).toBe(BigInt(tx.fee));

    const after = (await get('getMasterchainInfo')).body.result.last.seqno as number;
    expect(after).toBeGreaterThan(before);
  });

  it('shows the payer side: an external message in, the payment among out_msgs with its fees counted in fee', async () => {
    const payer = await s.payerWallet('bob');
    const to = s.freshAddress('merchant-2');
    await s.sendTon(payer, to, 2_000_000_000n, 'hello');
    const { body } = await get('getTransactions', { address: eq(payer.address), limit: 1 });
    const tx = body.result[0];
    expect(tx.in_msg.source).toBe('');
    expect(tx.in_msg.value).toBe('0');
    expect(tx.out_msgs).toHaveLength(1);
    expect(tx.out_msgs[0].destination).toBe(eq(to));
    expect(tx.out_msgs[0].message).toBe('hello');
    const parsed = loadTransaction(Cell.fromBase64(tx.data).beginParse());
    expect(BigInt(tx.fee)).toBe(parsed.totalFees.coins + BigInt(tx.out_msgs[0].fwd_fee));
  });

  it('pages newest first from lt/hash (inclusive) back to to_lt (exclusive)', async () => {
    const payer = await s.payerWallet('carol');
    const to = s.freshAddress('merchant-paging');
    for (const c of ['p1', 'p2', 'p3', 'p4', 'p5']) await s.sendTon(payer, to, 100_000_000n, c);
    const all = (await get('getTransactions', { address: eq(to), limit: 100 })).body.result;
    expect(all.map((t: any) => t.in_msg.message)).toEqual(['p5', 'p4', 'p3', 'p2', 'p1']);
    const lts = all.map((t: any) => BigInt(t.transaction_id.lt));
    expect([...lts].sort((a, b) => (a > b ? -1 : 1))).toEqual(lts);

    const page1 = (await get('getTransactions', { address: eq(to), limit: 2 })).body.result;
    expect(page1.map((t: any) => t.in_msg.message)).toEqual(['p5', 'p4']);
    const last = page1[1];
    const page2 = (await get('getTransactions', { address: eq(to), limit: 2, lt: last.transaction_id.lt, hash: last.transaction_id.hash })).body.result;
    expect(page2.map((t: any) => t.in_msg.message)).toEqual(['p4', 'p3']);
    const hex = Buffer.from(last.transaction_id.hash, 'base64').toString('hex');
    const page2hex = (await get('getTransactions', { address: eq(to), limit: 2, lt: last.transaction_id.lt, hash: hex })).body.result;
    expect(page2hex.map((t: any) => t.in_msg.message)).toEqual(['p4', 'p3']);

    const since = (await get('getTransactions', { address: eq(to), to_lt: all[2].transaction_id.lt })).body.result;
    expect(since.map((t: any) => t.in_msg.message)).toEqual(['p5', 'p4']);

    const unknown = await get('getTransactions', { address: eq(to), lt: '1', hash: last.transaction_id.hash });
    expect(unknown.body.ok).toBe(false);
  });

  it('keeps a comment that is not UTF-8 as text data with an empty message, and a binary body raw', async () => {
    const payer = await s.payerWallet('dave');
    const to = s.freshAddress('merchant-binary');
    await s.sendTon(payer, to, 10_000_000n, null, { binaryBody: beginCell().storeUint(0, 32).storeBuffer(Buffer.from([0xff, 0xfe, 0x41])).endCell() });
    await s.sendTon(payer, to, 10_000_000n, null, { binaryBody: beginCell().storeUint(0xdeadbeef, 32).storeUint(7, 8).endCell() });
    await s.sendTon(payer, to, 10_000_000n, null);
    const [empty, raw, bad] = (await get('getTransactions', { address: eq(to) })).body.result;
    expect(bad.in_msg.msg_data['@type']).toBe('msg.dataText');
    expect(bad.in_msg.message).toBe('');
    expect(raw.in_msg.msg_data['@type']).toBe('msg.dataRaw');
    expect(Cell.fromBase64(raw.in_msg.msg_data.body).beginParse().loadUint(32)).toBe(0xdeadbeef);
    expect(raw.in_msg.message).toBe(Buffer.from([0xde, 0xad, 0xbe, 0xef, 7]).toString('base64') + '\n');
    expect(empty.in_msg.msg_data['@type']).toBe('msg.dataRaw');
    expect(empty.in_msg.message).toBe('');
  });
});

describe('toncenter double: bad requests and availability', () => {
  it('answers a bad address with 416 and a bad limit with 422, never a crash', async () => {
    const bad = await get('getTransactions', { address: 'not-an-address' });
    expect(bad.status).toBe(416);
    expect(bad.body).toEqual({ ok: false, error: 'Incorrect address', code: 416 });
    const missing = await get('getTransactions', {});
    expect(missing.status).toBe(422);
    expect(missing.body.ok).toBe(false);
    const limit = await get('getTransactions', { address: eq(s.freshAddress('x')), limit: 101 });
    expect(limit.status).toBe(422);
    const unknown = await get('getNothing', {});
    expect(unknown.status).toBe(404);
  });

  it('answers 503 while down and serves again once up; refuses connections when asked', async () => {
    await d.down();
    const r = await get('getMasterchainInfo');
    expect(r.status).toBe(503);
    expect(r.body.ok).toBe(false);
    await d.up();
    expect((await get('getMasterchainInfo')).body.ok).toBe(true);
    await d.down({ refuse: true });
    await expect(fetch(`${d.url}/api/v2/getMasterchainInfo`)).rejects.toThrow();
    await d.up();
    expect((await get('getMasterchainInfo')).body.ok).toBe(true);
    expect(d.requests.some((x) => x.path === '/api/v2/getMasterchainInfo')).toBe(true);
  });

  it('advances the masterchain seqno on tick()', async () => {
    const a = (await get('getMasterchainInfo')).body.result.last.seqno as number;
    d.tick();
    d.tick(2);
    const b = (await get('getMasterchainInfo')).body.result;
    expect(b.last.seqno).toBe(a + 3);
    expect(b.last.workchain).toBe(-1);
    expect(b.last.shard).toBe('-9223372036854775808');
  });
});
