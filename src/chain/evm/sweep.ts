// Sweeping for the `evm` driver: moves funds from deposit addresses that received confirmed
// transfers to the hot wallet. A step per round: a token sweep from an address without gas first
// gets gas from the hot wallet; a later round, once that is mined, signs the token transfer with
// the deposit key. Every movement is recorded in evm_movements (owned here). Rounds run from the
// scanner's poll (under the network's scanner lock) or when the driver's sweep() is called.
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, getAddress, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { ChainError, HotWalletShortError } from '../errors.ts';
import { pendingUnits } from '../pending-units.ts';
import { Decimal } from '../../money/decimal.ts';
import type { EvmMovementsTable } from './schema.ts';
import { hex, type BlockTag } from './rpc.ts';
import { parseDepositIndex } from './keys.ts';
import type { Asset, Call, EvmChain, Fees } from './chain.ts';
import type { EvmOutgoing, EvmTrx, OutgoingRow, SignRequest } from './outgoing.ts';

export interface EvmSweepPolicy {
  enabled: boolean;
  /** Sweep the native coin when the balance, less the fee, is at least this (decimal string). */
  minNative: string;
  /** Sweep a token when the balance is at least this (decimal string), by token code; default any. */
  minToken: Record<string, string>;
  /** Also sweep from poll(), at most this often (ms); unset: only when sweep() is called. */
  everyMs?: number;
}

export class EvmSweeper {
  private lastRun = 0;

  constructor(
    private readonly c: EvmChain,
    private readonly out: EvmOutgoing,
    private readonly policy: EvmSweepPolicy,
  ) {}

  /** One sweep round when it is due (called from each poll). A failure is logged: what was
   * reported stays reported, and the sweep is tried again next time. */
  async maybeRun(): Promise<void> {
    const every = this.policy.everyMs;
    if (!this.policy.enabled || !every || this.c.now() - this.lastRun < every) return;
    this.lastRun = this.c.now();
    try {
      await this.run();
    } catch (err) {
      this.c.log('error', 'evm sweep failed', { network: this.c.code, error: (err as Error).message });
    }
  }

  async run(): Promise<void> {
    if (!this.policy.enabled) return;
    const { c } = this;
    await c.checkChain();
    // Amounts to move are read at the confirmation depth: what a reorganisation could still take
    // away is not swept (a transaction spending it could then never be mined).
    const safe = hex(Math.max(0, (await c.rpc.blockNumber()) - c.confirmations + 1));
    await this.advanceMovements(safe);
    const candidates = await c.db
      .selectFrom('scan_transfers')
      .select('to_address')
      .distinct()
      .where('network', '=', c.code)
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .limit(50)
      .execute();
    for (const cand of candidates) {
      try {
        await this.sweepAddress(cand.to_address as `0x${string}`, safe);
      } catch (err) {
        if (!(err instanceof ChainError)) throw err;
        c.log('warn', 'evm sweep failed; retried next time', { network: c.code, address: cand.to_address, error: err.message });
      }
    }
  }

  private async advanceMovements(safe: Hex): Promise<void> {
    const { c } = this;
    const open = await c.db
      .selectFrom('evm_movements')
      .selectAll()
      .where('network', '=', c.code)
      .where('status', 'in', ['sent', 'waiting'])
      .orderBy('created_at')
      .execute();
    const status = new Map(open.map((m) => [m.id, m.status]));
    for (const m of open.filter((x) => x.status === 'sent')) {
      const r = m.txid ? await c.rpc.receipt(m.txid as Hex) : null;
      if (!r) continue;
      const s = r.status === '0x1' ? 'done' : 'failed';
      await this.setMovement(m.id, { status: s });
      status.set(m.id, s);
    }
    for (const m of open.filter((x) => x.status === 'waiting')) {
      try {
        await this.advanceWaiting(m, status, safe);
      } catch (err) {
        if (!(err instanceof ChainError)) throw err;
        c.log('warn', 'evm sweep failed; retried next time', { network: c.code, address: m.from_address, error: err.message });
      }
    }
  }

