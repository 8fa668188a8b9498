// Payouts on a Bitcoin-family chain, paid from the gateway's own confirmed coins (deposit and
// change outputs the scanner recorded): no separate hot wallet. Coins are chosen largest first,
// change below the dust limit goes to the fee instead, and change goes to a fresh address on the
// internal chain. The fee rate is the node's estimatesmartfee for the priority's confirmation
// target, within the configured floor and cap (the fallback when the node has no estimate).
//
// Every transaction is signed in-process (a PSBT with @scure/btc-signer, RBF signalled) and
// STORED, with the coins it spends marked as ours, in one database transaction before it is
// broadcast; a crash in between is healed by rebroadcasting the stored bytes (from the scanner's
// poll, or when send() is called again with the same id), so a payout is never signed twice and
// never paid twice. A payout still unmined `bump_after_blocks` after its broadcast is replaced by
// the same payment at a higher fee rate (up to the cap), recorded as a new attempt; whichever
// attempt the chain confirms is the one reported, and the payout's txid follows it.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Transaction } from '@scure/btc-signer';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { ChainSink, DepositPaths, SendRequest } from '../contract.ts';
import { HotWalletShortError, SendRejectedError } from '../errors.ts';
import type { NetworkDef, Priority } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { Decimal } from '../../money/decimal.ts';
import type { ScanOutgoingTable } from '../../db/schema.ts';
import { btcDb, withSpend, type BtcDB, type BtcOutgoingRow, type BtcSpend } from './schema.ts';
import { BitcoinRpcError } from './rpc.ts';
import type { BitcoinNode } from './node.ts';
import type { BitcoinKeys } from './keys.ts';
import { AddressError, decodePayee, scriptHex } from './address.ts';
import type { ChainParams } from './params.ts';
import type { BtcLog } from './scan.ts';
import { CoinSelection, type FeePolicy, type Plan } from './coin-selection.ts';
import { familyWrite } from '../family-tables.ts';

export type { FeePolicy } from './coin-selection.ts';

export interface SenderOptions {
  network: NetworkDef;
  params: ChainParams;
  keys: BitcoinKeys;
  node: BitcoinNode;
  storage: Storage;
  depositPaths: DepositPaths;
  decimals: number;
  confirmations: number;
  fees: FeePolicy;
  bumpAfterBlocks: number;
  now: () => number;
  log: BtcLog;
  checkChain: () => Promise<void>;
  /** Why no new payment may be signed now (a watch-only network has no coins of its own), or null.
   * A payment already signed under the same id is still followed to its end. */
  refuseNew?: () => string | null;
  watchChange: (address: string, script: string) => void;
}

/**
 * A send that was not made and can never succeed as asked; nothing was signed or stored (the
 * payout fails, its funds return). Coins that do not cover a payment are a HotWalletShortError
 * instead: retried, since more coins may confirm.
 */
export class BitcoinSendError extends SendRejectedError {}

type Row = BtcOutgoingRow;
const ACTIVE = ['signed', 'sent', 'mined'];
const KNOWN = /already in block chain|txn-already-known|txn-already-in-mempool|already have transaction|transaction already in block/i;

export class BtcSender {
  private readonly db: Kysely<BtcDB>;
  private readonly code: string;
  private readonly coins: CoinSelection;

  constructor(private readonly o: SenderOptions) {
    this.db = btcDb(o.storage.db);
    this.code = o.network.code;
    this.coins = new CoinSelection({ network: this.code, params: o.params, storage: o.storage, depositPaths: o.depositPaths, node: o.node, decimals: o.decimals, fees: o.fees });
  }

  async isOwnTx(txid: string): Promise<boolean> {
    const r = await this.db.selectFrom('scan_outgoing').select('id').where('network', '=', this.code).where('txid', '=', txid).executeTakeFirst();
    return r !== undefined;
  }

  /** Whether the gateway's confirmed coins cover this payment and its fee now. */
  async canCover(req: { to: string; amount: string; priority: Priority }): Promise<{ covered: true } | { covered: false; message: string }> {
    const payee = this.payee(req.to);
    const sats = this.sats(req.amount);
    const plan = this.coins.plan(await this.coins.spendable(), sats, payee.type, await this.coins.feeRate(req.priority));
    if (plan) return { covered: true };
    return { covered: false, message: `The gateway's confirmed ${this.native()} coins do not cover ${req.amount} ${this.native()} and its network fee` };
  }

