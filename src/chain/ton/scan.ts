// Detection for the `ton` driver. On TON every invoice is paid to the merchant's own wallet with a
// comment naming it, so the watched deposits are keys `<wallet>#<comment>` (src/chain/watch-paths.ts)
// grouped by wallet (compared on the raw form): one walk of getTransactions per merchant wallet and
// poll, however many invoices are open, the comments matched in memory.
//
// A walk pages from the newest transaction back to the wallet's stored cursor (the newest one a
// completed walk read), reads each transaction's BOC (./answers.ts readTransaction: its hash is the
// transaction id, so nothing the node decoded beside it is trusted) and keeps what it found:
// - Toncoin: an internal message with value and a text comment equal (case-sensitive) to a
//   watched one → a transfer in TON to that deposit key;
// - a jetton transfer_notification from the jetton wallet the configured master names for the
//   merchant's wallet (get_wallet_address, cached) → a transfer in that token; the comment is in
//   the forward payload. A notification from any other jetton wallet (a fake jetton) is never
//   credited: it is logged and skipped;
// - a bounced message, no comment, an unknown or unreadable comment → an unmatched payment.
// What a walk found and the moved cursor are written in one transaction; settle() then reports
// from that table, so a crash loses nothing and the sink (idempotent on network, txid, index)
// credits nothing twice. A payment settles once the masterchain seqno has advanced by
// `confirmations` since the walk first saw it: with these API methods a transaction cannot be
// tied to its masterchain block.
import type { Kysely } from 'kysely';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { ChainSink, UnmatchedTransfer } from '../contract.ts';
import { FaultyNodeError } from '../errors.ts';
import { familyWrite } from '../family-tables.ts';
import { parseDepositKey } from '../watch-paths.ts';
import { Decimal } from '../../money/decimal.ts';
import type { Storage } from '../../db/storage.ts';
import type { TonApi } from './api.ts';
import { nodeAddress, readTransaction, type TonTx } from './answers.ts';
import { Builder, bocFromBase64, bocToBase64, type Cell, type TonAddress } from './cell.ts';
import { parseTransferNotification, readComment } from './messages.ts';
import type { TonDB, TonSeenTable } from './schema.ts';

/** A jetton the network credits (the registry's USDT, or the operator's master). */
export interface TonJetton {
  code: string;
  /** The master as configured (what runGetMethod is asked with). */
  master: string;
  decimals: number;
}

export interface TonScannerOptions {
  network: string;
  api: TonApi;
  db: Kysely<TonDB>;
  storage: Storage;
  native: { code: string; decimals: number };
  jettons: TonJetton[];
  confirmations: number;
  now: () => number;
  /** How far back the first walk of a wallet not scanned before reads (seconds). */
  lookbackSeconds: number;
  /** Pages of getTransactions one poll reads per wallet; a longer walk continues at the next poll. */
  pagesPerPoll: number;
  /** Transactions asked for per page (at most toncenter's 100). */
  pageSize: number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

interface Wallet {
  /** As the deposit keys write it (what the node is asked with). */
  query: string;
  raw: string;
  hash: Uint8Array;
  /** Comment → deposit key. */
  refs: Map<string, string>;
}

type Found = Omit<TonSeenTable, 'network' | 'seen_seqno' | 'settled' | 'created_at' | 'updated_at'>;

const OP_TRANSFER_NOTIFICATION = 0x7362d09c;
/** A jetton wallet returning what a transfer left over: not a payment. */
const OP_EXCESSES = 0xd53276db;

export class TonScanner {
  private readonly wallets = new Map<string, Wallet>();
  /** `<jetton code> <merchant wallet raw>` → the jetton wallet the master says is the merchant's. */
  private readonly jettonWallets = new Map<string, string>();

  constructor(private readonly o: TonScannerOptions) {}

