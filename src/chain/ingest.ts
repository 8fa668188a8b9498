// The gateway's side of every chain driver: records what the chain shows and hands each change to
// the owner of the address (an invoice, a static wallet) in the same transaction.
import type { Transaction } from 'kysely';
import { getAddress } from 'viem';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { reconcileInvoice } from '../invoices/lifecycle.ts';
import type { ChainSink, IncomingTransfer } from './contract.ts';

export interface OwnerHandlers {
  /** Static wallet top-ups (the wallets issue plugs in here). */
  wallet?: (ctx: Ctx, trx: Transaction<DB>, walletId: string, transfer: { network: string; txid: string; idx: number }) => Promise<void>;
  /** Outgoing transactions (payouts, refunds). */
  outgoing?: (ctx: Ctx, network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number) => Promise<void>;
}

export const ownerHandlers: OwnerHandlers = {};

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

export function createSink(ctx: Ctx): ChainSink {
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
        const existing = await ctx.storage
          .forUpdate(
            trx.selectFrom('chain_transfers').selectAll().where('network', '=', network).where('txid', '=', t.txid).where('idx', '=', t.index),
          )
          .executeTakeFirst();
        const status = confirmed || existing?.status === 'confirmed' ? 'confirmed' : 'seen';
        if (!existing) {
          await trx
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
              status,
              owner_kind: owner.owner_kind,
              owner_id: owner.owner_id,
              seen_at: now,
              confirmed_at: status === 'confirmed' ? now : null,
              updated_at: now,
            })
            .execute();
        } else {
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
      await ownerHandlers.outgoing?.(ctx, network.toUpperCase(), txid, status, confirmations);
    },
  };
}

async function dispatch(
  ctx: Ctx,
  trx: Transaction<DB>,
  owner: { owner_kind: string; owner_id: string },
  transfer: { network: string; txid: string; idx: number },
): Promise<void> {
  if (owner.owner_kind === 'invoice') await reconcileInvoice(ctx, trx, owner.owner_id);
  else if (owner.owner_kind === 'wallet') await ownerHandlers.wallet?.(ctx, trx, owner.owner_id, transfer);
}

/** Ingests whatever is new on one network's chain. */
export async function processNetwork(ctx: Ctx, networkCode: string): Promise<void> {
  await ctx.chains.poll(networkCode, createSink(ctx));
}