  async send(req: SendRequest): Promise<{ txid: string }> {
    if (req.network.toUpperCase() !== this.code) throw new BitcoinSendError('invalid', `Network ${req.network} is not ${this.code}`);
    if (req.currency.toUpperCase() !== this.native()) throw new BitcoinSendError('invalid', `${req.currency} is not the coin of ${this.code}`);
    const payee = this.payee(req.to);
    const sats = this.sats(req.amount);
    const existing = await this.latest(req.id);
    if (existing) {
      if (existing.to_address !== req.to || !Decimal.parse(existing.amount).eq(Decimal.fromBaseUnits(sats, this.o.decimals))) {
        throw new BitcoinSendError('invalid', `Send id ${req.id} was already used for a different payment`);
      }
      await this.resume(existing);
      return { txid: existing.txid };
    }
    // Refused for good (nothing signed, the payout's funds return): more confirmations would not
    // change it, only the operator switching the network back to hot custody.
    const refused = this.o.refuseNew?.();
    if (refused) throw new BitcoinSendError('rejected', refused);
    await this.o.checkChain();
    const rate = await this.coins.feeRate(req.priority);
    for (let attempt = 0; ; attempt++) {
      const plan = this.coins.plan(await this.coins.spendable(), sats, payee.type, rate);
      if (!plan) {
        throw new HotWalletShortError(this.native(), `The gateway's confirmed ${this.native()} coins do not cover ${req.amount} ${this.native()} and its network fee`);
      }
      const row = await this.signAndStore(req.id, 0, req.to, payee.script, sats, plan, null);
      if (row) {
        await this.resume(row);
        return { txid: row.txid };
      }
      // Another payout took one of these coins meanwhile, or stored this request first.
      const again = await this.latest(req.id);
      if (again) return { txid: again.txid };
      if (attempt >= 3) throw new Error(`${this.code}: could not reserve coins for payout ${req.id}; retried later`);
    }
  }

