// Bad input, table-driven, over every signed merchant route and the payer API: numbers in every
// notation and size, nesting, encodings, NUL, prototype keys and wrong types. Every answer is a
// spec envelope with a client-error status (never a 500), nothing is written, and the work each
// request costs is bounded by its size, counted in parser steps (never by the clock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { numericWork } from '../../src/money/numeric.ts';
import { jsonWork } from '../../src/http/json-body.ts';

type Key = 'payment' | 'payout';
/** Every signed route; a `read` (test webhooks included: they save nothing) may answer 200. */
const ROUTES: Array<[string, Key, 'write' | 'read']> = [
  ['/v1/payment', 'payment', 'write'],
  ['/v1/payment/info', 'payment', 'read'],
  ['/v1/payment/list', 'payment', 'read'],
  ['/v1/payment/qr', 'payment', 'read'],
  ['/v1/payment/services', 'payment', 'read'],
  ['/v1/payment/resend', 'payment', 'write'],
  ['/v2/payment/resend', 'payment', 'write'],
  ['/v1/payment/refund', 'payout', 'write'],
  ['/v1/wallet', 'payment', 'write'],
  ['/v1/wallet/qr', 'payment', 'read'],
  ['/v1/wallet/block-address', 'payment', 'write'],
  ['/v1/wallet/blocked-address-refund', 'payment', 'write'],
  ['/v1/payout', 'payout', 'write'],
  ['/v1/payout/calc', 'payout', 'read'],
  ['/v1/payout/calculate', 'payout', 'read'],
  ['/v1/payout/info', 'payout', 'read'],
  ['/v1/payout/list', 'payout', 'read'],
  ['/v1/payout/services', 'payout', 'read'],
  ['/v1/transfer/to-business', 'payout', 'write'],
  ['/v1/transfer/to-personal', 'payout', 'write'],
  ['/v1/test-webhook/payment', 'payment', 'read'],
  ['/v1/test-webhook/payout', 'payment', 'read'],
  ['/v1/test-webhook/wallet', 'payment', 'read'],
  ['/v1/balance', 'payment', 'read'],
];

/** Numbers in every notation and size, put in every numeric-looking parameter at once. */
const NUMBERS: unknown[] = [
  '4e-400000000', '4E+400000000', '-4e-999999999999999999999', '1e', 'e5', '.e1', '9'.repeat(5_000), '0.' + '0'.repeat(5_000) + '1',
  '0x1f', '0b101', '1_000', '1,5', 'NaN', 'Infinity', '-Infinity', '١٢٣', '１２', '+-1', '--1', '1..2', ' ', '\t5', '5\n',
  1e308, -1e-308, -0, 123456789012345678901234567890, true, false, [], {}, ['1'], { $gt: 1 },
];
const numericBody = (v: unknown) => ({
  amount: v, accuracy_payment_percent: v, lifetime: v, subtract: v, discount_percent: v, is_subtract: v, is_payment_multiple: v,
  currency: 'USDT', network: 'TRON', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', url_callback: 'https://example.com/cb', status: 'paid',
});

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObj = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

/** Raw bodies: nesting, encodings, NUL, prototype keys, wrong types, sizes. */
const BODIES: Array<[string, string | Buffer]> = [
  ...NUMBERS.map((v, i): [string, string] => [`number #${i} ${JSON.stringify(v)?.slice(0, 24)}`, JSON.stringify(numericBody(v))]),
  ['deep array', deep(20_000)],
  ['deep object', deepObj(5_000)],
  ['deep currencies', `{"amount":"10","currency":"USD","currencies":${deep(2_000)}}`],
  ['deep inside a string field', `{"order_id":${deepObj(3_000)}}`],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['UTF-16 with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"amount":"1"}', 'utf16le')])],
  ['UTF-8 BOM', '\uFEFF{"amount":"1","currency":"USD"}'],
  ['lone surrogate', '{"order_id":"\\ud800","amount":"1","currency":"USD"}'],
  ['NUL in a value', '{"order_id":"a\\u0000b","amount":"1","currency":"USD","uuid":"a\\u0000"}'],
  ['NUL in a key', '{"order_id\\u0000":"x","amount\\u0000":"1"}'],
  ['raw NUL byte', Buffer.from('{"order_id":"a\u0000b"}')],
  ['__proto__ key', '{"__proto__":{"is_blocked":0,"amount":"1"},"currency":"USD"}'],
  ['constructor key', '{"constructor":{"prototype":{"x":1}}}'],
  ['nested __proto__', '{"currencies":[{"__proto__":{"currency":"BTC"}}],"amount":"1","currency":"USD"}'],
  ['prototype names as values', '{"currency":"__proto__","network":"constructor","order_id":"toString","course_source":"hasOwnProperty","uuid":"__proto__"}'],
  ['wrong types everywhere', JSON.stringify({ amount: { $gt: 1 }, currency: ['USD'], order_id: 5.5, uuid: true, network: {}, url_callback: 7, address: null, currencies: 'all', date_from: 5, date_to: [], cursor: {}, txid: 1, merchant_payment_uuid: [], wallet_address_uuid: {} })],
  ['top-level number', '42'],
  ['top-level string', '"amount"'],
  ['top-level null', 'null'],
  ['top-level array of objects', '[{"amount":"1"}]'],
  ['malformed', '{"amount":'],
  ['trailing garbage', '{"amount":"1"} x'],
  ['duplicate keys', '{"amount":"1","amount":"4e-400000000","currency":"USD"}'],
  ['long strings', JSON.stringify({ order_id: 'o'.repeat(30_000), uuid: 'u'.repeat(20_000), currency: 'c'.repeat(10_000) })],
  ['many keys', JSON.stringify(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i])))],
  ['wide array', JSON.stringify({ currencies: Array.from({ length: 5000 }, () => ({ currency: 1 })) })],
];

