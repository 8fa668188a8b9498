// Payouts and refunds of a watch-only TON network, from the payout float (./float.ts). A payout is
// one internal message sent by the float wallet, inside an external message signed here:
// - TON: to the destination, the payout's memo as a text comment; bounceable only when the
//   destination is an active account (a message to an address that was never deployed must not
//   bounce: the recipient's wallet app deploys it later and finds the coins there);
// - a jetton (USDT): a TEP-74 transfer to the float's own jetton wallet (the one the master names
//   for the float, checked against the wallet's get_wallet_data), JETTON_ATTACH of TON attached for
//   the jetton wallets' fees (what is left returns to the float as `excesses`, its response
//   destination), forward_ton_amount 1 nanoton so the recipient's wallet receives a
//   transfer_notification, the memo as its forward payload comment (how exchanges read it).
//
// A wallet message carries a seqno and a valid_until: the wallet executes a message only at its
// seqno and before its valid_until, so the same signed message is executed at most once. The signed
// message is STORED (scan_outgoing: seqno as the nonce, valid_until as the expiration) before it is
// broadcast; a retry of the same request broadcasts those bytes again while they can still be
// executed. Once valid_until has passed (plus a margin for the chain's clock) and the float's seqno
// shows the message was not used, it never can be: only then is the request signed again, as its
// next attempt. A seqno that moved is explained by finding the float's transaction (its external
// message's normalized hash). At most one attempt of a request can ever be executed.
//
// The txid is the float's transaction hash, known once the chain executed the message: send() looks
// for it briefly after the broadcast, else throws TonPendingError (asked again later). A payout is confirmed once its message was
// delivered (the destination's transaction, found by the message's source and created_lt; for a
// jetton, the recipient's jetton wallet's) and the masterchain has advanced by `confirmations`
// since; it failed when the delivery was aborted and bounced (the funds came back to the float).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { base64 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { ChainSink, Coverage } from '../contract.ts';
import { ChainError, HotWalletShortError, NodeError, SendRejectedError } from '../errors.ts';
import { familyWrite } from '../family-tables.ts';
import { Decimal } from '../../money/decimal.ts';
import type { Storage } from '../../db/storage.ts';
import type { ScanOutgoingTable } from '../../db/schema.ts';
import type { TonApi } from './api.ts';
import type { TonTx } from './answers.ts';
import { parseTonAddress, TonAddressError, tonRaw } from './address.ts';
import { serializeBoc, type Cell, type TonAddress } from './cell.ts';
import { commentBody, jettonTransferBody, type InternalMessage } from './messages.ts';
import { signedTransfer } from './wallet.ts';
import { externalParts, normalizedHash, readFloatTx, type FloatTx } from './float-tx.ts';
import { TON_PAGE } from './limits.ts';
import { TonFloatReader, type TonFloat } from './float.ts';
import type { TonJetton } from './scan.ts';
import type { TonDB } from './schema.ts';

/** A payout that can never go out as asked; nothing was signed (the payout fails, funds return). */
export class TonSendError extends SendRejectedError {}
/** Signed and broadcast, not executed yet: asked again later; never signed a second time meanwhile. */
export class TonPendingError extends ChainError {}

/** TON attached to a jetton transfer for the jetton wallets' gas and forwarding (excess returns). */
export const JETTON_ATTACH = 50_000_000n;
/** forward_ton_amount of a jetton payout: any amount above 0 makes the recipient's jetton wallet notify it. */
export const JETTON_FORWARD = 1n;
/** Send mode 3: the fees paid apart from the value, errors of the action ignored (the usual one). */
const SEND_MODE = 3;
const MEMO_MAX = 30;
const ACTIVE = ['signed', 'sent', 'mined'];
/** Pages read back when looking for a payout's transaction (the float, or where it was delivered). */
const MAX_PAGES = 50;

export interface TonPayoutsOptions {
  network: string;
  api: TonApi;
  db: Kysely<TonDB>;
  storage: Storage;
  native: { code: string; decimals: number };
  jettons: TonJetton[];
  float: TonFloat;
  confirmations: number;
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
  /** How long a signed message is valid (valid_until = now + this), seconds. */
  validForSeconds: number;
  /** How far past valid_until the chain's clock may lag before a message counts as expired, seconds. */
  expiryMarginSeconds: number;
  /** How long send() looks for the float's transaction after broadcasting. */
  findWaitMs: number;
  rebroadcastAfterMs: number;
}