  /** A token sweep that waited for its gas: sign it with the deposit key once the gas is there. */
  private async advanceWaiting(m: EvmMovementsTable, status: Map<string, string>, safe: Hex): Promise<void> {
    const { c } = this;
    const dep = m.depends_on ? (status.get(m.depends_on) ?? (await this.movementStatus(m.depends_on))) : 'done';
    if (dep === 'failed') await this.setMovement(m.id, { status: 'failed' });
    if (dep !== 'done') return;
    const token = c.asset(m.currency);
    if (!token?.contract) {
      await this.setMovement(m.id, { status: 'failed' });
      return;
    }
    const account = this.depositAccount(m.from_address);
    if (!account) return;
    const units = await this.sweepable(token, account.address, safe);
    if (units === 0n) {
      await this.setMovement(m.id, { status: 'failed', amount: '0' });
      return;
    }
    const call = this.tokenTransferCall(token, units);
    const plan = await this.gasPlan(account.address, call);
    if (plan.topUp > 0n) {
      // Gas prices rose while the gas was on its way: give up this attempt; the next sweep plans anew.
      await this.setMovement(m.id, { status: 'failed' });
      return;
    }
    const amount = Decimal.fromBaseUnits(units, token.decimals).toString();
    await this.sendSweep(m.id, account, call, { currency: token.code, amount }, plan, async (trx, row) => {
      await trx
        .updateTable('evm_movements')
        .set({ status: 'sent', outgoing_id: row.id, txid: row.txid, amount, updated_at: c.now() })
        .where('id', '=', m.id)
        .execute();
    });
  }

  /** Signs, stores and broadcasts the sweep `movementId` of `what` from `account` to the hot wallet;
   * `also` records it in the same database transaction. */
  private async sendSweep(
    movementId: string,
    account: PrivateKeyAccount,
    call: Call,
    what: { currency: string; amount: string },
    plan: { fees: Fees; gas: bigint },
    also: SignRequest['also'],
  ): Promise<void> {
    const row = await this.out.signAndStore({
      requestId: `sweep:${movementId}`,
      kind: 'sweep',
      account,
      call,
      currency: what.currency,
      toAddress: this.c.hotWallet,
      amount: what.amount,
      priority: 'recommended',
      fees: plan.fees,
      gas: plan.gas,
      also,
    });
    await this.out.firstBroadcast(row);
  }

  private async sweepAddress(address: `0x${string}`, safe: Hex): Promise<void> {
    const { c } = this;
    const busy = await c.db
      .selectFrom('evm_movements')
      .select('id')
      .where('network', '=', c.code)
      .where((eb) => eb.or([eb('from_address', '=', address.toLowerCase()), eb('to_address', '=', address.toLowerCase())]))
      .where('status', 'in', ['waiting', 'sent'])
      .executeTakeFirst();
    if (busy) return;
    const account = this.depositAccount(address);
    if (!account) return;

    for (const token of c.tokens) {
      const units = await this.sweepable(token, account.address, safe);
      if (units === 0n) continue;
      const min = this.policy.minToken[token.code] ?? this.policy.minToken[token.code.toUpperCase()] ?? '0';
      if (Decimal.fromBaseUnits(units, token.decimals).lt(min)) continue;
      const call = this.tokenTransferCall(token, units);
      const plan = await this.gasPlan(account.address, call);
      const amount = Decimal.fromBaseUnits(units, token.decimals).toString();
      const sweepId = randomUUID();
      if (plan.topUp === 0n) {
        await this.sendSweep(sweepId, account, call, { currency: token.code, amount }, plan, (trx, row) =>
          this.insertMovement(trx, { id: sweepId, kind: 'sweep', currency: token.code, from: address, to: c.hotWallet, amount, row }),
        );
        return;
      }
      // First the gas, from the hot wallet; the token transfer follows once it is mined.
      const gasId = randomUUID();
      const gasAmount = Decimal.fromBaseUnits(plan.topUp, c.native.decimals).toString();
      const row = await this.out.signAndStore({
        requestId: `gas:${gasId}`,
        kind: 'gas',
        account: c.keys.hot,
        call: { to: account.address, value: plan.topUp, data: '0x' },
        currency: c.native.code,
        toAddress: account.address,
        amount: gasAmount,
        priority: 'recommended',
        also: async (trx, row) => {
          await this.insertMovement(trx, { id: gasId, kind: 'gas', currency: c.native.code, from: c.hotWallet, to: address, amount: gasAmount, row });
          await this.insertMovement(trx, { id: sweepId, kind: 'sweep', currency: token.code, from: address, to: c.hotWallet, amount, row: null, dependsOn: gasId });
        },
      });
      await this.out.firstBroadcast(row);
      return;
    }

    const balance = await this.sweepable(c.native, account.address, safe);
    const fees = await c.fees('recommended');
    const fee = 21_000n * fees.maxFeePerGas;
    if (balance > fee && Decimal.fromBaseUnits(balance - fee, c.native.decimals).gte(this.policy.minNative || '0')) {
      const value = balance - fee;
      const amount = Decimal.fromBaseUnits(value, c.native.decimals).toString();
      const id = randomUUID();
      const call: Call = { to: c.hotWallet, value, data: '0x' };
      await this.sendSweep(id, account, call, { currency: c.native.code, amount }, { fees, gas: 21_000n }, (trx, row) =>
        this.insertMovement(trx, { id, kind: 'sweep', currency: c.native.code, from: address, to: c.hotWallet, amount, row }),
      );
      return;
    }

    // Nothing (left) above the thresholds: this address is done until it receives again.
    await c.db
      .updateTable('scan_transfers')
      .set({ swept: 1, updated_at: c.now() })
      .where('network', '=', c.code)
      .where('to_address', '=', address.toLowerCase())
      .where('status', '=', 'confirmed')
      .execute();
  }

