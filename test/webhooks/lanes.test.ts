// One merchant's hanging receiver must not hold up the others' webhooks (issue 24): the lanes take
// new work as they free up, and a target gets at most its share of them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { enqueueWebhook } from '../../src/webhooks/outbox.ts';
import { WebhookDeliverer } from '../../src/webhooks/deliver.ts';
import { targetOf } from '../../src/webhooks/lanes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(10);
  }
}

describe('targetOf', () => {
  it('counts scheme, host and port as one target, and keeps the stored text up to the path', () => {
    expect(targetOf('https://Shop.Example/cb?o=1')).toEqual({ key: 'https://shop.example', prefix: 'https://Shop.Example' });
    expect(targetOf('http://127.0.0.1:8080/a')).toEqual({ key: 'http://127.0.0.1:8080', prefix: 'http://127.0.0.1:8080' });
    expect(targetOf('http://h:1?x').prefix).toBe('http://h:1');
  });
});

describe.each(await backends())('webhook lanes on $name', (backend) => {
  let gw: TestGateway;
  let hanging: Receiver;
  let healthy: Receiver;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    hanging = await startReceiver(() => 'hang');
    healthy = await startReceiver(() => ({ status: 200 }));
  });
  afterAll(async () => {
    await hanging?.close();
    await healthy?.close();
    await gw?.close();
  });

  const enqueue = (url: string, refId: string = randomUUID(), body = '{"type":"payment"}') =>
    enqueueWebhook(gw.ctx.storage.db, { merchantId: gw.merchant.id, kind: 'payment', refId, url, body, allowPrivate: true, now: gw.clock.now });
  const statusOf = (ids: string[]) => gw.ctx.storage.db.selectFrom('webhooks').select(['id', 'status', 'attempts']).where('id', 'in', ids).execute();

  it("delivers a healthy receiver's webhooks while a hanging receiver's attempts are still open", { timeout: 30_000 }, async () => {
    // The hanging merchant's webhooks are the oldest: a claim of the oldest 50 takes them first.
    const stuck: string[] = [];
    for (let i = 0; i < 60; i++) stuck.push(await enqueue(hanging.url));
    const fine: string[] = [];
    for (let i = 0; i < 30; i++) fine.push(await enqueue(healthy.url));
    // Per-invoice order still holds: three webhooks about one invoice, in their order.
    const inv = randomUUID();
    for (const s of ['check', 'paid', 'paid_over']) fine.push(await enqueue(healthy.url, inv, `{"status":"${s}"}`));

    const d = new WebhookDeliverer(gw.ctx, { timeoutMs: 60_000, perTarget: 2 });
    const stop = new AbortController();
    const errors: unknown[] = [];
    const running = d.run(stop.signal, { idleMs: 20, onError: (e) => errors.push(e) });
    try {
      await until(async () => (await statusOf(fine)).every((r) => r.status === 'delivered'), 20_000);
      expect(healthy.deliveries).toHaveLength(fine.length);
      const order = healthy.deliveries.map((r) => r.json.status as string | undefined).filter((s) => s);
      expect(order).toEqual(['check', 'paid', 'paid_over']);
      // The hanging receiver holds its two attempts open, and no more are begun to it.
      expect(hanging.deliveries).toHaveLength(2);
      expect((await statusOf(stuck)).every((r) => r.status === 'pending' && r.attempts === 0)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      stop.abort();
      // The open attempts end when the receiver goes away; nothing claimed is left leased.
      await hanging.close();
      await running;
    }
    const rows = await gw.ctx.storage.db.selectFrom('webhooks').select(['next_attempt_at', 'attempts']).where('id', 'in', stuck).execute();
    expect(rows.filter((r) => r.attempts === 1)).toHaveLength(2);
    for (const r of rows.filter((x) => x.attempts === 0)) expect(Number(r.next_attempt_at)).toBeLessThanOrEqual(gw.clock.now);
  });
});
