// Every transaction the `tron` driver sends (payouts, activation, TRX or energy for sweeps, sweeps)
// goes through here: the node builds it, the driver decodes the bytes the node built and checks
// every field against what it asked for (contract type, owner, recipient or token contract and
// call data, amount, fee limit, a sane expiration) before signing in-process; the signed
// transaction is STORED, then broadcast as those exact bytes (/wallet/broadcasthex). A compromised
// node can refuse or delay, never redirect.
//
// A TRON transaction carries its own expiration (the node sets head time + 60 s) instead of a
// nonce. So: a stored transaction is broadcast again (after a crash, or when the node lost it)
// while it can still be mined; once the final block is past its expiration and the node knows no
// block with it, it can never be mined: only then is the request built and signed again, as the
// next attempt, or reported failed. At most one attempt of a request can ever be on chain.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Storage } from '../../db/dialect.ts';
import type { ChainSink } from '../contract.ts';
import { nodeMessage, type TronApi, type TronTransaction } from './api.ts';
import type { TronSigner } from './keys.ts';
import { NodeError, SendRejectedError } from '../errors.ts';
import { accountIdHex } from './address.ts';
import { decodeRaw, encodeSignedTransaction, ProtobufError, RESOURCE } from './protobuf.ts';
import type { ChainView } from './scan.ts';
import type { ScanOutgoingTable } from '../../db/schema.ts';
import type { TronDB } from './schema.ts';
import { familyWrite } from '../family-tables.ts';

/** A send that cannot go out as asked; nothing was signed for it (the payout fails, funds return). */
export class TronSendError extends SendRejectedError {}

/** What the driver asks the node to build (addresses in hex, 41...). */
export type Intent =
  | { type: 'TransferContract'; owner: string; to: string; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: string; contract: string; data: string; feeLimit: bigint }
  | { type: 'DelegateResourceContract'; owner: string; receiver: string; balance: bigint }
  | { type: 'UnDelegateResourceContract'; owner: string; receiver: string; balance: bigint };

export type OutgoingRow = ScanOutgoingTable;

/** Longest expiration java-tron accepts (raw_data.expiration - head time). */
const MAX_EXPIRATION_MS = 24 * 3600_000;
const ACTIVE = ['signed', 'sent', 'mined'];

export interface OutgoingOptions {
  network: string;
  api: TronApi;
  db: Kysely<TronDB>;
  storage: Storage;
  now: () => number;
  rebroadcastAfterMs: number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

export class TronOutgoing {
  constructor(private readonly o: OutgoingOptions) {}

  /** Asks the node to build `intent`. */
  async build(intent: Intent): Promise<TronTransaction> {
    const api = this.o.api;
    switch (intent.type) {
      case 'TransferContract':
        return api.createTransaction(intent.owner, intent.to, intent.amount);
      case 'TriggerSmartContract': {
        const r = await api.triggerSmartContract({
          owner: intent.owner,
          contract: intent.contract,
          selector: 'transfer(address,uint256)',
          parameter: intent.data.slice(8),
          feeLimit: intent.feeLimit,
        });
        if (r.result?.result !== true || !r.transaction) {
          throw new TronSendError('rejected', `The node would not build the token transfer: ${r.result?.code ?? ''} ${nodeMessage(r.result?.message)}`.trim());
        }
        return r.transaction;
      }
      case 'DelegateResourceContract':
        return api.delegateResource(intent.owner, intent.receiver, intent.balance);
      case 'UnDelegateResourceContract':
        return api.undelegateResource(intent.owner, intent.receiver, intent.balance);
    }
  }

