// Coin selection and fee rates for Bitcoin-family payouts: which of the gateway's confirmed coins
// pay a payment (largest first), the fee at the priority's rate, and whether the change is worth
// an output.
import type { Kysely } from 'kysely';
import type { Priority } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import type { DepositPaths } from '../contract.ts';
import { Decimal } from '../../money/decimal.ts';
import { btcDb, type BtcDB } from './schema.ts';
import type { BitcoinNode } from './node.ts';
import { decodePayee, scriptHex, type PayeeType } from './address.ts';
import type { ChainParams } from './params.ts';
import { isWatchOnlyPath } from '../watch-paths.ts';

/** Fee rates in sat/vB (decimal text). */
export interface FeePolicy {
  min: string;
  max: string;
  fallback: string;
}

/** The priority's confirmation target, in blocks (economy: about a day of Bitcoin blocks). */
export const PRIORITY_TARGET: Record<Priority, number> = { highest: 1, high: 3, recommended: 6, economy: 144 };

/** Virtual sizes (vB) used to size the fee before signing. */
const INPUT_VSIZE = { segwit: 68, legacy: 148 };
const OUTPUT_VSIZE: Record<PayeeType, number> = { pkh: 34, sh: 32, wpkh: 31, wsh: 43, tr: 43 };

export interface Coin {
  txid: string;
  vout: number;
  sats: bigint;
  address: string;
  script: string;
  path: string;
}

export interface Plan {
  coins: Coin[];
  feeRate: bigint; // milli-sat per vB
  fee: bigint;
  change: bigint;
  vsize: number;
}

export interface CoinSelectionOptions {
  network: string;
  params: ChainParams;
  storage: Storage;
  /** The gateway's answer for deposit addresses; change addresses are the driver's own. */
  depositPaths: DepositPaths;
  node: BitcoinNode;
  decimals: number;
  fees: FeePolicy;
}

export class CoinSelection {
  /** Change smaller than this is not worth an output (and below Dogecoin's 1 DOGE dust limit, not relayed). */
  readonly dust: bigint;
  private readonly db: Kysely<BtcDB>;

  constructor(private readonly o: CoinSelectionOptions) {
    this.db = btcDb(o.storage.db);
    this.dust = o.params.coin === 'dogecoin' ? 100_000_000n : 1_000n;
  }

  async feeRate(priority: Priority): Promise<bigint> {
    const perKvB = await this.o.node.estimateFee(PRIORITY_TARGET[priority] ?? 6);
    // coin/kvB -> sat/vB, in thousandths of a sat: coin * 1e8 / 1000 * 1000.
    let rate = perKvB ? Decimal.parse(perKvB).toBaseUnits(8) : Decimal.parse(this.o.fees.fallback).toBaseUnits(3);
    const min = Decimal.parse(this.o.fees.min).toBaseUnits(3);
    const max = Decimal.parse(this.o.fees.max).toBaseUnits(3);
    if (rate < min) rate = min;
    if (rate > max) rate = max;
    return rate;
  }

  plan(coins: Coin[], amount: bigint, payeeType: PayeeType, rate: bigint): Plan | null {
    const inSize = this.o.params.segwit ? INPUT_VSIZE.segwit : INPUT_VSIZE.legacy;
    const changeSize = this.o.params.segwit ? OUTPUT_VSIZE.wpkh : OUTPUT_VSIZE.pkh;
    const base = (this.o.params.segwit ? 11 : 10) + OUTPUT_VSIZE[payeeType];
    const fee = (vsize: number) => (BigInt(vsize) * rate + 999n) / 1000n;
    const chosen: Coin[] = [];
    let total = 0n;
    for (const c of [...coins].sort((a, b) => (b.sats > a.sats ? 1 : b.sats < a.sats ? -1 : 0))) {
      chosen.push(c);
      total += c.sats;
      const noChange = base + chosen.length * inSize;
      if (total < amount + fee(noChange)) continue;
      const withChange = noChange + changeSize;
      const change = total - amount - fee(withChange);
      if (change >= this.dust) return { coins: chosen, feeRate: rate, fee: fee(withChange), change, vsize: withChange };
      return { coins: chosen, feeRate: rate, fee: total - amount, change: 0n, vsize: noChange };
    }
    return null;
  }

  /**
   * Confirmed coins no transaction of ours or anyone's is known to spend. Outputs to watch-only
   * deposit addresses are the merchant's: left out by their kind, and again by their path, so no
   * key is ever asked for one.
   */
  async spendable(): Promise<Coin[]> {
    const rows = await this.db
      .selectFrom('btc_outputs')
      .select(['txid', 'vout', 'amount', 'address'])
      .where('network', '=', this.o.network)
      .where('status', '=', 'confirmed')
      .where('kind', '!=', 'watch')
      .where('spent_txid', 'is', null)
      .execute();
    const paths = await this.paths(rows.map((r) => r.address));
    const out: Coin[] = [];
    for (const r of rows) {
      const path = paths.get(r.address);
      if (!path || isWatchOnlyPath(path)) continue;
      out.push({ txid: r.txid, vout: r.vout, sats: Decimal.parse(r.amount).toBaseUnits(this.o.decimals), address: r.address, script: scriptHex(decodePayee(this.o.params, r.address).script), path });
    }
    return out;
  }

  /** The HD path of each of our addresses among `addresses`: deposit addresses, then change. */
  async paths(addresses: string[]): Promise<Map<string, string>> {
    const unique = [...new Set(addresses)];
    const out = unique.length ? await this.o.depositPaths(unique) : new Map<string, string>();
    const rest = unique.filter((a) => !out.has(a));
    for (let i = 0; i < rest.length; i += 500) {
      const part = rest.slice(i, i + 500);
      const chg = await this.db.selectFrom('btc_change').select(['address', 'path']).where('network', '=', this.o.network).where('address', 'in', part).execute();
      for (const r of chg) out.set(r.address, r.path);
    }
    return out;
  }
}
