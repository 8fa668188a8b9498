// Flushing for the `tron` driver in watch-only custody: what payers sent to a deposit address (a
// counterfactual forwarder, ./custody.ts) is moved to the merchant's cold address by one
// TriggerSmartContract to the factory's `flush(cold, salt, tokens, native)`, signed by the
// relayer. The relayer only pays energy and bandwidth: the forwarder's code fixes the cold
// address, and a call naming another cold address touches another (empty) forwarder, so a stolen
// relayer key can burn its own TRX, never redirect a payment. Nothing is activated, funded or
// delegated to deposit addresses, and the gateway holds no key of them.
//
// Each flush is recorded: its transaction in scan_outgoing (kind `flush`, stored before it is
// broadcast, like every transaction of the driver: ./outgoing.ts) and one tron_movements row per
// currency it moves (kind `flush`, from the forwarder to the cold address, with the txid). Once
// the transaction is final the movement is `done` and the payments it moved are marked swept.
import { randomUUID } from 'node:crypto';
import { readSecretFile } from '../secret-file.ts';
import type { Kysely } from 'kysely';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { pendingUnits } from '../pending-units.ts';
import { Decimal } from '../../money/decimal.ts';
import { NodeError } from '../errors.ts';
import { parseForwarderPath } from '../watch-paths.ts';
import { optInt } from '../network-settings.ts';
import { accountIdHex, toHexAddress, fromHexAddress } from './address.ts';
import { nodeMessage, type TronApi, type TronTransaction } from './api.ts';
import { chainCosts } from './costs.ts';
import { tronForwarderAddress, type TronForwarderDeployment } from './custody.ts';
import { flushCallData } from './forwarder.ts';
import { keySigner, type TronSigner } from './keys.ts';
import { TronOutgoing, TronSendError, type Intent } from './outgoing.ts';
import type { ChainView, TronToken } from './scan.ts';
import type { TronDB } from './schema.ts';

/** The factory's flush, as java-tron's triggersmartcontract takes a function. */
export const FLUSH_SIGNATURE = 'flush(address,bytes32,address[],bool)';
/** Its 4-byte selector (keccak256 of the signature). */
export const FLUSH_SELECTOR = '29c74559';

export interface TronFlushPolicy {
  /** Flush TRX when the confirmed balance is at least this (decimal string; default any). */
  minNative: string;
  /** Flush a token when its confirmed balance is at least this, by code (default any). */
  minToken: Record<string, string>;
  /** From poll(), at most this often (0: only when asked). */
  everyMs: number;
}

