// Issue 26: creating an invoice on a watch-only EVM network against the same on a hot one, in one
// run on one anvil. Hot: the address comes from the pool derived ahead from the gateway's seed.
// Watch-only: from the pool drawn ahead from the merchant's cold address (CREATE2 hashes and their
// QR codes), after reading which networks the merchant can receive on. Both pools are refilled
// between rounds. The watch-only path must not be slower. Rounds alternate between the two gateways so that the
// machine's noise falls on both alike; the ratio is the median of per-round ratios.
import { createInvoice } from '../src/invoices/create.ts';
import { paramsFor } from '../src/http/signed-api.ts';
import { createInvoiceOp } from '../src/contracts/merchant-api/invoices.ts';
import { refillAddressPool, refillMaterialPool } from '../src/chain/allocate.ts';
import { checkCustody, writeCustody } from '../src/custody/store.ts';
import { startChain, startEvmGateway, type EvmGateway } from '../test/chain/gateway-setup.ts';
import type { Backend } from '../test/helpers/backends.ts';
import type { Row } from './api.ts';

const sqlite: Backend = { name: 'sqlite', create: async () => ({ drop: async () => {} }) };
const ROUNDS = 15;
// A burst both pools absorb without refilling inside the round (the seed's pool holds 256 and
// refills below 64; a material's holds 64 and refills below 16): the request path alone. A refill
// costs the same work for both (derivation and QR codes on the pool thread), but a material's
// smaller pool refills more often; BENCH_CUSTODY_PER_ROUND=60 shows that case.
const PER_ROUND = Number(process.env.BENCH_CUSTODY_PER_ROUND ?? 40);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function custodyBench(): Promise<Row[]> {
  const chain = await startChain();
  let hot: EvmGateway | undefined;
  let watch: EvmGateway | undefined;
  try {
    hot = await startEvmGateway(sqlite, { chain, network: { custody: 'hot' } });
    watch = await startEvmGateway(sqlite, { chain, network: { custody: 'watch-only' } });
    const req = { merchantId: watch.merchant.id, network: 'ETH', input: { address: '0x1111111111111111111111111111111111111111' }, actor: 'bench', replace: false };
    const checked = await checkCustody(watch.ctx, req);
    const material = (await watch.ctx.storage.write((trx) => writeCustody(trx, req, checked, Date.now())))!;
    let n = 0;
    const round = async (g: EvmGateway): Promise<number> => {
      // Both pools are topped up between rounds, as they would be between bursts.
      if (g === hot) await refillAddressPool(g.ctx, g.ctx.registry.network('ETH')!);
      else await refillMaterialPool(g.ctx, g.ctx.registry.network('ETH')!, material);
      const t0 = performance.now();
      for (let i = 0; i < PER_ROUND; i++) {
        await createInvoice(g.ctx, g.merchant, paramsFor(g.ctx, createInvoiceOp, { amount: '0.1', currency: 'ETH', network: 'ETH', order_id: `bench-custody-${++n}` }));
      }
      return PER_ROUND / ((performance.now() - t0) / 1000);
    };
    await round(hot);
    await round(watch);
    const hotRates: number[] = [];
    const watchRates: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const h = await round(hot);
      const w = await round(watch);
      hotRates.push(h);
      watchRates.push(w);
      ratios.push(w / h);
    }
    return [
      {
        name: 'create invoice, watch-only ETH (forwarder address from the material\'s pool)',
        value: `${median(watchRates).toFixed(0)} invoices/s`,
        baseline: `${median(hotRates).toFixed(0)} invoices/s (hot: pooled seed address)`,
        ratio: median(ratios).toFixed(2),
        note: `median of ${ROUNDS} alternating rounds of ${PER_ROUND} sequential in-process creations on SQLite, pools refilled between rounds (per-round ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); aim >= 1.0 (within noise)`,
      },
    ];
  } finally {
    await watch?.close();
    await hot?.close();
    await chain.anvil.stop();
  }
}
