// Detection for the `tron` driver. Each poll reads the head (and the solidified head when the
// node serves /walletsolidity), then the blocks after the stored cursor: up to `pollBatch` blocks
// in one /wallet/getblockbylimitnext, and for each block that has transactions one
// /wallet/gettransactioninfobyblocknum. TRX payments are the blocks' successful TransferContracts;
// TRC-20 payments are the `Transfer` logs of known token contracts in the infos of successful
// calls (a REVERTed or failed call is never credited, whatever its logs say). Both are matched
// against an in-memory set of watched addresses, so the cost per block does not depend on how many
// addresses are watched. Zero-value transfers are ignored (address-poisoning spam).
//
// Reorganisations: recent block ids are stored; a block that does not link to the previous one
// (or a cursor block that left the chain) walks back to the fork point, and the transfers of the
// orphaned blocks are reported `dropped` unless the new chain has them again (src/chain/reorg.ts,
// src/chain/reported-transfers.ts). A payment is final once its block is solidified, or
// `confirmations` deep when the node has no solidity API.
import type { Kysely } from 'kysely';
import type { ChainSink } from '../contract.ts';
import { FaultyNodeError } from '../errors.ts';
import { mapLimit } from '../map-limit.ts';
import type { Cursor, TrailBlock } from '../reorg.ts';
import { ReportedTransfers, type Progress, type SeenTransfer } from '../reported-transfers.ts';
import { Decimal } from '../../money/decimal.ts';
import { accountIdHex, fromHexAddress } from './address.ts';
import type { TronApi, TronBlock, TronTxInfo } from './api.ts';
import type { TronDB } from './schema.ts';
import type { Storage } from '../../db/storage.ts';

export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface TronToken {
  code: string;
  /** base58 */
  contract: string;
  decimals: number;
}

/** The chain as one poll sees it. */
export interface ChainView {
  head: number;
  headTime: number;
  /** Highest final block: the solidified head, or head - confirmations + 1. */
  final: number;
  /** Timestamp of the final block (what expirations are judged against). */
  finalTime: number;
}

export interface ScannerOptions {
  network: string;
  api: TronApi;
  db: Kysely<TronDB>;
  /** The storage `db` views, through which the scanner writes. */
  storage: Storage;
  native: { code: string; decimals: number };
  tokens: TronToken[];
  confirmations: number;
  /** Watched deposit addresses (base58), shared with the driver. */
  watched: ReadonlySet<string>;
  now: () => number;
  pollBatch: number;
  maxBatchesPerPoll: number;
  startBlock?: number;
  /** Our own TRX transfers to deposit addresses (activation, energy money) are not payments. */
  isOwnTransaction: (txids: string[]) => Promise<Set<string>>;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

export function blockNumber(b: TronBlock): number {
  return b.block_header.raw_data.number ?? 0;
}

function trailBlock(b: TronBlock): TrailBlock {
  return { number: blockNumber(b), hash: b.blockID, parentHash: b.block_header.raw_data.parentHash };
}

export class TronScanner {
  private readonly tokenById = new Map<string, TronToken>();
  private readonly reported: ReportedTransfers<TronBlock>;
  /** null: not known yet; false: the node does not serve the solidity API. */
  private solidity: boolean | null = null;

  constructor(private readonly o: ScannerOptions) {
    for (const t of o.tokens) this.tokenById.set(accountIdHex(t.contract), t);
    this.reported = new ReportedTransfers({
      ...o,
      family: 'tron',
      db: o.db as never,
      header: (n) => o.api.blockByNum(n),
      trailBlock,
      displayAddress: (stored) => stored,
    });
  }

  /** Head, and what is final, as the node says now. */
  async view(): Promise<ChainView> {
    const head = await this.o.api.nowBlock();
    const headNum = blockNumber(head);
    const headTime = head.block_header.raw_data.timestamp ?? 0;
    if (this.solidity !== false) {
      const solid = await this.o.api.solidNowBlock();
      if (solid) {
        if (blockNumber(solid) > headNum) throw new FaultyNodeError('/walletsolidity/getnowblock', `the solidified block ${blockNumber(solid)} is above the head ${headNum}`);
        this.solidity = true;
        return { head: headNum, headTime, final: blockNumber(solid), finalTime: solid.block_header.raw_data.timestamp ?? 0 };
      }
      if (this.solidity === null) this.o.log('info', 'tron node serves no solidity API: finality by confirmations', { network: this.o.network });
      this.solidity = false;
    }
    const final = headNum - this.o.confirmations + 1;
    const fb = final >= 0 ? await this.o.api.blockByNum(final) : null;
    return { head: headNum, headTime, final, finalTime: fb?.block_header.raw_data.timestamp ?? 0 };
  }

  async poll(sink: ChainSink, view: ChainView): Promise<void> {
    let cursor = await this.reported.trail.resume(view.head);
    let batches = 0;
    let progressed = false;
    while (cursor.number < view.head && batches < this.o.maxBatchesPerPoll) {
      const to = Math.min(view.head, cursor.number + this.o.pollBatch);
      const next = await this.scanBatch(sink, cursor, to, view);
      batches++;
      if (!next) break; // the chain moved under us: the next poll's cursor check sorts it out
      cursor = next;
      progressed = true;
    }
    if (!progressed) await this.reported.settle(sink, cursor, [], [], cursor.number >= view.head, this.progress(view));
  }