/** A work budget per request: parser steps at most a few per byte of the body, plus a constant. */
const budget = (bytes: number) => 8 * bytes + 1000;

async function rowCounts(gw: TestGateway): Promise<Record<string, number>> {
  const db = gw.ctx.storage.db;
  const tables =
    gw.ctx.storage.kind === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(db)).rows
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_name not like 'kysely_%'`.execute(db)).rows;
  const out: Record<string, number> = {};
  for (const { name } of tables) out[name] = Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(name)}`.execute(db)).rows[0]!.n);
  return out;
}

describe.each(await backends())('bad input on every route on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_PAYER_RATE_LIMIT: '100000' } });
  });
  afterAll(async () => gw?.close());

  it('every route exists and is signed with the key the table says', async () => {
    for (const [path, key] of ROUTES) {
      const r = await gw.api(path, {}, { key });
      expect(r.status, path).not.toBe(404);
      expect(r.status, path).not.toBe(401);
    }
  });

  it.each(ROUTES)('%s: envelopes, client-error statuses, bounded work, nothing written', async (path, key, kind) => {
    const before = await rowCounts(gw);
    const merchant = gw.merchant;
    const secret = key === 'payout' ? merchant.payout_key : merchant.payment_key;
    for (const [label, body] of BODIES) {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
      const steps0 = numericWork.steps + jsonWork.steps;
      const res = await gw.app.inject({
        method: 'POST',
        url: path,
        payload: bytes,
        headers: { 'content-type': 'application/json', merchant: merchant.id, sign: signBody(bytes, secret) },
      });
      const steps = numericWork.steps + jsonWork.steps - steps0;
      const where = `${path} <- ${label}`;
      expect(steps, where).toBeLessThanOrEqual(budget(bytes.length));
      const allowed = kind === 'read' ? [200, 400, 401, 413, 422] : [400, 401, 413, 422];
      expect(allowed, `${where}: ${res.statusCode} ${res.body.slice(0, 200)}`).toContain(res.statusCode);
      const env = res.json();
      if (res.statusCode === 200) expect(env.state, where).toBe(0);
      else {
        expect(env.state, where).toBe(1);
        expect(typeof env.message === 'string' || (env.errors !== null && typeof env.errors === 'object'), where).toBe(true);
      }
      expect(res.body, where).not.toMatch(/at .*\.ts:\d+|Error:/);
    }
    expect(await rowCounts(gw), path).toEqual(before);
  });

  it('the payer API answers bad paths and bodies with envelopes, bounded work, nothing written', async () => {
    const before = await rowCounts(gw);
    const ids = ['x', '__proto__', 'constructor', '%00', '00000000-0000-4000-8000-000000000000', "' or 1=1 --", '..%2F..%2Fetc', 'a'.repeat(99), '%E2%80%AE', '%F0%9F%92%A9'];
    for (const id of ids) {
      for (const url of [`/api/pay/${id}`, `/api/pay/wallet/${id}`]) {
        const res = await gw.app.inject({ method: 'GET', url });
        expect([400, 404, 414], `${url}: ${res.statusCode}`).toContain(res.statusCode);
        expect(res.json().state, url).toBe(1);
      }
      for (const [label, body] of BODIES) {
        const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
        const steps0 = numericWork.steps + jsonWork.steps;
        const res = await gw.app.inject({ method: 'POST', url: `/api/pay/${id}/choose`, payload: bytes, headers: { 'content-type': 'application/json' } });
        expect(numericWork.steps + jsonWork.steps - steps0, label).toBeLessThanOrEqual(budget(bytes.length));
        expect([400, 404, 413, 414, 422], `${id} <- ${label}: ${res.statusCode}`).toContain(res.statusCode);
        expect(res.json().state, label).toBe(1);
      }
    }
    expect(await rowCounts(gw)).toEqual(before);
  });
});
