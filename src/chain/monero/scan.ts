// Detection for the `monero` driver. Every invoice is paid to a fresh subaddress (account 0, index
// i) of the merchant's own wallet, derived by the gateway from the primary address and the view key
// (./subaddress.ts); a payment to it can only be recognised with the private view key, so each
// merchant's material (one custody row) is scanned by a view-only wallet (./wallets.ts) kept by the
// driver. A poll, per custody row that has watched deposits: open its wallet, make sure the wallet
// has created every subaddress up to the highest one handed out, `refresh`, then read the incoming
// transfers (`get_transfers` in + pool) from the row's cursor up, and report each payment to a
// watched subaddress through the sink with its confirmations (the block holding the payment counts
// as the first; in the pool, none).
//
// What was reported and is not final yet waits in account_seen, written before the sink hears of
// it, so a payment that later disappears (its block popped and the transaction gone from the pool,
// or dropped from the pool) is reported dropped, once. The cursor (account_cursors.lt) is the lowest
// height that may still hold a payment not yet final: the wallet is asked only from there, so an
// answer stays the size of the confirmation window however old the merchant's wallet is. A crash
// anywhere loses nothing (the cursor moves last) and the sink, idempotent on (network, txid,
// index), credits nothing twice. A payment locked by its unlock_time is not final until it unlocks:
// it is reported with one confirmation fewer than settles it.
import type { Kysely } from 'kysely';
import type { ChainSink, IncomingTransfer } from '../contract.ts';
import { FaultyNodeError, NodeUnreachableError } from '../errors.ts';
import { familyWrite, withFamilyTables } from '../family-tables.ts';
import { parseWatchPath } from '../watch-paths.ts';
import type { DB } from '../../db/schema.ts';
import { Decimal } from '../../money/decimal.ts';
import type { Storage } from '../../db/storage.ts';
import { MONERO_CREATE_BATCH, MONERO_MAX_TRANSFERS, MONERO_REFRESH_TIMEOUT_MS, MONERO_TX_BATCH } from './limits.ts';
import { atomic, hash64, MoneroRpcError, uint, type MoneroRpc } from './rpc.ts';
import type { MoneroScanTables, SeenRow } from './tables.ts';
import type { ViewWallets, WalletKeys } from './wallets.ts';

export interface MoneroScannerOptions {
  network: string;
  /** The native currency (XMR) and its decimals (12). */
  currency: { code: string; decimals: number };
  storage: Storage;
  wallets: ViewWallets;
  /** The daemon, asked where each payment is (./rpc.ts). */
  daemon: MoneroRpc;
  confirmations: number;
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

/** A merchant's receiving material as the custody row stores it. */
export interface MoneroMaterial extends WalletKeys {
  /** Where scanning starts (the daemon's height when the view key was set); null: at the first scan. */
  startHeight: number | null;
}

/**
 * The custody row's material: JSON `{"address", "viewKey", "startHeight"}` (snake_case accepted).
 * Null when it is not Monero material (the row belongs to another family: ignored).
 */
export function parseMaterial(text: string): MoneroMaterial | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const address = o.address;
  const viewKey = o.viewKey ?? o.view_key;
  const start = o.startHeight ?? o.start_height ?? null;
  if (typeof address !== 'string' || typeof viewKey !== 'string' || !/^[0-9a-f]{64}$/i.test(viewKey)) return null;
  if (start !== null && (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0)) return null;
  return { address, viewKey: viewKey.toLowerCase(), startHeight: start as number | null };
}

interface Custody {
  id: string;
  /** Subaddress index -> the deposit address handed out. */
  deposits: Map<number, string>;
  maxIndex: number;
  /** Highest index the wallet is known to have created in this process (the file keeps them). */
  created: number;
}

/** One incoming transfer as the wallet lists it, checked. */
interface WalletTransfer {
  txid: string;
  minor: number;
  amount: bigint;
  /** Null in the pool. */
  height: number | null;
  locked: boolean;
}

export class MoneroScanner {
  private readonly custodies = new Map<string, Custody>();
  private readonly materials = new Map<string, MoneroMaterial | null>();
  private readonly db: Kysely<DB & MoneroScanTables>;

  constructor(private readonly o: MoneroScannerOptions) {
    this.db = withFamilyTables<MoneroScanTables>(o.storage.db);
  }

  /** Adds deposits; anything without a `watch:<custody>/0/<index>` path is not a Monero deposit and is ignored. */
  watch(list: readonly { address: string; path: string }[]): void {
    for (const a of list) {
      const p = parseWatchPath(a.path);
      if (!p || p.index < 1) continue;
      let c = this.custodies.get(p.custodyId);
      if (!c) {
        c = { id: p.custodyId, deposits: new Map(), maxIndex: 0, created: 0 };
        this.custodies.set(p.custodyId, c);
      }
      c.deposits.set(p.index, a.address);
      if (p.index > c.maxIndex) c.maxIndex = p.index;
    }
  }

