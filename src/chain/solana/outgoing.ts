// Payouts and refunds of a watch-only Solana network, from the payout float (./float.ts): one
// transaction per payout, signed by the float alone (fee payer, sender and token owner), built by
// ./payment.ts, compiled and signed by ./tx.ts.
//
// Never twice. A transaction's id is its signature, known before it is broadcast, and the runtime
// executes a signature at most once. The signed bytes are STORED (scan_outgoing: the signature as
// the txid, the blockhash and its lastValidBlockHeight in data) before the first broadcast; a retry
// of the same request (a crash before or after the broadcast, a worker whose lease ran out)
// broadcasts those same bytes again and can only land them once. A transaction can land only while
// its blockhash is valid: once the node's block height is past lastValidBlockHeight, it never can.
// So a request is signed again, with a new blockhash, only when (1) the block height, read FIRST,
// is past the stored lastValidBlockHeight and (2) getSignatureStatuses with
// searchTransactionHistory, read AFTER it, knows no such signature: it is provably not on chain and
// can never be. Otherwise the same bytes are sent again while valid, or the landed one is followed.
//
// The fee is the node's getFeeForMessage of the exact message before it is signed; the float must
// hold the amount (SOL, or the token on its associated account), the fee, the rent of a recipient's
// token account to create, and keep its own rent-exempt minimum. send() waits briefly for the
// transaction to be `confirmed` (optimistically confirmed: a supermajority voted on it) and returns
// its signature; else SolanaPendingError, asked again later. A payout is settled (`confirmations`
// reported) once `finalized`; a landed transaction with an error (nothing moved but the fee) fails it.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { ChainSink, Coverage } from '../contract.ts';
import { ChainError, FaultyNodeError, HotWalletShortError, NodeError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import type { DB, ScanOutgoingTable } from '../../db/schema.ts';
import type { Storage } from '../../db/storage.ts';
import { associatedTokenAddress, parseSolanaKey } from './address.ts';
import type { SolanaFloat } from './float.ts';
import { compileMessage, signMessage } from './tx.ts';
import {
  checkDestination,
  parsePayment,
  paymentInstructions,
  SolanaSendError,
  tokenBalance,
  tokenProgramOf,
  tokenRoute,
  type Payment,
  type SignatureStatus,
  type SolanaPayoutNode,
  type SolanaToken,
  type TokenRoute,
} from './payment.ts';

export { SolanaSendError } from './payment.ts';

/** Signed and broadcast, not confirmed yet: asked again later; never signed a second time meanwhile. */
export class SolanaPendingError extends ChainError {}

const ACTIVE = ['signed', 'sent'];
const STATUS_BATCH = 256;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SolanaPayoutsOptions {
  network: string;
  node: SolanaPayoutNode;
  db: Kysely<DB>;
  storage: Storage;
  native: { code: string; decimals: number };
  tokens: readonly SolanaToken[];
  float: SolanaFloat;
  /** Reported once a payout is finalized (the network's confirmations: what settles it). */
  confirmations: number;
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
  /** How long send() waits for the transaction to be confirmed after broadcasting. */
  findWaitMs: number;
  /** A stored transaction not seen yet is broadcast again after this long (while valid). */
  rebroadcastAfterMs: number;
}

/** What scan_outgoing.data keeps of a Solana payout. */
interface RowData {
  blockhash: string;
  last_valid_block_height: number;
  /** Lamports, decimal text. */
  fee: string;
  /** Lamports of rent paid to create the recipient's token account (0 when it existed). */
  rent: string;
  /** The recipient's token account (token payouts). */
  destination?: string;
}

type Row = ScanOutgoingTable;
const dataOf = (row: Row): RowData => JSON.parse(row.data ?? '{}') as RowData;

/** A built, unsigned payout: its message at a blockhash, the node's fee for it, the token route. */
interface Built {
  message: Uint8Array;
  blockhash: string;
  lastValid: number;
  fee: bigint;
  route: TokenRoute | null;
}

export class SolanaPayouts {
  constructor(private readonly o: SolanaPayoutsOptions) {}

  get floatAddress(): string {
    return this.o.float.address;
  }

  /** The request checked (currency, address, amount, not a program/mint/the float); throws SolanaSendError. */
  parse(req: { network: string; currency: string; to: string; amount: string }): Payment {
    return parsePayment(this.o, req);
  }

  /** What the destination adds to the payout's fee, in SOL: the rent of a token account to create. */
  async destinationFee(p: Payment): Promise<string> {
    await checkDestination(this.o.node, p);
    if (!p.token) return '0';
    const route = await tokenRoute(this.o.node, this.o.float, { ...p, token: p.token });
    return Decimal.fromBaseUnits(route.rent, this.o.native.decimals).toString();
  }

  /** Compiles `p` at the node's newest blockhash and asks its fee (again once if the blockhash aged meanwhile). */
  private async build(p: Payment): Promise<Built> {
    await checkDestination(this.o.node, p);
    const route = p.token ? await tokenRoute(this.o.node, this.o.float, { ...p, token: p.token }) : null;
    const instructions = paymentInstructions(this.o.float, p, route);
    for (let i = 0; i < 2; i++) {
      const { blockhash, lastValidBlockHeight } = await this.o.node.latestBlockhash();
      const message = compileMessage(this.o.float.publicKey, instructions, parseSolanaKey(blockhash));
      const fee = await this.o.node.feeForMessage(message);
      if (fee !== null) return { message, blockhash, lastValid: lastValidBlockHeight, fee, route };
    }
    throw new FaultyNodeError('getFeeForMessage', 'the node does not know the blockhash it just gave');
  }

  /** Whether the float pays `p` as built: the amount, the fee, a token account's rent, its own rent-exempt minimum. */
  private async covers(p: Payment, b: Built): Promise<Coverage> {
    const { native, node, float } = this.o;
    const lamports = (await node.accountInfo(float.address))?.lamports ?? 0n;
    const keep = await node.rentExemption(0);
    const short = (currency: string, need: bigint, decimals: number, what: string): Coverage => ({
      covered: false,
      currency,
      message: `The payout float ${float.address} lacks ${currency} for this payout: ${what} needs ${Decimal.fromBaseUnits(need, decimals).toString()} ${currency}`,
    });
    if (p.token && b.route && (await tokenBalance(node, b.route.source)) < p.units) return short(p.currency, p.units, p.token.decimals, 'the amount');
    const need = (p.token ? 0n : p.units) + b.fee + (b.route?.rent ?? 0n) + keep;
    if (lamports < need) return short(native.code, need, native.decimals, p.token ? 'the fee, the recipient token account\'s rent and the float\'s own rent reserve' : 'the amount, its fee and the float\'s own rent reserve');
    return { covered: true };
  }

  /** The float and its balances: SOL, and each token on the float's associated token account (0 while it has none). */
  async wallet(): Promise<{ address: string; balances: Record<string, string> }> {
    const { node, float, native } = this.o;
    const balances: Record<string, string> = { [native.code]: Decimal.fromBaseUnits((await node.accountInfo(float.address))?.lamports ?? 0n, native.decimals).toString() };
    for (const t of this.o.tokens) {
      const program = await tokenProgramOf(node, t).catch((e: unknown) => (e instanceof SolanaSendError ? null : Promise.reject(e)));
      balances[t.code] = program ? Decimal.fromBaseUnits(await tokenBalance(node, associatedTokenAddress(float.publicKey, t.mint, program)), t.decimals).toString() : '0';
    }
    return { address: float.address, balances };
  }

  async cover(p: Payment): Promise<Coverage> {
    return this.covers(p, await this.build(p));
  }

  // ------------------------------------------------------------------ storing, sending, resolving

  attempts(requestId: string): Promise<Row[]> {
    return this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('request_id', '=', requestId).orderBy('attempt', 'desc').execute();
  }

  private async update(id: string, patch: Partial<Row>): Promise<void> {
    await this.o.storage.write((trx) => trx.updateTable('scan_outgoing').set({ ...patch, updated_at: this.o.now() }).where('id', '=', id).execute());
  }

  /** Signs attempt `attempt` of `requestId` as built and stores it (not broadcast yet). */
  private async signAndStore(requestId: string, attempt: number, p: Payment, b: Built): Promise<Row> {
    const tx = signMessage(b.message, this.o.float.seed);
    const data: RowData = { blockhash: b.blockhash, last_valid_block_height: b.lastValid, fee: b.fee.toString(), rent: (b.route?.rent ?? 0n).toString() };
    if (b.route) data.destination = b.route.destination;
    const now = this.o.now();
    const row: Row = {
      id: randomUUID(),
      network: this.o.network,
      request_id: requestId,
      attempt,
      kind: 'payout',
      from_address: this.o.float.address,
      to_address: p.toText,
      currency: p.currency,
      amount: p.amount,
      txid: tx.signature,
      raw: bytesToHex(tx.wire),
      status: 'signed',
      block_number: null,
      confirmations: 0,
      error: null,
      broadcast_at: null,
      broadcast_height: null,
      nonce: null,
      expiration: null,
      data: JSON.stringify(data),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.o.storage.write((trx) => trx.insertInto('scan_outgoing').values(row).execute());
    } catch (err) {
      if (!this.o.storage.isUniqueViolation(err)) throw err;
      // Another worker signed this attempt first: only its transaction exists; follow it.
      const won = (await this.attempts(requestId))[0];
      if (won?.attempt === attempt) return won;
      throw err;
    }
    return row;
  }

  /** Broadcasts the stored bytes; a refusal is logged and kept (sent again while valid, judged once expired). */
  async broadcast(row: Row): Promise<void> {
    try {
      await this.o.node.sendTransaction(hexToBytes(row.raw));
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      this.o.log('warn', 'solana: the node did not take the float\'s transaction; it is sent again while its blockhash is valid', { network: this.o.network, request: row.request_id, error: err.message });
      await this.update(row.id, { broadcast_at: this.o.now(), error: err.message.slice(0, 300) });
      return;
    }
    await this.update(row.id, { status: row.status === 'signed' ? 'sent' : row.status, broadcast_at: this.o.now(), error: null });
  }

  /** A status that settles where the transaction stands: it landed and a supermajority voted on it. */
  private static landed(s: SignatureStatus | null | undefined): s is SignatureStatus {
    return !!s && (s.err !== null || s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized');
  }

  /**
   * Where a signed or sent row stands: `mined` (landed), `expired` (provably never: the block
   * height, read first, is past its lastValidBlockHeight and the node, asked after, knows no such
   * signature), or unchanged (it may still land).
   */
  async resolve(row: Row): Promise<Row> {
    const d = dataOf(row);
    const height = await this.o.node.blockHeight();
    const [status] = await this.o.node.signatureStatuses([row.txid]);
    if (status) {
      if (!SolanaPayouts.landed(status)) return row;
      const patch: Partial<Row> = { status: 'mined', block_number: status.slot };
      await this.update(row.id, patch);
      return { ...row, ...patch };
    }
    if (height <= d.last_valid_block_height) return row;
    const patch: Partial<Row> = { status: 'expired', error: row.error ?? `not on chain and its blockhash expired (block height ${height} > ${d.last_valid_block_height})` };
    await this.update(row.id, patch);
    this.o.log('info', 'solana: a payout transaction expired without landing; it is signed again with a new blockhash', { network: this.o.network, request: row.request_id, txid: row.txid });
    return { ...row, ...patch };
  }

  /** Sends request `id` (idempotent): the signature of its transaction once confirmed, or SolanaPendingError. */
  async send(id: string, p: Payment): Promise<string> {
    const latest = (await this.attempts(id))[0];
    let attempt = 0;
    if (latest) {
      if (latest.kind !== 'payout' || latest.currency !== p.currency || latest.to_address !== p.toText || !Decimal.parse(latest.amount).eq(p.amount)) {
        throw new SolanaSendError('invalid', `Send id ${id} was already used for a different payment`);
      }
      const now = ACTIVE.includes(latest.status) ? await this.resolve(latest) : latest;
      if (now.status !== 'expired') {
        if (!ACTIVE.includes(now.status)) return now.txid;
        if (now.status === 'signed' || this.o.now() - Number(now.broadcast_at ?? 0) >= this.o.rebroadcastAfterMs) await this.broadcast(now);
        return this.waitFor(now);
      }
      attempt = latest.attempt + 1;
    }
    const row = await this.prepare(id, p, attempt);
    if (row.status === 'signed') await this.broadcast(row);
    return this.waitFor(row);
  }

  /** Builds attempt `attempt` of request `id`, checks the float covers it, signs and stores it: nothing is broadcast yet. */
  async prepare(id: string, p: Payment, attempt = 0): Promise<Row> {
    const built = await this.build(p);
    const cover = await this.covers(p, built);
    if (!cover.covered) throw new HotWalletShortError(cover.currency, cover.message);
    return this.signAndStore(id, attempt, p, built);
  }

  /** Looks for the transaction of `row` for findWaitMs; its signature once landed, or SolanaPendingError. */
  private async waitFor(row: Row): Promise<string> {
    const until = this.o.now() + this.o.findWaitMs;
    for (;;) {
      const [status] = await this.o.node.signatureStatuses([row.txid]);
      if (SolanaPayouts.landed(status)) {
        await this.update(row.id, { status: 'mined', block_number: status.slot });
        return row.txid;
      }
      if (this.o.now() >= until) break;
      await sleep(Math.min(500, this.o.findWaitMs));
    }
    throw new SolanaPendingError(`${this.o.network}: the payout's transaction ${row.txid} was broadcast and is not confirmed yet (asked again later, never signed twice)`);
  }

  // ------------------------------------------------------------------ following what landed

  /** Reports every landed payout not settled yet: failed (it landed with an error), confirmed, finalized. */
  async track(sink: ChainSink): Promise<void> {
    const rows = await this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('status', '=', 'mined').orderBy('created_at').execute();
    for (let i = 0; i < rows.length; i += STATUS_BATCH) {
      const batch = rows.slice(i, i + STATUS_BATCH);
      const statuses = await this.o.node.signatureStatuses(batch.map((r) => r.txid));
      for (const [j, row] of batch.entries()) {
        const s = statuses[j];
        // A confirmed transaction the node no longer lists: asked again next poll.
        if (!s) continue;
        if (s.err !== null) {
          const why = `the transaction landed and failed: ${JSON.stringify(s.err).slice(0, 200)}`;
          this.o.log('warn', 'solana: a payout failed on chain', { network: this.o.network, txid: row.txid, why });
          await sink.outgoing(this.o.network, row.txid, 'failed', 0);
          await this.update(row.id, { status: 'failed', error: why });
          continue;
        }
        const final = s.confirmationStatus === 'finalized';
        const conf = final ? this.o.confirmations : Math.min(Math.max(1, s.confirmations ?? 1), this.o.confirmations - 1);
        if (conf !== row.confirmations || final) {
          await sink.outgoing(this.o.network, row.txid, 'confirmed', conf);
          await this.update(row.id, { confirmations: conf, status: final ? 'confirmed' : 'mined', block_number: s.slot });
        }
      }
    }
  }
}
