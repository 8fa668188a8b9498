// The toncenter v2 client against small fixture servers: REST paths only, the X-API-Key header,
// the envelope, and every hostile answer (huge, not JSON, wrong types, a lying BOC) refused as a
// node fault, never a crash. Addresses and BOCs are checked against @ton/core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Address, beginCell, internal, toNano, comment as tonComment } from '@ton/core';
import { Blockchain } from '@ton/sandbox';
import { TonApi } from '../../../src/chain/ton/api.ts';
import { nodeAddress, readTransaction } from '../../../src/chain/ton/answers.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../../../src/chain/errors.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

let server: Server;
let url = '';
let handler: Handler = (_req, _body, res) => res.end('{}');
const seen: Array<{ method: string; path: string; key: string | undefined; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, key: req.headers['x-api-key'] as string | undefined, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ok = (result: unknown) => (_req: IncomingMessage, _b: string, res: ServerResponse) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: true, result }));
};

describe('TonApi', () => {
  it('asks REST paths with the key in X-API-Key, never jsonRPC or the URL', async () => {
    handler = ok({ '@type': 'blocks.masterchainInfo', last: { seqno: 4242, workchain: -1, shard: '-9223372036854775808' } });
    seen.length = 0;
    const api = new TonApi(url + '/api/v2/', { apiKey: 'k-123' });
    expect(await api.masterchainSeqno()).toBe(4242);
    handler = ok({ gas_used: 1, exit_code: 0, stack: [['num', '0x2a']] });
    const r = await api.runGetMethod('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs', 'seqno', []);
    expect(r).toEqual({ exitCode: 0, stack: [{ type: 'num', value: 42n }] });
    expect(seen.map((s) => `${s.method} ${s.path.split('?')[0]}`)).toEqual(['GET /api/v2/getMasterchainInfo', 'POST /api/v2/runGetMethod']);
    expect(seen.every((s) => s.key === 'k-123' && !s.path.includes('k-123'))).toBe(true);
    expect(JSON.parse(seen[1]!.body)).toEqual({ address: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs', method: 'seqno', stack: [] });
  });

  it('sends getTransactions paging parameters as toncenter names them', async () => {
    handler = ok([]);
    seen.length = 0;
    await new TonApi(url).transactions('0:' + 'ab'.repeat(32), { limit: 100, lt: 123n, hash: 'x'.repeat(43) + '=', toLt: 100n });
    const q = new URL(seen[0]!.path, url).searchParams;
    expect(Object.fromEntries(q)).toEqual({ address: '0:' + 'ab'.repeat(32), limit: '100', lt: '123', hash: 'x'.repeat(43) + '=', to_lt: '100' });
    expect(seen[0]!.key).toBeUndefined();
  });

  it('turns refusals into NodeError and outages into NodeUnreachableError', async () => {
    const api = new TonApi(url);
    handler = (_q, _b, res) => {
      res.statusCode = 416;
      res.end(JSON.stringify({ ok: false, error: 'Incorrect address', code: 416 }));
    };
    const refused = await api.addressInformation('nope').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NodeError);
    expect((refused as NodeError).code).toBe(416);
    expect(String(refused)).toContain('Incorrect address');
    handler = (_q, _b, res) => {
      res.statusCode = 503;
      res.end('down');
    };
    await expect(api.masterchainSeqno()).rejects.toBeInstanceOf(NodeUnreachableError);
    await expect(new TonApi('http://127.0.0.1:1').masterchainSeqno()).rejects.toBeInstanceOf(NodeUnreachableError);
  });

  const hostile: Array<[string, Handler]> = [
    ['a huge answer', (_q, _b, res) => res.end('{"ok":true,"result":"' + 'x'.repeat(300_000) + '"}')],
    ['malformed JSON', (_q, _b, res) => res.end('{"ok":true,"result":[')],
    ['no envelope', (_q, _b, res) => res.end('[1,2,3]')],
    ['a seqno as text', ok({ last: { seqno: '12' } })],
    ['a negative seqno', ok({ last: { seqno: -1 } })],
    ['a fractional seqno', ok({ last: { seqno: 1.5 } })],
  ];
  for (const [what, h] of hostile) {
    it(`refuses ${what} as a node fault`, async () => {
      handler = h;
      await expect(new TonApi(url, { maxResponseBytes: 100_000 }).masterchainSeqno()).rejects.toBeInstanceOf(FaultyNodeError);
    });
  }

  const tx = (over: Record<string, unknown>) => ({ transaction_id: { lt: '100', hash: 'q'.repeat(43) + '=' }, utime: 1, data: 'te6c', ...over });
  const badTxs: Array<[string, unknown]> = [
    ['an lt as a number beyond 2^53', [tx({ transaction_id: { lt: 2 ** 60, hash: 'q'.repeat(43) + '=' } })]],
    ['an lt with junk', [tx({ transaction_id: { lt: '12a', hash: 'q'.repeat(43) + '=' } })]],
    ['a short hash', [tx({ transaction_id: { lt: '1', hash: 'abc' } })]],
    ['no BOC', [tx({ data: 42 })]],
    ['a value as a float', [tx({ in_msg: { source: '', value: 1.5 } })]],
    ['a source with a bad checksum', [tx({ in_msg: { source: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt', value: '1' } })]],
    ['more transactions than asked', Array.from({ length: 3 }, () => tx({}))],
    ['an object', { transactions: [] }],
  ];
  for (const [what, result] of badTxs) {
    it(`refuses transactions with ${what}`, async () => {
      handler = ok(result);
      await expect(new TonApi(url).transactions('0:' + '00'.repeat(32), { limit: 2 })).rejects.toBeInstanceOf(FaultyNodeError);
    });
  }
});

describe('node answers', () => {
  it('reads addresses in every form the way @ton/core does', () => {
    const a = Address.parse('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs');
    for (const text of [a.toString(), a.toString({ bounceable: false }), a.toString({ testOnly: true }), a.toString({ urlSafe: false }), a.toRawString(), a.toRawString().toUpperCase().replace('0X', '0x')]) {
      expect(nodeAddress('t', 'address', text)).toBe(a.toRawString());
    }
    expect(nodeAddress('t', 'address', '')).toBeNull();
    expect(() => nodeAddress('t', 'address', 'EQ' + 'A'.repeat(46))).toThrow(FaultyNodeError);
  });

  it('reads a real transaction from its BOC and refuses one whose hash or account lies', async () => {
    const chain = await Blockchain.create();
    const payer = await chain.treasury('payer');
    const merchant = await chain.treasury('merchant');
    const r = await payer.send({ to: merchant.address, value: toNano('1.5'), body: tonComment('Ab12'), bounce: false });
    const t = r.transactions.find((x) => x.inMessage?.info.dest?.toString() === merchant.address.toString() && x.inMessage.info.type === 'internal')!;
    const hash = t.hash().toString('hex');
    const listed = { lt: t.lt, hashB64: t.hash().toString('base64'), hash, utime: t.now, data: t.raw.toBoc().toString('base64'), inMsg: null };
    const content = readTransaction('t', listed, merchant.address.hash);
    expect(content.lt).toBe(t.lt);
    expect(content.inMsg?.internal).toBe(true);
    expect(content.inMsg?.value).toBe(toNano('1.5'));
    expect(content.inMsg?.bounced).toBe(false);
    expect(content.aborted).toBe(false);
    expect(`${content.inMsg!.source!.workchain}:${Buffer.from(content.inMsg!.source!.hash).toString('hex')}`).toBe(payer.address.toRawString());
    expect(content.inMsg!.body!.hash()).toEqual(new Uint8Array(beginCell().storeUint(0, 32).storeStringTail('Ab12').endCell().hash()));
    expect(() => readTransaction('t', { ...listed, hash: '00'.repeat(32) }, merchant.address.hash)).toThrow(FaultyNodeError);
    expect(() => readTransaction('t', listed, payer.address.hash)).toThrow(/another account/);
    expect(() => readTransaction('t', { ...listed, lt: t.lt + 1n }, merchant.address.hash)).toThrow(/logical time/);
    expect(() => readTransaction('t', { ...listed, data: 'te6ccgEBAQEAAgAAAA==' }, merchant.address.hash)).toThrow(FaultyNodeError);
    expect(() => readTransaction('t', { ...listed, data: Buffer.from('garbage-bytes').toString('base64') }, merchant.address.hash)).toThrow(FaultyNodeError);
    void internal;
  });
});