  /** Gas limit and fees for a deposit-signed call, and how much native coin it lacks for them. */
  private async gasPlan(from: `0x${string}`, call: Call): Promise<{ gas: bigint; fees: Fees; topUp: bigint }> {
    const { c } = this;
    const fees = await c.fees('recommended');
    let gas: bigint;
    try {
      gas = await c.estimate(from, call);
    } catch (err) {
      if (!(err instanceof HotWalletShortError)) throw err;
      gas = 100_000n;
    }
    const balance = await c.rpc.balance(from);
    const need = gas * fees.maxFeePerGas;
    if (balance >= need) return { gas, fees, topUp: 0n };
    // Spend what is there if it still covers the current base fee and tip; otherwise top up.
    const affordable = balance / gas;
    if (affordable >= fees.baseFee + fees.maxPriorityFeePerGas && affordable > 0n) {
      return { gas, fees: { ...fees, maxFeePerGas: affordable }, topUp: 0n };
    }
    return { gas, fees, topUp: need - balance };
  }

  private tokenTransferCall(token: Asset, units: bigint): Call {
    const { c } = this;
    return {
      to: token.contract!,
      value: 0n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [c.hotWallet, units] }),
    };
  }

  /**
   * What may be swept from a deposit address: only confirmed funds. Bounded by the balance at the
   * confirmation depth, and by the latest balance less the transfers seen but not yet confirmed
   * (the first bound alone would count again what a recent sweep already moved).
   */
  private async sweepable(asset: Asset, who: `0x${string}`, safe: Hex): Promise<bigint> {
    const { c } = this;
    const read = (tag: BlockTag) => (asset.contract ? c.tokenBalance(asset.contract, who, tag) : c.rpc.balance(who, tag));
    const atDepth = await read(safe);
    const latest = await read('latest');
    const unconfirmed = await pendingUnits(c.db, c.code, who.toLowerCase(), asset.code, asset.decimals);
    const settled = latest - unconfirmed;
    const units = atDepth < settled ? atDepth : settled;
    return units > 0n ? units : 0n;
  }

  /** The spending key of a deposit address, from the derivation path the gateway gave with it. */
  private depositAccount(address: string): PrivateKeyAccount | null {
    const { c } = this;
    const checksummed = getAddress(address);
    const path = c.watched.get(checksummed.toLowerCase());
    const index = path === undefined ? null : parseDepositIndex(path, c.network.coin_type);
    if (index === null) {
      c.log('error', 'evm sweep: no derivation path recorded for a deposit address', { network: c.code, address: checksummed });
      return null;
    }
    const account = c.keys.deposit(index);
    if (account.address.toLowerCase() !== checksummed.toLowerCase()) {
      c.log('error', 'evm sweep: the recorded path does not derive the address (another seed?)', { network: c.code, address: checksummed });
      return null;
    }
    return account;
  }

  private async insertMovement(
    trx: EvmTrx,
    m: { id: string; kind: 'gas' | 'sweep'; currency: string; from: string; to: string; amount: string; row: OutgoingRow | null; dependsOn?: string },
  ): Promise<void> {
    const { c } = this;
    const now = c.now();
    await trx
      .insertInto('evm_movements')
      .values({
        id: m.id,
        network: c.code,
        kind: m.kind,
        currency: m.currency,
        from_address: m.from.toLowerCase(),
        to_address: m.to.toLowerCase(),
        amount: m.amount,
        outgoing_id: m.row?.id ?? null,
        depends_on: m.dependsOn ?? null,
        status: m.row ? 'sent' : 'waiting',
        txid: m.row?.txid ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  private async setMovement(id: string, patch: { status: string; amount?: string }): Promise<void> {
    const { c } = this;
    await c.db.updateTable('evm_movements').set({ ...patch, updated_at: c.now() }).where('id', '=', id).execute();
  }

  private async movementStatus(id: string): Promise<string | undefined> {
    const { c } = this;
    const r = await c.db.selectFrom('evm_movements').select('status').where('id', '=', id).executeTakeFirst();
    return r?.status;
  }
}
