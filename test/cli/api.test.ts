// `satchel sign` and `satchel invoice create` as an operator uses them beside a running gateway:
// the printed headers are accepted by the gateway, and invoice create makes an invoice there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/merchants/store.ts';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { satchel } from './in-process.ts';

const headersOf = (printed: string): Record<string, string> =>
  Object.fromEntries(printed.split('\n').map((l) => l.split(': ') as [string, string]));

describe.each(await backends())('satchel sign and invoice create on $name', (backend) => {
  let gw: TestGateway;
  let url: string;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    url = await gw.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => gw?.close());

  it('sign prints headers the gateway accepts for exactly those bytes (the only merchant by default)', async () => {
    const body = '{"amount": "12.50", "currency": "USD", "order_id": "sign-1"}';
    const r = await satchel(gw, 'sign', body);
    expect(r.code).toBe(0);
    const headers = headersOf(r.out);
    expect(Object.keys(headers)).toEqual(['merchant', 'sign']);
    expect(headers.merchant).toBe(gw.merchant.id);
    const res = await gw.app.inject({ method: 'POST', url: '/v1/payment', payload: body, headers: { 'content-type': 'application/json', ...headers } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ state: 0, result: { order_id: 'sign-1', amount: '12.50' } });
    // Other bytes (the same JSON without the spaces) do not match the printed sign.
    const other = await gw.app.inject({ method: 'POST', url: '/v1/payment', payload: JSON.stringify(JSON.parse(body)), headers: { 'content-type': 'application/json', ...headers } });
    expect(other.statusCode).toBe(401);
  });

  it('sign --key payout signs with the payout key; with several merchants --merchant is needed', async () => {
    const second = await createMerchant(gw.ctx.storage.db, 'Second shop');
    const unnamed = await satchel(gw, 'sign', '{}');
    expect(unnamed.code).toBe(2);
    expect(unnamed.err).toMatch(/There are 2 merchants: pass --merchant <uuid>/);
    const r = await satchel(gw, 'sign', '--merchant', second.id, '--key', 'payout', '{}');
    expect(r.code).toBe(0);
    const res = await gw.app.inject({ method: 'POST', url: '/v1/payout/list', payload: '{}', headers: { 'content-type': 'application/json', ...headersOf(r.out) } });
    expect(res.json()).toMatchObject({ state: 0 });
    await gw.ctx.storage.db.deleteFrom('merchants').where('id', '=', second.id).execute();
  });

  it('sign refuses what the gateway would: a body that is not JSON, an unknown key, an unknown merchant', async () => {
    expect(await satchel(gw, 'sign', "{amount: 1}")).toMatchObject({ code: 2, err: expect.stringMatching(/^The body is not JSON/) });
    expect(await satchel(gw, 'sign', '--key', 'admin', '{}')).toMatchObject({ code: 2, err: '--key is payment or payout, not "admin"' });
    expect(await satchel(gw, 'sign', '--merchant', '00000000-0000-4000-8000-000000000000', '{}')).toMatchObject({ code: 2, err: 'No merchant 00000000-0000-4000-8000-000000000000' });
  });

  it('invoice create makes the invoice through the running gateway and prints it with its payer link', async () => {
    const r = await satchel(gw, 'invoice', 'create', '--amount', '10', '--currency', 'USD', '--order-id', 'cli-order-1', '--network', 'TRON', '--to-currency', 'USDT', '--url', url);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const [json, link] = r.out.split('\nPayer link: ');
    const printed = JSON.parse(json!) as { uuid: string; url: string };
    expect(printed).toMatchObject({ order_id: 'cli-order-1', amount: '10.00', currency: 'USD', network: 'TRON' });
    expect(link).toBe(printed.url);
    const info = await gw.api('/v1/payment/info', { uuid: printed.uuid });
    expect(info.body.result).toMatchObject({ uuid: printed.uuid, order_id: 'cli-order-1' });
  });

  it('invoice info prints the invoice as the API answers it, by uuid or order_id', async () => {
    const made = await satchel(gw, 'invoice', 'create', '--amount', '5', '--currency', 'USD', '--order-id', 'cli-info-1', '--url', url, '--json');
    const { uuid } = JSON.parse(made.out) as { uuid: string };
    const byUuid = await satchel(gw, 'invoice', 'info', '--uuid', uuid, '--url', url, '--json');
    expect(byUuid.code).toBe(0);
    expect(JSON.parse(byUuid.out)).toMatchObject({ uuid, order_id: 'cli-info-1', amount: '5.00' });
    const byOrder = await satchel(gw, 'invoice', 'info', '--order-id', 'cli-info-1', '--url', url, '--json');
    expect(JSON.parse(byOrder.out)).toMatchObject({ uuid });
    expect(await satchel(gw, 'invoice', 'info', '--url', url)).toMatchObject({ code: 2, err: 'invoice info needs --uuid <uuid> or --order-id <id>' });
    const unknown = await satchel(gw, 'invoice', 'info', '--order-id', 'nope', '--url', url);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe("The gateway refused the request (422): Payment not found");
  });

  it('invoice create prints the gateway refusal, and says so when no gateway answers', async () => {
    const refused = await satchel(gw, 'invoice', 'create', '--amount', 'ten', '--currency', 'USD', '--url', url);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/The gateway refused the request \(422\)/);
    expect(refused.err).toContain('amount');
    const missing = await satchel(gw, 'invoice', 'create', '--currency', 'USD', '--url', url);
    expect(missing).toMatchObject({ code: 2, err: 'invoice create needs --amount <decimal> and --currency <code>' });
    const down = await satchel(gw, 'invoice', 'create', '--amount', '10', '--currency', 'USD', '--url', 'http://127.0.0.1:9');
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/No answer from http:\/\/127\.0\.0\.1:9 .*is the gateway running\?/);
  });
});
