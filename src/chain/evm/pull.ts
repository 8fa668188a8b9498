// Allowance pulls of the `evm` driver (automatic renewals, docs/recurring.md). The collector, the
// spender a payer approves, is the network's paying account: the hot wallet (hot custody) or the
// payout float (watch-only). It already holds the native coin for fees and its nonces are kept by
// ./outgoing.ts, and it never holds a deposit key: what it pulls lands on the renewal invoice's
// deposit address and is received like any payment. The only call it signs here is
// transferFrom(payer, deposit address, amount), stored before it is broadcast (./outgoing.ts), so
// the same pull id never gets a second signature or nonce.
import { encodeFunctionData, erc20Abi, getAddress, isAddress, isHex, recoverMessageAddress } from 'viem';
import type { AllowancePuller } from '../contract.ts';
import { SendRejectedError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import { toUnits, type Asset, type EvmChain } from './chain.ts';
import type { EvmOutgoing } from './outgoing.ts';
import { quantityHex } from '../node-values.ts';

/** The scan_outgoing request id of a pull (kept apart from payout ids). */
function requestId(id: string): string {
  return `pull:${id}`;
}

export class EvmAllowances implements AllowancePuller {
  constructor(
    private readonly c: EvmChain,
    private readonly out: EvmOutgoing,
  ) {}

  collector(): string | null {
    return this.c.keys.canPay ? this.c.hotWallet : null;
  }

  tokenContract(currency: string): string | null {
    return this.c.asset(currency)?.contract ?? null;
  }

  private token(currency: string): Asset & { contract: `0x${string}` } {
    const asset = this.c.asset(currency);
    if (!asset?.contract) throw new SendRejectedError('invalid', `${currency} is not a token of ${this.c.code}`);
    return asset as Asset & { contract: `0x${string}` };
  }

  private address(a: string): `0x${string}` {
    if (!isAddress(a, { strict: false })) throw new SendRejectedError('invalid', `Not an EVM address: ${a}`);
    return getAddress(a);
  }

  async allowanceOf(currency: string, owner: string): Promise<{ allowance: string; balance: string }> {
    const { c } = this;
    const token = this.token(currency);
    const who = this.address(owner);
    const spender = this.collector();
    let allowance = 0n;
    if (spender !== null) {
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [who, spender as `0x${string}`] });
      const raw = await c.rpc.ethCall({ to: token.contract, data }, 'latest');
      allowance = raw === '0x' ? 0n : quantityHex('eth_call', 'an allowance', raw);
    }
    const balance = await c.tokenBalance(token.contract, who, 'latest');
    return {
      allowance: Decimal.fromBaseUnits(allowance, token.decimals).toString(),
      balance: Decimal.fromBaseUnits(balance, token.decimals).toString(),
    };
  }

  async preparePull(req: { id: string; currency: string; from: string; to: string; amount: string }): Promise<{ txid: string }> {
    const { c } = this;
    const token = this.token(req.currency);
    const from = this.address(req.from);
    const to = this.address(req.to);
    const units = toUnits(req.amount, token.decimals);
    const existing = await this.out.byRequest(requestId(req.id));
    if (existing) {
      if (existing.kind !== 'pull' || existing.to_address.toLowerCase() !== to.toLowerCase() || !Decimal.parse(existing.amount).eq(Decimal.fromBaseUnits(units, token.decimals))) {
        throw new SendRejectedError('invalid', `Pull ${req.id} was already signed for a different transfer`);
      }
      return { txid: existing.txid };
    }
    if (!c.keys.canPay) throw new SendRejectedError('invalid', `${c.code} has no collector: no hot wallet or payout float`);
    const call = { to: token.contract, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [from, to, units] }) };
    const row = await this.out.signAndStore({
      requestId: requestId(req.id),
      kind: 'pull',
      account: c.keys.hot,
      call,
      currency: token.code,
      toAddress: to,
      amount: Decimal.fromBaseUnits(units, token.decimals).toString(),
      priority: 'recommended',
    });
    return { txid: row.txid };
  }

  async broadcastPull(id: string): Promise<'sent' | 'refused'> {
    const row = await this.out.byRequest(requestId(id));
    if (!row) return 'refused';
    if (row.status === 'signed') return (await this.out.firstBroadcast(row)) === null ? 'sent' : 'refused';
    await this.out.resume(row);
    return 'sent';
  }

  async pullStatus(id: string): Promise<'pending' | 'confirmed' | 'failed' | 'unknown'> {
    const row = await this.out.byRequest(requestId(id));
    if (!row) return 'unknown';
    if (row.status === 'confirmed') return 'confirmed';
    if (row.status === 'failed') return 'failed';
    return 'pending';
  }

  async storedPull(id: string): Promise<string | null> {
    return (await this.out.byRequest(requestId(id)))?.txid ?? null;
  }

  async messageSigner(message: string, signature: string): Promise<string | null> {
    if (!isHex(signature, { strict: true })) return null;
    try {
      return (await recoverMessageAddress({ message, signature })).toLowerCase();
    } catch {
      return null; // not a signature (bad length, v or point)
    }
  }
}
