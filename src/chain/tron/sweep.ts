// Sweeping for the `tron` driver: moves confirmed payments from deposit addresses to the hot
// wallet, paying TRON's resources one of two ways (the sweep policy's `resources`):
// - burn: the hot wallet sends the deposit address exactly the TRX its token transfer will burn
//   (triggerconstantcontract's energy estimate x getEnergyFee, plus bandwidth beyond the free
//   allowance), then the deposit key signs the transfer;
// - delegate: the hot wallet, which has staked TRX for energy (Stake 2.0), delegates the energy
//   the transfer needs (delegateresource), the deposit key signs the transfer using it, then the
//   hot wallet takes the delegation back (undelegateresource).
// A deposit address that never received TRX does not exist on chain yet and cannot send: the first
// TRX sent to it activates it, and the hot wallet burns the chain's account creation fee for that.
// Each step is a movement (tron_movements) carried by one stored transaction (scan_outgoing); a
// step waits for the one before it to be final. One step per address per round.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { pendingUnits } from '../pending-units.ts';
import { Decimal } from '../../money/decimal.ts';
import { NodeError } from '../errors.ts';
import { toHexAddress } from './address.ts';
import { BYTES_TRANSFER, BYTES_TRC20, chainCosts } from './costs.ts';
import { parseTronDepositIndex, type TronKeys, type TronSigner } from './keys.ts';
import { TronSendError, transferData, type Intent, type TronOutgoing } from './outgoing.ts';
import type { ChainView, TronToken } from './scan.ts';
import type { TronDB, TronMovementsTable } from './schema.ts';
import type { TronApi } from './api.ts';

export interface TronSweepPolicy {
  enabled: boolean;
  /** How the energy of a token sweep is paid. */
  mode: 'burn' | 'delegate';
  /** Sweep TRX when at least this would arrive (decimal string). */
  minNative: string;
  /** Sweep a token when the balance is at least this, by code; default any. */
  minToken: Record<string, string>;
  /** From poll(), at most this often (0: only when asked). */
  everyMs: number;
}

export interface SweeperOptions {
  network: string;
  api: TronApi;
  db: Kysely<TronDB>;
  /** The HD path of a watched deposit address, as the gateway gave it to the driver. */
  pathOf: (address: string) => string | undefined;
  out: TronOutgoing;
  keys: TronKeys;
  native: { code: string; decimals: number };
  tokens: TronToken[];
  feeLimit: bigint;
  policy: TronSweepPolicy;
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

/** What an activation sends in delegate mode: the smallest amount (the creation fee is the cost). */
const ACTIVATION_SUN = 1n;

type Movement = TronMovementsTable;

export class TronSweeper {
  private lastRun = 0;
  private readonly costs;

  constructor(private readonly o: SweeperOptions) {
    this.costs = chainCosts(o.api);
  }

  async maybeRun(view: ChainView): Promise<void> {
    const p = this.o.policy;
    if (!p.enabled || !p.everyMs || this.o.now() - this.lastRun < p.everyMs) return;
    this.lastRun = this.o.now();
    await this.run(view);
  }

  async run(view: ChainView): Promise<void> {
    if (!this.o.policy.enabled) return;
    await this.advance(view);
    const candidates = await this.o.db
      .selectFrom('scan_transfers')
      .select('to_address')
      .distinct()
      .where('network', '=', this.o.network)
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .limit(50)
      .execute();
    for (const c of candidates) {
      try {
        await this.plan(c.to_address, view);
      } catch (err) {
        if (!(err instanceof NodeError || err instanceof TronSendError)) throw err;
        this.o.log('warn', 'tron sweep failed; retried next round', { network: this.o.network, address: c.to_address, error: err.message });
      }
    }
  }

  /** Moves sent movements to done/failed from their transactions, and starts the waiting ones whose turn it is. */
  private async advance(view: ChainView): Promise<void> {
    const open = await this.o.db.selectFrom('tron_movements').selectAll().where('network', '=', this.o.network).where('status', 'in', ['sent', 'waiting']).orderBy('created_at').execute();
    const status = new Map(open.map((m) => [m.id, m.status]));
    for (const m of open.filter((x) => x.status === 'sent')) {
      const row = m.txid ? await this.o.db.selectFrom('scan_outgoing').select('status').where('network', '=', this.o.network).where('txid', '=', m.txid).executeTakeFirst() : undefined;
      const s = row?.status === 'confirmed' ? 'done' : row?.status === 'failed' || row?.status === 'expired' ? 'failed' : null;
      if (!s) continue;
      await this.setStatus(m.id, s);
      status.set(m.id, s);
    }
    for (const m of open.filter((x) => x.status === 'waiting')) {
      const dep = m.depends_on ? (status.get(m.depends_on) ?? (await this.statusOf(m.depends_on))) : 'done';
      if (dep === 'failed') {
        // An undelegation still runs after a failed sweep: the stake must come back.
        if (m.kind !== 'undelegate') {
          await this.setStatus(m.id, 'failed');
          status.set(m.id, 'failed');
          continue;
        }
      } else if (dep !== 'done') continue;
      try {
        await this.execute(m, view);
      } catch (err) {
        if (!(err instanceof NodeError || err instanceof TronSendError)) throw err;
        this.o.log('warn', 'tron sweep step failed; retried next round', { network: this.o.network, kind: m.kind, error: err.message });
      }
    }
  }

