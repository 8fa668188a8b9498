// The transactions the `evm` driver signs (payouts, sweeps and the gas they need), from signing to
// finality. Every transaction is signed and STORED (with its nonce and raw bytes) in one database
// transaction before it is broadcast; a crash between the two is healed by rebroadcasting the
// stored bytes (on the next poll, or when send() is called again with the same id). Nonces come
// from max(stored next nonce, node's pending count) under a row lock, and (network, from, nonce)
// is unique, so a payout is never signed twice nor a nonce skipped. Owns the network's rows of
// scan_outgoing (always attempt 0: a request is signed once) and evm_nonces.
import { randomUUID } from 'node:crypto';
import { keccak256, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Transaction } from 'kysely';
import type { ChainSink } from '../contract.ts';
import { NodeError } from '../errors.ts';
import type { Priority } from '../../registry/index.ts';
import type { ScanOutgoingTable } from '../../db/schema.ts';
import type { EvmDB } from './schema.ts';
import { num } from './rpc.ts';
import type { Call, EvmChain, Fees } from './chain.ts';
import { familyWrite } from '../family-tables.ts';

export type OutgoingRow = ScanOutgoingTable;
export type EvmTrx = Transaction<EvmDB>;

const ACTIVE_OUTGOING = ['signed', 'sent', 'mined'];
const KNOWN_TX = /already known|known transaction|already imported|alreadyknown|already exists|tx already in mempool/i;
/** Refusals that mean the node did not take the transaction and never will as it is. */
const REFUSED = /insufficient funds|intrinsic gas too low|underpriced|fee cap less than block base fee|max fee per gas less than block base fee|exceeds block gas limit|invalid chain id|invalid sender/i;
const NONCE_LOW = /nonce too low|nonce is too low|oldnonce|invalid nonce|nonce has already been used/i;

export interface SignRequest {
  requestId: string;
  kind: 'payout' | 'gas' | 'sweep' | 'flush' | 'deploy' | 'pull' | 'permit';
  account: PrivateKeyAccount;
  call: Call;
  currency: string;
  toAddress: string;
  amount: string;
  priority: Priority;
  fees?: Fees;
  gas?: bigint;
  /** Runs in the same database transaction (movement records). */
  also?: (trx: EvmTrx, row: OutgoingRow) => Promise<void>;
}

export class EvmOutgoing {
  /**
   * @param rebroadcastAfterMs a sent but unmined transaction is broadcast again after this long
   * @param send broadcasts stored bytes (the driver's, so that a process can be made to crash there)
   */
  constructor(
    private readonly c: EvmChain,
    private readonly rebroadcastAfterMs: number,
    private readonly send: (row: OutgoingRow) => Promise<void>,
  ) {}

  /** Receipts of what we sent: report to the sink, rebroadcast what the node lost. */
  async track(sink: ChainSink, head: number): Promise<void> {
    const { c } = this;
    const rows = await c.db
      .selectFrom('scan_outgoing')
      .selectAll()
      .where('network', '=', c.code)
      .where('status', 'in', ACTIVE_OUTGOING)
      .orderBy('from_address')
      .orderBy('nonce')
      .execute();
    for (const row of rows) {
      const receipt = await c.rpc.receipt(row.txid as Hex);
      const now = c.now();
      if (!receipt) {
        const lost = row.status === 'mined'; // mined, then reorganised away
        if (lost) {
          await this.update(row.id, { status: 'sent', block_number: null, error: null });
        }
        if (lost || row.status === 'signed' || now - Number(row.broadcast_at ?? 0) >= this.rebroadcastAfterMs) {
          await this.rebroadcast(sink, row);
        }
        continue;
      }
      const bn = num(receipt.blockNumber);
      const conf = Math.max(1, head - bn + 1);
      const final = conf >= c.confirmations;
      if (receipt.status === '0x1') {
        if (conf !== row.confirmations || row.status !== (final ? 'confirmed' : 'mined')) {
          if (conf !== row.confirmations) await sink.outgoing(c.code, row.txid, 'confirmed', conf);
          await this.update(row.id, { status: final ? 'confirmed' : 'mined', block_number: bn, confirmations: conf, error: null });
        }
      } else if (final) {
        await sink.outgoing(c.code, row.txid, 'failed', conf);
        await this.update(row.id, { status: 'failed', block_number: bn, confirmations: conf, error: 'reverted' });
      } else if (row.status !== 'mined' || row.error !== 'reverted' || Number(row.block_number) !== bn) {
        await this.update(row.id, { status: 'mined', block_number: bn, error: 'reverted' });
      }
    }
  }