  /** Adds deposit keys; anything that is not `<wallet>#<comment>` with a readable wallet is ignored. */
  watch(keys: readonly string[]): void {
    for (const key of keys) {
      const parsed = parseDepositKey(key);
      if (!parsed) continue;
      let raw: string | null;
      try {
        raw = nodeAddress('watch', 'address', parsed.account);
      } catch {
        continue;
      }
      if (!raw || !raw.startsWith('0:')) continue;
      let w = this.wallets.get(raw);
      if (!w) {
        w = { query: parsed.account, raw, hash: hexBytes(raw.slice(2)), refs: new Map() };
        this.wallets.set(raw, w);
      }
      w.refs.set(parsed.reference, key);
    }
  }

  get watchedCount(): number {
    let n = 0;
    for (const w of this.wallets.values()) n += w.refs.size;
    return n;
  }

  get walletCount(): number {
    return this.wallets.size;
  }

  /** Walks every watched wallet at masterchain seqno `seqno`, then reports what is pending. */
  async poll(sink: ChainSink, seqno: number, signal?: AbortSignal): Promise<void> {
    for (const w of this.wallets.values()) {
      if (signal?.aborted) break;
      await this.scanWallet(w, seqno, signal);
    }
    await this.settle(sink, seqno);
  }

  /**
   * One wallet's walk, or the next pages of a walk an earlier poll left unfinished (a long gap after
   * an outage: at most `pagesPerPoll` pages a poll, so a round always ends and keeps its progress).
   * What the pages found and where the walk is are written together; the cursor moves to the walk's
   * top once the walk reached it.
   */
  private async scanWallet(w: Wallet, seqno: number, signal?: AbortSignal): Promise<void> {
    const { db, network } = this.o;
    const row = await db.selectFrom('account_cursors').selectAll().where('network', '=', network).where('account', '=', w.raw).executeTakeFirst();
    const cursor = row ? { lt: BigInt(row.lt), hash: row.hash } : null;
    const resume = row?.walk_lt && row.walk_hash && row.top_lt && row.top_hash ? { lt: BigInt(row.walk_lt), hashB64: row.walk_hash, top: { lt: BigInt(row.top_lt), hashB64: row.top_hash } } : null;
    const { found, top, from, done } = await this.walk(w, cursor, resume, signal);
    if (!top) return;
    const now = this.o.now();
    const state = done
      ? { lt: top.lt.toString(), hash: top.hashB64, top_lt: null, top_hash: null, walk_lt: null, walk_hash: null }
      : { lt: cursor!.lt.toString(), hash: cursor!.hash, top_lt: top.lt.toString(), top_hash: top.hashB64, walk_lt: from!.lt.toString(), walk_hash: from!.hashB64 };
    await familyWrite(this.o.storage, db, async (trx) => {
      if (found.length) {
        await trx
          .insertInto('account_seen')
          .values(found.map((f) => ({ ...f, network, seen_seqno: seqno, settled: 0, created_at: now, updated_at: now })))
          .onConflict((oc) => oc.columns(['network', 'txid', 'idx']).doNothing())
          .execute();
      }
      await trx
        .insertInto('account_cursors')
        .values({ network, account: w.raw, ...state, updated_at: now })
        .onConflict((oc) => oc.columns(['network', 'account']).doUpdateSet({ ...state, updated_at: now }))
        .execute();
    });
  }

