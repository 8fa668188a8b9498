// The gateway's side of every chain driver: records what the chain shows and hands each change to
// the owner of the address (an invoice, a static wallet) in the same transaction.
import type { Transaction } from 'kysely';
import { getAddress } from 'viem';
import type { Ctx, TransferRef } from '../context.ts';
import type { DB } from '../db/schema.ts';
import type { ChainSink, IncomingTransfer } from './contract.ts';
import { ScanBusyError } from './errors.ts';
import { Decimal, DecimalFormatError } from '../money/decimal.ts';

function canonical(ctx: Ctx, network: string, address: string): string {
  const n = ctx.registry.network(network);
  if (n?.address_format === 'evm') {
    try {
      return getAddress(address);
    } catch {
      return address;
    }
  }
  return address;
}

type SinkLog = { error(o: unknown, msg?: string): void };

/**
 * The sink every driver reports to. A transfer that cannot be processed (an amount that is not a
 * decimal or beyond what the ledger holds, arithmetic that breaks on it) is set aside instead of
 * thrown, so that the driver's cursor moves past it: one bad row must never stop a network.
 */
export function createSink(ctx: Ctx, log: SinkLog = console): ChainSink {
  const sink = recordingSink(ctx);
  return {
    ...sink,
    async transfer(t) {
      const problem = unusable(t);
      if (problem) return setAside(ctx, log, t, problem);
      try {
        await sink.transfer(t);
      } catch (err) {
        // Anything else (the database away) is thrown so that the driver retries from its cursor.
        if (err instanceof DecimalFormatError || err instanceof RangeError) return setAside(ctx, log, t, err.message.slice(0, 200));
        throw err;
      }
    },
  };
}

/** Why an incoming transfer cannot be processed at all, or null. A chain can report anything. */
function unusable(t: IncomingTransfer): string | null {
  const amount = Decimal.tryParse(t.amount);
  if (!amount) return 'amount is not a decimal';
  if (amount.isNegative()) return 'amount is negative';
  if (!amount.isBoundedAmount()) return 'amount is beyond what the ledger holds';
  return null;
}

/** Recorded for the operator: `set_aside_transfers`, the log, and a gauge in /metrics. */
async function setAside(ctx: Ctx, log: SinkLog, t: IncomingTransfer, reason: string): Promise<void> {
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

function recordingSink(ctx: Ctx): ChainSink {
  return {
    async transfer(t: IncomingTransfer) {
      const network = t.network.toUpperCase();
      const to = canonical(ctx, network, t.to);
      const owner = await ctx.storage.db
        .selectFrom('addresses')
        .select(['owner_kind', 'owner_id'])
        .where('network', '=', network)
        .where('address', '=', to)
        .executeTakeFirst();
      if (!owner) return;
      const now = ctx.now();
      const confirmed = t.confirmations >= ctx.chains.confirmations(network);
      await ctx.storage.db.transaction().execute(async (trx) => {
        // Insert-or-ignore first, then lock: several scanners (a worker, an api process running the
        // simulator, the CLI) may report the same transfer at once, and a duplicate is not an error.
        // A concurrent insert of the same key makes this wait for it and then do nothing.
        const inserted = await trx
          .insertInto('chain_transfers')
          .values({
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
          })
          .onConflict((oc) => oc.columns(['network', 'txid', 'idx']).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
          const existing = await ctx.storage
            .forUpdate(
              trx.selectFrom('chain_transfers').selectAll().where('network', '=', network).where('txid', '=', t.txid).where('idx', '=', t.index),
            )
            .executeTakeFirstOrThrow();
          const status = confirmed || existing.status === 'confirmed' ? 'confirmed' : 'seen';
          const unchanged =
            existing.status === status && existing.confirmations === t.confirmations && existing.block_hash === t.blockHash;
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
      });
    },

    async dropped(networkCode, txid, index) {
      const network = networkCode.toUpperCase();
      await ctx.storage.db.transaction().execute(async (trx) => {
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

async function dispatch(
  ctx: Ctx,
  trx: Transaction<DB>,
  owner: { owner_kind: string; owner_id: string },
  transfer: TransferRef,
): Promise<void> {
  if (owner.owner_kind === 'invoice') await ctx.features.owners.invoice(ctx, trx, owner.owner_id, transfer);
  else if (owner.owner_kind === 'wallet') await ctx.features.owners.wallet(ctx, trx, owner.owner_id, transfer);
}

/** Ingests whatever is new on one network's chain, waiting for another scanner to finish first. */
export async function processNetwork(ctx: Ctx, networkCode: string): Promise<void> {
  const scanned = await ctx.chains.poll(networkCode, createSink(ctx), { wait: true });
  if (!scanned) throw new ScanBusyError(networkCode);
}