  /** Signs and sends a waiting movement's transaction. */
  private async execute(m: Movement, view: ChainView): Promise<void> {
    const hot = this.o.keys.hot;
    const hex = toHexAddress;
    if (m.kind === 'sweep' && m.currency !== this.o.native.code) {
      const token = this.o.tokens.find((t) => t.code === m.currency);
      const signer = await this.depositSigner(m.from_address);
      if (!token || !signer) return this.setStatus(m.id, 'failed');
      const units = await this.sweepable(token, m.from_address);
      if (units === 0n) return this.setStatus(m.id, 'failed');
      const intent: Intent = { type: 'TriggerSmartContract', owner: hex(signer.address), contract: hex(token.contract), data: transferData(hot.address, units), feeLimit: this.o.feeLimit };
      return this.send(m, signer, intent, Decimal.fromBaseUnits(units, token.decimals).toString(), view);
    }
    const value = Decimal.parse(m.amount).toBaseUnits(6);
    if (m.kind === 'sweep') {
      const signer = await this.depositSigner(m.from_address);
      if (!signer) return this.setStatus(m.id, 'failed');
      return this.send(m, signer, { type: 'TransferContract', owner: hex(signer.address), to: hex(hot.address), amount: value }, m.amount, view);
    }
    if (m.kind === 'activate' || m.kind === 'fund') {
      return this.send(m, hot, { type: 'TransferContract', owner: hex(hot.address), to: hex(m.to_address), amount: value }, m.amount, view);
    }
    const intent: Intent =
      m.kind === 'delegate'
        ? { type: 'DelegateResourceContract', owner: hex(hot.address), receiver: hex(m.to_address), balance: value }
        : { type: 'UnDelegateResourceContract', owner: hex(hot.address), receiver: hex(m.from_address), balance: value };
    return this.send(m, hot, intent, m.amount, view);
  }

  private async send(m: Movement, signer: TronSigner, intent: Intent, amount: string, view: ChainView): Promise<void> {
    const row = await this.o.out.signAndStore({
      requestId: `movement:${m.id}`,
      attempt: 1,
      kind: m.kind,
      signer,
      intent,
      currency: m.currency,
      toAddress: m.to_address,
      amount,
      view,
      also: async (trx, r) => {
        await trx.updateTable('tron_movements').set({ status: 'sent', txid: r.txid, amount, updated_at: this.o.now() }).where('id', '=', m.id).execute();
      },
    });
    if (row.status === 'signed') await this.o.out.broadcast(row);
  }

