// Payouts on a Bitcoin-family chain (in progress).
import type { Kysely } from 'kysely';
import type { ChainSink, SendRequest } from '../contract.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { btcDb, type BtcDB } from './schema.ts';
import type { BitcoinNode } from './node.ts';
import type { BitcoinKeys } from './keys.ts';
import type { ChainParams } from './params.ts';
import type { BtcLog } from './scan.ts';

/** Fee rates in sat/vB (decimal text). */
export interface FeePolicy {
  min: string;
  max: string;
  fallback: string;
}

export interface SenderOptions {
  network: NetworkDef;
  params: ChainParams;
  keys: BitcoinKeys;
  node: BitcoinNode;
  storage: Storage;
  decimals: number;
  confirmations: number;
  fees: FeePolicy;
  bumpAfterBlocks: number;
  now: () => number;
  log: BtcLog;
  checkChain: () => Promise<void>;
  watchChange: (address: string, script: string) => void;
}

export class BtcSender {
  private readonly db: Kysely<BtcDB>;

  constructor(private readonly o: SenderOptions) {
    this.db = btcDb(o.storage.db);
  }

  async isOwnTx(txid: string): Promise<boolean> {
    const r = await this.db.selectFrom('btc_outgoing').select('id').where('network', '=', this.o.network.code).where('txid', '=', txid).executeTakeFirst();
    return r !== undefined;
  }

  async track(_sink: ChainSink, _head: number): Promise<void> {}

  async send(req: SendRequest): Promise<{ txid: string }> {
    throw new Error(`${this.o.network.code}: payouts on the bitcoin-core driver are not available yet (${req.id})`);
  }
}
