// The body of the address-pool thread (see ./pool-deriver.ts): derives addresses and draws their
// QR codes for indexes the main thread has already reserved, and sends them back. It touches no
// database and holds no state but the derivers' caches.
import { parentPort } from 'node:worker_threads';
import { cachedDeriver, deriveRange } from './index.ts';
import { qrPng } from '../../qr/png.ts';
import type { AddressFormatRules } from './types.ts';
import { depositQrContent } from './uri.ts';
import type { PoolJob, PoolResult, WatchJob } from './pool-deriver.ts';
import type { WatchOnlyCustody } from '../family.ts';

/** A format's rules, from the module its family exports them from. */
async function rulesOf(module: PoolJob['module']): Promise<AddressFormatRules> {
  const exported = ((await import(module.url)) as Record<string, unknown>)[module.name];
  if (!exported) throw new Error(`${module.url} exports no ${module.name}`);
  return exported as AddressFormatRules;
}

const qr = (address: string) => `data:image/png;base64,${qrPng(address).toString('base64')}`;

parentPort!.on('message', async (job: PoolJob | WatchJob) => {
  let reply: PoolResult;
  try {
    if ('kind' in job) {
      const w = ((await import(job.module.url)) as Record<string, WatchOnlyCustody | undefined>)[job.module.name];
      if (!w) throw new Error(`${job.module.url} exports no ${job.module.name}`);
      const rules = await rulesOf(job.format);
      const rows = [];
      for (let idx = job.start; idx < job.start + job.count; idx++) {
        const { address, path } = w.deposit(job.network, job.material, job.custodyId, idx);
        rows.push({ idx, address, path, qr: qr(depositQrContent(rules, job.network, address)) });
      }
      parentPort!.postMessage({ id: job.id, rows } satisfies PoolResult);
      return;
    }
    const derived = deriveRange(cachedDeriver(await rulesOf(job.module), job.seed, job.coinType, job.chain), job.start, job.count);
    const rows = derived.map(({ address, path }, i) => ({ idx: job.start + i, address, path, qr: qr(address) }));
    reply = { id: job.id, rows };
  } catch (e) {
    reply = { id: job.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
});