  /**
   * The transaction the node built, decoded from its bytes and compared with `intent` field by
   * field. Returns raw_data as hex; throws TronSendError('rejected') on any difference.
   */
  verify(intent: Intent, tx: TronTransaction, view: ChainView): { rawHex: string; expiration: number } {
    const refuse = (what: string) => {
      this.o.log('error', 'tron node built a transaction other than asked; not signed', { network: this.o.network, what, alarm: 'node_mismatch' });
      return new TronSendError('rejected', `The TRON node built a transaction other than the one asked for (${what}); nothing was signed`);
    };
    if (typeof tx?.raw_data_hex !== 'string' || !/^([0-9a-fA-F]{2})+$/.test(tx.raw_data_hex)) throw refuse('no raw_data_hex');
    const rawHex = tx.raw_data_hex.toLowerCase();
    let raw;
    try {
      raw = decodeRaw(hexToBytes(rawHex));
    } catch (err) {
      if (err instanceof ProtobufError) throw refuse(err.message);
      throw err;
    }
    if (tx.txID && tx.txID.toLowerCase() !== bytesToHex(sha256(hexToBytes(rawHex)))) throw refuse('txID is not the hash of raw_data');
    const c = raw.contract;
    if (c.type !== intent.type) throw refuse(`contract ${c.type}`);
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    switch (c.type) {
      case 'TransferContract': {
        const i = intent as Extract<Intent, { type: 'TransferContract' }>;
        if (!same(c.owner, i.owner)) throw refuse('owner');
        if (!same(c.to, i.to)) throw refuse('recipient');
        if (c.amount !== i.amount) throw refuse('amount');
        if (raw.feeLimit !== 0n) throw refuse('fee limit');
        break;
      }
      case 'TriggerSmartContract': {
        const i = intent as Extract<Intent, { type: 'TriggerSmartContract' }>;
        if (!same(c.owner, i.owner)) throw refuse('owner');
        if (!same(c.contract, i.contract)) throw refuse('token contract');
        if (!same(c.data, i.data)) throw refuse('call data (recipient or amount)');
        if (c.callValue !== 0n) throw refuse('call value');
        if (raw.feeLimit !== i.feeLimit) throw refuse('fee limit');
        break;
      }
      case 'DelegateResourceContract':
      case 'UnDelegateResourceContract': {
        const i = intent as Extract<Intent, { type: 'DelegateResourceContract' | 'UnDelegateResourceContract' }>;
        if (!same(c.owner, i.owner)) throw refuse('owner');
        if (!same(c.receiver, i.receiver)) throw refuse('receiver');
        if (c.balance !== i.balance) throw refuse('balance');
        if (c.resource !== RESOURCE.ENERGY) throw refuse('resource');
        if (c.type === 'DelegateResourceContract' && c.lock) throw refuse('lock');
        if (raw.feeLimit !== 0n) throw refuse('fee limit');
        break;
      }
    }
    if (raw.expiration <= view.headTime || raw.expiration > view.headTime + MAX_EXPIRATION_MS) throw refuse('expiration');
    return { rawHex, expiration: raw.expiration };
  }

  /**
   * Builds, verifies, signs and stores attempt `attempt` of a request (and `also`, in the same
   * database transaction). A concurrent signer of the same attempt loses on the unique key and
   * gets the stored row.
   */
  async signAndStore(p: {
    requestId: string;
    attempt: number;
    kind: string;
    signer: TronSigner;
    intent: Intent;
    currency: string;
    toAddress: string;
    amount: string;
    view: ChainView;
    also?: (trx: import('kysely').Transaction<TronDB>, row: OutgoingRow) => Promise<void>;
  }): Promise<OutgoingRow> {
    const tx = await this.build(p.intent);
    const { rawHex, expiration } = this.verify(p.intent, tx, p.view);
    const signature = p.signer.sign(hexToBytes(rawHex));
    const now = this.o.now();
    const row: OutgoingRow = {
      id: randomUUID(),
      network: this.o.network,
      request_id: p.requestId,
      attempt: p.attempt,
      kind: p.kind,
      from_address: p.signer.address,
      to_address: p.toAddress,
      currency: p.currency,
      amount: p.amount,
      txid: bytesToHex(sha256(hexToBytes(rawHex))),
      raw: encodeSignedTransaction(rawHex, signature),
      expiration,
      status: 'signed',
      block_number: null,
      confirmations: 0,
      error: null,
      broadcast_at: null,
      broadcast_height: null,
      nonce: null,
      data: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await familyWrite(this.o.storage, this.o.db, async (trx) => {
        await trx.insertInto('scan_outgoing').values(row).execute();
        if (p.also) await p.also(trx, row);
      });
    } catch (err) {
      if (!this.o.storage.isUniqueViolation(err)) throw err;
      const won = await this.attempts(p.requestId);
      if (won[0]?.attempt === p.attempt) return won[0];
      throw err;
    }
    return row;
  }

  /** All attempts of a request, newest first. */
  attempts(requestId: string): Promise<OutgoingRow[]> {
    return this.o.db
      .selectFrom('scan_outgoing')
      .selectAll()
      .where('network', '=', this.o.network)
      .where('request_id', '=', requestId)
      .orderBy('attempt', 'desc')
      .execute();
  }

