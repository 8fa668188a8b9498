// Flushing for the `evm` driver on a watch-only network: what merchants were paid sits on
// counterfactual CREATE2 forwarders (./forwarder/) that can only ever send it to the merchant's cold
// address. A flush is ONE transaction from the relayer key (which only pays gas) per forwarder: the
// factory deploys the forwarder if it has no code yet and moves its tokens and native coin to the
// cold address. No deposit address is ever topped up with gas, and the gateway signs nothing that
// could send the funds elsewhere: the cold address and salt come from the address's own path.
//
// Each flush is recorded with its transaction (./flush-records.ts); the relayer's transactions and
// the factory's deployment are ./relayer.ts; tokens the registry does not know, ./unknown-tokens.ts.
// Rounds run from the scanner's poll (under the network's scanner lock) or when the driver's
// flush() is called (the CLI, `satchel flush`).
import { randomUUID } from 'node:crypto';
import { getAddress, isAddress, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { ChainError, HotWalletShortError, SendRejectedError } from '../errors.ts';
import { pendingUnits } from '../pending-units.ts';
import { Decimal } from '../../money/decimal.ts';
import { parseForwarderPath } from '../watch-paths.ts';
import { flushCall, forwarderAddress } from './forwarder/index.ts';
import { hex, type BlockTag } from './rpc.ts';
import type { Asset, Call, EvmChain } from './chain.ts';
import type { EvmOutgoing } from './outgoing.ts';
import { FlushRecords, type FlushedAsset, type Forwarder } from './flush-records.ts';
import { Relayer } from './relayer.ts';
import { UnknownTokens } from './unknown-tokens.ts';

export type { FlushedAsset } from './flush-records.ts';

export interface EvmFlushPolicy {
  /** Flushed from poll() at most this often (ms); 0: only when flush() is called. */
  everyMs: number;
  /** Flush the native coin when the forwarder holds at least this (decimal string). */
  minNative: string;
  /** Flush a token when the forwarder holds at least this (decimal string), by token code. */
  minToken: Record<string, string>;
}

export const DEFAULT_FLUSH_POLICY: EvmFlushPolicy = { everyMs: 60_000, minNative: '0', minToken: {} };

export interface FlushRequest {
  /** Every forwarder of the network with a balance, not only those with unflushed transfers, and
   * no thresholds (what an operator asks for with `satchel flush`). */
  everyForwarder?: boolean;
  /** Token contracts to move besides the configured tokens (a token the registry does not know). */
  tokens?: readonly string[];
}

export interface FlushSent {
  txid: Hex;
  forwarder: Address;
  cold: Address;
  moved: FlushedAsset[];
}

export interface FlushReport {
  sent: FlushSent[];
  /** Why nothing (or not everything) could be sent: no relayer, the factory on its way, ... */
  notes: string[];
}

/** Forwarders looked at per round (the rest wait for the next round). */
const MAX_PER_ROUND = 50;

export class EvmFlusher {
  private lastRun = 0;
  private readonly relayer: Relayer | null;
  private readonly records: FlushRecords;
  private readonly unknown: UnknownTokens;

  constructor(
    private readonly c: EvmChain,
    private readonly out: EvmOutgoing,
    private readonly policy: EvmFlushPolicy,
    relayer: PrivateKeyAccount | null,
  ) {
    this.relayer = relayer ? new Relayer(c, out, relayer) : null;
    this.records = new FlushRecords(c);
    this.unknown = new UnknownTokens(c);
    if (!relayer) {
      // Payments are still detected and credited; they only stay on their forwarders until a relayer
      // key is configured (or someone calls the factory with any funded account).
      c.log('warn', `evm flush is off: ${c.code} is watch-only and has no relayer_key_file; payments are credited but stay on their forwarder addresses until one is set`, {
        network: c.code,
      });
    }
  }

  /** The relayer's address (it pays every flush's gas), or null without a relayer key. */
  get relayerAddress(): Address | null {
    return this.relayer?.address ?? null;
  }

  /** One flush round when it is due (called from each poll). A failure is logged and the round is
   * tried again next time. */
  async maybeRun(): Promise<void> {
    const every = this.policy.everyMs;
    if (!this.relayer || !every || this.c.now() - this.lastRun < every) return;
    this.lastRun = this.c.now();
    try {
      await this.run({});
    } catch (err) {
      this.c.log('error', 'evm flush failed', { network: this.c.code, error: (err as Error).message });
    }
  }

  async run(req: FlushRequest): Promise<FlushReport> {
    const { c } = this;
    const report: FlushReport = { sent: [], notes: [] };
    const relayer = this.relayer;
    if (!relayer) {
      report.notes.push(`${c.code} has no relayer_key_file: nothing can pay a flush's gas`);
      return report;
    }
    const extra = (req.tokens ?? []).map((t) => {
      if (!isAddress(t, { strict: false })) throw new Error(`Not a token contract address: ${t}`);
      return getAddress(t);
    });
    await c.checkChain();
    // Balances are read at the confirmation depth: what a reorganisation could still take back is
    // never moved (a forwarder moves its whole balance, so a forwarder holding more than that waits).
    const safe = Math.max(0, (await c.rpc.blockNumber()) - c.confirmations + 1);
    await this.records.advance();
    if (!req.everyForwarder) await this.unknown.report(safe);
    const forwarders = req.everyForwarder ? await this.everyForwarder() : await this.candidates();
    if (forwarders.length === 0) return report;
    const waiting = await relayer.factoryOnChain(safe);
    if (waiting) {
      report.notes.push(waiting);
      return report;
    }
    for (const f of forwarders) {
      try {
        const sent = await this.flushOne(relayer, f, hex(safe), extra, !req.everyForwarder);
        if (sent) report.sent.push(sent);
      } catch (err) {
        if (err instanceof HotWalletShortError) {
          c.log('warn', 'evm flush: the relayer cannot pay the gas; fund it', { network: c.code, relayer: relayer.address, error: err.message });
          report.notes.push(err.message);
          break;
        }
        if (!(err instanceof ChainError)) throw err;
        c.log('warn', 'evm flush failed; retried next time', { network: c.code, address: f.address, error: err.message });
        report.notes.push(`${f.address}: ${err.message}`);
      }
    }
    return report;
  }

  /** Forwarders with confirmed transfers not yet flushed. Addresses of the seed from before the
   * network was watch-only are passed over (never flushed, never swept), without crowding out the
   * forwarders behind them. */
  private async candidates(): Promise<Forwarder[]> {
    const { c } = this;
    const rows = await c.db
      .selectFrom('scan_transfers')
      .select('to_address')
      .distinct()
      .where('network', '=', c.code)
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .execute();
    const out: Forwarder[] = [];
    for (const r of rows) {
      const path = c.watched.get(r.to_address.toLowerCase());
      const f = path?.startsWith('forwarder:') ? this.forwarder(r.to_address, path) : null;
      if (f) out.push(f);
      if (out.length >= MAX_PER_ROUND) break;
    }
    return out;
  }

  /** Every forwarder the gateway ever handed out on this network. */
  private async everyForwarder(): Promise<Forwarder[]> {
    const { c } = this;
    const rows = await c.db
      .selectFrom('addresses')
      .select(['address', 'path'])
      .where('network', '=', c.code)
      .where('path', 'like', 'forwarder:%')
      .orderBy('created_at')
      .execute();
    return rows.map((r) => this.forwarder(r.address, r.path)).filter((f): f is Forwarder => f !== null);
  }

  /** The forwarder behind a deposit address, from its path; null (logged) when the path is not a
   * forwarder's or does not make this address. */
  private forwarder(address: string, path: string | undefined): Forwarder | null {
    const p = path === undefined ? null : parseForwarderPath(path);
    if (!p) return null; // an address of the seed, from before the network was watch-only: not ours to flush
    const cold = getAddress(p.cold);
    const computed = forwarderAddress(cold, p.salt);
    if (computed.toLowerCase() !== address.toLowerCase()) {
      this.c.log('error', 'evm flush: the recorded forwarder path does not make this address; it is left alone', {
        network: this.c.code, address: getAddress(address), cold, computed,
      });
      return null;
    }
    return { address: computed, cold, salt: p.salt };
  }

  /** One forwarder: what it holds that is confirmed and above the thresholds, moved in one transaction. */
  private async flushOne(relayer: Relayer, f: Forwarder, safe: Hex, extra: readonly Address[], thresholds: boolean): Promise<FlushSent | null> {
    const { c } = this;
    if (await this.records.busy(f.address)) return null;
    const moved: FlushedAsset[] = [];
    const tokens: Address[] = [];
    let deferred = false;
    const assets: Asset[] = [...c.tokens];
    for (const contract of extra) {
      if (!c.tokenByContract.has(contract.toLowerCase())) assets.push({ code: contract, decimals: await this.unknown.decimals(contract), contract });
    }
    for (const token of assets) {
      const { units, held } = await this.confirmed(token, f.address, safe);
      if (held === 0n) continue;
      if (held > units) {
        deferred = true;
        continue;
      }
      const amount = Decimal.fromBaseUnits(units, token.decimals).toString();
      if (thresholds && Decimal.parse(amount).lt(this.policy.minToken[token.code.toUpperCase()] ?? '0')) continue;
      tokens.push(token.contract!);
      moved.push({ currency: token.code, contract: token.contract, amount });
    }
    const nat = await this.confirmed(c.native, f.address, safe);
    let native = false;
    if (nat.held > nat.units) deferred = true;
    else if (nat.units > 0n) {
      const amount = Decimal.fromBaseUnits(nat.units, c.native.decimals).toString();
      if (!thresholds || Decimal.parse(amount).gte(this.policy.minNative)) {
        native = true;
        moved.push({ currency: c.native.code, contract: null, amount });
      }
    }
    if (moved.length === 0) {
      // Nothing (left) above the thresholds: done until it receives again. What is not confirmed yet
      // keeps its transfers open for a later round.
      if (!deferred && thresholds) await this.records.markFlushed(f.address);
      return null;
    }
    let call = this.flushTx(f, tokens, native);
    let plan: Awaited<ReturnType<Relayer['gasPlan']>>;
    try {
      plan = await relayer.gasPlan(call, `the flush of ${f.address}`);
    } catch (err) {
      // A cold address that refuses the native coin (a contract without a way to receive it) makes
      // the whole flush revert: its tokens still move without the native leg.
      if (!(err instanceof SendRejectedError) || !native || tokens.length === 0) throw err;
      c.log('warn', 'evm flush: the cold address refuses the native coin; only the tokens are flushed', {
        network: c.code, forwarder: f.address, cold: f.cold, error: err.message,
      });
      call = this.flushTx(f, tokens, false);
      plan = await relayer.gasPlan(call, `the flush of ${f.address}`);
      moved.splice(moved.findIndex((m) => m.contract === null), 1);
    }
    const id = randomUUID();
    const row = await this.out.signAndStore({
      requestId: `flush:${id}`,
      kind: 'flush',
      account: relayer.account,
      call,
      currency: c.native.code,
      toAddress: f.cold,
      amount: '0',
      priority: 'recommended',
      ...plan,
      also: (trx, row) => this.records.record(trx, f, moved, row),
    });
    const refused = await this.out.firstBroadcast(row);
    if (refused) return null;
    c.log('info', 'evm flush sent', { network: c.code, txid: row.txid, forwarder: f.address, cold: f.cold, moved: moved.map((m) => `${m.amount} ${m.currency}`).join(', ') });
    return { txid: row.txid as Hex, forwarder: f.address, cold: f.cold, moved };
  }

  private flushTx(f: Forwarder, tokens: readonly Address[], native: boolean): Call {
    const target = flushCall(f.cold, f.salt, tokens, { native });
    return { to: target.to, value: 0n, data: target.data };
  }

  /**
   * What a forwarder holds of `asset` (latest) and how much of it is confirmed: bounded by the
   * balance at the confirmation depth and by the latest balance less the transfers seen but not
   * confirmed yet.
   */
  private async confirmed(asset: Asset, who: Address, safe: Hex): Promise<{ units: bigint; held: bigint }> {
    const { c } = this;
    const read = (tag: BlockTag) => (asset.contract ? c.tokenBalance(asset.contract, who, tag) : c.rpc.balance(who, tag));
    const held = await read('latest');
    if (held === 0n) return { units: 0n, held };
    const atDepth = await read(safe);
    const unconfirmed = await pendingUnits(c.db, c.code, who.toLowerCase(), asset.code, asset.decimals);
    const settled = held - unconfirmed;
    const units = atDepth < settled ? atDepth : settled;
    return { units: units > 0n ? units : 0n, held };
  }
}
