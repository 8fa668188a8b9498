// Flushing for the `evm` driver on a watch-only network: what merchants were paid sits on
// counterfactual CREATE2 forwarders (./forwarder/) that can only ever send it to the merchant's cold
// address. A flush is ONE transaction from the relayer key (which only pays gas) per forwarder: the
// factory deploys the forwarder if it has no code yet and moves its tokens and native coin to the
// cold address. No deposit address is ever topped up with gas, and the gateway signs nothing that
// could send the funds elsewhere: the cold address and salt come from the address's own path.
//
// Each flush is recorded in evm_movements (kind `flush`, one row per asset moved, all carried by the
// same scan_outgoing row); the transfers it covers are marked (scan_transfers.swept: 2 while the
// flush is on its way, 1 once it is mined and confirmed, back to 0 when it failed, so that the next
// round tries again). Rounds run from the scanner's poll (under the network's scanner lock) or when
// the driver's flush() is called (the CLI, `satchel flush`).
import { randomUUID } from 'node:crypto';
import { decodeFunctionResult, encodeFunctionData, erc20Abi, getAddress, isAddress, pad, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { ChainError, HotWalletShortError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import { parseForwarderPath } from '../watch-paths.ts';
import { DEPLOYMENT_PROXY, factoryAddress, factoryDeployment, flushCall, forwarderAddress } from './forwarder/index.ts';
import { checkLogs } from './answers.ts';
import { familyWrite } from '../family-tables.ts';
import { hex, num, type BlockTag, type RpcLog } from './rpc.ts';
import { TRANSFER_TOPIC, type Asset, type Call, type EvmChain } from './chain.ts';
import type { EvmOutgoing, EvmTrx, OutgoingRow } from './outgoing.ts';

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

export interface FlushedAsset {
  /** The token code, or the contract of a token the registry does not know. */
  currency: string;
  contract: Address | null;
  amount: string;
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
/** Blocks looked back for unknown tokens the first time, and at most per round. */
const UNKNOWN_TOKEN_WINDOW = 5_000;
/** Recipient topics per eth_getLogs when looking for unknown tokens. */
const UNKNOWN_TOKEN_ADDRESSES = 100;

interface Forwarder {
  address: Address;
  cold: Address;
  salt: Hex;
}

export class EvmFlusher {
  private lastRun = 0;
  private factoryReady = false;
  private proxyMissingLogged = false;
  private unknownFrom: number | null = null;
  private readonly reportedUnknown = new Set<string>();
  private readonly unknownDecimals = new Map<string, number>();

  constructor(
    private readonly c: EvmChain,
    private readonly out: EvmOutgoing,
    private readonly policy: EvmFlushPolicy,
    private readonly relayer: PrivateKeyAccount | null,
  ) {
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
    await this.advance();
    if (!req.everyForwarder) await this.reportUnknownTokens(safe);
    const forwarders = req.everyForwarder ? await this.everyForwarder() : await this.candidates();
    if (forwarders.length === 0) return report;
    if (!(await this.factoryOnChain(relayer, safe, report))) return report;
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

  /** Follows the flushes on their way: once their transaction is confirmed the transfers they
   * covered are flushed; a failed one frees its transfers for the next round. */
  private async advance(): Promise<void> {
    const { c } = this;
    const open = await c.db
      .selectFrom('evm_movements')
      .select(['id', 'outgoing_id', 'from_address'])
      .where('network', '=', c.code)
      .where('kind', '=', 'flush')
      .where('status', '=', 'sent')
      .execute();
    const byOutgoing = new Map<string, typeof open>();
    for (const m of open) {
      const k = m.outgoing_id ?? '';
      byOutgoing.set(k, [...(byOutgoing.get(k) ?? []), m]);
    }
    for (const [outgoingId, moves] of byOutgoing) {
      const row = outgoingId ? await c.db.selectFrom('scan_outgoing').select('status').where('id', '=', outgoingId).executeTakeFirst() : undefined;
      const status = !row || row.status === 'failed' ? 'failed' : row.status === 'confirmed' ? 'done' : null;
      if (!status) continue;
      const now = c.now();
      await familyWrite(c.storage, c.db, async (trx) => {
        await trx.updateTable('evm_movements').set({ status, updated_at: now }).where('id', 'in', moves.map((m) => m.id)).execute();
        await trx
          .updateTable('scan_transfers')
          .set({ swept: status === 'done' ? 1 : 0, updated_at: now })
          .where('network', '=', c.code)
          .where('to_address', '=', moves[0]!.from_address)
          .where('swept', '=', 2)
          .execute();
      });
      if (status === 'failed') c.log('warn', 'evm flush transaction failed; retried next round', { network: c.code, address: moves[0]!.from_address });
    }
    // Transfers marked for a flush whose transaction was never accepted (discarded before any node
    // took it) are free again.
    const marked = await c.db
      .selectFrom('scan_transfers')
      .select('to_address')
      .distinct()
      .where('network', '=', c.code)
      .where('swept', '=', 2)
      .execute();
    for (const m of marked) {
      if (await this.busy(m.to_address)) continue;
      await c.db
        .updateTable('scan_transfers')
        .set({ swept: 0, updated_at: c.now() })
        .where('network', '=', c.code)
        .where('to_address', '=', m.to_address)
        .where('swept', '=', 2)
        .execute();
    }
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

  /**
   * The factory must have code at the confirmation depth before any flush is sent (a call to an
   * address without code succeeds and does nothing). When it is absent, the relayer deploys it
   * through the deterministic deployment proxy, once; flushing starts the round after it is final.
   */
  private async factoryOnChain(relayer: PrivateKeyAccount, safe: number, report: FlushReport): Promise<boolean> {
    if (this.factoryReady) return true;
    const { c } = this;
    const factory = factoryAddress();
    if (await this.hasCode(factory, hex(safe))) {
      this.factoryReady = true;
      return true;
    }
    const pending = await c.db
      .selectFrom('scan_outgoing')
      .select('txid')
      .where('network', '=', c.code)
      .where('kind', '=', 'deploy')
      .where('status', 'in', ['signed', 'sent', 'mined', 'confirmed'])
      .executeTakeFirst();
    if (pending || (await this.hasCode(factory, 'latest'))) {
      report.notes.push(`The forwarder factory ${factory} is being deployed${pending ? ` (transaction ${pending.txid})` : ''}: flushing starts once it has ${c.confirmations} confirmations`);
      return false;
    }
    if (!(await this.hasCode(DEPLOYMENT_PROXY, 'latest'))) {
      const msg = `The deterministic deployment proxy ${DEPLOYMENT_PROXY} is absent on ${c.code}: the forwarder factory cannot be deployed, so nothing is flushed`;
      if (!this.proxyMissingLogged) c.log('error', msg, { network: c.code, proxy: DEPLOYMENT_PROXY });
      this.proxyMissingLogged = true;
      report.notes.push(msg);
      return false;
    }
    const deployment = factoryDeployment();
    const call: Call = { to: deployment.to, value: 0n, data: deployment.data };
    const plan = await this.gasPlan(relayer, call, 'the forwarder factory deployment');
    const row = await this.out.signAndStore({
      requestId: `factory:${factory}:${randomUUID()}`,
      kind: 'deploy',
      account: relayer,
      call,
      currency: c.native.code,
      toAddress: factory,
      amount: '0',
      priority: 'recommended',
      ...plan,
    });
    await this.out.firstBroadcast(row);
    c.log('info', 'evm flush: the forwarder factory deployment was sent', { network: c.code, factory, txid: row.txid });
    report.notes.push(`The forwarder factory ${factory} was absent: its deployment was sent (transaction ${row.txid}); flushing starts once it has ${c.confirmations} confirmations`);
    return false;
  }

  private async hasCode(address: Address, tag: BlockTag): Promise<boolean> {
    const code = await this.c.rpc.call<unknown>('eth_getCode', [address, tag]);
    return typeof code === 'string' && code !== '0x' && code !== '0x0';
  }

  /** One forwarder: what it holds that is confirmed and above the thresholds, moved in one transaction. */
  private async flushOne(relayer: PrivateKeyAccount, f: Forwarder, safe: Hex, extra: readonly Address[], thresholds: boolean): Promise<FlushSent | null> {
    const { c } = this;
    if (await this.busy(f.address.toLowerCase())) return null;
    const moved: FlushedAsset[] = [];
    const tokens: Address[] = [];
    let deferred = false;
    const assets: Asset[] = [...c.tokens];
    for (const contract of extra) {
      if (!c.tokenByContract.has(contract.toLowerCase())) assets.push({ code: contract, decimals: await this.decimals(contract), contract });
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
      if (!deferred && thresholds) await this.markFlushed(f.address);
      return null;
    }
    const target = flushCall(f.cold, f.salt, tokens, { native });
    const call: Call = { to: target.to, value: 0n, data: target.data };
    const plan = await this.gasPlan(relayer, call, `the flush of ${f.address}`);
    const id = randomUUID();
    const row = await this.out.signAndStore({
      requestId: `flush:${id}`,
      kind: 'flush',
      account: relayer,
      call,
      currency: c.native.code,
      toAddress: f.cold,
      amount: '0',
      priority: 'recommended',
      ...plan,
      also: (trx, row) => this.record(trx, f, moved, row),
    });
    const refused = await this.out.firstBroadcast(row);
    if (refused) return null;
    c.log('info', 'evm flush sent', { network: c.code, txid: row.txid, forwarder: f.address, cold: f.cold, moved: moved.map((m) => `${m.amount} ${m.currency}`).join(', ') });
    return { txid: row.txid as Hex, forwarder: f.address, cold: f.cold, moved };
  }

  /** Gas for a relayer call, and a refusal before signing when the relayer cannot pay for it: a
   * stored transaction the node refuses would hold up every later nonce. */
  private async gasPlan(relayer: PrivateKeyAccount, call: Call, what: string): Promise<{ gas: bigint; fees: Awaited<ReturnType<EvmChain['fees']>> }> {
    const { c } = this;
    const fees = await c.fees('recommended');
    let gas: bigint;
    try {
      gas = await c.estimate(relayer.address, call);
    } catch (err) {
      if (err instanceof HotWalletShortError) throw new HotWalletShortError(c.native.code, `The relayer ${relayer.address} lacks ${c.native.code} for the gas of ${what}`);
      throw err;
    }
    const balance = await c.rpc.balance(relayer.address, 'pending');
    if (balance < gas * fees.maxFeePerGas) {
      throw new HotWalletShortError(c.native.code, `The relayer ${relayer.address} lacks ${c.native.code} for the gas of ${what}`);
    }
    return { gas, fees };
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
    const pending = await c.db
      .selectFrom('scan_transfers')
      .select('amount')
      .where('network', '=', c.code)
      .where('to_address', '=', who.toLowerCase())
      .where('currency', '=', asset.code)
      .where('status', '=', 'pending')
      .execute();
    const unconfirmed = pending.reduce((sum, r) => sum + Decimal.parse(r.amount).toBaseUnits(asset.decimals), 0n);
    const settled = held - unconfirmed;
    const units = atDepth < settled ? atDepth : settled;
    return { units: units > 0n ? units : 0n, held };
  }

  /** decimals() of a token the registry does not know (0 when it does not answer: base units). */
  private async decimals(contract: Address): Promise<number> {
    const known = this.unknownDecimals.get(contract);
    if (known !== undefined) return known;
    try {
      const out = await this.c.rpc.ethCall({ to: contract, data: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }) });
      const answer = decodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', data: out });
      const d = answer <= 36 ? answer : 0;
      this.unknownDecimals.set(contract, d);
      return d;
    } catch {
      // No decimals() (or no answer now): the amount is recorded in base units. The flush moves the
      // whole balance whatever the amount says.
      return 0;
    }
  }

  private async busy(address: string): Promise<boolean> {
    const { c } = this;
    const open = await c.db
      .selectFrom('evm_movements')
      .select('id')
      .where('network', '=', c.code)
      .where('kind', '=', 'flush')
      .where('from_address', '=', address.toLowerCase())
      .where('status', '=', 'sent')
      .executeTakeFirst();
    return open !== undefined;
  }

  private async markFlushed(address: Address): Promise<void> {
    const { c } = this;
    await c.db
      .updateTable('scan_transfers')
      .set({ swept: 1, updated_at: c.now() })
      .where('network', '=', c.code)
      .where('to_address', '=', address.toLowerCase())
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .execute();
  }

  /** The flush's movements, and its confirmed transfers marked as on their way, with the transaction. */
  private async record(trx: EvmTrx, f: Forwarder, moved: FlushedAsset[], row: OutgoingRow): Promise<void> {
    const { c } = this;
    const now = c.now();
    for (const m of moved) {
      await trx
        .insertInto('evm_movements')
        .values({
          id: randomUUID(),
          network: c.code,
          kind: 'flush',
          currency: m.currency,
          from_address: f.address.toLowerCase(),
          to_address: f.cold.toLowerCase(),
          amount: m.amount,
          outgoing_id: row.id,
          depends_on: null,
          status: 'sent',
          txid: row.txid,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    await trx
      .updateTable('scan_transfers')
      .set({ swept: 2, updated_at: now })
      .where('network', '=', c.code)
      .where('to_address', '=', f.address.toLowerCase())
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .execute();
  }

  /**
   * ERC-20 transfers to forwarders from contracts the registry does not know: the scanner ignores
   * them (they credit nothing), but they are the merchant's; the operator is told, once per token
   * and forwarder, how to move them (`satchel flush --token`). Looked for from the flush round, up
   * to the confirmation depth, a bounded window per round.
   */
  private async reportUnknownTokens(safe: number): Promise<void> {
    const { c } = this;
    const forwarders = [...c.watched].filter(([, path]) => path.startsWith('forwarder:')).map(([a]) => a as Address);
    if (forwarders.length === 0) return;
    const from = this.unknownFrom ?? Math.max(0, safe - UNKNOWN_TOKEN_WINDOW + 1);
    if (from > safe) return;
    const to = Math.min(safe, from + UNKNOWN_TOKEN_WINDOW - 1);
    for (let i = 0; i < forwarders.length; i += UNKNOWN_TOKEN_ADDRESSES) {
      const recipients = forwarders.slice(i, i + UNKNOWN_TOKEN_ADDRESSES).map((a) => pad(a));
      const raw = await c.rpc.call<unknown>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), topics: [TRANSFER_TOPIC, null, recipients] }]);
      for (const l of checkLogs(raw, from, to) as RpcLog[]) {
        if (l.removed || l.topics.length !== 3 || l.data.length !== 66 || BigInt(l.data) === 0n) continue;
        if (c.tokenByContract.has(l.address.toLowerCase())) continue;
        const forwarder = getAddress(`0x${l.topics[2]!.slice(26)}`);
        const token = getAddress(l.address);
        const key = `${token}:${forwarder}`;
        if (this.reportedUnknown.has(key)) continue;
        this.reportedUnknown.add(key);
        const cold = parseForwarderPath(c.watched.get(forwarder.toLowerCase()) ?? '')?.cold;
        c.log('warn', `evm: a token the registry does not know was paid to a forwarder; \`satchel flush --network ${c.code} --token ${token}\` moves it to the cold address`, {
          network: c.code, token, forwarder, cold, txid: l.transactionHash, block: num(l.blockNumber), units: BigInt(l.data).toString(),
        });
      }
    }
    this.unknownFrom = to + 1;
  }
}