  /**
   * The transactions after the cursor, newest first, classified. `top`: the newest transaction of
   * this walk (where the cursor goes when `done`); `from`: the oldest read so far (where an
   * unfinished walk resumes).
   */
  private async walk(
    w: Wallet,
    cursor: { lt: bigint; hash: string } | null,
    resume: { lt: bigint; hashB64: string; top: { lt: bigint; hashB64: string } } | null,
    signal?: AbortSignal,
  ): Promise<{ found: Found[]; top: { lt: bigint; hashB64: string } | null; from: { lt: bigint; hashB64: string } | null; done: boolean }> {
    const found: Found[] = [];
    let top: { lt: bigint; hashB64: string } | null = resume?.top ?? null;
    let from: { lt: bigint; hashB64: string } | null = resume;
    const since = cursor ? null : Math.floor(this.o.now() / 1000) - this.o.lookbackSeconds;
    const result = (done: boolean) => ({ found, top, from, done });
    for (let page = 0; ; page++) {
      // A first walk (no cursor yet) only reads recent history: it ends where its budget does.
      if (page >= this.o.pagesPerPoll || (page > 0 && signal?.aborted)) return result(!cursor);
      const txs = await this.o.api.transactions(w.query, { limit: this.o.pageSize, ...(from ? { lt: from.lt, hash: from.hashB64 } : {}), ...(cursor ? { toLt: cursor.lt } : {}) });
      // A page starts with the transaction it was asked from (already read).
      const fresh: TonTx[] = from && txs[0]?.lt === from.lt ? txs.slice(1) : txs;
      for (const tx of fresh as TonTx[]) {
        if (from && tx.lt >= from.lt) throw new FaultyNodeError('getTransactions', `${w.query}: transactions out of order (logical time ${tx.lt} after ${from.lt})`);
        // A node that ignores to_lt lists what was read before: the walk is done.
        if (cursor && tx.lt <= cursor.lt) return result(true);
        if (since !== null && tx.utime < since) return result(true);
        top ??= { lt: tx.lt, hashB64: tx.hashB64 };
        from = { lt: tx.lt, hashB64: tx.hashB64 };
        const f = await this.classify(w, tx);
        // The first walk of a wallet reads history from before the gateway watched it: a payment
        // naming an open invoice is credited, the rest was never meant for the gateway.
        if (f && (cursor || f.kind === 'transfer')) found.push(f);
      }
      if (fresh.length === 0 || txs.length < this.o.pageSize) return result(true);
    }
  }

  private async classify(w: Wallet, tx: TonTx): Promise<Found | null> {
    const content = readTransaction('getTransactions', tx, w.hash);
    const msg = content.inMsg;
    if (!msg || !msg.internal) return null;
    // A bounceable message the wallet refused went back to its sender with its value.
    if (content.aborted === true && msg.bounce && !msg.bounced) return null;
    const base = { txid: tx.hash, idx: 0, account: w.raw, lt: tx.lt.toString(), from_address: msg.source ? rawOf(msg.source) : null };
    const ton = (amount: bigint) => Decimal.fromBaseUnits(amount, this.o.native.decimals).toString();
    const unmatched = (currency: string, amount: string, reason: UnmatchedTransfer['reason'], memo: string | null): Found => ({
      ...base,
      kind: 'unmatched',
      currency,
      to_address: w.raw,
      amount,
      memo,
      reason,
    });
    if (msg.bounced) return msg.value > 0n ? unmatched(this.o.native.code, ton(msg.value), 'bounced', null) : null;
    const comment = readComment(msg.body);
    if (comment.kind === 'other' && comment.op === OP_TRANSFER_NOTIFICATION) return this.jettonPayment(w, tx, msg.source, msg.body!, base, unmatched);
    if (msg.value === 0n) return null;
    if (comment.kind === 'other' && comment.op === OP_EXCESSES) return null;
    if (comment.kind === 'text') {
      const key = w.refs.get(comment.text);
      if (key) return { ...base, kind: 'transfer', currency: this.o.native.code, to_address: key, amount: ton(msg.value), memo: null, reason: null };
      return unmatched(this.o.native.code, ton(msg.value), 'unknown_reference', comment.text);
    }
    return unmatched(this.o.native.code, ton(msg.value), comment.kind === 'none' ? 'no_reference' : 'unreadable_reference', null);
  }

