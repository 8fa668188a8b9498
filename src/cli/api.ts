// `satchel sign` and `satchel invoice create`: trying the merchant API without writing
// md5(base64(body) + key) by hand. Both sign with the function the server verifies with
// (src/webhooks/signature.ts), so what works here works for a merchant's own code doing the same.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { openStorage, type Storage } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { isUuid } from '../contracts/rules.ts';
import { signBody } from '../webhooks/signature.ts';
import { findMerchant, listMerchants, type Merchant } from '../merchants/store.ts';

export interface Out {
  log: (s: string) => void;
  error: (s: string) => void;
}

export const API_USAGE = `  sign [--merchant <uuid>] [--key payment|payout] '<json>'
                                         print the merchant and sign headers for exactly these bytes
  invoice create --amount <decimal> --currency <code> [--order-id X] [--network N] [--to-currency C] [--merchant <uuid>] [--url URL] [--json]
                                         create an invoice through the running gateway's API (public URL, or --url)
  invoice info --uuid <uuid> | --order-id X [--merchant <uuid>] [--url URL] [--json]
                                         an invoice as the API answers it`;

/** Refused input: the message is printed and the command exits with 2. */
export class CliInputError extends Error {}

export async function openCliStorage(config: Config): Promise<Storage> {
  const s = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
  await migrateToLatest(s);
  return s;
}

/** The merchant named by --merchant; without it, the only merchant there is (the first start's demo). */
export async function merchantArg(db: Kysely<DB>, id: string | undefined): Promise<Merchant> {
  if (id !== undefined) {
    if (!isUuid(id)) throw new CliInputError(`--merchant needs a merchant uuid, not "${id}"`);
    const m = await findMerchant(db, id.toLowerCase());
    if (!m) throw new CliInputError(`No merchant ${id}`);
    return m;
  }
  const all = await listMerchants(db);
  if (all.length === 1) return all[0]!;
  if (all.length === 0) throw new CliInputError('No merchant yet: start the gateway once (it creates a demo merchant) or run satchel merchant create --name NAME');
  throw new CliInputError(`There are ${all.length} merchants: pass --merchant <uuid> (satchel merchant list shows them)`);
}

async function withStorage<T>(config: Config, f: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const s = await openCliStorage(config);
  try {
    return await f(s.db);
  } finally {
    await s.close();
  }
}

function keyOf(m: Merchant, key: string | undefined): string {
  if (key === undefined || key === 'payment') return m.payment_key;
  if (key === 'payout') return m.payout_key;
  throw new CliInputError(`--key is payment or payout, not "${key}"`);
}

export async function signCli(args: string[], config: Config, out: Out): Promise<number> {
  return guarded(out, async () => {
    const { values, positionals } = parseArgs({ args, options: { merchant: { type: 'string' }, key: { type: 'string' } }, allowPositionals: true });
    if (positionals.length !== 1) throw new CliInputError(`sign takes the request body as one argument, in single quotes: satchel sign '{"amount":"10","currency":"USD","order_id":"1"}'`);
    const body = positionals[0]!;
    try {
      JSON.parse(body);
    } catch (e) {
      throw new CliInputError(`The body is not JSON (${(e as Error).message}); the gateway would refuse it`);
    }
    const m = await withStorage(config, (db) => merchantArg(db, values.merchant));
    out.log(`merchant: ${m.id}\nsign: ${signBody(body, keyOf(m, values.key))}`);
    return 0;
  });
}

export async function invoiceCli(action: string | undefined, args: string[], config: Config, out: Out): Promise<number> {
  return guarded(out, async () => {
    if (action !== 'create' && action !== 'info') throw new CliInputError(`Usage:\n${API_USAGE}`);
    const { values } = parseArgs({
      args,
      options: {
        amount: { type: 'string' },
        currency: { type: 'string' },
        'order-id': { type: 'string' },
        uuid: { type: 'string' },
        network: { type: 'string' },
        'to-currency': { type: 'string' },
        merchant: { type: 'string' },
        url: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    const base = (values.url ?? config.publicUrl).replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(base)) throw new CliInputError(`--url must start with http:// or https://, not "${base}"`);
    let path: string;
    let params: Record<string, string>;
    if (action === 'create') {
      if (!values.amount || !values.currency) throw new CliInputError('invoice create needs --amount <decimal> and --currency <code>');
      // The amount goes as the text it was typed: the API takes decimal strings, never a float.
      params = { amount: values.amount, currency: values.currency, order_id: values['order-id'] ?? `cli-${randomUUID().slice(0, 8)}` };
      if (values.network) params.network = values.network;
      if (values['to-currency']) params.to_currency = values['to-currency'];
      path = '/v1/payment';
    } else {
      if (!values.uuid && !values['order-id']) throw new CliInputError('invoice info needs --uuid <uuid> or --order-id <id>');
      params = values.uuid ? { uuid: values.uuid } : { order_id: values['order-id']! };
      path = '/v1/payment/info';
    }
    const m = await withStorage(config, (db) => merchantArg(db, values.merchant));
    const result = await signedCall(base, path, params, m, out);
    if (result === null) return 1;
    if (values.json) out.log(JSON.stringify(result));
    else out.log(`${JSON.stringify(result, null, 2)}\nPayer link: ${typeof result.url === 'string' ? result.url : '(none)'}`);
    return 0;
  });
}

/** One call of the merchant API signed with the payment key; the result, or null once the refusal is printed. */
async function signedCall(base: string, path: string, params: Record<string, string>, m: Merchant, out: Out): Promise<Record<string, unknown> | null> {
  const body = JSON.stringify(params);
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', merchant: m.id, sign: signBody(body, m.payment_key) },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (e) {
    out.error(`No answer from ${base} (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}): is the gateway running? (npm start, or --url)`);
    return null;
  }
  const text = await response.text();
  let envelope: { state?: number; result?: Record<string, unknown>; message?: string; errors?: unknown };
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    out.error(`${base} answered ${response.status} with something other than the gateway's JSON: ${text.slice(0, 200)}`);
    return null;
  }
  if (envelope.state !== 0 || !envelope.result) {
    out.error(`The gateway refused the request (${response.status}): ${envelope.message ?? 'invalid parameters'}`);
    if (envelope.errors) out.error(JSON.stringify(envelope.errors, null, 2));
    return null;
  }
  return envelope.result;
}

async function guarded(out: Out, f: () => Promise<number>): Promise<number> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof CliInputError || (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))) {
      out.error(e.message);
      return 2;
    }
    throw e;
  }
}
