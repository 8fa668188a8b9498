// Detection for the `solana` driver. Every invoice is a Solana Pay transfer request to the
// merchant's own wallet carrying a fresh reference key, so the watched deposits are keys
// `<wallet>#<reference>` (src/chain/watch-paths.ts) grouped by wallet. Asking the node about each
// reference would cost one call per open invoice and poll; instead each poll walks the
// getSignaturesForAddress history of the accounts payments reach: the wallet (SOL) and its
// associated token account of every configured mint (a token transfer never names the wallet).
// That is 1 + tokens walks per merchant wallet, however many invoices are open, each from a
// per-account cursor (account_cursors), bounded pages per poll; the new transactions are read in
// JSON-RPC batches and matched in memory (./transfers.ts).
//
// What a walk found and the moved cursor are written in one database transaction (account_seen,
// seen_seqno = the transaction's slot); settle() then reports from that table, asking the node
// for the commitment of what is still open (getSignatureStatuses, batched): `confirmed` is
// reported with fewer confirmations than the network requires (the invoice goes to `check`),
// `finalized` with all of them (it settles). A crash loses nothing and the sink (idempotent on
// network, txid, index) credits nothing twice. Walks read at `confirmed`: optimistic confirmation
// of a slot implies its ancestors', so no older transaction can appear behind a cursor.
import type { Kysely } from 'kysely';
import type { ChainSink, UnmatchedTransfer } from '../contract.ts';
import { FaultyNodeError } from '../errors.ts';
import { familyWrite, withFamilyTables } from '../family-tables.ts';
import { parseDepositKey } from '../watch-paths.ts';
import type { DB } from '../../db/schema.ts';
import type { Storage } from '../../db/storage.ts';
import { associatedTokenAddress, isSolanaKey, parseSolanaKey } from './address.ts';
import { checkSignatures, checkStatuses, checkTransaction, type SignatureInfo, type SolanaTx } from './answers.ts';
import { SOLANA_DROP_AFTER_SLOTS, SOLANA_STATUS_BATCH, SOLANA_TX_BATCH } from './limits.ts';
import type { SolanaRpc } from './rpc.ts';
import { matchTransaction, type Payment, type WalletWatch } from './transfers.ts';
import type { AccountScanTables, SeenRow } from './tables.ts';

export interface SolanaToken {
  code: string;
  mint: string;
  decimals: number;
}

export interface SolanaScannerOptions {
  network: string;
  rpc: SolanaRpc;
  storage: Storage;
  native: { code: string; decimals: number };
  tokens: SolanaToken[];
  /** What a finalized payment is reported with (the network's required confirmations). */
  confirmations: number;
  now: () => number;
  lookbackSeconds: number;
  pagesPerPoll: number;
  pageSize: number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

type Found = Omit<SeenRow, 'network' | 'settled' | 'created_at' | 'updated_at'>;

interface Cursor {
  slot: number;
  sig: string;
}

export class SolanaScanner {
  private readonly wallets = new Map<string, WalletWatch>();
  private readonly db: Kysely<DB & AccountScanTables>;

  constructor(private readonly o: SolanaScannerOptions) {
    this.db = withFamilyTables<AccountScanTables>(o.storage.db);
  }

  /** Adds deposit keys; anything that is not `<wallet>#<reference>` with two valid keys is ignored. */
  watch(keys: readonly string[]): void {
    for (const key of keys) {
      const parsed = parseDepositKey(key);
      if (!parsed || !isSolanaKey(parsed.account) || !isSolanaKey(parsed.reference)) continue;
      let w = this.wallets.get(parsed.account);
      if (!w) {
        const owner = parseSolanaKey(parsed.account);
        w = { wallet: parsed.account, refs: new Map(), tokens: this.o.tokens.map((t) => ({ ...t, ata: associatedTokenAddress(owner, t.mint) })) };
        this.wallets.set(parsed.account, w);
      }
      w.refs.set(parsed.reference, key);
    }
  }

  get watchedCount(): number {
    let n = 0;
    for (const w of this.wallets.values()) n += w.refs.size;
    return n;
  }

  /** Walks every watched wallet's accounts at head slot `head`, then reports what is open. */
  async poll(sink: ChainSink, head: number, signal?: AbortSignal): Promise<void> {
    // Transactions read this poll, shared by the accounts of one wallet (a payment that creates
    // the merchant's token account names both the wallet and the account).
    const cache = new Map<string, SolanaTx | null>();
    for (const w of this.wallets.values()) {
      for (const account of [w.wallet, ...w.tokens.map((t) => t.ata)]) {
        if (signal?.aborted) break;
        await this.scanAccount(w, account, cache, signal);
      }
    }
    if (!signal?.aborted) await this.settle(sink, head);
  }

