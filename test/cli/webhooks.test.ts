import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { webhooksList } from '../../src/cli/webhooks.ts';
import { WebhookDeliverer } from '../../src/webhooks/deliver.ts';
import { enqueueWebhook } from '../../src/webhooks/outbox.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

describe.each(await backends())('satchel webhooks list on $name', (backend) => {
  let gw: TestGateway;
  let rec: Receiver;
  const invoiceA = '11111111-1111-4111-8111-111111111111';
  const invoiceB = '22222222-2222-4222-8222-222222222222';
  let first: string;
  let second: string;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    let n = 0;
    rec = await startReceiver(() => ({ status: n++ === 0 ? 500 : 200, body: 'try later' }));
    const q = (refId: string) => enqueueWebhook(gw.ctx.storage.db, { merchantId: gw.merchant.id, kind: 'payment', refId, url: rec.url, body: '{"a":1}', allowPrivate: false, now: gw.clock.now });
    first = await q(invoiceA);
    gw.clock.advance(1000);
    const d = new WebhookDeliverer(gw.ctx);
    await d.runOnce(); // first: 500
    second = await q(invoiceB);
    gw.clock.advance(10_000);
    await d.runOnce(); // first: 200, second: 200
  });
  afterAll(async () => {
    await rec?.close();
    await gw?.close();
  });

  const run = async (opts: Parameters<typeof webhooksList>[1]) => {
    const lines: string[] = [];
    await webhooksList(gw.ctx.storage.db, opts, { log: (s) => lines.push(s) });
    return lines;
  };

  it('prints each delivery and, under it, each attempt', async () => {
    const text = (await run({})).join('\n');
    expect(text).toContain(`${first}  payment  ref ${invoiceA}  delivered  attempts 2  last: HTTP 200`);
    expect(text).toContain(`${second}  payment  ref ${invoiceB}  delivered  attempts 1`);
    expect(text).toContain(`  url ${rec.url}`);
    expect(text).toMatch(/ {4}2026-01-15T12:00:01\.000Z {2}500 {2}\d+ ms {2}HTTP 500: try later/);
    expect(text.indexOf(first)).toBeLessThan(text.indexOf(second));
  });

  it('filters by invoice and prints JSON', async () => {
    const [json, ...rest] = await run({ invoice: invoiceA, json: true });
    expect(rest).toEqual([]);
    const list = JSON.parse(json!);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: first, kind: 'payment', ref_id: invoiceA, status: 'delivered', attempts: 2, last_status: 200, last_error: null, body: '{"a":1}' });
    expect(list[0].attempt_log.map((a: any) => [a.http_status, a.error])).toEqual([[500, 'HTTP 500: try later'], [200, null]]);
    expect(await run({ invoice: '33333333-3333-4333-8333-333333333333' })).toEqual(['No webhooks for 33333333-3333-4333-8333-333333333333.']);
  });
});
