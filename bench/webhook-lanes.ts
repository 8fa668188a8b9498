// Webhook lanes beside a hanging receiver (issue 24): time from queueing a webhook to its first
// attempt (the deliverer running, polling every 50 ms), for a receiver that answers at once while
// another merchant's receiver never answers (its webhooks queued first, so the oldest-first claims
// meet them first), against the same healthy
// receiver with no hanging neighbour, measured in the same run. The hanging receiver's own first
// attempts are compared with what its per-target cap allows: waves of `cap` attempts, one attempt
// time limit each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { createMerchant } from '../src/merchants/store.ts';
import { enqueueWebhook } from '../src/webhooks/outbox.ts';
import { WebhookDeliverer } from '../src/webhooks/deliver.ts';
import { closeWebhookConnections } from '../src/webhooks/send.ts';
import { stopRefills } from '../src/chain/allocate.ts';
import { startReceiver } from '../test/helpers/receiver.ts';
import { TEST_MNEMONIC } from '../test/helpers/gateway.ts';
import type { Row } from './api.ts';

const HEALTHY = 300;
const HANGING = 24;
const TIMEOUT_MS = 2000;
const CAP = 4;

interface Latencies {
  healthy: number[];
  hanging: number[];
}

async function scenario(withHanging: boolean): Promise<Latencies> {
  const dir = mkdtempSync(join(tmpdir(), 'satchel-lanes-'));
  const ctx = await createContext(
    loadConfig({ SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: TEST_MNEMONIC, LOG_LEVEL: 'silent', SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1' }),
  );
  const merchant = await createMerchant(ctx.storage.db, 'Lanes shop');
  const queuedAt = new Map<string, number>();
  const first = new Map<string, number>();
  const seen = (id: string) => {
    if (!first.has(id)) first.set(id, Date.now());
  };
  const healthy = await startReceiver((d) => (seen(String(d.headers['x-satchel-delivery'])), { status: 200 }));
  const hanging = await startReceiver((d) => (seen(String(d.headers['x-satchel-delivery'])), 'hang'));
  /** Queues `n` webhooks to `url` in one transaction: queued when it commits. */
  const enqueue = async (url: string, n: number) => {
    const ids: string[] = [];
    await ctx.storage.db.transaction().execute(async (trx) => {
      for (let i = 0; i < n; i++) {
        ids.push(await enqueueWebhook(trx, { merchantId: merchant.id, kind: 'payment', refId: randomUUID(), url, body: '{"type":"payment"}', allowPrivate: true, now: Date.now() }));
      }
    });
    const at = Date.now();
    for (const id of ids) queuedAt.set(id, at);
    return ids;
  };
  // Delivering from the start, as a worker does: the webhooks are queued while it runs.
  const stop = new AbortController();
  const d = new WebhookDeliverer(ctx, { timeoutMs: TIMEOUT_MS, perTarget: CAP });
  const running = d.run(stop.signal, { idleMs: 50, onError: (e) => console.error(e) });
  await new Promise((r) => setTimeout(r, 200));
  const stuck = withHanging ? await enqueue(hanging.url, HANGING) : [];
  const fine = await enqueue(healthy.url, HEALTHY);
  const deadline = Date.now() + 120_000;
  while ([...fine, ...stuck].some((id) => !first.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  stop.abort();
  await hanging.close();
  await running;
  await healthy.close();
  closeWebhookConnections();
  await stopRefills(ctx.storage);
  await ctx.storage.close();
  rmSync(dir, { recursive: true, force: true });
  const lat = (ids: string[]) => ids.map((id) => (first.get(id) ?? Number.NaN) - queuedAt.get(id)!).sort((a, b) => a - b);
  return { healthy: lat(fine), hanging: lat(stuck) };
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const ms = (x: number) => `${Math.round(x)} ms`;

export async function webhookLanesBench(): Promise<Row[]> {
  const alone = await scenario(false);
  const beside = await scenario(true);
  // The hanging receiver's last webhook waits for the waves ahead of it: ceil(n / cap) - 1 attempts.
  const expected = (Math.ceil(HANGING / CAP) - 1) * TIMEOUT_MS;
  return [
    {
      name: `Healthy receiver, queue to first attempt, p50 (${HEALTHY} webhooks, beside a hanging receiver with ${HANGING} older ones)`,
      value: ms(pct(beside.healthy, 50)),
      baseline: `${ms(pct(alone.healthy, 50))} alone`,
      ratio: (pct(beside.healthy, 50) / Math.max(1, pct(alone.healthy, 50))).toFixed(2),
      note: 'same receiver and webhooks with no hanging neighbour, same run',
    },
    {
      name: 'Healthy receiver, queue to first attempt, max (same run)',
      value: ms(pct(beside.healthy, 100)),
      baseline: `${ms(pct(alone.healthy, 100))} alone`,
      ratio: (pct(beside.healthy, 100) / Math.max(1, pct(alone.healthy, 100))).toFixed(2),
      note: `before issue 24 every webhook behind the hanging ones waited for their ${TIMEOUT_MS / 1000} s attempts, round after round`,
    },
    {
      name: `Hanging receiver, queue to first attempt, max (${HANGING} webhooks, ${CAP} at a time, ${TIMEOUT_MS / 1000} s attempt limit)`,
      value: ms(pct(beside.hanging, 100)),
      baseline: `${ms(expected)} (waves of ${CAP})`,
      ratio: (pct(beside.hanging, 100) / expected).toFixed(2),
      note: `p50 ${ms(pct(beside.hanging, 50))}; a hanging receiver delays only its own webhooks`,
    },
  ];
}