  /** Plans the next step for one deposit address. */
  private async plan(address: string, view: ChainView): Promise<void> {
    const busy = await this.o.db
      .selectFrom('tron_movements')
      .select('id')
      .where('network', '=', this.o.network)
      .where((eb) => eb.or([eb('from_address', '=', address), eb('to_address', '=', address)]))
      .where('status', 'in', ['waiting', 'sent'])
      .executeTakeFirst();
    if (busy) return;
    const signer = await this.depositSigner(address);
    if (!signer) return;
    const hot = this.o.keys.hot.address;
    const account = await this.o.api.account(toHexAddress(address));
    const trx = account?.balance ?? 0n;
    const [prices, res] = await Promise.all([this.costs.prices(), this.costs.resources(address)]);

    for (const token of this.o.tokens) {
      const units = await this.sweepable(token, address);
      if (units === 0n) continue;
      const min = this.o.policy.minToken[token.code.toUpperCase()] ?? '0';
      if (Decimal.fromBaseUnits(units, token.decimals).lt(min)) continue;
      const energy = await this.costs.energyOf(address, token.contract, transferData(hot, units));
      if (energy === null) {
        this.o.log('warn', 'tron sweep: the token transfer would revert', { network: this.o.network, address, token: token.code });
        continue;
      }
      const amount = Decimal.fromBaseUnits(units, token.decimals).toString();
      const sweep = { kind: 'sweep', currency: token.code, from: address, to: hot, amount, energy };
      if (this.o.policy.mode === 'burn') {
        const need = this.costs.burn(res, prices, BYTES_TRC20, energy);
        if (account && trx >= need) return this.execute(await this.insert(sweep), view);
        // Exactly what the transfer will burn, less what is already there.
        const fund = need - trx;
        const first = await this.insert({ kind: account ? 'fund' : 'activate', currency: this.o.native.code, from: hot, to: address, amount: sun(fund), energy });
        await this.insert({ ...sweep, dependsOn: first.id });
        return this.execute(first, view);
      }
      // delegate
      const missing = energy > res.energy ? energy - res.energy : 0n;
      const stake = missing > 0n ? this.costs.stakeFor(missing, res) : 0n;
      let prev: Movement | null = null;
      if (!account) {
        prev = await this.insert({ kind: 'activate', currency: this.o.native.code, from: hot, to: address, amount: sun(ACTIVATION_SUN), energy: null });
      }
      let delegate: Movement | null = null;
      if (stake > 0n) {
        delegate = await this.insert({ kind: 'delegate', currency: this.o.native.code, from: hot, to: address, amount: sun(stake), energy: missing, dependsOn: prev?.id });
      }
      const sw = await this.insert({ ...sweep, dependsOn: (delegate ?? prev)?.id });
      if (delegate) await this.insert({ kind: 'undelegate', currency: this.o.native.code, from: address, to: hot, amount: sun(stake), energy: missing, dependsOn: sw.id });
      return this.execute(prev ?? delegate ?? sw, view);
    }

    // TRX, less the bandwidth the sweep itself burns.
    const pending = await pendingUnits(this.o.db, this.o.network, address, this.o.native.code, this.o.native.decimals);
    const fee = this.costs.burn(res, prices, BYTES_TRANSFER, 0n);
    const value = trx - pending - fee;
    if (account && value > 0n && Decimal.fromBaseUnits(value, 6).gte(this.o.policy.minNative || '0')) {
      return this.execute(await this.insert({ kind: 'sweep', currency: this.o.native.code, from: address, to: hot, amount: sun(value), energy: null }), view);
    }
    // Nothing (left) above the thresholds: done until the address receives again.
    await this.o.db.updateTable('scan_transfers').set({ swept: 1, updated_at: this.o.now() }).where('network', '=', this.o.network).where('to_address', '=', address).where('status', '=', 'confirmed').execute();
  }

  /** Confirmed balance: what the node shows now, less payments not final yet. */
  private async sweepable(token: TronToken, address: string): Promise<bigint> {
    const balance = await this.costs.tokenBalance(token.contract, address);
    const units = balance - (await pendingUnits(this.o.db, this.o.network, address, token.code, token.decimals));
    return units > 0n ? units : 0n;
  }

  /** The deposit key, from the derivation path the gateway gave with the address. */
  private async depositSigner(address: string): Promise<TronSigner | null> {
    const path = this.o.pathOf(address);
    const index = path === undefined ? null : parseTronDepositIndex(path, this.o.keys.coinType);
    const signer = index === null ? null : this.o.keys.deposit(index);
    if (!signer || signer.address !== address) {
      this.o.log('error', 'tron sweep: no usable derivation path for a deposit address (another seed?)', { network: this.o.network, address });
      return null;
    }
    return signer;
  }

  private async insert(m: { kind: string; currency: string; from: string; to: string; amount: string; energy: bigint | null; dependsOn?: string }): Promise<Movement> {
    const now = this.o.now();
    const row: Movement = {
      id: randomUUID(),
      network: this.o.network,
      kind: m.kind,
      currency: m.currency,
      from_address: m.from,
      to_address: m.to,
      amount: m.amount,
      energy: m.energy === null ? null : Number(m.energy),
      depends_on: m.dependsOn ?? null,
      status: 'waiting',
      txid: null,
      created_at: now,
      updated_at: now,
    };
    await this.o.db.insertInto('tron_movements').values(row).execute();
    return row;
  }

  private async setStatus(id: string, status: string): Promise<void> {
    await this.o.db.updateTable('tron_movements').set({ status, updated_at: this.o.now() }).where('id', '=', id).execute();
  }

  private async statusOf(id: string): Promise<string | undefined> {
    return (await this.o.db.selectFrom('tron_movements').select('status').where('id', '=', id).executeTakeFirst())?.status;
  }
}

function sun(units: bigint): string {
  return Decimal.fromBaseUnits(units, 6).toString();
}