  get watchedCount(): number {
    let n = 0;
    for (const c of this.custodies.values()) n += c.deposits.size;
    return n;
  }

  /** Scans every custody row with watched deposits; `daemonHeight`: the daemon's block count. */
  async poll(sink: ChainSink, daemonHeight: number, signal?: AbortSignal): Promise<void> {
    for (const c of this.custodies.values()) {
      if (signal?.aborted) break;
      await this.scanCustody(c, sink, daemonHeight);
    }
  }

  private async material(id: string): Promise<MoneroMaterial | null> {
    if (this.materials.has(id)) return this.materials.get(id)!;
    const row = await this.db.selectFrom('merchant_custody').select(['material', 'network']).where('id', '=', id).executeTakeFirst();
    const m = row && row.network.toUpperCase() === this.o.network ? parseMaterial(row.material) : null;
    if (!m) this.o.log('error', 'monero: deposits name a custody row without Monero material: not scanned', { custody: id });
    this.materials.set(id, m);
    return m;
  }

  private async scanCustody(c: Custody, sink: ChainSink, daemonHeight: number): Promise<void> {
    const { network, confirmations } = this.o;
    const m = await this.material(c.id);
    if (!m) return;
    const cursorRow = await this.db.selectFrom('account_cursors').select('lt').where('network', '=', network).where('account', '=', c.id).executeTakeFirst();
    let cursor = cursorRow ? Number(cursorRow.lt) : (m.startHeight ?? daemonHeight);
    if (!Number.isSafeInteger(cursor) || cursor < 0) cursor = m.startHeight ?? daemonHeight;
    if (!cursorRow) await this.saveCursor(c.id, cursor);

    const wallet = await this.o.wallets.open(c.id, m, Math.max(0, cursor - 1));
    await this.createSubaddresses(wallet, c);
    await this.refresh(wallet);
    const walletHeight = uint('get_height', (await wallet.call('get_height')).height, 'height');
    const transfers = await this.transfers(wallet, Math.max(0, cursor - 1));

    const open = await this.db.selectFrom('account_seen').selectAll().where('network', '=', network).where('account', '=', c.id).where('settled', '=', 0).execute();

    // What the wallet found to watched subaddresses, and what was reported before and is not final.
    const candidates = new Map<string, { txid: string; minor: number; to: string; amount: string; locked: boolean; reported: boolean }>();
    for (const t of transfers) {
      const to = c.deposits.get(t.minor);
      if (!to) continue; // the merchant's own use of its wallet (index 0, or one the gateway never gave)
      candidates.set(`${t.txid} ${t.minor}`, { txid: t.txid, minor: t.minor, to, amount: decimal(t.amount, this.o.currency.decimals), locked: t.locked, reported: false });
    }
    for (const r of open) {
      const key = `${r.txid} ${r.idx}`;
      const known = candidates.get(key);
      if (known) known.reported = true;
      else candidates.set(key, { txid: r.txid, minor: r.idx, to: r.to_address, amount: r.amount, locked: false, reported: true });
    }
    // Where each one is, asked of the daemon: the wallet keeps a popped block's payments until a
    // new block replaces it, the daemon's chain is the truth.
    const where = await this.locate([...new Set([...candidates.values()].map((x) => x.txid))]);

    const now = this.o.now();
    const reports: IncomingTransfer[] = [];
    const rows: Omit<SeenRow, 'created_at' | 'updated_at'>[] = [];
    const gone: Array<{ txid: string; idx: number }> = [];
    for (const x of candidates.values()) {
      const at = where.get(x.txid);
      if (at === undefined) {
        // Gone from the chain and the pool: withdrawn if it was reported; else not reported yet.
        if (x.reported) gone.push({ txid: x.txid, idx: x.minor });
        continue;
      }
      const depth = at === null ? 0 : Math.max(1, daemonHeight - at);
      const conf = Math.min(depth, x.locked ? confirmations - 1 : confirmations);
      reports.push({ network, currency: this.o.currency.code, txid: x.txid, index: x.minor, from: null, to: x.to, amount: x.amount, blockHeight: at, blockHash: null, confirmations: conf });
      rows.push({ network, txid: x.txid, idx: x.minor, account: c.id, lt: at === null ? '' : String(at), kind: 'transfer', currency: this.o.currency.code, from_address: null, to_address: x.to, amount: x.amount, memo: null, reason: null, seen_seqno: at ?? -1, settled: conf >= confirmations ? 1 : 0 });
    }
    reports.sort((a, b) => (a.blockHeight ?? Infinity) - (b.blockHeight ?? Infinity) || (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : a.index - b.index));

    // Recorded before the sink hears of it: a payment reported is always one a later poll can withdraw.
    if (rows.length) {
      await familyWrite(this.o.storage, this.db, async (trx) => {
        for (const r of rows) {
          await trx
            .insertInto('account_seen')
            .values({ ...r, settled: 0, created_at: now, updated_at: now })
            .onConflict((oc) => oc.columns(['network', 'txid', 'idx']).doUpdateSet({ lt: r.lt, seen_seqno: r.seen_seqno, updated_at: now }))
            .execute();
        }
      });
    }
    if (reports.length) {
      if (sink.transferBatch) await sink.transferBatch(reports);
      else for (const t of reports) await sink.transfer(t);
    }
    for (const r of gone) {
      await sink.dropped(network, r.txid, r.idx);
      this.o.log('warn', 'monero: a reported payment is gone from the chain and the pool: withdrawn', { network, txid: r.txid, subaddress_index: r.idx });
    }
    // Final payments leave the table; the cursor moves up to the lowest height still open.
    const final = rows.filter((r) => r.settled === 1);
    // (The lower of the two heights: the wallet keeps a popped block until a new one replaces it.)
    let next = Math.max(cursor, Math.min(walletHeight, daemonHeight) - confirmations + 1);
    for (const r of rows) if (r.settled === 0 && r.seen_seqno >= 0) next = Math.min(next, r.seen_seqno);
    await familyWrite(this.o.storage, this.db, async (trx) => {
      for (const r of [...final, ...gone]) {
        await trx.deleteFrom('account_seen').where('network', '=', network).where('txid', '=', r.txid).where('idx', '=', r.idx).execute();
      }
      await trx.updateTable('account_cursors').set({ lt: String(next), updated_at: now }).where('network', '=', network).where('account', '=', c.id).execute();
    });
  }

