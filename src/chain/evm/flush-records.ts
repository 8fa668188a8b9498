// What the flushes of a watch-only EVM network leave in the database (./flush.ts sends them): a
// movement in evm_movements per asset a flush moves (kind `flush`, all carried by the flush's
// scan_outgoing row), and the mark on the transfers it covers (scan_transfers.swept: 2 while the
// flush is on its way, 1 once it is mined and confirmed, back to 0 when it failed, so that the next
// round tries again).
import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { familyWrite } from '../family-tables.ts';
import type { EvmChain } from './chain.ts';
import type { EvmTrx, OutgoingRow } from './outgoing.ts';

/** A deposit address of a watch-only network, and what its path says it forwards to. */
export interface Forwarder {
  address: Address;
  cold: Address;
  salt: Hex;
}

export interface FlushedAsset {
  /** The token code, or the contract of a token the registry does not know. */
  currency: string;
  contract: Address | null;
  amount: string;
}

export class FlushRecords {
  constructor(private readonly c: EvmChain) {}

  /** Follows the flushes on their way: once their transaction is confirmed the transfers they
   * covered are flushed; a failed one frees its transfers for the next round. */
  async advance(): Promise<void> {
    const { c } = this;
    const open = await c.db
      .selectFrom('evm_movements')
      .select(['id', 'outgoing_id', 'from_address'])
      .where('network', '=', c.code)
      .where('kind', '=', 'flush')
      .where('status', '=', 'sent')
      .execute();
    const byOutgoing = new Map<string, typeof open>();
    for (const m of open) {
      const k = m.outgoing_id ?? '';
      byOutgoing.set(k, [...(byOutgoing.get(k) ?? []), m]);
    }
    for (const [outgoingId, moves] of byOutgoing) {
      const row = outgoingId ? await c.db.selectFrom('scan_outgoing').select('status').where('id', '=', outgoingId).executeTakeFirst() : undefined;
      const status = !row || row.status === 'failed' ? 'failed' : row.status === 'confirmed' ? 'done' : null;
      if (!status) continue;
      const now = c.now();
      await familyWrite(c.storage, c.db, async (trx) => {
        await trx.updateTable('evm_movements').set({ status, updated_at: now }).where('id', 'in', moves.map((m) => m.id)).execute();
        await trx
          .updateTable('scan_transfers')
          .set({ swept: status === 'done' ? 1 : 0, updated_at: now })
          .where('network', '=', c.code)
          .where('to_address', '=', moves[0]!.from_address)
          .where('swept', '=', 2)
          .execute();
      });
      if (status === 'failed') c.log('warn', 'evm flush transaction failed; retried next round', { network: c.code, address: moves[0]!.from_address });
    }
    // Transfers marked for a flush whose transaction was never accepted (discarded before any node
    // took it) are free again.
    const marked = await c.db
      .selectFrom('scan_transfers')
      .select('to_address')
      .distinct()
      .where('network', '=', c.code)
      .where('swept', '=', 2)
      .execute();
    for (const m of marked) {
      if (await this.busy(m.to_address)) continue;
      await c.db
        .updateTable('scan_transfers')
        .set({ swept: 0, updated_at: c.now() })
        .where('network', '=', c.code)
        .where('to_address', '=', m.to_address)
        .where('swept', '=', 2)
        .execute();
    }
  }

  async busy(address: string): Promise<boolean> {
    const { c } = this;
    const open = await c.db
      .selectFrom('evm_movements')
      .select('id')
      .where('network', '=', c.code)
      .where('kind', '=', 'flush')
      .where('from_address', '=', address.toLowerCase())
      .where('status', '=', 'sent')
      .executeTakeFirst();
    return open !== undefined;
  }

  async markFlushed(address: Address): Promise<void> {
    const { c } = this;
    await c.db
      .updateTable('scan_transfers')
      .set({ swept: 1, updated_at: c.now() })
      .where('network', '=', c.code)
      .where('to_address', '=', address.toLowerCase())
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .execute();
  }

  /** The flush's movements, and its confirmed transfers marked as on their way, with the transaction. */
  async record(trx: EvmTrx, f: Forwarder, moved: FlushedAsset[], row: OutgoingRow): Promise<void> {
    const { c } = this;
    const now = c.now();
    for (const m of moved) {
      await trx
        .insertInto('evm_movements')
        .values({
          id: randomUUID(),
          network: c.code,
          kind: 'flush',
          currency: m.currency,
          from_address: f.address.toLowerCase(),
          to_address: f.cold.toLowerCase(),
          amount: m.amount,
          outgoing_id: row.id,
          depends_on: null,
          status: 'sent',
          txid: row.txid,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    await trx
      .updateTable('scan_transfers')
      .set({ swept: 2, updated_at: now })
      .where('network', '=', c.code)
      .where('to_address', '=', f.address.toLowerCase())
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .execute();
  }
}