  private async rebroadcast(sink: ChainSink, row: OutgoingRow): Promise<void> {
    const { c } = this;
    try {
      await this.send(row);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      if (NONCE_LOW.test(err.message)) {
        // Either ours was just mined, or another transaction took the nonce (the hot key used elsewhere).
        if (await c.rpc.receipt(row.txid as Hex)) return;
        const latest = await c.rpc.nonce(row.from_address as Hex, 'latest');
        if (latest <= Number(row.nonce)) return;
        // Seen twice (a rebroadcast interval apart) before believing it: a lagging node behind a
        // load balancer could otherwise make a mined payout look replaced, and be paid again.
        if (row.error !== 'nonce_used' || c.now() - Number(row.updated_at) < this.rebroadcastAfterMs) {
          if (row.error === 'nonce_used') return;
          await this.update(row.id, { error: 'nonce_used' });
          return;
        }
        c.log('error', 'evm transaction replaced: its nonce was used by another transaction', {
          network: c.code, txid: row.txid, nonce: Number(row.nonce), alarm: 'foreign_spend',
        });
        await sink.outgoing(c.code, row.txid, 'failed', 0);
        await this.update(row.id, { status: 'failed', error: 'replaced' });
        return;
      }
      c.log('warn', 'evm rebroadcast failed', { network: c.code, txid: row.txid, error: err.message });
    }
  }

  /** Sends the stored signed bytes; "already known" counts as sent. Throws NodeError otherwise. */
  async broadcast(row: OutgoingRow): Promise<void> {
    try {
      await this.c.rpc.sendRaw(row.raw as Hex);
    } catch (err) {
      if (!(err instanceof NodeError) || !KNOWN_TX.test(err.message)) throw err;
    }
    const patch: Partial<OutgoingRow> = { broadcast_at: this.c.now() };
    if (row.status === 'signed') patch.status = 'sent';
    await this.update(row.id, patch);
    Object.assign(row, patch);
  }

  /**
   * The first broadcast of a freshly stored transaction. On a definite refusal of a transaction no
   * node ever accepted, forgets it and frees its nonce (when no later one was signed), so nothing
   * waits behind it, and returns the refusal. Any other node error is left to poll() to retry.
   */
  async firstBroadcast(row: OutgoingRow): Promise<NodeError | null> {
    if (row.status !== 'signed') return null;
    const { c } = this;
    try {
      await this.send(row);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      if (REFUSED.test(err.message) && (await this.voidUnsent(row))) {
        c.log('warn', 'evm transaction refused by the node; discarded', { network: c.code, txid: row.txid, error: err.message });
        return err;
      }
      c.log('warn', 'evm broadcast failed; it will be retried', { network: c.code, txid: row.txid, error: err.message });
    }
    return null;
  }

  /** Deletes a stored transaction that was never accepted, if its nonce is the last one allocated;
   * the movements it carried (and sweeps waiting for them) are marked failed. */
  private async voidUnsent(row: OutgoingRow): Promise<boolean> {
    const { c } = this;
    return familyWrite(c.storage, c.db, async (trx) => {
      const n = await c.storage
        .forUpdate(
          trx
            .selectFrom('evm_nonces')
            .select('next_nonce')
            .where('network', '=', c.code)
            .where('address', '=', row.from_address),
        )
        .executeTakeFirst();
      if (!n || Number(n.next_nonce) !== Number(row.nonce) + 1) return false;
      const del = await trx.deleteFrom('scan_outgoing').where('id', '=', row.id).where('status', '=', 'signed').executeTakeFirst();
      if (Number(del.numDeletedRows) !== 1) return false;
      await trx
        .updateTable('evm_nonces')
        .set({ next_nonce: Number(row.nonce) })
        .where('network', '=', c.code)
        .where('address', '=', row.from_address)
        .execute();
      const carried = await trx.selectFrom('evm_movements').select('id').where('outgoing_id', '=', row.id).execute();
      if (carried.length) {
        const ids = carried.map((m) => m.id);
        const now = c.now();
        await trx.updateTable('evm_movements').set({ status: 'failed', outgoing_id: null, txid: null, updated_at: now }).where('id', 'in', ids).execute();
        await trx.updateTable('evm_movements').set({ status: 'failed', updated_at: now }).where('depends_on', 'in', ids).where('status', '=', 'waiting').execute();
      }
      return true;
    });
  }