  private async saveCursor(account: string, lt: number): Promise<void> {
    const now = this.o.now();
    await familyWrite(this.o.storage, this.db, async (trx) => {
      await trx
        .insertInto('account_cursors')
        .values({ network: this.o.network, account, lt: String(lt), hash: '', top_lt: null, top_hash: null, walk_lt: null, walk_hash: null, updated_at: now })
        .onConflict((oc) => oc.columns(['network', 'account']).doNothing())
        .execute();
    });
  }

  /**
   * Has the wallet create subaddresses up to the highest index handed out (a wallet recognises
   * payments only to the subaddresses it has, plus its lookahead), checking that each one it made
   * is the address the gateway derived: the two derivations must agree, or nothing is scanned.
   */
  private async createSubaddresses(wallet: MoneroRpc, c: Custody): Promise<void> {
    if (c.created >= c.maxIndex) return;
    try {
      const r = await wallet.call('get_address', { account_index: 0, address_index: [c.maxIndex] });
      this.checkAddress(c, c.maxIndex, r);
      c.created = c.maxIndex;
      return;
    } catch (err) {
      if (!(err instanceof MoneroRpcError)) throw err; // out of bounds: some are still to be made
    }
    for (let guard = 0; guard < 10_000; guard++) {
      const r = await wallet.call('create_address', { account_index: 0, count: MONERO_CREATE_BATCH });
      const indices = Array.isArray(r.address_indices) ? r.address_indices : [r.address_index];
      const addresses = Array.isArray(r.addresses) ? r.addresses : [r.address];
      let top = 0;
      indices.forEach((i, k) => {
        const index = uint('create_address', i, 'address_index');
        const known = c.deposits.get(index);
        if (known !== undefined && addresses[k] !== known) this.mismatch(c, index);
        top = Math.max(top, index);
      });
      if (top === 0) throw new FaultyNodeError('create_address', 'no subaddress was made');
      if (top >= c.maxIndex) break;
    }
    c.created = c.maxIndex;
  }

  private checkAddress(c: Custody, index: number, r: Record<string, unknown>): void {
    const list = Array.isArray(r.addresses) ? (r.addresses as Array<{ address?: unknown; address_index?: unknown }>) : [];
    const entry = list.find((a) => a.address_index === index);
    if (!entry) throw new FaultyNodeError('get_address', `subaddress ${index} is missing from the answer`);
    const known = c.deposits.get(index);
    if (known !== undefined && entry.address !== known) this.mismatch(c, index);
  }