/** The `flush` object of a TRON network's settings (`{"every_seconds": 60, "min_native": "...", "min_token": {...}}`). */
export function flushPolicy(v: unknown, where: string): TronFlushPolicy {
  if (v === undefined || v === null) return { minNative: '0', minToken: {}, everyMs: 60_000 };
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: an object is required`);
  const s = v as Record<string, unknown>;
  for (const k of Object.keys(s)) {
    if (!['every_seconds', 'min_native', 'min_token'].includes(k)) throw new Error(`${where}.${k}: unknown setting (every_seconds, min_native, min_token)`);
  }
  const dec = (x: unknown, w: string) => {
    if (typeof x !== 'string' || !/^\d+(\.\d+)?$/.test(x)) throw new Error(`${w}: a decimal string is required`);
    return x;
  };
  const minToken: Record<string, string> = {};
  if (s.min_token !== undefined) {
    if (typeof s.min_token !== 'object' || s.min_token === null || Array.isArray(s.min_token)) throw new Error(`${where}.min_token: an object is required`);
    for (const [k, x] of Object.entries(s.min_token)) minToken[k.toUpperCase()] = dec(x, `${where}.min_token.${k}`);
  }
  const every = s.every_seconds === undefined ? 60 : optInt(s.every_seconds, `${where}.every_seconds`)!;
  if (every < 0) throw new Error(`${where}.every_seconds: 0 (only on demand) or more`);
  return { minNative: s.min_native === undefined ? '0' : dec(s.min_native, `${where}.min_native`), minToken, everyMs: every * 1000 };
}

/** Where a relayer mnemonic's key is: the first account of TRON wallets (TronLink's). */
export const RELAYER_MNEMONIC_PATH = "m/44'/195'/0'/0/0";

/**
 * The relayer's key from `relayer_key_file`: a hex private key (0x optional) or a BIP-39 mnemonic
 * (its key at RELAYER_MNEMONIC_PATH). The file must be readable by its owner only (mode 0600):
 * the key pays the flushes' energy, so whoever reads it can burn that TRX. Errors name the
 * setting and the file, never its content.
 */
export function loadRelayerKey(file: unknown, where: string): TronSigner {
  const text = readSecretFile(file, where, 'the relayer key');
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(text)) {
    try {
      return keySigner(hexToBytes(text.replace(/^0x/, '')));
    } catch {
      throw new Error(`${where}: ${file} holds 64 hex digits that are not a valid private key`);
    }
  }
  const words = text.split(/\s+/).join(' ').toLowerCase();
  if (validateMnemonic(words, wordlist)) {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(words));
    const node = root.derive(RELAYER_MNEMONIC_PATH);
    const signer = keySigner(node.privateKey!);
    root.wipePrivateData();
    node.wipePrivateData();
    return signer;
  }
  throw new Error(`${where}: ${file} holds neither a hex private key (64 hex digits, 0x optional) nor a valid BIP-39 mnemonic`);
}

/** Call data (hex, no 0x) of the factory's flush for a deposit address of `cold` (base58). */
export function flushData(cold: string, salt: `0x${string}`, tokens: readonly string[], native: boolean): string {
  const id = (a: string) => `0x${accountIdHex(a)}` as const;
  return flushCallData(id(cold), salt, tokens.map(id), native).slice(2);
}

/** TronOutgoing that asks the node for a factory flush instead of a token transfer. */
class FlushOutgoing extends TronOutgoing {
  override async build(intent: Intent): Promise<TronTransaction> {
    if (intent.type !== 'TriggerSmartContract' || !intent.data.startsWith(FLUSH_SELECTOR)) return super.build(intent);
    const r = await this.api.triggerSmartContract({ owner: intent.owner, contract: intent.contract, selector: FLUSH_SIGNATURE, parameter: intent.data.slice(8), feeLimit: intent.feeLimit });
    if (r.result?.result !== true || !r.transaction) {
      throw new TronSendError('rejected', `The node would not build the flush: ${r.result?.code ?? ''} ${nodeMessage(r.result?.message)}`.trim());
    }
    return r.transaction;
  }
  constructor(
    private readonly api: TronApi,
    opts: ConstructorParameters<typeof TronOutgoing>[0],
  ) {
    super(opts);
  }
}

export interface FlusherOptions {
  network: string;
  api: TronApi;
  db: Kysely<TronDB>;
  outgoing: ConstructorParameters<typeof TronOutgoing>[0];
  deployment: TronForwarderDeployment;
  /** Null: no `relayer_key_file`; payments are detected and stay at their forwarders. */
  relayer: TronSigner | null;
  /** The path the gateway gave with a watched address (a `forwarder:` path). */
  pathOf: (address: string) => string | undefined;
  native: { code: string; decimals: number };
  tokens: TronToken[];
  feeLimit: bigint;
  policy: TronFlushPolicy;
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

/** What one flush of a deposit address is planned to move. */
export interface FlushPlan {
  address: string;
  cold: string;
  salt: `0x${string}`;
  native: bigint;
  tokens: Array<{ token: TronToken; units: bigint }>;
}

export class TronFlusher {
  private lastRun = 0;
  private factoryChecked = false;
  private readonly out: FlushOutgoing;
  private readonly costs;

  constructor(private readonly o: FlusherOptions) {
    this.out = new FlushOutgoing(o.api, o.outgoing);
    this.costs = chainCosts(o.api);
  }

  get relayer(): string | null {
    return this.o.relayer?.address ?? null;
  }

  async maybeRun(view: ChainView): Promise<void> {
    const p = this.o.policy;
    if (!this.o.relayer || !p.everyMs || this.o.now() - this.lastRun < p.everyMs) return;
    this.lastRun = this.o.now();
    await this.run(view);
  }

  /** One round: settles sent flushes, then flushes each deposit address with confirmed funds. Returns the txids sent. */
  async run(view: ChainView): Promise<string[]> {
    if (!this.o.relayer) throw new TronSendError('invalid', `${this.o.network}: no relayer_key_file is configured; nothing can be flushed`);
    await this.checkFactory();
    await this.settle();
    const candidates = await this.o.db
      .selectFrom('scan_transfers')
      .select('to_address')
      .distinct()
      .where('network', '=', this.o.network)
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .limit(50)
      .execute();
    const sent: string[] = [];
    for (const c of candidates) {
      try {
        const txid = await this.flushAddress(c.to_address, view);
        if (txid) sent.push(txid);
      } catch (err) {
        if (!(err instanceof NodeError || err instanceof TronSendError)) throw err;
        this.o.log('warn', 'tron flush failed; retried next round', { network: this.o.network, address: c.to_address, error: err.message });
      }
    }
    return sent;
  }

  /**
   * The factory named in the settings must be one: its `implementation()` must answer the
   * implementation the deposit addresses were computed with. Otherwise every flush would deploy
   * nothing where the payments are: nothing is sent, and the operator is told why.
   */
  private async checkFactory(): Promise<void> {
    if (this.factoryChecked) return;
    const { factory, implementation } = this.o.deployment;
    const r = await this.o.api.triggerConstantContract({ owner: toHexAddress(this.o.relayer!.address), contract: toHexAddress(factory), selector: 'implementation()', parameter: '' });
    const word = r.constant_result?.[0] ?? '';
    const answered = /^[0-9a-f]{64}$/i.test(word) && r.result?.result === true ? fromHexAddress(word.slice(24)) : null;
    if (answered !== implementation) {
      this.o.log('error', 'tron forwarder factory does not match the settings; nothing is flushed', { network: this.o.network, factory, expected: implementation, answered, alarm: 'forwarder_factory' });
      throw new TronSendError('invalid', `${this.o.network}: the contract at factory_address ${factory} ${answered ? `answers implementation ${answered}, not implementation_address ${implementation}` : 'is not a forwarder factory'}; check both settings (docs/networks.md)`);
    }
    this.factoryChecked = true;
  }

  /** Flush movements whose transaction is final become done (their payments swept) or failed. */
  private async settle(): Promise<void> {
    const open = await this.o.db.selectFrom('tron_movements').selectAll().where('network', '=', this.o.network).where('kind', '=', 'flush').where('status', '=', 'sent').execute();
    for (const m of open) {
      const row = m.txid ? await this.o.db.selectFrom('scan_outgoing').select('status').where('network', '=', this.o.network).where('txid', '=', m.txid).executeTakeFirst() : undefined;
      const status = row?.status === 'confirmed' ? 'done' : row?.status === 'failed' || row?.status === 'expired' ? 'failed' : null;
      if (!status) continue;
      await this.o.db.updateTable('tron_movements').set({ status, updated_at: this.o.now() }).where('id', '=', m.id).execute();
      if (status === 'done') {
        // What was confirmed when the flush was planned is at the cold address now.
        await this.o.db
          .updateTable('scan_transfers')
          .set({ swept: 1, updated_at: this.o.now() })
          .where('network', '=', this.o.network)
          .where('to_address', '=', m.from_address)
          .where('currency', '=', m.currency)
          .where('status', '=', 'confirmed')
          .where('created_at', '<=', m.created_at)
          .execute();
      } else {
        this.o.log('warn', 'tron flush failed on chain; planned again next round', { network: this.o.network, address: m.from_address, txid: m.txid });
      }
    }
  }

  /** What a flush of `address` would move now, or null when its path is not a forwarder's of this deployment. */
  async plan(address: string): Promise<FlushPlan | null> {
    const path = this.o.pathOf(address);
    const fwd = path === undefined ? null : parseForwarderPath(path);
    if (!fwd) {
      this.o.log('error', 'tron flush: a deposit address without a forwarder path (received in hot custody?)', { network: this.o.network, address });
      return null;
    }
    if (tronForwarderAddress(this.o.deployment, fwd.cold, fwd.salt) !== address) {
      // The address was computed with another factory or implementation than the settings name.
      this.o.log('error', 'tron flush: the deposit address is not the forwarder of the configured factory for its cold address', { network: this.o.network, address, cold: fwd.cold, alarm: 'forwarder_factory' });
      return null;
    }
    const account = await this.o.api.account(toHexAddress(address));
    const native = (account?.balance ?? 0n) - (await pendingUnits(this.o.db, this.o.network, address, this.o.native.code, this.o.native.decimals));
    const tokens: FlushPlan['tokens'] = [];
    for (const token of this.o.tokens) {
      const units = (await this.costs.tokenBalance(token.contract, address)) - (await pendingUnits(this.o.db, this.o.network, address, token.code, token.decimals));
      if (units > 0n) tokens.push({ token, units });
    }
    return { address, cold: fwd.cold, salt: fwd.salt, native: native > 0n ? native : 0n, tokens };
  }

  private async flushAddress(address: string, view: ChainView): Promise<string | null> {
    const busy = await this.o.db
      .selectFrom('tron_movements')
      .select('id')
      .where('network', '=', this.o.network)
      .where('kind', '=', 'flush')
      .where('from_address', '=', address)
      .where('status', 'in', ['waiting', 'sent'])
      .executeTakeFirst();
    if (busy) return null;
    const plan = await this.plan(address);
    if (!plan) return null;
    const dec = (units: bigint, decimals: number) => Decimal.fromBaseUnits(units, decimals);
    const due =
      (plan.native > 0n && dec(plan.native, this.o.native.decimals).gte(this.o.policy.minNative)) ||
      plan.tokens.some((t) => dec(t.units, t.token.decimals).gte(this.o.policy.minToken[t.token.code.toUpperCase()] ?? '0'));
    if (!due) {
      if (plan.native === 0n && plan.tokens.length === 0) {
        // Nothing left there (flushed already, or by someone else: anyone may call flush).
        await this.o.db.updateTable('scan_transfers').set({ swept: 1, updated_at: this.o.now() }).where('network', '=', this.o.network).where('to_address', '=', address).where('status', '=', 'confirmed').execute();
      }
      return null;
    }
    // Once paid for, a flush takes everything the forwarder holds: each token with a balance, and
    // its TRX. A flush that would revert is not sent (it would burn the relayer's TRX for
    // nothing): when only the TRX leg fails (a cold address that is a contract refusing TRX),
    // the tokens go without it, as the contract allows.
    const relayer = this.o.relayer!;
    const tokenContracts = plan.tokens.map((t) => t.token.contract);
    let native = plan.native > 0n;
    let data = flushData(plan.cold, plan.salt, tokenContracts, native);
    if (await this.reverts(data)) {
      const without = native && tokenContracts.length > 0 ? flushData(plan.cold, plan.salt, tokenContracts, false) : null;
      if (!without || (await this.reverts(without))) {
        this.o.log('error', 'tron flush would revert; not sent', { network: this.o.network, address, cold: plan.cold, alarm: 'flush_reverts' });
        return null;
      }
      this.o.log('warn', 'tron flush: the cold address refuses TRX; its tokens are flushed without it', { network: this.o.network, address, cold: plan.cold });
      native = false;
      data = without;
    }
    const moves = [
      ...(native ? [{ currency: this.o.native.code, amount: dec(plan.native, this.o.native.decimals).toString() }] : []),
      ...plan.tokens.map((t) => ({ currency: t.token.code, amount: dec(t.units, t.token.decimals).toString() })),
    ];
    const intent: Intent = { type: 'TriggerSmartContract', owner: toHexAddress(relayer.address), contract: toHexAddress(this.o.deployment.factory), data, feeLimit: this.o.feeLimit };
    const now = this.o.now();
    const row = await this.out.signAndStore({
      requestId: `flush:${randomUUID()}`,
      attempt: 1,
      kind: 'flush',
      signer: relayer,
      intent,
      currency: moves[0]!.currency,
      toAddress: plan.cold,
      amount: moves[0]!.amount,
      view,
      also: async (trx, r) => {
        await trx
          .insertInto('tron_movements')
          .values(moves.map((m) => ({ id: randomUUID(), network: this.o.network, kind: 'flush', currency: m.currency, from_address: address, to_address: plan.cold, amount: m.amount, energy: null, depends_on: null, status: 'sent', txid: r.txid, created_at: now, updated_at: now })))
          .execute();
      },
    });
    if (row.status === 'signed') await this.out.broadcast(row);
    this.o.log('info', 'tron flush sent', { network: this.o.network, address, cold: plan.cold, txid: row.txid, moves });
    return row.txid;
  }

  /** Whether the relayer's flush with this call data would revert now (a constant call: free). */
  private async reverts(data: string): Promise<boolean> {
    const r = await this.o.api.triggerConstantContract({ owner: toHexAddress(this.o.relayer!.address), contract: toHexAddress(this.o.deployment.factory), selector: FLUSH_SIGNATURE, parameter: data.slice(8) });
    if (r.result?.result !== true) throw new TronSendError('rejected', `The node would not simulate the flush: ${r.result?.code ?? ''} ${nodeMessage(r.result?.message)}`.trim());
    return r.transaction?.ret?.some((x) => (x as { ret?: string }).ret === 'FAILED') === true || (!!r.result.message && /revert/i.test(nodeMessage(r.result.message)));
  }
}
