// Payouts and refunds of a Monero network, from its payout float: the operator's full
// monero-wallet-rpc wallet (./float.ts), asked over ./payout.ts. One transaction per payout, from
// account 0, to a standard address, a subaddress or an integrated address of the configured network.
//
// Never twice. The wallet builds and signs the transaction WITHOUT relaying it (`transfer` with
// do_not_relay, get_tx_hex and get_tx_metadata); its id, signed bytes, relay metadata and the key
// images of the coins it spends are STORED (scan_outgoing, status `signed`) in one write; only then
// is it handed to the daemon (`relay_tx` with the stored metadata: status `sent`). A crash, a lost
// answer or a second worker between the two finds the stored row and relays THOSE bytes again
// (relaying a transaction the daemon already has, in its pool or a block, is harmless and changes
// nothing); a payout that has a row is never built a second time. The rows of this network still
// `signed` are relayed before any new transaction is built, since the wallet counts the coins of an
// unrelayed transaction as unspent and could spend them again.
//
// Following it: the daemon's get_transactions. In a block: `confirmations` as the daemon counts them
// (the block holding it is the first), reported until the network's required number settles the
// payout. In the pool: waiting. Unknown to the daemon (dropped from its pool, a block holding it
// popped and the pool flushed): if none of its key images is spent in a block, the stored bytes are
// relayed again; if one is, another transaction spent that coin and this one can never be mined: it
// is failed once that has stood for `confirmations` blocks (so a short reorganisation cannot undo
// the verdict), and the payout fails with its funds returned. No second transaction is made for it.
//
// The fee: the wallet's own, for the exact payment at the payout's priority (Monero's priorities
// 1..4 for economy, recommended, high, highest), asked by building the transaction without relaying
// it. The quote charges the registry's fee table plus whatever the wallet asks beyond it
// (destinationFee), so the commission covers what the float pays.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ChainSink, Coverage } from '../contract.ts';
import { ChainError, HotWalletShortError, NodeError, SendRejectedError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import type { DB, ScanOutgoingTable } from '../../db/schema.ts';
import type { Storage } from '../../db/storage.ts';
import type { Priority } from '../../registry/index.ts';
import { MONERO_PRIORITY, type BuiltTransfer, type MoneroPayoutNode } from './payout.ts';

/** A payout that can never go out as asked; nothing was built or stored (the payout fails, its funds return). */
export class MoneroSendError extends SendRejectedError {}

/** Built and stored, not taken by the daemon yet, or taken and not in a block: asked again later, never built twice. */
export class MoneroPendingError extends ChainError {}

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const ACTIVE = ['signed', 'sent', 'mined'];
const TRACK_BATCH = 100;

/** The wallet's answers that mean it lacks unlocked money for the payment (not a fault of the request). */
const SHORT_CODES = new Set([-16, -17, -37]);
export const isShort = (e: unknown): e is NodeError => e instanceof NodeError && (SHORT_CODES.has(e.code ?? 0) || /not enough (unlocked )?money|not enough outputs/i.test(e.message));

export interface MoneroPayment {
  currency: string;
  to: string;
  units: bigint;
  amount: string;
  priority: Priority;
}

export interface MoneroPayoutsOptions {
  network: string;
  native: { code: string; decimals: number };
  node: MoneroPayoutNode;
  db: Kysely<DB>;
  storage: Storage;
  /** Throws an Error saying why `to` is not a payable address of the configured network type. */
  checkAddress: (to: string) => void;
  /** The registry's fee of the native coin at a priority (decimal string): what the quote already charges. */
  tableFee: (priority: Priority) => string;
  /** What settles a payout (the network's required confirmations). */
  confirmations: number;
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
  /** Called after a transaction is stored and before it is relayed (tests stop there to play a crash). */
  afterStore?: (row: ScanOutgoingTable) => Promise<void>;
}

/** What scan_outgoing.data keeps of a Monero payout. */
interface RowData {
  /** Piconero, decimal text. */
  fee: string;
  /** Monero priority 1..4 it was built at. */
  priority: number;
  /** relay_tx's input (hex). */
  metadata: string;
  key_images: string[];
  /** The daemon's height when one of its coins was first seen spent by another transaction. */
  spent_seen_height?: number;
}

type Row = ScanOutgoingTable;
const dataOf = (row: Row): RowData => JSON.parse(row.data ?? '{}') as RowData;

export class MoneroPayouts {
  /** One build-store-relay at a time in this process: the wallet must not pick coins of a transaction not yet relayed. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: MoneroPayoutsOptions) {}

  /** The request checked (network, currency, address of the network type, amount); throws MoneroSendError. */
  parse(req: { network: string; currency: string; to: string; amount: string; priority: Priority }): MoneroPayment {
    const { network, native } = this.o;
    if (req.network.toUpperCase() !== network.toUpperCase()) throw new MoneroSendError('invalid', `Network ${req.network} is not ${network}`);
    if (req.currency.toUpperCase() !== native.code.toUpperCase()) throw new MoneroSendError('invalid', `${req.currency} is not a currency of ${network}`);
    try {
      this.o.checkAddress(req.to);
    } catch (e) {
      throw new MoneroSendError('invalid', `Not a ${network} address of this network: ${e instanceof Error ? e.message : String(e)}`);
    }
    const d = Decimal.tryParse(req.amount);
    let units = 0n;
    try {
      units = d ? d.toBaseUnits(native.decimals) : 0n;
    } catch {
      throw new MoneroSendError('invalid', `More than ${native.decimals} decimal places: ${req.amount}`);
    }
    if (units <= 0n) throw new MoneroSendError('invalid', `Not a positive amount: ${req.amount}`);
    if (units > U64_MAX) throw new MoneroSendError('invalid', `More than a Monero amount can hold: ${req.amount}`);
    const priority: Priority = Object.hasOwn(MONERO_PRIORITY, req.priority) ? req.priority : 'recommended';
    return { currency: native.code, to: req.to, units, amount: Decimal.fromBaseUnits(units, native.decimals).toString(), priority };
  }

  private xmr(units: bigint): string {
    return Decimal.fromBaseUnits(units, this.o.native.decimals).toString();
  }

  /** Builds `p` in the wallet, unrelayed (nothing leaves it); null when the float lacks unlocked money. */
  private async tryBuild(p: MoneroPayment): Promise<BuiltTransfer | null> {
    await this.o.node.refresh();
    try {
      return await this.o.node.build(p.to, p.units, MONERO_PRIORITY[p.priority]);
    } catch (e) {
      if (isShort(e)) return null;
      if (e instanceof NodeError && e.code === -2) throw new MoneroSendError('invalid', `The payout wallet refuses the address: ${e.message}`);
      throw e;
    }
  }

  /**
   * What the wallet asks for this payment beyond the registry's fee at its priority, in XMR ("0"
   * when no more, or when the float cannot build it now: the coverage check then refuses it).
   */
  async destinationFee(p: MoneroPayment): Promise<string> {
    const built = await this.tryBuild(p);
    if (!built) return '0';
    const table = Decimal.parse(this.o.tableFee(p.priority)).toBaseUnits(this.o.native.decimals);
    return built.fee > table ? this.xmr(built.fee - table) : '0';
  }

  /** Whether the float can pay `p` now: the wallet builds it (amount and fee from unlocked coins). */
  async cover(p: MoneroPayment): Promise<Coverage> {
    if (await this.tryBuild(p)) return { covered: true };
    const { unlocked } = await this.o.node.balance();
    return {
      covered: false,
      currency: this.o.native.code,
      message: `The ${this.o.network} payout wallet cannot pay ${p.amount} ${this.o.native.code} and its fee from its unlocked ${this.xmr(unlocked)} ${this.o.native.code}`,
    };
  }

  /** The float wallet's primary address and its unlocked balance (what it can pay now). */
  async wallet(): Promise<{ address: string; balances: Record<string, string> }> {
    const [address, { unlocked }] = [await this.o.node.address(), await this.o.node.balance()];
    return { address, balances: { [this.o.native.code]: this.xmr(unlocked) } };
  }

  // ------------------------------------------------------------------ storing, relaying, resolving

  attempts(requestId: string): Promise<Row[]> {
    return this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('request_id', '=', requestId).orderBy('attempt', 'desc').execute();
  }

  private async update(id: string, patch: Partial<Row>): Promise<void> {
    await this.o.storage.write((trx) => trx.updateTable('scan_outgoing').set({ ...patch, updated_at: this.o.now() }).where('id', '=', id).execute());
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work, work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Stores a built transaction of request `id` (not relayed); the row another worker stored first wins. */
  private async store(id: string, p: MoneroPayment, b: BuiltTransfer): Promise<Row> {
    const data: RowData = { fee: b.fee.toString(), priority: MONERO_PRIORITY[p.priority], metadata: b.metadata, key_images: b.keyImages };
    const now = this.o.now();
    const row: Row = {
      id: randomUUID(),
      network: this.o.network,
      request_id: id,
      attempt: 0,
      kind: 'payout',
      from_address: null,
      to_address: p.to,
      currency: p.currency,
      amount: p.amount,
      txid: b.txid,
      raw: b.blob,
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
      // Another worker stored this payout first: only its transaction will ever be relayed.
      const won = (await this.attempts(id))[0];
      if (won) return won;
      throw err;
    }
    return row;
  }

  /** Relays a stored row's bytes (again): harmless when the daemon has them already. */
  private async relay(row: Row): Promise<void> {
    try {
      const txid = await this.o.node.relay(dataOf(row).metadata);
      if (txid !== row.txid) this.o.log('error', 'monero: the wallet relayed a transaction other than the stored one', { network: this.o.network, stored: row.txid, relayed: txid, alarm: 'node_mismatch' });
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      this.o.log('warn', 'monero: the stored payout transaction was not relayed; it is relayed again later', { network: this.o.network, request: row.request_id, txid: row.txid, error: err.message });
      await this.update(row.id, { error: err.message.slice(0, 300) });
      return;
    }
    if (row.status === 'signed') await this.update(row.id, { status: 'sent', broadcast_at: this.o.now(), error: null });
    row.status = row.status === 'signed' ? 'sent' : row.status;
  }

  /** Relays every row of this network still `signed` (stored, never handed to the daemon). */
  private async relayStored(): Promise<void> {
    const rows = await this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('status', '=', 'signed').orderBy('created_at').execute();
    for (const row of rows) await this.resolve(row);
  }

  /**
   * Where a stored row stands, acted on: known to the daemon (pool or block: `sent`/`mined`),
   * relayed (again) when its coins are unspent, `failed` once another transaction's spending of
   * one of its coins has stood `confirmations` blocks.
   */
  private async resolve(row: Row, height?: number): Promise<Row> {
    const place = (await this.o.node.places([row.txid])).get(row.txid) ?? { at: 'unknown' as const };
    if (place.at === 'pool') {
      if (row.status === 'signed') await this.update(row.id, { status: 'sent', broadcast_at: row.broadcast_at ?? this.o.now() });
      return { ...row, status: row.status === 'signed' ? 'sent' : row.status };
    }
    if (place.at === 'block') {
      const patch: Partial<Row> = { status: 'mined', block_number: place.height };
      await this.update(row.id, patch);
      return { ...row, ...patch };
    }
    const d = dataOf(row);
    const spent = (await this.o.node.spentInChain(d.key_images)).some(Boolean);
    if (!spent) {
      await this.relay(row);
      return row;
    }
    const now = height ?? (await this.o.node.height());
    if (d.spent_seen_height === undefined) {
      await this.update(row.id, { data: JSON.stringify({ ...d, spent_seen_height: now }) });
      this.o.log('warn', 'monero: a coin of a stored payout transaction was spent by another transaction; the payout fails if that stands', { network: this.o.network, request: row.request_id, txid: row.txid });
      return row;
    }
    if (now - d.spent_seen_height < this.o.confirmations) return row;
    const why = `never mined: another transaction spent its coins (seen at height ${d.spent_seen_height}, standing ${now - d.spent_seen_height} blocks)`;
    await this.update(row.id, { status: 'failed', error: why });
    this.o.log('warn', 'monero: a payout transaction can never be mined; the payout fails', { network: this.o.network, request: row.request_id, txid: row.txid, why });
    return { ...row, status: 'failed', error: why };
  }

  /**
   * Pays request `id` (idempotent): the txid of its one transaction once the daemon has it.
   * Throws MoneroPendingError while it is stored and not taken yet, HotWalletShortError when the
   * float cannot pay it (nothing stored), MoneroSendError when it can never go out.
   */
  send(id: string, p: MoneroPayment): Promise<string> {
    return this.serial(async () => {
      const latest = (await this.attempts(id))[0];
      let row: Row;
      if (latest) {
        if (latest.kind !== 'payout' || latest.currency !== p.currency || latest.to_address !== p.to || !Decimal.parse(latest.amount).eq(p.amount)) {
          throw new MoneroSendError('invalid', `Send id ${id} was already used for a different payment`);
        }
        row = ACTIVE.includes(latest.status) && latest.status !== 'mined' ? await this.resolve(latest) : latest;
      } else {
        await this.relayStored();
        const built = await this.tryBuild(p);
        if (!built) {
          const cover = await this.cover(p).catch(() => null);
          throw new HotWalletShortError(this.o.native.code, cover && !cover.covered ? cover.message : `The ${this.o.network} payout wallet cannot pay this now`);
        }
        row = await this.store(id, p, built);
        await this.o.afterStore?.(row);
        if (row.status === 'signed') await this.relay(row);
      }
      if (row.status === 'failed') throw new MoneroSendError('rejected', `${this.o.network}: the payout's transaction ${row.txid} ${row.error ?? 'failed'}; nothing was paid`);
      if (row.status === 'signed') throw new MoneroPendingError(`${this.o.network}: the payout's transaction ${row.txid} is stored and not taken by the daemon yet (relayed again later, never built twice)`);
      return row.txid;
    });
  }

  // ------------------------------------------------------------------ following what was sent

  /** Relays what is stored and unrelayed, and reports every payout transaction not settled yet. */
  async track(sink: ChainSink): Promise<void> {
    await this.serial(() => this.relayStored());
    const rows = await this.o.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.o.network).where('status', 'in', ['sent', 'mined']).orderBy('created_at').execute();
    if (rows.length === 0) return;
    const height = await this.o.node.height();
    for (let i = 0; i < rows.length; i += TRACK_BATCH) {
      const batch = rows.slice(i, i + TRACK_BATCH);
      const places = await this.o.node.places(batch.map((r) => r.txid));
      for (const row of batch) {
        const place = places.get(row.txid) ?? { at: 'unknown' as const };
        if (place.at === 'block') {
          const conf = Math.min(Math.max(1, place.confirmations), this.o.confirmations);
          const final = conf >= this.o.confirmations;
          if (conf !== row.confirmations || row.status !== 'mined' || row.block_number !== place.height) {
            await sink.outgoing(this.o.network, row.txid, 'confirmed', conf);
            await this.update(row.id, { confirmations: conf, status: final ? 'confirmed' : 'mined', block_number: place.height });
          }
          continue;
        }
        if (place.at === 'pool') {
          // Back in the pool after its block was popped: it waits to be mined again.
          if (row.status === 'mined') await this.update(row.id, { status: 'sent', confirmations: 0, block_number: null });
          continue;
        }
        const now = await this.serial(() => this.resolve(row, height));
        if (now.status === 'failed') await sink.outgoing(this.o.network, row.txid, 'failed', 0);
      }
    }
  }
}