  /**
   * What became of our transactions, after the scanner's poll: confirmations (the scanner records
   * the block that spends our coins), a rebroadcast of what the node does not have, fee bumps.
   */
  async track(sink: ChainSink & { outgoingReplaced?: (network: string, oldTxid: string, newTxid: string) => Promise<void> }, head: number): Promise<void> {
    const rows = await this.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.code).where('status', 'in', ACTIVE).orderBy('created_at').execute();
    for (const row of rows.map(withSpend)) {
      const first = row.spend.inputs[0]!;
      const coin = await this.db
        .selectFrom('btc_outputs')
        .select(['spent_txid', 'spent_height', 'spent_by'])
        .where('network', '=', this.code)
        .where('txid', '=', first.txid)
        .where('vout', '=', first.vout)
        .executeTakeFirst();
      const minedAs = coin?.spent_height != null ? coin.spent_txid : null;
      if (minedAs && minedAs !== row.txid) {
        // Another transaction spending the same coins was mined: a sibling attempt, or someone else.
        const sibling = await this.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.code).where('txid', '=', minedAs).executeTakeFirst();
        await this.update(row.id, { status: sibling ? 'replaced' : 'failed', error: sibling ? null : 'its coins were spent by another transaction' });
        if (!sibling && head - Number(coin!.spent_height) + 1 >= this.o.confirmations) await sink.outgoing(this.code, row.txid, 'failed', 0);
        if (sibling && !ACTIVE.includes(sibling.status)) {
          // An earlier attempt, already replaced by a fee bump, was mined after all: it is the payment.
          const conf = head - Number(coin!.spent_height) + 1;
          await this.followReplacement(sink, sibling);
          await sink.outgoing(this.code, sibling.txid, 'confirmed', conf);
          await this.update(sibling.id, { status: conf >= this.o.confirmations ? 'confirmed' : 'mined', confirmations: conf, block_number: Number(coin!.spent_height) });
        }
        continue;
      }
      if (minedAs === row.txid) {
        const conf = head - Number(coin!.spent_height) + 1;
        if (conf === row.confirmations && row.status !== 'signed' && row.status !== 'sent') continue;
        if (row.attempt > 0) await this.followReplacement(sink, row);
        await sink.outgoing(this.code, row.txid, 'confirmed', conf);
        await this.update(row.id, { status: conf >= this.o.confirmations ? 'confirmed' : 'mined', confirmations: conf, block_number: Number(coin!.spent_height) });
        continue;
      }
      if (row.status === 'mined') await this.update(row.id, { status: 'sent', confirmations: 0, block_number: null }); // reorganised away
      await this.resume(row);
      const latest = await this.latest(row.request_id);
      if (latest?.id === row.id && row.broadcast_height !== null && head - Number(row.broadcast_height) >= this.o.bumpAfterBlocks) {
        await this.bump(row, head);
      }
    }
  }

  /** Signs and stores one attempt with its coins reserved; null when a coin was taken meanwhile. */
  private async signAndStore(requestId: string, attempt: number, to: string, payeeScript: Uint8Array, amount: bigint, plan: Plan, change: { address: string; path: string } | null): Promise<Row | null> {
    const changeAddr = plan.change > 0n ? (change ?? this.o.keys.change(await this.nextChangeIndex())) : null;
    const tx = new Transaction({ allowLegacyWitnessUtxo: true });
    for (const c of plan.coins) {
      tx.addInput({ txid: c.txid, index: c.vout, witnessUtxo: { script: hexToBytes(c.script), amount: c.sats }, sequence: 0xfffffffd });
    }
    tx.addOutput({ script: payeeScript, amount });
    if (changeAddr) tx.addOutput({ script: decodePayee(this.o.params, changeAddr.address).script, amount: plan.change });
    plan.coins.forEach((c, i) => tx.signIdx(this.o.keys.privateKey(c.path), i));
    tx.finalize();
    const now = this.o.now();
    const spend: BtcSpend = {
      fee: Decimal.fromBaseUnits(plan.fee, this.o.decimals).toString(),
      fee_rate: Decimal.fromBaseUnits(plan.feeRate, 3).toString(),
      vsize: tx.vsize,
      inputs: plan.coins.map((c) => ({ txid: c.txid, vout: c.vout, amount: Decimal.fromBaseUnits(c.sats, this.o.decimals).toString(), path: c.path })),
      change_address: changeAddr?.address ?? null,
      change_amount: changeAddr ? Decimal.fromBaseUnits(plan.change, this.o.decimals).toString() : null,
    };
    const stored: ScanOutgoingTable = {
      id: randomUUID(),
      network: this.code,
      request_id: requestId,
      attempt,
      kind: 'payout',
      from_address: null,
      to_address: to,
      currency: null,
      amount: Decimal.fromBaseUnits(amount, this.o.decimals).toString(),
      txid: tx.id,
      raw: tx.hex,
      status: 'signed',
      block_number: null,
      confirmations: 0,
      error: null,
      broadcast_at: null,
      broadcast_height: null,
      nonce: null,
      expiration: null,
      data: JSON.stringify(spend),
      created_at: now,
      updated_at: now,
    };
    const row: Row = { ...stored, spend };
    try {
      return await familyWrite(this.o.storage, this.db, async (trx) => {
        if (attempt === 0) {
          const dup = await trx.selectFrom('scan_outgoing').select('id').where('network', '=', this.code).where('request_id', '=', requestId).executeTakeFirst();
          if (dup) return null;
        }
        for (const c of plan.coins) {
          const taken = await trx
            .updateTable('btc_outputs')
            .set({ spent_txid: row.txid, spent_by: 'own', updated_at: now })
            .where('network', '=', this.code)
            .where('txid', '=', c.txid)
            .where('vout', '=', c.vout)
            .where((eb) => (attempt === 0 ? eb('spent_txid', 'is', null) : eb('spent_height', 'is', null)))
            .executeTakeFirst();
          if (Number(taken.numUpdatedRows) !== 1) throw new CoinTaken();
        }
        if (changeAddr && !change) {
          await trx.insertInto('btc_change').values({ network: this.code, address: changeAddr.address, path: changeAddr.path, created_at: now }).execute();
        }
        await trx.insertInto('scan_outgoing').values(stored).execute();
        return row;
      });
    } catch (err) {
      if (err instanceof CoinTaken || this.o.storage.isUniqueViolation(err)) return null;
      throw err;
    } finally {
      if (changeAddr) this.o.watchChange(changeAddr.address, scriptHex(decodePayee(this.o.params, changeAddr.address).script));
    }
  }

  private async nextChangeIndex(): Promise<number> {
    const key = `btc-change:${this.code}:${this.o.keys.coinType}`;
    const row = await this.o.storage.db
      .insertInto('hd_counters')
      .values({ key, next_index: 1 })
      .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ next_index: eb('hd_counters.next_index', '+', 1) })))
      .returning('next_index')
      .executeTakeFirstOrThrow();
    return Number(row.next_index) - 1;
  }

  /** The same payment again at a higher fee rate, from the same coins, the extra fee from the change. */
  private async bump(row: Row, head: number): Promise<void> {
    const max = Decimal.parse(this.o.fees.max).toBaseUnits(3);
    const { spend } = row;
    const old = Decimal.parse(spend.fee_rate).toBaseUnits(3);
    if (old >= max || spend.change_amount === null) {
      if (row.error !== 'not bumped') {
        this.o.log('warn', 'bitcoin payout unmined but cannot be bumped (at the fee cap, or no change to pay from)', { network: this.code, txid: row.txid });
        await this.update(row.id, { error: 'not bumped' });
      }
      return;
    }
    // BIP-125: a higher rate and an absolute fee above the old one by at least 1 sat/vB of the new size.
    const estimate = await this.coins.feeRate('highest');
    let rate = old + old / 4n + 1000n;
    if (estimate > rate) rate = estimate;
    if (rate > max) rate = max;
    const coins = spend.inputs.map((c) => {
      const k = this.o.keys.derive(c.path.split('/')[4] === '1' ? 1 : 0, Number(c.path.split('/')[5]));
      return { txid: c.txid, vout: c.vout, sats: Decimal.parse(c.amount).toBaseUnits(this.o.decimals), address: k.address, script: k.script, path: c.path };
    });
    const amount = Decimal.parse(row.amount).toBaseUnits(this.o.decimals);
    const oldFee = Decimal.parse(spend.fee).toBaseUnits(this.o.decimals);
    const total = coins.reduce((s, c) => s + c.sats, 0n);
    let fee = (BigInt(spend.vsize) * rate + 999n) / 1000n;
    if (fee < oldFee + BigInt(spend.vsize)) fee = oldFee + BigInt(spend.vsize);
    const change = total - amount - fee;
    if (change < this.coins.dust) {
      await this.update(row.id, { error: 'not bumped' });
      return;
    }
    const changeAddress = spend.change_address!;
    const changePath = (await this.coins.paths([changeAddress])).get(changeAddress)!;
    const payee = decodePayee(this.o.params, row.to_address);
    const next = await this.signAndStore(row.request_id, row.attempt + 1, row.to_address, payee.script, amount, { coins, feeRate: rate, fee, change, vsize: spend.vsize }, { address: changeAddress, path: changePath });
    if (!next) return;
    this.o.log('info', 'bitcoin payout bumped (replace-by-fee)', { network: this.code, from: row.txid, to: next.txid, fee_rate: next.spend.fee_rate });
    await this.update(row.id, { status: 'replaced' });
    await this.resume(next, head);
  }

  /** The payout's txid follows the attempt the chain took. */
  private async followReplacement(sink: ChainSink & { outgoingReplaced?: (network: string, oldTxid: string, newTxid: string) => Promise<void> }, row: ScanOutgoingTable): Promise<void> {
    const siblings = await this.db.selectFrom('scan_outgoing').select(['id', 'txid', 'attempt']).where('network', '=', this.code).where('request_id', '=', row.request_id).execute();
    for (const s of siblings) {
      if (s.id === row.id) continue;
      await this.update(s.id, { status: 'replaced' });
      await sink.outgoingReplaced?.(this.code, s.txid, row.txid);
    }
  }

  // ---------------------------------------------------------------- broadcasting

  /** Broadcasts a stored attempt the node may not have; a node error is left to the next poll. */
  private async resume(row: ScanOutgoingTable, head?: number): Promise<void> {
    if (row.status !== 'signed' && row.status !== 'sent') return;
    try {
      await this.o.node.sendRaw(row.raw);
    } catch (err) {
      if (!(err instanceof BitcoinRpcError)) throw err;
      if (!KNOWN.test(err.message)) {
        this.o.log('warn', 'bitcoin broadcast failed; it will be retried', { network: this.code, txid: row.txid, error: err.message });
        return;
      }
    }
    if (row.status === 'signed') {
      const height = head ?? (await this.o.node.blockCount());
      await this.update(row.id, { status: 'sent', broadcast_at: this.o.now(), broadcast_height: height });
      Object.assign(row, { status: 'sent', broadcast_height: height });
    }
  }

  private async latest(requestId: string): Promise<Row | undefined> {
    const row = await this.db.selectFrom('scan_outgoing').selectAll().where('network', '=', this.code).where('request_id', '=', requestId).orderBy('attempt', 'desc').executeTakeFirst();
    return row && withSpend(row);
  }

  private async update(id: string, patch: Partial<ScanOutgoingTable>): Promise<void> {
    await this.db.updateTable('scan_outgoing').set({ ...patch, updated_at: this.o.now() }).where('id', '=', id).execute();
  }

  private payee(to: string) {
    try {
      return decodePayee(this.o.params, to);
    } catch (err) {
      if (err instanceof AddressError) throw new BitcoinSendError('invalid', err.message);
      throw err;
    }
  }

  private sats(amount: string): bigint {
    const d = Decimal.tryParse(amount);
    let sats: bigint | null = null;
    try {
      sats = d && !d.isNegative() ? d.toBaseUnits(this.o.decimals) : null;
    } catch {
      sats = null;
    }
    if (sats === null || sats <= 0n) throw new BitcoinSendError('invalid', `Not a positive amount of at most ${this.o.decimals} decimals: ${amount}`);
    return sats;
  }

  private native(): string {
    return this.o.network.currencies.find((c) => c.native)!.code.toUpperCase();
  }
}

class CoinTaken extends Error {}