  private async jettonPayment(
    w: Wallet,
    tx: TonTx,
    source: TonAddress | null,
    body: Cell,
    base: Pick<Found, 'txid' | 'idx' | 'account' | 'lt' | 'from_address'>,
    unmatched: (currency: string, amount: string, reason: UnmatchedTransfer['reason'], memo: string | null) => Found,
  ): Promise<Found | null> {
    const note = parseTransferNotification(body);
    if (!note || !source) return null;
    const sender = rawOf(source);
    let jetton: TonJetton | undefined;
    for (const j of this.o.jettons) if ((await this.jettonWallet(j, w)) === sender) jetton = j;
    if (!jetton) {
      this.o.log('info', 'ton: a jetton notification from a jetton wallet of no configured master: not credited', { network: this.o.network, txid: tx.hash, jetton_wallet: sender });
      return null;
    }
    if (note.amount === 0n) return null;
    const amount = Decimal.fromBaseUnits(note.amount, jetton.decimals).toString();
    const payer = note.sender ? rawOf(note.sender) : null;
    const comment = readComment(note.forwardPayload);
    const withPayer = (f: Found): Found => ({ ...f, from_address: payer });
    if (comment.kind === 'text') {
      const key = w.refs.get(comment.text);
      if (key) return withPayer({ ...base, kind: 'transfer', currency: jetton.code, to_address: key, amount, memo: null, reason: null });
      return withPayer(unmatched(jetton.code, amount, 'unknown_reference', comment.text));
    }
    return withPayer(unmatched(jetton.code, amount, comment.kind === 'none' ? 'no_reference' : 'unreadable_reference', null));
  }

  /** The merchant's jetton wallet of `j`, as the master says (get_wallet_address); cached. */
  private async jettonWallet(j: TonJetton, w: Wallet): Promise<string> {
    const cacheKey = `${j.code} ${w.raw}`;
    const cached = this.jettonWallets.get(cacheKey);
    if (cached) return cached;
    const arg = bocToBase64(new Builder().storeAddress({ workchain: 0, hash: w.hash }).endCell());
    const r = await this.o.api.runGetMethod(j.master, 'get_wallet_address', [['tvm.Slice', arg]]);
    const top = r.stack[0];
    if (r.exitCode !== 0 || r.stack.length !== 1 || top?.type !== 'cell') {
      throw new FaultyNodeError('runGetMethod', `get_wallet_address of ${j.code}'s master ${j.master} answered exit code ${r.exitCode} and no address`);
    }
    let raw: string;
    try {
      const address = bocFromBase64(top.boc, { maxCells: 4 }).beginParse().loadAddress();
      if (!address) throw new Error('no address');
      raw = rawOf(address);
    } catch (err) {
      throw new FaultyNodeError('runGetMethod', `get_wallet_address of ${j.code}'s master answered no address (${(err as Error).message.slice(0, 80)})`);
    }
    this.jettonWallets.set(cacheKey, raw);
    return raw;
  }

  /**
   * Reports what waits in account_seen: a transfer at each poll with its confirmations (the seqno's
   * advance since it was seen) until it settles; an unmatched payment once, when settled.
   */
  private async settle(sink: ChainSink, seqno: number): Promise<void> {
    const { db, network, confirmations } = this.o;
    const open = await db.selectFrom('account_seen').selectAll().where('network', '=', network).where('settled', '=', 0).execute();
    // Oldest first (logical times are decimal text: compared as numbers).
    open.sort((a, b) => (BigInt(a.lt) < BigInt(b.lt) ? -1 : BigInt(a.lt) > BigInt(b.lt) ? 1 : 0));
    for (const r of open) {
      const conf = Math.max(0, seqno - Number(r.seen_seqno));
      const settled = conf >= confirmations;
      if (r.kind === 'transfer') {
        await sink.transfer({ network, currency: r.currency, txid: r.txid, index: r.idx, from: r.from_address, to: r.to_address, amount: r.amount, blockHeight: null, blockHash: null, confirmations: conf });
      } else if (settled) {
        if (sink.unmatched) {
          await sink.unmatched({ network, currency: r.currency, txid: r.txid, index: r.idx, from: r.from_address, to: r.to_address, amount: r.amount, memo: r.memo, reason: r.reason as UnmatchedTransfer['reason'], blockHeight: null, confirmations: conf });
        } else {
          this.o.log('warn', 'ton: a payment names no invoice and this gateway records no unmatched payments', { network, txid: r.txid, reason: r.reason });
        }
      }
      if (settled) {
        await db.updateTable('account_seen').set({ settled: 1, updated_at: this.o.now() }).where('network', '=', network).where('txid', '=', r.txid).where('idx', '=', r.idx).execute();
      }
    }
  }
}

function rawOf(a: TonAddress): string {
  return `${a.workchain}:${bytesToHex(a.hash)}`;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));
}