  /**
   * Sends the stored bytes. "Already known" counts as sent. Returns the node's refusal, if any
   * (the transaction stays stored: it is judged by the chain once it has expired).
   */
  async broadcast(row: OutgoingRow): Promise<string | null> {
    let refusal: string | null = null;
    try {
      const r = await this.o.api.broadcastHex(row.raw);
      if (r.result !== true && r.code !== 'DUP_TRANSACTION_ERROR') refusal = `${r.code ?? 'refused'}: ${nodeMessage(r.message)}`;
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      this.o.log('warn', 'tron broadcast failed; it will be retried', { network: this.o.network, txid: row.txid, error: err.message });
      return null;
    }
    const patch: Partial<OutgoingRow> = refusal ? { error: refusal.slice(0, 300), broadcast_at: this.o.now() } : { broadcast_at: this.o.now(), error: null };
    if (!refusal && row.status === 'signed') patch.status = 'sent';
    await this.update(row.id, patch);
    Object.assign(row, patch);
    if (refusal) this.o.log('warn', 'tron node refused a transaction', { network: this.o.network, txid: row.txid, error: refusal });
    return refusal;
  }

  /** True when `row` can never be mined: the final block is past its expiration and no block has it. */
  async expiredForGood(row: OutgoingRow, view: ChainView): Promise<boolean> {
    if (view.finalTime <= Number(row.expiration)) return false;
    return (await this.o.api.txInfo(row.txid)) === null;
  }

  /** What became of what we sent: report to the sink, rebroadcast what the node lost, expire. */
  async track(sink: ChainSink, view: ChainView, confirmations: number): Promise<void> {
    const rows = await this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('status', 'in', ACTIVE).orderBy('created_at').execute();
    for (const row of rows) {
      const info = await this.o.api.txInfo(row.txid);
      if (!info || info.blockNumber === undefined) {
        if (row.status === 'mined') await this.update(row.id, { status: 'sent', block_number: null });
        if (await this.expiredForGood(row, view)) {
          this.o.log('warn', 'tron transaction expired without being mined', { network: this.o.network, txid: row.txid, kind: row.kind });
          await sink.outgoing(this.o.network, row.txid, 'failed', 0);
          await this.update(row.id, { status: 'expired', error: row.error ?? 'expired' });
        } else if ((row.status === 'signed' && row.broadcast_at === null) || row.status === 'mined' || this.o.now() - Number(row.broadcast_at ?? 0) >= this.o.rebroadcastAfterMs) {
          await this.broadcast(row);
        }
        continue;
      }
      const bn = info.blockNumber;
      const ok = info.result !== 'FAILED' && (info.receipt?.result ?? 'SUCCESS') === 'SUCCESS';
      const final = bn <= view.final;
      const depth = Math.max(1, view.head - bn + 1);
      const conf = final ? Math.max(depth, confirmations) : Math.min(depth, confirmations - 1);
      if (ok) {
        if (conf !== row.confirmations || row.status !== (final ? 'confirmed' : 'mined')) {
          await sink.outgoing(this.o.network, row.txid, 'confirmed', conf);
          await this.update(row.id, { status: final ? 'confirmed' : 'mined', block_number: bn, confirmations: conf, error: null });
        }
      } else if (final) {
        await sink.outgoing(this.o.network, row.txid, 'failed', conf);
        await this.update(row.id, { status: 'failed', block_number: bn, confirmations: conf, error: info.receipt?.result ?? 'FAILED' });
      } else if (row.status !== 'mined' || Number(row.block_number) !== bn) {
        await this.update(row.id, { status: 'mined', block_number: bn, error: info.receipt?.result ?? 'FAILED' });
      }
    }
  }

  async update(id: string, patch: Partial<OutgoingRow>): Promise<void> {
    await this.o.db.updateTable('scan_outgoing').set({ ...patch, updated_at: this.o.now() }).where('id', '=', id).execute();
  }

  /** Which of these txids are transactions we sent (not payments to us). */
  async ours(txids: string[]): Promise<Set<string>> {
    if (txids.length === 0) return new Set();
    const rows = await this.o.db.selectFrom('scan_outgoing').select('txid').where('network', '=', this.o.network).where('txid', 'in', txids).execute();
    return new Set(rows.map((r) => r.txid));
  }
}

/** ABI call data of `transfer(address,uint256)`. */
export function transferData(to: string, units: bigint): string {
  return 'a9059cbb' + accountIdHex(to).padStart(64, '0') + units.toString(16).padStart(64, '0');
}
