// Payments from the hot wallet of the `evm` driver: whether it can cover one now (asked before a
// payout or refund is accepted), and the send itself, idempotent on the request id.
import { getAddress, isAddress } from 'viem';
import type { Coverage, PaymentRequest, PayoutWallet, SendRequest } from '../contract.ts';
import { ChainError, HotWalletShortError, NodeUnreachableError, SendRejectedError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import { toUnits, type EvmChain } from './chain.ts';
import type { EvmOutgoing } from './outgoing.ts';

/** Gas limit assumed for a token transfer whose estimate fails (the balance check only). */
const TOKEN_GAS_FALLBACK = 100_000n;

export class EvmPayments {
  constructor(
    private readonly c: EvmChain,
    private readonly out: EvmOutgoing,
  ) {}

  /**
   * Whether the hot wallet holds the amount (coin or token) and the native coin for the fee, at
   * the pending block. A call the chain would revert is not this method's concern (send refuses
   * it): when the estimate fails, a generous gas limit stands in for the fee.
   */
  async canCover(req: PaymentRequest): Promise<Coverage> {
    const { c } = this;
    const asset = c.asset(req.currency);
    if (!asset) return { covered: false, currency: req.currency, message: `${req.currency} is not a currency of ${c.code}` };
    if (!c.keys.canPay) return { covered: false, currency: asset.code, message: `${c.code} has no payout float configured` };
    const to = isAddress(req.to, { strict: false }) ? getAddress(req.to) : c.hotWallet;
    let units: bigint;
    try {
      units = toUnits(req.amount, asset.decimals);
    } catch {
      return { covered: true }; // malformed amounts are the send's to refuse
    }
    const hot = c.hotWallet;
    const short = (code: string): Coverage => ({ covered: false, currency: code, message: `The hot wallet cannot cover this payment: not enough ${code}` });
    if (asset.contract && (await c.tokenBalance(asset.contract, hot, 'pending')) < units) return short(asset.code);
    const call = c.paymentCall(asset, to, units);
    const fees = await c.fees(req.priority);
    let gas: bigint;
    try {
      gas = await c.estimate(hot, call);
    } catch (err) {
      if (err instanceof NodeUnreachableError || !(err instanceof ChainError)) throw err;
      gas = asset.contract ? TOKEN_GAS_FALLBACK : 21_000n;
    }
    const balance = await c.rpc.balance(hot, 'pending');
    if (balance < call.value + gas * fees.maxFeePerGas) return short(c.native.code);
    return { covered: true };
  }

  /** The account payouts leave from and its balances (latest block); null without one. */
  async wallet(): Promise<PayoutWallet | null> {
    const { c } = this;
    if (!c.keys.canPay) return null;
    const address = c.hotWallet;
    const balances: Record<string, string> = {};
    balances[c.native.code] = Decimal.fromBaseUnits(await c.rpc.balance(address, 'latest'), c.native.decimals).toString();
    for (const t of c.tokens) balances[t.code] = Decimal.fromBaseUnits(await c.tokenBalance(t.contract!, address, 'latest'), t.decimals).toString();
    return { address, balances };
  }

  async send(req: SendRequest): Promise<{ txid: string }> {
    const { c } = this;
    if (req.network.toUpperCase() !== c.code.toUpperCase()) {
      throw new SendRejectedError('invalid', `Network ${req.network} is not ${c.code}`);
    }
    const asset = c.asset(req.currency);
    if (!asset) throw new SendRejectedError('invalid', `${req.currency} is not a currency of ${c.code}`);
    if (!isAddress(req.to, { strict: false })) throw new SendRejectedError('invalid', `Not an EVM address: ${req.to}`);
    const to = getAddress(req.to);
    const units = toUnits(req.amount, asset.decimals);
    const existing = await this.out.byRequest(req.id);
    if (existing) {
      if (existing.kind !== 'payout' || existing.currency !== asset.code || existing.to_address.toLowerCase() !== to.toLowerCase() ||
          !Decimal.parse(existing.amount).eq(Decimal.fromBaseUnits(units, asset.decimals))) {
        throw new SendRejectedError('invalid', `Send id ${req.id} was already used for a different transaction`);
      }
      await this.out.resume(existing);
      return { txid: existing.txid };
    }
    const call = c.paymentCall(asset, to, units);
    await c.checkChain();
    // A watch-only network without a float has nothing to pay from: the payout waits (and fails
    // after the stuck timeout, its funds returned) unless a float is configured meanwhile.
    if (!c.keys.canPay) throw new HotWalletShortError(asset.code, `${c.code} has no payout float configured: nothing can be paid on this watch-only network`);
    const hot = c.keys.hot;
    // Short of the token is the hot wallet's shortfall whatever the token's revert would say.
    if (asset.contract && (await c.tokenBalance(asset.contract, hot.address, 'pending')) < units) {
      throw new HotWalletShortError(asset.code, `The hot wallet ${hot.address} lacks ${asset.code} for this payout`);
    }
    const fees = await c.fees(req.priority);
    const gas = await c.estimate(hot.address, call);
    // Never sign what the hot wallet cannot pay for now: a stored transaction the node refuses
    // would hold up every later nonce.
    const balance = await c.rpc.balance(hot.address, 'pending');
    if (balance < call.value + gas * fees.maxFeePerGas) {
      throw new HotWalletShortError(c.native.code, `The hot wallet ${hot.address} lacks ${c.native.code} for this payout and its gas`);
    }
    const row = await this.out.signAndStore({
      requestId: req.id,
      kind: 'payout',
      account: hot,
      call,
      currency: asset.code,
      toAddress: to,
      amount: Decimal.fromBaseUnits(units, asset.decimals).toString(),
      priority: req.priority,
      fees,
      gas,
    });
    const refused = await this.out.firstBroadcast(row);
    if (refused) {
      if (/insufficient funds/i.test(refused.message)) throw new HotWalletShortError(c.native.code, refused.message);
      throw new SendRejectedError('rejected', refused.message);
    }
    return { txid: row.txid };
  }
}
