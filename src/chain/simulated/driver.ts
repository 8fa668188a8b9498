// The simulated chain: transfers live in the database (sim_transactions) and every change carries a
// revision number, so the driver follows it like a real node's blocks, from a stored cursor.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Storage } from '../../db/dialect.ts';
import type { DB } from '../../db/schema.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { ChainDriver, ChainSink, Coverage, DriverFactory, IncomingTransfer, NodeStatus, SendRequest } from '../contract.ts';

/** Incoming transfers handed to the sink in one transaction. */
const BATCH = 100;

export async function nextRev(trx: Kysely<DB> | Transaction<DB>): Promise<number> {
  const row = await trx
    .insertInto('hd_counters')
    .values({ key: 'sim:rev', next_index: 1 })
    .onConflict((oc) => oc.column('key').doUpdateSet({ next_index: sql<number>`hd_counters.next_index + 1` }))
    .returning('next_index')
    .executeTakeFirstOrThrow();
  return Number(row.next_index);
}

/** A transaction id from `seed`, in the network's usual shape (`shape`: its family's, from 64 hex digits). */
export function simTxid(network: NetworkDef, seed: string, shape: (hex: string) => string = (hex) => hex): string {
  return shape(createHash('sha256').update(`${network.code}:${seed}`).digest('hex'));
}

export class SimulatedDriver implements ChainDriver {
  readonly kind = 'simulated';
  /** Every simulated transfer names its recipient; the sink resolves ownership. */
  readonly watchesAddresses = false;

  constructor(
    readonly network: NetworkDef,
    private readonly storage: Storage,
    private readonly now: () => number,
    /** The network's transaction ids in its family's shape. */
    private readonly txid: (hex: string) => string = (hex) => hex,
  ) {}

  watch(): void {}

  /** The simulated hot wallet never runs dry. */
  async canCover(): Promise<Coverage> {
    return { covered: true };
  }

  /** No node and no chain of its own: the head is the newest revision recorded on this network. */
  async status(): Promise<NodeStatus> {
    const row = await this.storage.db
      .selectFrom('sim_transactions')
      .select((eb) => eb.fn.max('rev').as('rev'))
      .where('network', '=', this.network.code)
      .executeTakeFirst();
    return { chain: null, head: Number(row?.rev ?? 0), headTime: null };
  }

  async poll(sink: ChainSink): Promise<void> {
    const db = this.storage.db;
    const code = this.network.code;
    for (;;) {
      const cur = await db.selectFrom('chain_cursors').select('cursor').where('network', '=', code).executeTakeFirst();
      const from = cur ? Number(cur.cursor) : 0;
      const rows = await db
        .selectFrom('sim_transactions')
        .selectAll()
        .where('network', '=', code)
        .where('rev', '>', from)
        .orderBy('rev')
        .limit(500)
        .execute();
      if (rows.length === 0) return;
      // Consecutive incoming transfers go to the sink together (one transaction for the lot);
      // anything else is reported in its place in the order.
      let batch: IncomingTransfer[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const list = batch;
        batch = [];
        if (sink.transferBatch && list.length > 1) await sink.transferBatch(list);
        else for (const t of list) await sink.transfer(t);
      };
      for (const r of rows) {
        if (r.direction === 'out') {
          await flush();
          if (r.status === 'mined') await sink.outgoing(code, r.txid, 'confirmed', r.confirmations);
          else if (r.status === 'failed') await sink.outgoing(code, r.txid, 'failed', 0);
        } else if (r.status === 'dropped') {
          await flush();
          await sink.dropped(code, r.txid, r.idx);
        } else {
          batch.push({
            network: code,
            currency: r.currency,
            txid: r.txid,
            index: r.idx,
            from: r.from_address,
            to: r.to_address,
            amount: r.amount,
            blockHeight: r.block_height === null ? null : Number(r.block_height),
            blockHash: r.block_height === null ? null : simTxid(this.network, `block:${r.block_height}`, this.txid),
            confirmations: r.confirmations,
          });
          if (batch.length >= BATCH) await flush();
        }
      }
      await flush();
      const last = Number(rows[rows.length - 1]!.rev);
      // Several processes may follow the same chain (the gateway and the CLI): the cursor only moves forward.
      await this.storage.write(async (trx) => {
        const c = await this.storage.forUpdate(trx.selectFrom('chain_cursors').select('cursor').where('network', '=', code)).executeTakeFirst();
        if (!c) {
          await trx
            .insertInto('chain_cursors')
            .values({ network: code, cursor: String(last), updated_at: this.now() })
            .onConflict((oc) => oc.column('network').doNothing())
            .execute();
        } else if (Number(c.cursor) < last) {
          await trx.updateTable('chain_cursors').set({ cursor: String(last), updated_at: this.now() }).where('network', '=', code).execute();
        }
      });
      if (rows.length < 500) return;
    }
  }

  async send(req: SendRequest): Promise<{ txid: string }> {
    const txid = simTxid(this.network, `out:${req.id}`, this.txid);
    await this.storage.write(async (trx) => {
      const exists = await trx.selectFrom('sim_transactions').select('txid').where('network', '=', this.network.code).where('txid', '=', txid).executeTakeFirst();
      if (exists) return;
      await trx
        .insertInto('sim_transactions')
        .values({
          network: this.network.code,
          txid,
          idx: 0,
          from_address: null,
          to_address: req.to,
          currency: req.currency.toUpperCase(),
          amount: req.amount,
          block_height: null,
          confirmations: 0,
          status: 'pending',
          direction: 'out',
          rev: await nextRev(trx),
          created_at: this.now(),
        })
        .execute();
    });
    return { txid };
  }

  async close(): Promise<void> {}
}

/** The `simulated` family's factory (the default driver of every network). */
export const simulatedDriverFactory: DriverFactory = (deps) => new SimulatedDriver(deps.network, deps.storage, deps.now, deps.txid);
