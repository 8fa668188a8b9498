// The body of the address-pool thread (see ./pool-deriver.ts): derives addresses and draws their
// QR codes for indexes the main thread has already reserved, and sends them back. It touches no
// database and holds no state but the derivers' caches.
import { parentPort } from 'node:worker_threads';
import { cachedDeriver, deriveRange } from './index.ts';
import { qrPng } from '../../qr/png.ts';
import type { AddressFormatRules } from './types.ts';
import type { PoolJob, PoolResult, QrJob } from './pool-deriver.ts';

/** A format's rules, from the module its family exports them from. */
async function rulesOf(module: PoolJob['module']): Promise<AddressFormatRules> {
  const exported = ((await import(module.url)) as Record<string, unknown>)[module.name];
  if (!exported) throw new Error(`${module.url} exports no ${module.name}`);
  return exported as AddressFormatRules;
}

parentPort!.on('message', async (job: PoolJob | QrJob) => {
  let reply: PoolResult;
  try {
    if ('kind' in job) {
      parentPort!.postMessage({ id: job.id, qrs: job.addresses.map((a) => `data:image/png;base64,${qrPng(a).toString('base64')}`) } satisfies PoolResult);
      return;
    }
    const derived = deriveRange(cachedDeriver(await rulesOf(job.module), job.seed, job.coinType, job.chain), job.start, job.count);
    const rows = derived.map(({ address, path }, i) => ({ idx: job.start + i, address, path, qr: `data:image/png;base64,${qrPng(address).toString('base64')}` }));
    reply = { id: job.id, rows };
  } catch (e) {
    reply = { id: job.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
});