  private mismatch(c: Custody, index: number): never {
    this.o.log('error', 'monero: the view-only wallet derives another subaddress than the gateway handed out', { custody: c.id, subaddress_index: index, alarm: 'node_mismatch' });
    throw new FaultyNodeError('create_address', `custody ${c.id}: subaddress ${index} differs from the deposit address handed out`);
  }

  private async refresh(wallet: MoneroRpc): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await wallet.call('refresh', {}, MONERO_REFRESH_TIMEOUT_MS);
        return;
      } catch (err) {
        if (!(err instanceof MoneroRpcError && /daemon|connect|busy/i.test(err.message))) throw err;
        // The wallet RPC gave up on a daemon that went away: once the daemon answers the driver
        // again (it did, just before), point the wallet at it anew and try once more.
        if (attempt === 0) {
          await this.o.wallets.reconnect(wallet);
          continue;
        }
        throw new NodeUnreachableError('refresh', null, err.message);
      }
    }
  }

  /**
   * Where the daemon has each transaction: a block height, null in the pool; absent when it knows
   * none of it (never mined, or popped and gone from the pool).
   */
  private async locate(txids: string[]): Promise<Map<string, number | null>> {
    const out = new Map<string, number | null>();
    const path = 'get_transactions';
    for (let i = 0; i < txids.length; i += MONERO_TX_BATCH) {
      const chunk = txids.slice(i, i + MONERO_TX_BATCH);
      const r = await this.o.daemon.other(path, { txs_hashes: chunk, decode_as_json: false, prune: true });
      const txs = r.txs ?? [];
      if (!Array.isArray(txs) || txs.length > chunk.length) throw new FaultyNodeError(path, 'txs is not a list of the transactions asked');
      for (const t of txs as Array<Record<string, unknown>>) {
        const txid = hash64(path, t?.tx_hash, 'tx_hash');
        if (!chunk.includes(txid)) throw new FaultyNodeError(path, `${txid} was not asked`);
        if (t.in_pool === true) out.set(txid, null);
        else out.set(txid, uint(path, t.block_height, 'block_height'));
      }
    }
    return out;
  }

  /** The wallet's incoming transfers above `minHeight` and in the pool, to account 0, checked. */
  private async transfers(wallet: MoneroRpc, minHeight: number): Promise<WalletTransfer[]> {
    const method = 'get_transfers';
    const r = await wallet.call(method, { in: true, pool: true, account_index: 0, filter_by_height: true, min_height: minHeight });
    const out: WalletTransfer[] = [];
    for (const [kind, list] of [['in', r.in], ['pool', r.pool]] as const) {
      if (list === undefined) continue;
      if (!Array.isArray(list)) throw new FaultyNodeError(method, `${kind} is not a list`);
      if (out.length + list.length > MONERO_MAX_TRANSFERS) throw new FaultyNodeError(method, `more than ${MONERO_MAX_TRANSFERS} transfers in one answer`);
      for (const e of list as Array<Record<string, unknown>>) {
        if (typeof e !== 'object' || e === null) throw new FaultyNodeError(method, 'a transfer is not an object');
        const sub = e.subaddr_index as { major?: unknown; minor?: unknown } | undefined;
        if (!sub || typeof sub !== 'object') throw new FaultyNodeError(method, 'a transfer has no subaddr_index');
        const major = uint(method, sub.major, 'subaddr_index.major');
        if (major !== 0) continue;
        const height = kind === 'pool' ? null : uint(method, e.height, 'height');
        if (height !== null && height <= minHeight) throw new FaultyNodeError(method, `a transfer at height ${height}, not above ${minHeight} as asked`);
        out.push({
          txid: hash64(method, e.txid, 'txid'),
          minor: uint(method, sub.minor, 'subaddr_index.minor'),
          amount: atomic(method, e.amount, 'amount'),
          height,
          locked: e.locked === true && e.unlock_time !== 0 && e.unlock_time !== undefined,
        });
      }
    }
    // A transaction paying one subaddress in several outputs is listed once per output by some
    // versions: one payment per (txid, subaddress), amounts added.
    const merged = new Map<string, WalletTransfer>();
    for (const t of out) {
      const key = `${t.txid} ${t.minor}`;
      const prev = merged.get(key);
      if (!prev) merged.set(key, { ...t });
      else if (prev.height === t.height) prev.amount += t.amount;
      else if (prev.height === null) merged.set(key, { ...t }); // mined beats pool
    }
    return [...merged.values()];
  }
}

/** Atomic units as a decimal string of the currency (trailing zeros dropped). */
export function decimal(units: bigint, decimals: number): string {
  return Decimal.fromBaseUnits(units, decimals).toString();
}
