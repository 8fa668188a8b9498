// The gateway's side of every chain driver: records what the chain shows and hands each change to
// the owner of the address (an invoice, a static wallet) in the same transaction.
import type { Transaction } from 'kysely';
import type { Ctx, TransferRef } from '../context.ts';
import type { ChainTransfersTable, DB } from '../db/schema.ts';
import { statement } from '../db/statement.ts';
import type { ChainSink, IncomingTransfer } from './contract.ts';
import { ScanBusyError } from './errors.ts';
import { Decimal, DecimalFormatError } from '../money/decimal.ts';

/** The one written form of an address of the network, where its family has several. */
function canonical(ctx: Ctx, network: string, address: string): string {
  return ctx.chains.family(network)?.canonicalAddress?.(address) ?? address;
}

type SinkLog = { error(o: unknown, msg?: string): void };

/**
 * The sink every driver reports to. A transfer that cannot be processed (an amount that is not a
 * decimal or beyond what the ledger holds, arithmetic that breaks on it) is set aside instead of
 * thrown, so that the driver's cursor moves past it: one bad row must never stop a network.
 */
export function createSink(ctx: Ctx, log: SinkLog = console): ChainSink {
  const sink = recordingSink(ctx);
  const one = async (t: IncomingTransfer): Promise<void> => {
    const problem = unusable(t);
    if (problem) return setAside(ctx, log, t, problem);
    try {
      await sink.transfer(t);
    } catch (err) {
      // Anything else (the database away) is thrown so that the driver retries from its cursor.
      if (err instanceof DecimalFormatError || err instanceof RangeError) return setAside(ctx, log, t, err.message.slice(0, 200));
      throw err;
    }
  };
  return {
    ...sink,
    transfer: one,
    async transferBatch(list) {
      const usable: IncomingTransfer[] = [];
      for (const t of list) {
        const problem = unusable(t);
        if (problem) await setAside(ctx, log, t, problem);
        else usable.push(t);
      }
      if (usable.length === 0) return;
      try {
        await sink.transferBatch!(usable);
      } catch {
        // One of them could not be processed (or the database failed): each in its own transaction,
        // so that the others are recorded and the bad one set aside, or the failure thrown.
        for (const t of usable) await one(t);
      }
    },
    async unmatched(t) {
      // Credited to nothing: recorded for the merchant to resolve (ctx.features.owners.unmatched).
      const problem = unusable(t);
      if (problem) return setAside(ctx, log, t, problem);
      await ctx.features.owners.unmatched(ctx, t);
    },
  };
}

/** Why an incoming transfer cannot be processed at all, or null. A chain can report anything. */
function unusable(t: Pick<IncomingTransfer, 'amount'>): string | null {
  const amount = Decimal.tryParse(t.amount);
  if (!amount) return 'amount is not a decimal';
  if (amount.isNegative()) return 'amount is negative';
  if (!amount.isBoundedAmount()) return 'amount is beyond what the ledger holds';
  return null;
}

/** Recorded for the operator: `set_aside_transfers`, the log, and a gauge in /metrics. */
async function setAside(ctx: Ctx, log: SinkLog, t: Pick<IncomingTransfer, 'network' | 'txid' | 'index' | 'currency' | 'to' | 'amount'>, reason: string): Promise<void> {
  const network = t.network.toUpperCase();
  await ctx.storage.db
    .insertInto('set_aside_transfers')
    .values({
      network,
      txid: t.txid,
      idx: t.index,
      currency: t.currency.toUpperCase(),
      address: t.to,
      amount: String(t.amount).slice(0, 100),
      reason,
      created_at: ctx.now(),
    })
    .onConflict((oc) => oc.columns(['network', 'txid', 'idx']).doNothing())
    .execute();
  log.error({ network, txid: t.txid, index: t.index, reason }, 'incoming transfer set aside');
}

interface Owner {
  owner_kind: string;
  owner_id: string;
}

/** A transfer with its network and address in canonical form. */
interface Located {
  t: IncomingTransfer;
  network: string;
  to: string;
}

const insertTransfer = statement<ChainTransfersTable>((db, p) =>
  db
    .insertInto('chain_transfers')
    .values({
      network: p.network,
      txid: p.txid,
      idx: p.idx,
      currency: p.currency,
      address: p.address,
      from_address: p.from_address,
      amount: p.amount,
      block_height: p.block_height,
      block_hash: p.block_hash,
      confirmations: p.confirmations,
      status: p.status,
      owner_kind: p.owner_kind,
      owner_id: p.owner_id,
      seen_at: p.seen_at,
      confirmed_at: p.confirmed_at,
      updated_at: p.updated_at,
    })
    .onConflict((oc) => oc.columns(['network', 'txid', 'idx']).doNothing()),
);

/** Addresses per owner query (well under every database's limit on bound parameters). */
const OWNER_CHUNK = 500;

