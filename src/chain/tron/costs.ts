// What a TRON transaction costs, from the chain's own numbers: the chain parameters (getEnergyFee,
// getTransactionFee, the account creation fees), the sender's free and staked resources
// (getaccountresource) and, for a TRC-20 call, triggerconstantcontract's energy estimate. Used to
// refuse a payout the hot wallet cannot cover, and to send a deposit address exactly the TRX its
// sweep will burn.
import { Decimal } from '../../money/decimal.ts';
import { toHexAddress } from './address.ts';
import { nodeMessage, type TronApi } from './api.ts';
import type { Intent } from './outgoing.ts';
import type { Coverage } from '../contract.ts';

/**
 * Bandwidth bytes of a signed transaction as java-tron counts them (raw_data + 65-byte signature +
 * 64 bytes of result), rounded up: a TRX transfer is about 270, a TRC-20 transfer about 345.
 */
export const BYTES_TRANSFER = 280n;
export const BYTES_TRC20 = 360n;

export interface Prices {
  energyFee: bigint;
  byteFee: bigint;
  /** Burned by the sender of a TRX transfer that creates its recipient. */
  createAccount: bigint;
}

export interface Resources {
  freeBandwidth: bigint;
  energy: bigint;
  totalEnergyLimit: bigint;
  totalEnergyWeight: bigint;
}

export class TronCosts {
  constructor(private readonly api: TronApi) {}

  async prices(): Promise<Prices> {
    const p = await this.api.chainParameters();
    return {
      energyFee: p.get('getEnergyFee') ?? 210n,
      byteFee: p.get('getTransactionFee') ?? 1000n,
      createAccount: (p.get('getCreateNewAccountFeeInSystemContract') ?? 1_000_000n) + (p.get('getCreateAccountFee') ?? 100_000n),
    };
  }

  async resources(address: string): Promise<Resources> {
    const r = await this.api.accountResource(toHexAddress(address));
    const n = (x: number | undefined) => BigInt(x ?? 0);
    const free = n(r.freeNetLimit) - n(r.freeNetUsed) + (n(r.NetLimit) - n(r.NetUsed));
    const energy = n(r.EnergyLimit) - n(r.EnergyUsed);
    return { freeBandwidth: free > 0n ? free : 0n, energy: energy > 0n ? energy : 0n, totalEnergyLimit: n(r.TotalEnergyLimit), totalEnergyWeight: n(r.TotalEnergyWeight) };
  }

  /** Energy a `transfer` from `owner` would use now, or null when it would revert. */
  async energyOf(owner: string, contract: string, data: string): Promise<bigint | null> {
    const r = await this.api.triggerConstantContract({ owner: toHexAddress(owner), contract: toHexAddress(contract), selector: 'transfer(address,uint256)', parameter: data.slice(8) });
    const failed = r.result?.result !== true || r.transaction?.ret?.some((x) => (x as { ret?: string }).ret === 'FAILED') || (r.result?.message && /revert/i.test(nodeMessage(r.result.message)));
    if (failed) return null;
    return BigInt(r.energy_used ?? 0);
  }

  async tokenBalance(contract: string, holder: string): Promise<bigint> {
    const r = await this.api.triggerConstantContract({ owner: toHexAddress(holder), contract: toHexAddress(contract), selector: 'balanceOf(address)', parameter: toHexAddress(holder).slice(2).padStart(64, '0') });
    const word = r.constant_result?.[0];
    return word && /^[0-9a-f]+$/i.test(word) ? BigInt(`0x${word}`) : 0n;
  }

  /** TRX `owner` burns for a transaction of `bytes` and `energy` with its current resources. */
  burn(res: Resources, prices: Prices, bytes: bigint, energy: bigint): bigint {
    const bandwidth = res.freeBandwidth >= bytes ? 0n : bytes * prices.byteFee;
    const fromStake = res.energy >= energy ? energy : res.energy;
    return bandwidth + (energy - fromStake) * prices.energyFee;
  }

  /** Sun of stake that yields `energy` (Stake 2.0: energy = stake / total weight x total limit). */
  stakeFor(energy: bigint, res: Resources): bigint {
    if (res.totalEnergyLimit <= 0n) throw new Error('the node reports no TotalEnergyLimit');
    const trx = (energy * res.totalEnergyWeight + res.totalEnergyLimit - 1n) / res.totalEnergyLimit;
    return (trx < 1n ? 1n : trx + 1n) * 1_000_000n; // one TRX more: the chain rounds energy down
  }

  async cover(hot: string, asset: { code: string; decimals: number; contract: string | null }, units: bigint, intent: Intent, feeLimit: bigint, nativeCode: string): Promise<Coverage> {
    const account = await this.api.account(toHexAddress(hot));
    const trx = account?.balance ?? 0n;
    const [prices, res] = await Promise.all([this.prices(), this.resources(hot)]);
    const short = (currency: string, need: bigint, decimals: number, what: string) => ({
      covered: false as const,
      currency,
      message: `The hot wallet ${hot} lacks ${currency} for this payout: ${what} needs ${Decimal.fromBaseUnits(need, decimals).toString()} ${currency}`,
    });
    if (intent.type === 'TransferContract') {
      const created = (await this.api.account(intent.to)) === null;
      const fee = created ? prices.createAccount : this.burn(res, prices, BYTES_TRANSFER, 0n);
      if (trx < units + fee) return short(nativeCode, units + fee, 6, 'the amount and its fee');
      return { covered: true };
    }
    if (intent.type !== 'TriggerSmartContract' || !asset.contract) return { covered: true };
    const have = await this.tokenBalance(asset.contract, hot);
    if (have < units) return short(asset.code, units, asset.decimals, 'the amount');
    const energy = await this.energyOf(hot, asset.contract, intent.data);
    if (energy === null) return { covered: false, currency: 'reverted', message: `The ${asset.code} contract would revert this transfer` };
    const burn = this.burn(res, prices, BYTES_TRC20, energy);
    if (burn - this.burn(res, prices, BYTES_TRC20, 0n) > feeLimit) {
      return { covered: false, currency: 'reverted', message: `This transfer needs more energy than the configured fee_limit pays for` };
    }
    if (trx < burn) return short(nativeCode, burn, 6, 'the energy and bandwidth of the transfer');
    return { covered: true };
  }
}

export function chainCosts(api: TronApi): TronCosts {
  return new TronCosts(api);
}
