import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createContext } from '../../src/compose.ts';
import { enqueueWebhook } from '../../src/webhooks/outbox.ts';
import { GIVE_UP_AFTER_MS, nextDelay, WebhookDeliverer } from '../../src/webhooks/deliver.ts';
import { sendWebhook } from '../../src/webhooks/send.ts';
import { freePort, startReceiver, type Receiver } from '../helpers/receiver.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('nextDelay', () => {
  it('backs off 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h, then every 6 h', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(nextDelay)).toEqual([10 * S, 30 * S, M, 5 * M, 15 * M, 30 * M, H, 2 * H, 4 * H, 6 * H, 6 * H, 6 * H]);
    expect(nextDelay(0)).toBe(0);
  });

  it('keeps retrying for more than 24 hours, and stops before the nominal schedule passes 26 hours', () => {
    let elapsed = 0;
    let attempts = 1; // the first attempt, at 0
    for (let d = nextDelay(attempts); d !== null; d = nextDelay(attempts)) {
      elapsed += d;
      attempts++;
    }
    expect(elapsed).toBeGreaterThanOrEqual(24 * H);
    expect(elapsed).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);
    expect(attempts).toBe(13);
    expect(nextDelay(13)).toBeNull();
  });
});

describe('sendWebhook', () => {
  it('refuses schemes other than http(s) and hosts that resolve to private addresses', async () => {
    expect(await sendWebhook('ftp://example.com/x', '{}', { deliveryId: 'd', allowPrivate: false })).toMatchObject({ ok: false, blocked: true, error: 'blocked: only http and https callbacks' });
    const rebinding = await sendWebhook('http://shop.example/cb', '{}', {
      deliveryId: 'd',
      allowPrivate: false,
      // One public and one private answer: any private address refuses the host.
      resolve: async () => [{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.5', family: 4 }],
    });
    expect(rebinding).toMatchObject({ ok: false, blocked: true, httpStatus: null, error: 'blocked: private address' });
    expect(await sendWebhook('http://localhost:1/cb', '{}', { deliveryId: 'd', allowPrivate: false })).toMatchObject({ blocked: true, error: 'blocked: private address' });
  });

  it('connects only to the checked address, whatever DNS says later', async () => {
    const rec = await startReceiver();
    try {
      const r = await sendWebhook(`http://merchant.invalid:${rec.port}/hook`, '{"a":1}', {
        deliveryId: 'd-1',
        allowPrivate: true,
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      expect(r).toMatchObject({ ok: true, httpStatus: 200, error: null });
      expect(rec.deliveries[0]!.headers.host).toBe(`merchant.invalid:${rec.port}`);
    } finally {
      await rec.close();
    }
  });

  it('keeps a connection alive between deliveries, and reuses it only for the address checked for each', async () => {
    const rec = await startReceiver();
    const url = `http://merchant.invalid:${rec.port}/hook`;
    const resolvingTo = (address: string) => ({ deliveryId: 'd', allowPrivate: true, resolve: async () => [{ address, family: 4 }] });
    try {
      expect(await sendWebhook(url, '{"n":1}', resolvingTo('127.0.0.1'))).toMatchObject({ ok: true });
      expect(await sendWebhook(url, '{"n":2}', resolvingTo('127.0.0.1'))).toMatchObject({ ok: true });
      expect(rec.deliveries.map((r) => r.remotePort)).toEqual([rec.deliveries[0]!.remotePort, rec.deliveries[0]!.remotePort]);
      // The name now resolves elsewhere (nothing listens on 127.0.0.2): the open connection to
      // 127.0.0.1 is not used for it, a new one is made to the address just checked, and fails.
      const moved = await sendWebhook(url, '{"n":3}', resolvingTo('127.0.0.2'));
      expect(moved).toMatchObject({ ok: false, blocked: false, httpStatus: null });
      expect(moved.error).toMatch(/ECONNREFUSED/);
      expect(rec.deliveries).toHaveLength(2);
      expect(await sendWebhook(url, '{"n":4}', resolvingTo('127.0.0.1'))).toMatchObject({ ok: true });
      expect(rec.deliveries[2]!.remotePort).toBe(rec.deliveries[0]!.remotePort);
    } finally {
      await rec.close();
    }
  });

  it('does not follow redirects with an injected fetch', async () => {
    let redirect: RequestInit['redirect'];
    const fake: typeof fetch = async (_url, init) => {
      redirect = init?.redirect;
      return new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } });
    };
    const r = await sendWebhook('https://shop.example/cb', '{}', { deliveryId: 'd', allowPrivate: false, fetch: fake, resolve: async () => [{ address: '93.184.215.14', family: 4 }] });
    expect(redirect).toBe('manual');
    expect(r).toMatchObject({ ok: false, blocked: false, httpStatus: 302, error: 'HTTP 302' });
  });
});

describe.each(await backends())('webhook delivery on $name', (backend) => {
  let gw: TestGateway;
  let rec: Receiver;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    rec = await startReceiver();
  });
  afterAll(async () => {
    await rec?.close();
    await gw?.close();
  });

  const enqueue = (url: string, body = '{"type":"payment"}', allowPrivate = false, g = gw, refId: string = randomUUID()) =>
    enqueueWebhook(g.ctx.storage.db, { merchantId: g.merchant.id, kind: 'payment', refId, url, body, allowPrivate, now: g.clock.now });
  const row = (id: string, g = gw) => g.ctx.storage.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const attemptsOf = (id: string, g = gw) =>
    g.ctx.storage.db.selectFrom('webhook_attempts').selectAll().where('webhook_id', '=', id).orderBy('at').execute();
  /** Runs until nothing is due, so webhooks queued by earlier tests do not get in the way. */
  const drain = async (d: WebhookDeliverer) => {
    while ((await d.runOnce()) > 0) {
      /* again */
    }
  };

  it('delivers a 2xx-answered webhook once, with its headers, and records the attempt', async () => {
    rec.deliveries.length = 0;
    rec.answer = () => ({ status: 204, delayMs: 15 });
    const body = '{"type":"payment","note":"caf\u00e9 \\/"}';
    const id = await enqueue(rec.url, body);
    const d = new WebhookDeliverer(gw.ctx);
    expect(await d.runOnce()).toBe(1);
    expect(await d.runOnce()).toBe(0);
    expect(rec.deliveries).toHaveLength(1);
    const got = rec.deliveries[0]!;
    expect(got.body).toBe(body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Satchel-Webhooks/1');
    expect(got.headers['x-satchel-delivery']).toBe(id);
    expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 1, delivered_at: gw.clock.now, last_status: 204, last_error: null });
    const [a, ...more] = await attemptsOf(id);
    expect(more).toEqual([]);
    expect(a).toMatchObject({ at: gw.clock.now, http_status: 204, error: null });
    expect(a!.latency_ms).toBeGreaterThanOrEqual(10);
  });

  it('retries a failing receiver after the back-off, recording each attempt', async () => {
    rec.deliveries.length = 0;
    let status = 500;
    rec.answer = () => ({ status, body: 'database down' });
    const d = new WebhookDeliverer(gw.ctx);
    const id = await enqueue(rec.url);
    const start = gw.clock.now;
    expect(await d.runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500: database down', next_attempt_at: start + 10 * S });
    gw.clock.advance(9 * S);
    expect(await d.runOnce()).toBe(0);
    gw.clock.advance(1 * S);
    expect(await d.runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 2, next_attempt_at: gw.clock.now + 30 * S });
    gw.clock.advance(30 * S);
    status = 200;
    expect(await d.runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 3, last_status: 200, last_error: null });
    expect(rec.deliveries).toHaveLength(3);
    expect(new Set(rec.deliveries.map((r) => r.headers['x-satchel-delivery']))).toEqual(new Set([id]));
    expect((await attemptsOf(id)).map((a) => [a.http_status, a.error])).toEqual([[500, 'HTTP 500: database down'], [500, 'HTTP 500: database down'], [200, null]]);
  });

  it('keeps a webhook whose receiver is down until it comes back', async () => {
    const port = await freePort();
    const d = new WebhookDeliverer(gw.ctx);
    const id = await enqueue(`http://127.0.0.1:${port}/hook`);
    await drain(d);
    const first = await row(id);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status: null });
    expect(first.last_error).toMatch(/ECONNREFUSED/);
    const back = await startReceiver(() => ({ status: 200 }), port);
    try {
      gw.clock.advance(10 * S);
      await drain(d);
      expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(back.deliveries).toHaveLength(1);
    } finally {
      await back.close();
    }
  });

  it('gives up on a receiver that does not answer in time, and retries', async () => {
    const slow = await startReceiver(() => 'hang');
    try {
      const d = new WebhookDeliverer(gw.ctx, { timeoutMs: 200 });
      const id = await enqueue(slow.url);
      const t0 = Date.now();
      await drain(d);
      expect(Date.now() - t0).toBeLessThan(5000);
      const r = await row(id);
      expect(r).toMatchObject({ status: 'pending', attempts: 1, last_status: null, last_error: 'timeout after 200 ms' });
      const [a] = await attemptsOf(id);
      expect(a!.latency_ms).toBeGreaterThanOrEqual(190);
      expect(slow.deliveries).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('marks a webhook failed after 26 hours of failures and never retries past that', async () => {
    rec.answer = () => ({ status: 503 });
    const d = new WebhookDeliverer(gw.ctx);
    await drain(d);
    const id = await enqueue(rec.url);
    const created = gw.clock.now;
    for (let i = 0; i < 40; i++) {
      const r = await row(id);
      if (r.status !== 'pending') break;
      gw.clock.now = Math.max(gw.clock.now, Number(r.next_attempt_at));
      await d.runOnce();
    }
    const r = await row(id);
    expect(r).toMatchObject({ status: 'failed', attempts: 13, last_status: 503 });
    const at = (await attemptsOf(id)).map((a) => Number(a.at) - created);
    expect(at[at.length - 1]).toBeGreaterThanOrEqual(24 * H);
    expect(at[at.length - 1]).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);

    // A worker that was down for a day still tries once, and never past the deadline.
    const late = await enqueue(rec.url);
    gw.clock.advance(30 * H);
    await d.runOnce();
    expect(await row(late)).toMatchObject({ status: 'failed', attempts: 1 });
    // Ten failures behind it and a minute before the deadline: the next try is at the deadline, not in 6 h.
    const lagging = await enqueue(rec.url);
    await gw.ctx.storage.db.updateTable('webhooks').set({ attempts: 10 }).where('id', '=', lagging).execute();
    gw.clock.advance(25 * H + 59 * M);
    await d.runOnce();
    expect(await row(lagging)).toMatchObject({ status: 'pending', attempts: 11, next_attempt_at: gw.clock.now + M });
    gw.clock.advance(M);
    await d.runOnce();
    expect(await row(lagging)).toMatchObject({ status: 'failed', attempts: 12 });
  });

  it('never throws out of runOnce for a bad webhook', async () => {
    const d = new WebhookDeliverer(gw.ctx);
    await drain(d);
    const bad = await enqueue('not a url at all');
    rec.answer = () => ({ status: 200 });
    const good = await enqueue(rec.url);
    expect(await d.runOnce()).toBe(2);
    expect(await row(bad)).toMatchObject({ status: 'failed', last_error: 'blocked: not a valid URL' });
    expect(await row(good)).toMatchObject({ status: 'delivered' });
  });

  it('refuses private targets when private callbacks are not allowed, unless the webhook allows them', async () => {
    const strict = await startTestGateway(backend, { env: { SATCHEL_ALLOW_PRIVATE_CALLBACKS: '0' } });
    const target = await startReceiver();
    try {
      expect(strict.ctx.config.allowPrivateCallbacks).toBe(false);
      const warned: Array<{ o: unknown; msg?: string }> = [];
      const d = new WebhookDeliverer(strict.ctx, { log: { warn: (o, msg) => warned.push({ o, msg }) } });
      const blocked = await enqueue(target.url, '{}', false, strict);
      const named = await enqueue(`http://localhost:${target.port}/hook`, '{}', false, strict);
      const mapped = await enqueue(`http://[::ffff:127.0.0.1]:${target.port}/hook`, '{}', false, strict);
      const scheme = await enqueue('file:///etc/passwd', '{}', false, strict);
      expect(await d.runOnce()).toBe(4);
      for (const id of [blocked, named, mapped]) {
        expect(await row(id, strict)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'blocked: private address' });
        expect(await attemptsOf(id, strict)).toMatchObject([{ http_status: null, error: 'blocked: private address' }]);
      }
      expect(await row(scheme, strict)).toMatchObject({ status: 'failed', last_error: 'blocked: only http and https callbacks' });
      expect(target.deliveries).toHaveLength(0);
      // The operator hears of each refused target once, with the setting that would allow it.
      const refused = warned.filter((w) => w.msg?.startsWith('webhook target refused'));
      expect(refused.map((w) => (w.o as { target: string }).target).sort()).toEqual([`127.0.0.1:${target.port}`, `[::ffff:7f00:1]:${target.port}`, `localhost:${target.port}`].sort());
      expect(refused[0]!.msg).toContain('allow_private_callbacks');
      await enqueue(target.url, '{}', false, strict);
      await d.runOnce();
      expect(warned.filter((w) => w.msg?.startsWith('webhook target refused'))).toHaveLength(3);

      const testMode = await enqueue(target.url, '{}', true, strict);
      expect(await d.runOnce()).toBe(1);
      expect(await row(testMode, strict)).toMatchObject({ status: 'delivered' });
      expect(target.deliveries).toHaveLength(1);
    } finally {
      await target.close();
      await strict.close();
    }
  });

  it('delivers the webhooks about one invoice in the order they were queued, none overtaking a retry', async () => {
    const d = new WebhookDeliverer(gw.ctx);
    await drain(d);
    const log: string[] = [];
    let failNext = false;
    const ordered = await startReceiver((r) => {
      const { status } = JSON.parse(r.body) as { status: string };
      if (failNext && status === 'check') {
        failNext = false;
        log.push(`${status}:500`);
        return { status: 500 };
      }
      log.push(status);
      // The earlier webhook answers slowest: sent in parallel, it would arrive last.
      return { status: 200, delayMs: status === 'check' ? 60 : 0 };
    });
    try {
      const inv = randomUUID();
      const other = randomUUID();
      for (const status of ['check', 'paid']) await enqueue(ordered.url, `{"status":"${status}"}`, false, gw, inv);
      await enqueue(ordered.url, '{"status":"other"}', false, gw, other);
      expect(await d.runOnce()).toBe(3);
      expect(log.filter((s) => s !== 'other')).toEqual(['check', 'paid']);

      // A failed `check` holds back the `paid` queued after it until the retry gets through.
      log.length = 0;
      failNext = true;
      const inv2 = randomUUID();
      const check = await enqueue(ordered.url, '{"status":"check"}', false, gw, inv2);
      const paid = await enqueue(ordered.url, '{"status":"paid"}', false, gw, inv2);
      expect(await d.runOnce()).toBe(1);
      expect(log).toEqual(['check:500']);
      expect(await row(paid)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await d.runOnce()).toBe(0);
      gw.clock.advance(10 * S);
      expect(await d.runOnce()).toBe(2);
      expect(log).toEqual(['check:500', 'check', 'paid']);
      expect(await row(check)).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(await row(paid)).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await ordered.close();
    }
  });

  it('lets later webhooks through once an earlier one has failed for good', async () => {
    const d = new WebhookDeliverer(gw.ctx);
    await drain(d);
    const inv = randomUUID();
    const bad = await enqueue('gopher://shop.example/', '{}', false, gw, inv);
    const good = await enqueue(rec.url, '{}', false, gw, inv);
    rec.answer = () => ({ status: 200 });
    await drain(d);
    expect(await row(bad)).toMatchObject({ status: 'failed' });
    expect(await row(good)).toMatchObject({ status: 'delivered' });
  });

  it('never delivers one webhook twice when two workers run at once', async () => {
    const counting = await startReceiver(() => ({ status: 200, delayMs: 5 }));
    // On PostgreSQL the second worker has its own connection pool, as a second process would.
    const other = backend.name === 'postgres' ? await createContext(gw.config, { now: () => gw.clock.now }) : gw.ctx;
    try {
      await drain(new WebhookDeliverer(gw.ctx));
      const ids = new Set<string>();
      for (let i = 0; i < 60; i++) ids.add(await enqueue(counting.url, `{"n":${i}}`));
      const a = new WebhookDeliverer(gw.ctx);
      const b = new WebhookDeliverer(other);
      const work = async (d: WebhookDeliverer) => {
        let n = 0;
        for (let got = await d.runOnce(7); got > 0; got = await d.runOnce(7)) n += got;
        return n;
      };
      const [na, nb] = await Promise.all([work(a), work(b)]);
      expect(na + nb).toBe(60);
      if (backend.name === 'postgres') expect(Math.min(na, nb)).toBeGreaterThan(0);
      const seen = counting.deliveries.map((r) => String(r.headers['x-satchel-delivery']));
      expect(seen).toHaveLength(60);
      expect(new Set(seen)).toEqual(ids);
      const rows = await gw.ctx.storage.db.selectFrom('webhooks').select(['status', 'attempts']).where('id', 'in', [...ids]).execute();
      expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
    } finally {
      if (other !== gw.ctx) await other.storage.close();
      await counting.close();
    }
  });
});