function recordingSink(ctx: Ctx): ChainSink {
  const locate = (t: IncomingTransfer): Located => {
    const network = t.network.toUpperCase();
    return { t, network, to: canonical(ctx, network, t.to) };
  };

  /** Who owns each of these addresses (one query per network and chunk); keyed `NETWORK address`. */
  async function owners(list: readonly Located[]): Promise<Map<string, Owner>> {
    const found = new Map<string, Owner>();
    const byNetwork = new Map<string, Set<string>>();
    for (const l of list) {
      const set = byNetwork.get(l.network) ?? new Set<string>();
      set.add(l.to);
      byNetwork.set(l.network, set);
    }
    for (const [network, set] of byNetwork) {
      const all = [...set];
      for (let i = 0; i < all.length; i += OWNER_CHUNK) {
        const rows = await ctx.storage.db
          .selectFrom('addresses')
          .select(['address', 'owner_kind', 'owner_id'])
          .where('network', '=', network)
          .where('address', 'in', all.slice(i, i + OWNER_CHUNK))
          .execute();
        for (const r of rows) found.set(`${network} ${r.address}`, { owner_kind: r.owner_kind, owner_id: r.owner_id });
      }
    }
    return found;
  }

  /** Records one transfer and hands it to its owner, inside `trx`. */
  async function record(trx: Transaction<DB>, l: Located, owner: Owner): Promise<void> {
    const { t, network, to } = l;
    const now = ctx.now();
    const confirmed = t.confirmations >= ctx.chains.confirmations(network);
    // Insert-or-ignore first, then lock: several scanners (a worker, an api process running the
    // simulator, the CLI) may report the same transfer at once, and a duplicate is not an error.
    // A concurrent insert of the same key makes this wait for it and then do nothing.
    const inserted = await insertTransfer(trx, {
      network,
      txid: t.txid,
      idx: t.index,
      currency: t.currency.toUpperCase(),
      address: to,
      from_address: t.from,
      amount: t.amount,
      block_height: t.blockHeight,
      block_hash: t.blockHash,
      confirmations: t.confirmations,
      status: confirmed ? 'confirmed' : 'seen',
      owner_kind: owner.owner_kind,
      owner_id: owner.owner_id,
      seen_at: now,
      confirmed_at: confirmed ? now : null,
      updated_at: now,
    });
    if (Number(inserted.numAffectedRows ?? 0n) === 0) {
      const existing = await ctx.storage
        .forUpdate(trx.selectFrom('chain_transfers').selectAll().where('network', '=', network).where('txid', '=', t.txid).where('idx', '=', t.index))
        .executeTakeFirstOrThrow();
      const status = confirmed || existing.status === 'confirmed' ? 'confirmed' : 'seen';
      const unchanged = existing.status === status && existing.confirmations === t.confirmations && existing.block_hash === t.blockHash;
      if (unchanged) return;
      await trx
        .updateTable('chain_transfers')
        .set({
          status,
          confirmations: Math.max(t.confirmations, status === 'confirmed' ? existing.confirmations : 0),
          block_height: t.blockHeight,
          block_hash: t.blockHash,
          confirmed_at: existing.confirmed_at ?? (status === 'confirmed' ? now : null),
          updated_at: now,
        })
        .where('network', '=', network)
        .where('txid', '=', t.txid)
        .where('idx', '=', t.index)
        .execute();
    }
    await dispatch(ctx, trx, owner, { network, txid: t.txid, idx: t.index });
  }

  return {
    async transfer(t: IncomingTransfer) {
      const l = locate(t);
      const owner = (await owners([l])).get(`${l.network} ${l.to}`);
      if (!owner) return;
      await ctx.storage.write((trx) => record(trx, l, owner));
    },

    async transferBatch(list: readonly IncomingTransfer[]) {
      const located = list.map(locate);
      const found = await owners(located);
      const mine = located.flatMap((l) => {
        const owner = found.get(`${l.network} ${l.to}`);
        return owner ? [{ l, owner }] : [];
      });
      if (mine.length === 0) return;
      await ctx.storage.write(async (trx) => {
        await lockInvoices(ctx, trx, mine.filter((m) => m.owner.owner_kind === 'invoice').map((m) => m.owner.owner_id));
        for (const { l, owner } of mine) await record(trx, l, owner);
      });
    },

    async dropped(networkCode, txid, index) {
      const network = networkCode.toUpperCase();
      await ctx.storage.write(async (trx) => {
        const existing = await ctx.storage
          .forUpdate(trx.selectFrom('chain_transfers').selectAll().where('network', '=', network).where('txid', '=', txid).where('idx', '=', index))
          .executeTakeFirst();
        if (!existing || existing.status === 'dropped') return;
        await trx
          .updateTable('chain_transfers')
          .set({ status: 'dropped', updated_at: ctx.now() })
          .where('network', '=', network)
          .where('txid', '=', txid)
          .where('idx', '=', index)
          .execute();
        await dispatch(ctx, trx, existing, { network, txid, idx: index });
      });
    },

    async outgoing(network, txid, status, confirmations) {
      await ctx.features.owners.payout(ctx, network.toUpperCase(), txid, status, confirmations);
    },

    async outgoingReplaced(network, oldTxid, newTxid) {
      await ctx.features.owners.payoutReplaced(ctx, network.toUpperCase(), oldTxid, newTxid);
    },
  };
}

/**
 * Locks the invoices a batch is about, in one statement and in id order: no lock order that
 * another transaction (expiry, a refund: an invoice, then a balance) could cross.
 */
async function lockInvoices(ctx: Ctx, trx: Transaction<DB>, ids: string[]): Promise<void> {
  const unique = [...new Set(ids)].sort();
  for (let i = 0; i < unique.length; i += OWNER_CHUNK) {
    await ctx.storage.forUpdate(trx.selectFrom('invoices').select('id').where('id', 'in', unique.slice(i, i + OWNER_CHUNK)).orderBy('id')).execute();
  }
}

async function dispatch(ctx: Ctx, trx: Transaction<DB>, owner: Owner, transfer: TransferRef): Promise<void> {
  if (owner.owner_kind === 'invoice') await ctx.features.owners.invoice(ctx, trx, owner.owner_id, transfer);
  else if (owner.owner_kind === 'wallet') await ctx.features.owners.wallet(ctx, trx, owner.owner_id, transfer);
}

/** Ingests whatever is new on one network's chain, waiting for another scanner to finish first. */
export async function processNetwork(ctx: Ctx, networkCode: string): Promise<void> {
  const scanned = await ctx.chains.poll(networkCode, createSink(ctx), { wait: true });
  if (!scanned) throw new ScanBusyError(networkCode);
}