  /** Broadcasts a stored transaction that the node may not have yet; a node error is left to poll(). */
  async resume(row: OutgoingRow): Promise<void> {
    if (row.status !== 'signed' && row.status !== 'sent') return;
    try {
      await this.send(row);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      this.c.log('warn', 'evm broadcast failed; it will be retried', { network: this.c.code, txid: row.txid, error: err.message });
    }
  }

  async byRequest(requestId: string): Promise<OutgoingRow | undefined> {
    return this.c.db
      .selectFrom('scan_outgoing')
      .selectAll()
      .where('network', '=', this.c.code)
      .where('request_id', '=', requestId)
      .executeTakeFirst();
  }

  private async update(id: string, patch: Partial<OutgoingRow>): Promise<void> {
    await this.c.db.updateTable('scan_outgoing').set({ ...patch, updated_at: this.c.now() }).where('id', '=', id).execute();
  }

  /** Signs a transaction and stores it (with its nonce and raw bytes) in one database transaction.
   * Idempotent on `requestId`. */
  async signAndStore(p: SignRequest): Promise<OutgoingRow> {
    const { c } = this;
    await c.checkChain();
    const from = p.account.address;
    const fees = p.fees ?? (await c.fees(p.priority));
    const gas = p.gas ?? (await c.estimate(from, p.call));
    const pending = await c.rpc.nonce(from, 'pending');
    for (let attempt = 0; ; attempt++) {
      try {
        return await familyWrite(c.storage, c.db, async (trx) => {
          const dup = await trx
            .selectFrom('scan_outgoing')
            .selectAll()
            .where('network', '=', c.code)
            .where('request_id', '=', p.requestId)
            .executeTakeFirst();
          if (dup) return dup;
          const nonceRow = await c.storage
            .forUpdate(
              trx
                .selectFrom('evm_nonces')
                .select('next_nonce')
                .where('network', '=', c.code)
                .where('address', '=', from.toLowerCase()),
            )
            .executeTakeFirst();
          const nonce = Math.max(Number(nonceRow?.next_nonce ?? 0), pending);
          const raw = await p.account.signTransaction({
            type: 'eip1559',
            chainId: c.chainId,
            nonce,
            to: p.call.to,
            value: p.call.value,
            data: p.call.data,
            gas,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          });
          const now = c.now();
          const row: OutgoingRow = {
            id: randomUUID(),
            network: c.code,
            request_id: p.requestId,
            attempt: 0,
            kind: p.kind,
            from_address: from.toLowerCase(),
            to_address: p.toAddress,
            currency: p.currency,
            amount: p.amount,
            nonce,
            txid: keccak256(raw),
            raw,
            status: 'signed',
            block_number: null,
            confirmations: 0,
            error: null,
            broadcast_at: null,
            broadcast_height: null,
            expiration: null,
            data: null,
            created_at: now,
            updated_at: now,
          };
          await trx.insertInto('scan_outgoing').values(row).execute();
          if (nonceRow) {
            await trx
              .updateTable('evm_nonces')
              .set({ next_nonce: nonce + 1 })
              .where('network', '=', c.code)
              .where('address', '=', from.toLowerCase())
              .execute();
          } else {
            await trx
              .insertInto('evm_nonces')
              .values({ network: c.code, address: from.toLowerCase(), next_nonce: nonce + 1 })
              .execute();
          }
          if (p.also) await p.also(trx, row);
          return row;
        });
      } catch (err) {
        // Another process took the nonce row or the request id first: read again.
        if (attempt < 3 && c.storage.isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }
}