interface Payment {
  currency: string;
  jetton: TonJetton | null;
  to: TonAddress;
  units: bigint;
  amount: string;
  memo: string | null;
}

/** What scan_outgoing.data keeps of a TON payout (logical times as decimal text). */
interface RowData {
  msg_hash: string;
  seqno: number;
  valid_until: number;
  /** The float's newest transaction when the message was signed: its own comes after. */
  after_lt: string;
  dest: string;
  jetton_wallet?: string;
  recipient_wallet?: string;
  tx_lt?: string;
  out_count?: number;
}

type Row = ScanOutgoingTable;
const dataOf = (row: Row): RowData => JSON.parse(row.data ?? '{}') as RowData;
const rawOf = (a: TonAddress): string => tonRaw(a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The memo as the comment it becomes: 1..30 characters, none of them a control character. */
export function checkMemo(memo: string | null | undefined): string | null {
  if (memo === null || memo === undefined || memo === '') return null;
  if ([...memo].length > MEMO_MAX) throw new TonSendError('invalid', `The memo has ${[...memo].length} characters; at most ${MEMO_MAX} are sent as a TON comment`);
  if (/\p{Cc}/u.test(memo)) throw new TonSendError('invalid', 'The memo holds a control character (a line break, a tab, ...): not sent as a TON comment');
  return memo;
}

export class TonPayouts {
  readonly floatRaw: string;
  readonly reader: TonFloatReader;

  constructor(private readonly o: TonPayoutsOptions) {
    this.reader = new TonFloatReader(o.api, o.float);
    this.floatRaw = this.reader.floatRaw;
  }

  /** The request checked (currency, address of this network, amount, memo); throws TonSendError. */
  parse(req: { network: string; currency: string; to: string; amount: string; memo?: string | null }): Payment {
    const { o } = this;
    if (req.network.toUpperCase() !== o.network.toUpperCase()) throw new TonSendError('invalid', `Network ${req.network} is not ${o.network}`);
    const code = req.currency.toUpperCase();
    const jetton = o.jettons.find((j) => j.code.toUpperCase() === code) ?? null;
    if (!jetton && code !== o.native.code.toUpperCase()) throw new TonSendError('invalid', `${req.currency} is not a currency of ${o.network}`);
    let to: TonAddress;
    try {
      to = parseTonAddress(req.to, { testnet: o.float.testnet });
    } catch (e) {
      if (e instanceof TonAddressError) throw new TonSendError('invalid', `Not a TON address of ${o.network}: ${e.message}`);
      throw e;
    }
    const decimals = jetton ? jetton.decimals : o.native.decimals;
    const d = Decimal.tryParse(req.amount);
    let units = 0n;
    try {
      units = d ? d.toBaseUnits(decimals) : 0n;
    } catch {
      throw new TonSendError('invalid', `More than ${decimals} decimal places: ${req.amount}`);
    }
    if (units <= 0n) throw new TonSendError('invalid', `Not a positive amount: ${req.amount}`);
    return { currency: jetton ? jetton.code : o.native.code, jetton, to, units, amount: Decimal.fromBaseUnits(units, decimals).toString(), memo: checkMemo(req.memo) };
  }

  // ------------------------------------------------------------------ the float and the node

  /** The signed external message of payment `p` at `seqno`, and the jetton wallets it involves. */
  private message(p: Payment, seqno: number, withStateInit: boolean, validUntil: number, bounce: boolean, jettonWallet: string | null, queryId: bigint): Cell {
    const f = this.o.float;
    const comment = p.memo === null ? null : commentBody(p.memo);
    const msg: InternalMessage =
      p.jetton && jettonWallet
        ? {
            to: parseTonAddress(jettonWallet, { testnet: false }),
            value: JETTON_ATTACH + JETTON_FORWARD,
            bounce: true,
            stateInit: null,
            body: jettonTransferBody({ queryId, amount: p.units, destination: p.to, responseDestination: parseTonAddress(this.floatRaw, { testnet: false }), forwardTonAmount: JETTON_FORWARD, forwardPayload: comment }),
          }
        : { to: p.to, value: p.units, bounce, stateInit: null, body: comment };
    return signedTransfer(f.version, { ...f.opts, secretKey: f.key.seed, publicKey: f.key.publicKey, seqno, validUntil, messages: [msg], sendMode: SEND_MODE, withStateInit });
  }

  /** Whether the float can pay `p` now: the amount (TON, or the jetton balance) and the TON fees. */
  async cover(p: Payment): Promise<Coverage> {
    const { native } = this.o;
    const st = await this.reader.floatState();
    const short = (currency: string, need: bigint, decimals: number, what: string): Coverage => ({
      covered: false,
      currency,
      message: `The payout float ${this.o.float.address} lacks ${currency} for this payout: ${what} needs ${Decimal.fromBaseUnits(need, decimals).toString()} ${currency}`,
    });
    let jw: string | null = null;
    if (p.jetton) {
      jw = await this.reader.jettonWalletOf(p.jetton, this.floatRaw);
      if ((await this.reader.jettonBalance(p.jetton, jw)) < p.units) return short(p.currency, p.units, p.jetton.decimals, 'the amount');
    }
    const validUntil = Math.floor(this.o.now() / 1000) + this.o.validForSeconds;
    const fee = await this.reader.fee(this.message(p, st.seqno, !st.active, validUntil, true, jw, 0n), !st.active);
    const need = (p.jetton ? JETTON_ATTACH + JETTON_FORWARD : p.units) + fee;
    if (st.balance < need) return short(native.code, need, native.decimals, p.jetton ? 'the TON the jetton transfer carries and the fee' : 'the amount and its fee');
    return { covered: true };
  }

  // ------------------------------------------------------------------ storing, sending, finding

  attempts(requestId: string): Promise<Row[]> {
    return this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('request_id', '=', requestId).orderBy('attempt', 'desc').execute();
  }

  async update(id: string, patch: Partial<Row>): Promise<void> {
    await this.o.db.updateTable('scan_outgoing').set({ ...patch, updated_at: this.o.now() }).where('id', '=', id).execute();
  }

  /** Signs attempt `attempt` of request `requestId` and stores it (not broadcast yet). */
  async signAndStore(requestId: string, attempt: number, p: Payment): Promise<Row> {
    const st = await this.reader.floatState();
    const bounce = p.jetton ? true : (await this.o.api.addressInformation(rawOf(p.to))).state === 'active';
    const jw = p.jetton ? await this.reader.jettonWalletOf(p.jetton, this.floatRaw) : null;
    const recipientWallet = p.jetton ? await this.reader.jettonWalletOf(p.jetton, rawOf(p.to)) : null;
    const validUntil = Math.floor(this.o.now() / 1000) + this.o.validForSeconds;
    const queryId = BigInt('0x' + bytesToHex(sha256(new TextEncoder().encode(requestId)).subarray(0, 8)));
    const external = this.message(p, st.seqno, !st.active, validUntil, bounce, jw, queryId);
    const { dest, body } = externalParts(external);
    const data: RowData = { msg_hash: normalizedHash(dest, body), seqno: st.seqno, valid_until: validUntil, after_lt: st.lastLt.toString(), dest: rawOf(p.to) };
    if (jw && recipientWallet) Object.assign(data, { jetton_wallet: jw, recipient_wallet: recipientWallet });
    const now = this.o.now();
    const row: Row = {
      id: randomUUID(),
      network: this.o.network,
      request_id: requestId,
      attempt,
      kind: 'payout',
      from_address: this.floatRaw,
      to_address: rawOf(p.to),
      currency: p.currency,
      amount: p.amount,
      // The message's hash until the float's transaction is found; then that transaction's hash.
      txid: data.msg_hash,
      raw: bytesToHex(serializeBoc(external)),
      status: 'signed',
      block_number: null,
      confirmations: 0,
      error: null,
      broadcast_at: null,
      broadcast_height: null,
      nonce: st.seqno,
      expiration: validUntil * 1000,
      data: JSON.stringify(data),
      created_at: now,
      updated_at: now,
    };
    try {
      await familyWrite(this.o.storage, this.o.db, (trx) => trx.insertInto('scan_outgoing').values(row).execute());
    } catch (err) {
      if (!this.o.storage.isUniqueViolation(err)) throw err;
      const won = (await this.attempts(requestId))[0];
      if (won?.attempt === attempt) return won;
      // Another payout holds this seqno: only one of the two messages could ever be executed.
      throw new TonPendingError(`${this.o.network}: another payout from the float is signed at seqno ${st.seqno}; this one is sent after it`);
    }
    return row;
  }

  /** Broadcasts the stored bytes; a refusal is logged and kept (the chain judges the message once it expired). */
  async broadcast(row: Row): Promise<void> {
    try {
      await this.o.api.sendBocReturnHash(base64.encode(hexToBytes(row.raw)));
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      this.o.log('warn', 'ton: the node did not take the float\'s message; it is sent again while valid', { network: this.o.network, request: row.request_id, error: err.message });
      await this.update(row.id, { broadcast_at: this.o.now(), error: err.message.slice(0, 300) });
      return;
    }
    await this.update(row.id, { status: row.status === 'signed' ? 'sent' : row.status, broadcast_at: this.o.now(), error: null });
  }

  /** The float's transactions since the message was signed, newest first, read until `match` says so. */
  async walk(account: string, toLt: bigint, match: (tx: FloatTx) => boolean): Promise<FloatTx | null> {
    let from: TonTx | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const txs = await this.o.api.transactions(account, { limit: TON_PAGE, ...(from ? { lt: from.lt, hash: from.hashB64 } : {}), toLt });
      const fresh: TonTx[] = from && txs[0]?.hash === from.hash ? txs.slice(1) : txs;
      for (const tx of fresh) {
        if (tx.lt <= toLt) return null;
        const read = readFloatTx('getTransactions', tx, account);
        if (match(read)) return read;
        from = tx;
      }
      if (fresh.length === 0 || txs.length < TON_PAGE) return null;
    }
    return null;
  }

  findSent(row: Row): Promise<FloatTx | null> {
    const d = dataOf(row);
    return this.walk(this.floatRaw, BigInt(d.after_lt), (t) => t.externalHash === d.msg_hash);
  }

  private async markFound(row: Row, tx: FloatTx): Promise<Row> {
    const seqno = await this.o.api.masterchainSeqno();
    const patch: Partial<Row> = { txid: tx.hash, status: 'mined', block_number: seqno, data: JSON.stringify({ ...dataOf(row), tx_lt: tx.lt.toString(), out_count: tx.outCount }) };
    await this.update(row.id, patch);
    return { ...row, ...patch };
  }

  /**
   * What became of a stored message not found executed yet: found now (mined), still valid
   * (broadcast again when due), or expired for good (its seqno unused, or used by another message).
   */
  async resolve(row: Row, rebroadcast: 'now' | 'when-due'): Promise<Row> {
    const tx = await this.findSent(row);
    if (tx) return this.markFound(row, tx);
    const d = dataOf(row);
    if (this.o.now() / 1000 <= d.valid_until + this.o.expiryMarginSeconds) {
      const due = row.broadcast_at === null || this.o.now() - Number(row.broadcast_at) >= this.o.rebroadcastAfterMs;
      if (rebroadcast === 'now' || due) await this.broadcast(row);
      return row;
    }
    const st = await this.reader.floatState();
    if (st.seqno > d.seqno) {
      // Executed meanwhile (between the walk and now), or the seqno went to another message.
      const late = await this.findSent(row);
      if (late) return this.markFound(row, late);
      this.o.log('error', 'ton: the float\'s seqno was used by a message this gateway did not send', { network: this.o.network, seqno: d.seqno, alarm: 'foreign_spend' });
    }
    const patch: Partial<Row> = { status: 'expired', nonce: null, error: row.error ?? 'expired without being executed' };
    await this.update(row.id, patch);
    return { ...row, ...patch };
  }

  /** Sends request `id` (idempotent): the txid of the float's transaction, or TonPendingError. */
  async send(id: string, p: Payment): Promise<string> {
    const latest = (await this.attempts(id))[0];
    let attempt = 1;
    if (latest) {
      if (latest.kind !== 'payout' || latest.currency !== p.currency || latest.to_address !== rawOf(p.to) || !Decimal.parse(latest.amount).eq(p.amount)) {
        throw new TonSendError('invalid', `Send id ${id} was already used for a different payment`);
      }
      const now = ACTIVE.includes(latest.status) && latest.status !== 'mined' ? await this.resolve(latest, 'now') : latest;
      if (now.status !== 'expired') {
        if (now.status === 'signed' || now.status === 'sent') return this.waitFor(now);
        return now.txid;
      }
      attempt = latest.attempt + 1;
    }
    const cover = await this.cover(p);
    if (!cover.covered) throw new HotWalletShortError(cover.currency, cover.message);
    const row = await this.signAndStore(id, attempt, p);
    if (row.status === 'signed') await this.broadcast(row);
    return this.waitFor(row);
  }

  /** Looks for the float's transaction of `row` for findWaitMs; its hash, or TonPendingError. */
  private async waitFor(row: Row): Promise<string> {
    const until = this.o.now() + this.o.findWaitMs;
    for (;;) {
      const tx = await this.findSent(row);
      if (tx) return (await this.markFound(row, tx)).txid;
      if (this.o.now() >= until) break;
      await sleep(Math.min(1000, this.o.findWaitMs));
    }
    throw new TonPendingError(`${this.o.network}: the payout's message was broadcast; the float's transaction is not on chain yet (asked again later, never signed twice)`);
  }

  // ------------------------------------------------------------------ following what was sent

  /** The transaction of `account` started by the message `source` created at `createdLt`. */
  private delivered(account: string, source: string, createdLt: bigint): Promise<FloatTx | null> {
    return this.walk(account, createdLt, (t) => t.internal !== null && t.internal.source === source && t.internal.createdLt === createdLt);
  }

  /** Whether the payment arrived: ok, failed (why), or not known yet. */
  private async delivery(row: Row): Promise<{ ok: true } | { ok: false; why: string } | null> {
    const d = dataOf(row);
    if (d.out_count === 0) return { ok: false, why: 'the float executed the message but sent nothing (its balance did not cover it)' };
    const first = await this.delivered(d.jetton_wallet ?? d.dest, this.floatRaw, BigInt(d.tx_lt ?? '0') + 1n);
    if (!first) return null;
    if (!d.jetton_wallet || !d.recipient_wallet) return first.aborted && first.internal?.bounce ? { ok: false, why: 'the destination refused the payment; it bounced back to the float' } : { ok: true };
    if (first.aborted) return { ok: false, why: 'the float\'s jetton wallet refused the transfer' };
    const second = await this.delivered(d.recipient_wallet, d.jetton_wallet, first.lt + 1n);
    if (!second) return null;
    return second.aborted ? { ok: false, why: 'the recipient\'s jetton wallet refused the transfer; the jettons returned to the float' } : { ok: true };
  }

  /** Follows every payout not settled yet and reports it to the sink. */
  async track(sink: ChainSink, seqno: number): Promise<void> {
    const rows = await this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('status', 'in', ACTIVE).orderBy('created_at').execute();
    for (let row of rows) {
      if (row.status !== 'mined') row = await this.resolve(row, 'when-due');
      if (row.status !== 'mined') continue;
      const outcome = await this.delivery(row);
      if (!outcome) continue;
      const conf = Math.max(0, seqno - Number(row.block_number ?? seqno));
      if (!outcome.ok) {
        this.o.log('warn', 'ton: a payout failed on chain', { network: this.o.network, txid: row.txid, why: outcome.why });
        await sink.outgoing(this.o.network, row.txid, 'failed', conf);
        await this.update(row.id, { status: 'failed', confirmations: conf, error: outcome.why });
        continue;
      }
      const settled = conf >= this.o.confirmations;
      if (conf !== row.confirmations || settled) {
        await sink.outgoing(this.o.network, row.txid, 'confirmed', conf);
        await this.update(row.id, { confirmations: conf, status: settled ? 'confirmed' : 'mined' });
      }
    }
  }
}
