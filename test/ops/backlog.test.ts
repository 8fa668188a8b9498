// /metrics shows what is waiting (issue 15): scan lag per network, the webhook outbox and its oldest
// entry, payouts not yet sent and their age, and the database pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { ADDR, fund } from '../payouts/harness.ts';

function gauge(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe.each(await backends())('metrics of the backlog on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    rx = await startReceiver(() => ({ status: 500 }));
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });
  const metrics = async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    return res.body;
  };

  it('reports scan lag, outbox depth and age, waiting payouts and pool usage', async () => {
    const before = await metrics();
    expect(gauge(before, 'satchel_webhooks_pending')).toBe(0);
    expect(gauge(before, 'satchel_webhooks_oldest_pending_seconds')).toBe(0);
    expect(gauge(before, 'satchel_payouts_waiting')).toBe(0);
    expect(gauge(before, 'satchel_db_up')).toBe(1);

    const inv = await gw.api('/v1/payment', { amount: '5', currency: 'USDT', network: 'TRON', order_id: 'm-1', url_callback: rx.url });
    expect(inv.status).toBe(200);
    const paid = await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice: inv.body.result.uuid } });
    expect(paid.statusCode).toBe(200);
    await fund(gw, 'USDT', '100');
    const payout = await gw.api('/v1/payout', { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, order_id: 'm-p1' }, { key: 'payout' });
    expect(payout.status).toBe(200);

    gw.clock.advance(42_000);
    const after = await metrics();
    // The simulator scanned TRON when it paid; nothing has scanned it since.
    expect(gauge(after, 'satchel_chain_scan_lag_seconds', '{network="TRON"}')).toBe(42);
    expect(gauge(after, 'satchel_webhooks_pending')).toBe(1);
    expect(gauge(after, 'satchel_webhooks_oldest_pending_seconds')).toBe(42);
    expect(gauge(after, 'satchel_payouts_waiting')).toBe(1);
    expect(gauge(after, 'satchel_payouts_oldest_waiting_seconds')).toBe(42);
    expect(gauge(after, 'satchel_db_pool_max')).toBe(backend.name === 'postgres' ? 20 : 1);
    expect(gauge(after, 'satchel_db_pool_connections', '{state="busy"}')).toBeGreaterThanOrEqual(0);
    expect(after).toContain('# TYPE satchel_chain_scan_lag_seconds gauge');
    // Each metric is described once and each series appears once (Prometheus refuses repeats).
    const lines = after.split('\n').filter((l) => l !== '');
    const described = lines.filter((l) => l.startsWith('# HELP ')).map((l) => l.split(' ')[2]);
    expect(described.length).toBeGreaterThan(5);
    expect(new Set(described).size).toBe(described.length);
    const series = lines.filter((l) => !l.startsWith('#')).map((l) => l.slice(0, l.lastIndexOf(' ')));
    expect(new Set(series).size).toBe(series.length);
    expect(after).toMatch(/^satchel_http_requests_total\{route="\/v1\/payment",status="200"\} 1$/m);
  });
});