  /** Scans (cursor, to]; returns the new cursor, or null when nothing consistent could be read. */
  private async scanBatch(sink: ChainSink, cursor: Cursor, to: number, view: ChainView): Promise<Cursor | null> {
    const fetched = await this.o.api.blocks(cursor.number + 1, to + 1);
    fetched.sort((a, b) => blockNumber(a) - blockNumber(b));
    const blocks: TronBlock[] = [];
    let prev = cursor.hash;
    let expect = cursor.number + 1;
    for (const b of fetched) {
      if (blockNumber(b) !== expect || (prev !== null && b.block_header.raw_data.parentHash !== prev)) break;
      blocks.push(b);
      prev = b.blockID;
      expect++;
    }
    // Transaction infos (logs, results) of the blocks that have transactions; they must be the
    // infos of exactly these transactions, or the block changed between the two calls.
    const infos = new Map<number, TronTxInfo[]>();
    await mapLimit(blocks.filter((b) => b.transactions?.length), 8, async (b) => {
      infos.set(blockNumber(b), await this.o.api.txInfosByBlock(blockNumber(b)));
    });
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      const ids = new Set((b.transactions ?? []).map((t) => t.txID));
      const got = infos.get(blockNumber(b)) ?? [];
      if (got.length !== ids.size || got.some((x) => !ids.has(x.id) || (x.blockNumber !== undefined && x.blockNumber !== blockNumber(b)))) {
        blocks.length = i;
        break;
      }
    }
    if (blocks.length === 0) return null;
    const last = blocks[blocks.length - 1]!;
    const found = await this.extract(blocks, infos);
    const next = { number: blockNumber(last), hash: last.blockID };
    await this.reported.settle(sink, next, blocks, found, next.number >= view.head, this.progress(view));
    return next;
  }

  private async extract(blocks: TronBlock[], infos: Map<number, TronTxInfo[]>): Promise<SeenTransfer[]> {
    const found: SeenTransfer[] = [];
    const watched = this.o.watched;
    for (const b of blocks) {
      const n = blockNumber(b);
      for (const tx of b.transactions ?? []) {
        const c = tx.raw_data.contract?.[0];
        if (!c || c.type !== 'TransferContract' || tx.raw_data.contract.length !== 1) continue;
        if ((tx.ret?.[0]?.contractRet ?? 'SUCCESS') !== 'SUCCESS') continue;
        const v = c.parameter.value as { to_address?: string; owner_address?: string; amount?: number };
        let to: string;
        try {
          to = fromHexAddress(String(v.to_address ?? ''));
        } catch {
          continue;
        }
        if (!watched.has(to)) continue;
        const amount = BigInt(v.amount ?? 0);
        if (amount <= 0n) continue;
        found.push({
          currency: this.o.native.code,
          txid: tx.txID,
          idx: 0,
          from: safeAddress(String(v.owner_address ?? '')),
          to,
          amount: Decimal.fromBaseUnits(amount, this.o.native.decimals).toString(),
          block: n,
          blockHash: b.blockID,
        });
      }
      for (const info of infos.get(n) ?? []) {
        // A failed or reverted call changes no balance, whatever logs a node may show for it.
        if (info.result === 'FAILED' || (info.receipt?.result ?? 'SUCCESS') !== 'SUCCESS') continue;
        (info.log ?? []).forEach((log, idx) => {
          const token = this.tokenById.get(log.address.toLowerCase().replace(/^41/, ''));
          const topics = log.topics ?? [];
          if (!token || topics.length !== 3 || topics[0]!.toLowerCase() !== TRANSFER_TOPIC || (log.data ?? '').length !== 64) return;
          const to = safeAddress(topics[2]!.slice(24));
          if (!to || !watched.has(to)) return;
          const value = BigInt(`0x${log.data}`);
          if (value <= 0n) return; // zero-value transfers are address-poisoning spam
          found.push({
            currency: token.code,
            txid: info.id,
            idx,
            from: safeAddress(topics[1]!.slice(24)),
            to,
            amount: Decimal.fromBaseUnits(value, token.decimals).toString(),
            block: n,
            blockHash: b.blockID,
          });
        });
      }
    }
    const natives = found.filter((f) => f.currency === this.o.native.code).map((f) => f.txid);
    if (natives.length === 0) return found;
    const ours = await this.o.isOwnTransaction(natives);
    return found.filter((f) => !(f.currency === this.o.native.code && ours.has(f.txid)));
  }

  /** Confirmations to report: at least `confirmations` once final, below it until then (a final
   * transfer is reported again until it is stored as confirmed). */
  private progress(view: ChainView): Progress {
    return (r, tip) => {
      const block = Number(r.block_number);
      const depth = tip - block + 1;
      const final = block <= view.final && block <= tip;
      const conf = final ? Math.max(depth, this.o.confirmations) : Math.min(depth, this.o.confirmations - 1);
      return conf !== r.confirmations || final ? { conf, final } : null;
    };
  }

}

function safeAddress(hex: string): string | null {
  try {
    return fromHexAddress(hex.length > 42 ? hex.slice(-40) : hex);
  } catch {
    return null;
  }
}
