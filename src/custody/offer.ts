// Which networks a merchant can receive on now: the gateway's offered networks (Chains.offered),
// less every watch-only network the merchant has supplied no receiving material for (nothing of the
// merchant's could receive there). Paying out is not receiving: payouts and refunds ask
// Chains.offered alone.
import type { Kysely, Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import type { CurrencyDef, NetworkDef } from '../registry/index.ts';
import { custodiedNetworks } from './store.ts';

/** The parts of Chains that say what is offered, for one merchant's receiving. */
export interface ReceivingOffer {
  offered(code: string | null | undefined): boolean;
  offeredNetworksOf(currency: string): NetworkDef[];
  offeredPairs(): Array<{ network: NetworkDef; currency: CurrencyDef }>;
}

/** The merchant's offer; asks the database only when some offered network is watch-only. */
export async function receivingOffer(ctx: Ctx, merchantId: string, db: Kysely<DB> | Transaction<DB> = ctx.storage.db): Promise<ReceivingOffer> {
  const chains = ctx.chains;
  const watchOnly = chains.offeredNetworks().filter((n) => chains.custodyMode(n.code) === 'watch-only');
  if (watchOnly.length === 0) return chains;
  const have = await custodiedNetworks(db, merchantId);
  const ok = (code: string) => chains.custodyMode(code) === 'hot' || have.has(code.toUpperCase());
  return {
    offered: (code) => chains.offered(code) && ok(code!),
    offeredNetworksOf: (currency) => chains.offeredNetworksOf(currency).filter((n) => ok(n.code)),
    offeredPairs: () => chains.offeredPairs().filter((p) => ok(p.network.code)),
  };
}
