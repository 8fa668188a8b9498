// Detection for the `evm` driver. Each poll processes the blocks after the stored cursor in
// bounded batches: native transfers from the full block transactions, token transfers from ONE
// eth_getLogs per batch filtered by the known token contracts and the Transfer topic (never by
// recipient), both matched against the in-memory set of addresses the gateway gave to watch(), so
// the RPC cost per block does not grow with the number of addresses. Transfers are re-reported
// with rising confirmations until the target. Reorganisations (the walk back to the fork point,
// `dropped` reports) are src/chain/reorg.ts and src/chain/reported-transfers.ts.
import { getAddress } from 'viem';
import type { ChainSink } from '../contract.ts';
import { mapLimit, range } from '../map-limit.ts';
import type { Cursor, TrailBlock } from '../reorg.ts';
import { ReportedTransfers, type Progress, type SeenTransfer } from '../reported-transfers.ts';
import { Decimal } from '../../money/decimal.ts';
import { num, type RpcBlock, type RpcLog, type RpcTransaction } from './rpc.ts';
import { TRANSFER_TOPIC, type EvmChain } from './chain.ts';

export interface EvmScanOptions {
  /** Blocks per eth_getLogs range. */
  batch: number;
  /** Batches per poll() call; the rest continues on the next call. */
  maxBatches: number;
  /** First block to scan when the network has never been scanned. */
  startBlock?: number;
}

function trailBlock(b: RpcBlock<unknown>): TrailBlock {
  return { number: num(b.number), hash: b.hash, parentHash: b.parentHash };
}

export class EvmScanner {
  private readonly reported: ReportedTransfers<RpcBlock<unknown>>;

  constructor(
    private readonly c: EvmChain,
    private readonly o: EvmScanOptions,
  ) {
    this.reported = new ReportedTransfers({
      family: 'evm',
      network: c.code,
      db: c.db as never,
      storage: c.storage,
      confirmations: c.confirmations,
      now: c.now,
      log: c.log,
      startBlock: o.startBlock,
      header: (n) => c.rpc.header(n),
      trailBlock,
      displayAddress: (stored) => getAddress(stored),
    });
  }

  /** Confirmations are the depth below the tip; final at the target. */
  private readonly progress: Progress = (r, tip) => {
    const conf = tip - Number(r.block_number) + 1;
    return conf === r.confirmations ? null : { conf, final: conf >= this.c.confirmations };
  };

  /** Processes what is new up to `head` (in at most maxBatches batches). */
  async poll(sink: ChainSink, head: number): Promise<void> {
    let cursor = await this.reported.trail.resume(head);
    let batches = 0;
    let progressed = false;
    while (cursor.number < head && batches < this.o.maxBatches) {
      const next = await this.scanBatch(sink, cursor, Math.min(head, cursor.number + this.o.batch), head);
      batches++;
      if (!next) break; // the chain moved under us: the next poll's cursor check sorts it out
      cursor = next;
      progressed = true;
    }
    if (!progressed) await this.reported.settle(sink, cursor, [], [], cursor.number >= head, this.progress);
  }

  /** Scans (cursor, to]; returns the new cursor, or null when nothing consistent could be read. */
  private async scanBatch(sink: ChainSink, cursor: Cursor, to: number, head: number): Promise<Cursor | null> {
    const { c } = this;
    const from = cursor.number + 1;
    const logs = c.tokens.length
      ? await c.rpc.logs({
          fromBlock: from,
          toBlock: to,
          address: c.tokens.map((t) => t.contract!),
          topics: [TRANSFER_TOPIC],
        })
      : [];
    const fetched = await mapLimit(range(from, to), 8, (n) => c.rpc.blockWithTxs(n));

    // Keep the prefix that links to the cursor and to itself, and whose logs match its hashes.
    const blocks: RpcBlock<RpcTransaction>[] = [];
    let prev = cursor.hash;
    for (const b of fetched) {
      if (!b || (prev !== null && b.parentHash !== prev)) break;
      blocks.push(b);
      prev = b.hash;
    }
    const hashOf = new Map(blocks.map((b) => [num(b.number), b.hash]));
    for (const l of logs) {
      const n = num(l.blockNumber);
      const h = hashOf.get(n);
      if (h !== undefined && h !== l.blockHash) {
        blocks.length = blocks.findIndex((b) => num(b.number) === n);
        break;
      }
    }
    if (blocks.length === 0) return null;
    const last = blocks[blocks.length - 1]!;
    const tip = num(last.number);

    const found = await this.extract(blocks, logs.filter((l) => num(l.blockNumber) <= tip));
    const next = { number: tip, hash: last.hash };
    await this.reported.settle(sink, next, blocks, found, tip >= head, this.progress);
    return next;
  }

  private async extract(blocks: RpcBlock<RpcTransaction>[], logs: RpcLog[]): Promise<SeenTransfer[]> {
    const { c } = this;
    const found: SeenTransfer[] = [];
    for (const b of blocks) {
      const n = num(b.number);
      for (const tx of b.transactions) {
        if (!tx.to) continue;
        const to = tx.to.toLowerCase();
        if (!c.watched.has(to)) continue;
        const value = BigInt(tx.value);
        if (value <= 0n) continue;
        found.push({
          currency: c.native.code,
          txid: tx.hash,
          idx: 0,
          from: getAddress(tx.from),
          to,
          amount: Decimal.fromBaseUnits(value, c.native.decimals).toString(),
          block: n,
          blockHash: b.hash,
        });
      }
    }
    for (const l of logs) {
      if (l.removed || l.topics.length !== 3 || l.topics[0] !== TRANSFER_TOPIC || l.data.length !== 66) continue;
      const to = `0x${l.topics[2]!.slice(26)}`.toLowerCase();
      if (!c.watched.has(to)) continue;
      const token = c.tokenByContract.get(l.address.toLowerCase());
      if (!token) continue;
      const value = BigInt(l.data);
      if (value <= 0n) continue; // zero-value transfers are address-poisoning spam
      found.push({
        currency: token.code,
        txid: l.transactionHash,
        idx: num(l.logIndex),
        from: getAddress(`0x${l.topics[1]!.slice(26)}`),
        to,
        amount: Decimal.fromBaseUnits(value, token.decimals).toString(),
        block: num(l.blockNumber),
        blockHash: l.blockHash,
      });
    }
    // Gas we sent to a deposit address for a sweep is ours, not a payment.
    const natives = found.filter((f) => f.currency === c.native.code && f.idx === 0).map((f) => f.txid);
    if (natives.length) {
      const ours = await c.db
        .selectFrom('scan_outgoing')
        .select('txid')
        .where('network', '=', c.code)
        .where('kind', '=', 'gas')
        .where('txid', 'in', natives)
        .execute();
      const skip = new Set(ours.map((r) => r.txid));
      return found.filter((f) => !(f.idx === 0 && skip.has(f.txid)));
    }
    return found;
  }
}