  private async scanAccount(w: WalletWatch, account: string, cache: Map<string, SolanaTx | null>, signal?: AbortSignal): Promise<void> {
    const { network } = this.o;
    const db = this.db;
    const row = await db.selectFrom('account_cursors').selectAll().where('network', '=', network).where('account', '=', account).executeTakeFirst();
    const cursor: Cursor | null = row ? { slot: Number(row.lt), sig: row.hash } : null;
    const resume = row?.walk_lt && row.walk_hash && row.top_lt && row.top_hash ? { from: { slot: Number(row.walk_lt), sig: row.walk_hash }, top: { slot: Number(row.top_lt), sig: row.top_hash } } : null;
    const { sigs, top, from, done } = await this.walk(account, cursor, resume, signal);
    if (!top) return;
    const txs = await this.read(sigs.filter((s) => s.err === null).map((s) => s.signature), cache);
    const found: Found[] = [];
    for (const tx of txs) {
      if (tx.err !== null) continue;
      for (const p of matchTransaction(tx, w, this.o.native)) {
        // The first walk reads history from before the gateway watched the account: only a
        // payment naming an open invoice is meant for it.
        if (cursor || p.kind === 'transfer') found.push(toRow(p, account, tx.slot));
      }
    }
    const now = this.o.now();
    const state = done
      ? { lt: String(top.slot), hash: top.sig, top_lt: null, top_hash: null, walk_lt: null, walk_hash: null }
      : { lt: String(cursor?.slot ?? 0), hash: cursor?.sig ?? '', top_lt: String(top.slot), top_hash: top.sig, walk_lt: String(from!.slot), walk_hash: from!.sig };
    await familyWrite(this.o.storage, db, async (trx) => {
      if (found.length) {
        await trx
          .insertInto('account_seen')
          .values(found.map((f) => ({ ...f, network, settled: 0, created_at: now, updated_at: now })))
          .onConflict((oc) => oc.columns(['network', 'txid', 'idx']).doNothing())
          .execute();
      }
      await trx
        .insertInto('account_cursors')
        .values({ network, account, ...state, updated_at: now })
        .onConflict((oc) => oc.columns(['network', 'account']).doUpdateSet({ ...state, updated_at: now }))
        .execute();
    });
  }

  /** The signatures after the cursor, newest first, at most `pagesPerPoll` pages this poll. */
  private async walk(
    account: string,
    cursor: Cursor | null,
    resume: { from: Cursor; top: Cursor } | null,
    signal?: AbortSignal,
  ): Promise<{ sigs: SignatureInfo[]; top: Cursor | null; from: Cursor | null; done: boolean }> {
    const sigs: SignatureInfo[] = [];
    let top: Cursor | null = resume?.top ?? null;
    let from: Cursor | null = resume?.from ?? null;
    const since = cursor ? null : Math.floor(this.o.now() / 1000) - this.o.lookbackSeconds;
    const result = (done: boolean) => ({ sigs, top, from, done });
    for (let page = 0; ; page++) {
      // A first walk (no cursor yet) only reads recent history: it ends where its budget does.
      if (page >= this.o.pagesPerPoll || (page > 0 && signal?.aborted)) return result(!cursor);
      const opts: Record<string, unknown> = { commitment: 'confirmed', limit: this.o.pageSize };
      if (from) opts.before = from.sig;
      if (cursor) opts.until = cursor.sig;
      const method = 'getSignaturesForAddress';
      const list = checkSignatures(method, await this.o.rpc.call(method, [account, opts]), this.o.pageSize);
      for (const s of list) {
        if (from && s.slot > from.slot) throw new FaultyNodeError(method, `${account}: signatures out of order (slot ${s.slot} after ${from.slot})`);
        // A node that ignores `until` lists what was read before: the walk is done.
        if (cursor && (s.signature === cursor.sig || s.slot < cursor.slot)) return result(true);
        if (since !== null && s.blockTime !== null && s.blockTime < since) return result(true);
        top ??= { slot: s.slot, sig: s.signature };
        from = { slot: s.slot, sig: s.signature };
        sigs.push(s);
      }
      if (list.length < this.o.pageSize) return result(true);
    }
  }

  /** getTransaction for each signature (batched), from the poll's cache when read already. */
  private async read(sigs: string[], cache: Map<string, SolanaTx | null>): Promise<SolanaTx[]> {
    const missing = [...new Set(sigs)].filter((s) => !cache.has(s));
    for (let i = 0; i < missing.length; i += SOLANA_TX_BATCH) {
      const chunk = missing.slice(i, i + SOLANA_TX_BATCH);
      const answers = await this.o.rpc.batch(chunk.map((s) => ({ method: 'getTransaction', params: [s, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }] })));
      chunk.forEach((s, k) => {
        const tx = checkTransaction('getTransaction', answers[k], s);
        // Listed as confirmed, yet unknown: the node is behind its own index; read again next poll.
        if (tx === null) throw new FaultyNodeError('getTransaction', `${s}: listed by getSignaturesForAddress, yet unknown`);
        cache.set(s, tx);
      });
    }
    return sigs.map((s) => cache.get(s)).filter((t): t is SolanaTx => !!t);
  }

  /**
   * Reports what waits in account_seen: a transfer at each poll with its confirmations until it is
   * finalized; an unmatched payment once, when finalized. A payment the node no longer knows long
   * after it was confirmed (a minority fork) is dropped.
   */
  private async settle(sink: ChainSink, head: number): Promise<void> {
    const { network, confirmations } = this.o;
    const db = this.db;
    const open = await db.selectFrom('account_seen').selectAll().where('network', '=', network).where('settled', '=', 0).execute();
    if (open.length === 0) return;
    open.sort((a, b) => Number(a.seen_seqno) - Number(b.seen_seqno) || (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : a.idx - b.idx));
    const txids = [...new Set(open.map((r) => r.txid))];
    const statuses = new Map<string, ReturnType<typeof checkStatuses>[number]>();
    for (let i = 0; i < txids.length; i += SOLANA_STATUS_BATCH) {
      const chunk = txids.slice(i, i + SOLANA_STATUS_BATCH);
      const method = 'getSignatureStatuses';
      const value = checkStatuses(method, await this.o.rpc.call(method, [chunk, { searchTransactionHistory: true }]), chunk.length);
      chunk.forEach((s, k) => statuses.set(s, value[k]!));
    }
    for (const r of open) {
      const st = statuses.get(r.txid) ?? null;
      const slot = Number(r.seen_seqno);
      if (st && st.err !== null) throw new FaultyNodeError('getSignatureStatuses', `${r.txid}: read as successful, now reported failed`);
      if (!st) {
        if (head - slot <= SOLANA_DROP_AFTER_SLOTS) continue;
        if (r.kind === 'transfer') await sink.dropped(network, r.txid, r.idx);
        this.o.log('warn', 'solana: a confirmed payment is unknown to the node long after: dropped', { network, txid: r.txid });
        await this.markSettled(r);
        continue;
      }
      const finalized = st.confirmationStatus === 'finalized' || (st.confirmationStatus === null && st.confirmations === null);
      const conf = finalized ? confirmations : Math.min(st.confirmations ?? 0, confirmations - 1);
      if (r.kind === 'transfer') {
        await sink.transfer({ network, currency: r.currency, txid: r.txid, index: r.idx, from: r.from_address, to: r.to_address, amount: r.amount, blockHeight: st.slot, blockHash: null, confirmations: conf });
      } else if (finalized) {
        if (sink.unmatched) {
          await sink.unmatched({ network, currency: r.currency, txid: r.txid, index: r.idx, from: r.from_address, to: r.to_address, amount: r.amount, memo: r.memo, reason: r.reason as UnmatchedTransfer['reason'], blockHeight: st.slot, confirmations: conf });
        } else {
          this.o.log('warn', 'solana: a payment names no invoice and this gateway records no unmatched payments', { network, txid: r.txid, reason: r.reason });
        }
      }
      if (finalized) await this.markSettled(r);
    }
  }

  private async markSettled(r: { txid: string; idx: number }): Promise<void> {
    await this.db.updateTable('account_seen').set({ settled: 1, updated_at: this.o.now() }).where('network', '=', this.o.network).where('txid', '=', r.txid).where('idx', '=', r.idx).execute();
  }
}

function toRow(p: Payment, account: string, slot: number): Found {
  return { txid: p.txid, idx: p.idx, account, lt: String(slot), kind: p.kind, currency: p.currency, from_address: p.from, to_address: p.to, amount: p.amount, memo: p.memo, reason: p.reason, seen_seqno: slot };
}
