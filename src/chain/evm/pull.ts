// Allowance pulls of the `evm` driver (automatic renewals, docs/recurring.md). The collector, the
// spender a payer approves, is the network's paying account: the hot wallet (hot custody) or the
// payout float (watch-only). It already holds the native coin for fees and its nonces are kept by
// ./outgoing.ts, and it never holds a deposit key: what it pulls lands on the renewal invoice's
// deposit address and is received like any payment. The only call it signs here is
// transferFrom(payer, deposit address, amount), stored before it is broadcast (./outgoing.ts), so
// the same pull id never gets a second signature or nonce. Where the token has EIP-2612 permit, the
// collector also submits the payer's signed permit (paying its gas, so the payer sends nothing).
import { decodeFunctionResult, domainSeparator, hashMessage, encodeFunctionData, erc20Abi, getAddress, isAddress, isHex, parseAbi, parseSignature, recoverMessageAddress, recoverTypedDataAddress } from 'viem';
import type { AllowancePuller, PermitDomain } from '../contract.ts';
import { HotWalletShortError, NodeError, NodeUnreachableError, SendRejectedError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import { toUnits, type Asset, type EvmChain } from './chain.ts';
import type { EvmOutgoing } from './outgoing.ts';
import { quantityHex } from '../node-values.ts';
import { PERMIT_TYPES } from '../../contracts/permit.ts';

const permitAbi = parseAbi([
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function nonces(address owner) view returns (uint256)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
]);

/** What EIP-1271's isValidSignature answers for a valid signature. */
const EIP1271_MAGIC = '0x1626ba7e';

export { PERMIT_TYPES };

/** The scan_outgoing request id of a pull (kept apart from payout ids). */
function requestId(id: string): string {
  return `pull:${id}`;
}

/** Gas for an EIP-1271 isValidSignature call: enough for multi-owner wallets, and a bound on what a
 * contract anyone can deploy may make the node run. */
const EIP1271_GAS = '0x7a120'; // 500,000

const NO_PERMIT_RECHECK_MS = 10 * 60_000;

export class EvmAllowances implements AllowancePuller {
  /** Whether each token (by contract) has permit, and its EIP-712 domain: asked of the chain once. */
  /** Each token's permit domain as detected, and when: a "no permit" is asked again after
   * NO_PERMIT_RECHECK_MS, since a node error (a rate limit, a faulty answer) reads the same. */
  private readonly domains = new Map<string, { domain: PermitDomain | null; at: number }>();

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

  /** eth_call that answers null when the contract reverts or lacks the function; an unreachable node throws. */
  private async tryCall(to: `0x${string}`, data: `0x${string}`, gas?: `0x${string}`): Promise<`0x${string}` | null> {
    try {
      const out = await this.c.rpc.ethCall(gas ? { to, data, gas } : { to, data }, 'latest');
      return out === '0x' ? null : out;
    } catch (err) {
      if (err instanceof NodeError && !(err instanceof NodeUnreachableError)) return null;
      throw err;
    }
  }

  async permitDomain(currency: string): Promise<PermitDomain | null> {
    const token = this.token(currency);
    const key = token.contract.toLowerCase();
    const known = this.domains.get(key);
    if (known && (known.domain !== null || Date.now() - known.at < NO_PERMIT_RECHECK_MS)) return known.domain;
    const domain = await this.detectPermit(token.contract);
    this.domains.set(key, { domain, at: Date.now() });
    return domain;
  }

  /**
   * A token has permit when DOMAIN_SEPARATOR() and nonces(address) answer; its domain is read from
   * eip712Domain() (EIP-5267) when present, else name() and version() (or "1", what most tokens
   * use), and kept only when it hashes to the token's DOMAIN_SEPARATOR: a domain guessed wrong
   * would only give the payer a signature the token refuses.
   */
  private async detectPermit(contract: `0x${string}`): Promise<PermitDomain | null> {
    const read = async <F extends 'DOMAIN_SEPARATOR' | 'name' | 'version' | 'eip712Domain'>(functionName: F) => {
      const out = await this.tryCall(contract, encodeFunctionData({ abi: permitAbi, functionName } as never));
      if (out === null) return null;
      try {
        return decodeFunctionResult({ abi: permitAbi, functionName, data: out } as never) as unknown;
      } catch {
        return null;
      }
    };
    const separator = await read('DOMAIN_SEPARATOR');
    if (typeof separator !== 'string') return null;
    const nonce = await this.tryCall(contract, encodeFunctionData({ abi: permitAbi, functionName: 'nonces', args: ['0x0000000000000000000000000000000000000000'] }));
    if (nonce === null) return null;
    const chainId = this.c.chainId;
    const eip5267 = (await read('eip712Domain')) as readonly [string, string, string, bigint, string, string, readonly bigint[]] | null;
    let domain: PermitDomain;
    if (Array.isArray(eip5267)) {
      domain = { name: eip5267[1], version: eip5267[2], chainId: Number(eip5267[3]), verifyingContract: getAddress(eip5267[4]) };
    } else {
      const name = await read('name');
      if (typeof name !== 'string') return null;
      const version = await read('version');
      domain = { name, version: typeof version === 'string' ? version : '1', chainId, verifyingContract: getAddress(contract) };
    }
    if (domain.chainId !== chainId || domain.verifyingContract.toLowerCase() !== contract.toLowerCase()) return null;
    const expected = domainSeparator({ domain: { ...domain, verifyingContract: domain.verifyingContract as `0x${string}` } });
    return expected.toLowerCase() === separator.toLowerCase() ? domain : null;
  }

  async submitPermit(req: { currency: string; owner: string; value: string; deadline: bigint; signature: string }): Promise<{ txid: string }> {
    const { c } = this;
    const token = this.token(req.currency);
    const domain = await this.permitDomain(req.currency);
    if (!domain) throw new SendRejectedError('invalid', `${req.currency} on ${c.code} has no EIP-2612 permit`);
    const spender = this.collector();
    if (spender === null || !c.keys.canPay) throw new SendRejectedError('invalid', `${c.code} has no collector: no hot wallet or payout float`);
    if (!isHex(req.signature, { strict: true }) || req.signature.length !== 132) throw new SendRejectedError('invalid', 'Not a permit signature');
    const owner = this.address(req.owner);
    const value = toUnits(req.value, token.decimals);
    const rawNonce = await c.rpc.ethCall({ to: token.contract, data: encodeFunctionData({ abi: permitAbi, functionName: 'nonces', args: [owner] }) }, 'latest');
    const nonce = quantityHex('eth_call', 'a permit nonce', rawNonce);
    const message = { owner, spender: spender as `0x${string}`, value, nonce, deadline: req.deadline };
    let signer: string;
    try {
      signer = await recoverTypedDataAddress({
        domain: { ...domain, verifyingContract: domain.verifyingContract as `0x${string}` },
        types: PERMIT_TYPES,
        primaryType: 'Permit',
        message,
        signature: req.signature as `0x${string}`,
      });
    } catch {
      throw new SendRejectedError('invalid', 'Not a permit signature');
    }
    if (signer.toLowerCase() !== owner.toLowerCase()) {
      throw new SendRejectedError('invalid', `The permit is not signed by ${owner} for the collector ${spender}, ${req.value} ${token.code}, nonce ${nonce} and this deadline`);
    }
    // At most one collector-paid transaction per (token, owner, nonce): a retried POST, or any
    // number of signatures for the same nonce (other deadlines or values), gets the one already
    // stored, so nobody can make the collector pay gas for permits that can only revert. One that
    // failed is not tried again for that nonce (the payer approves from the wallet instead).
    const requestId = `permit:${token.contract.toLowerCase()}:${owner.toLowerCase()}:${nonce}`;
    const existing = await this.out.byRequest(requestId);
    if (existing) {
      if (existing.status === 'failed') throw new SendRejectedError('invalid', `a permit for nonce ${nonce} of ${owner} was already submitted and failed; approve from the wallet instead`);
      await this.out.resume(existing);
      return { txid: existing.txid };
    }
    const sig = parseSignature(req.signature as `0x${string}`);
    const v = sig.v !== undefined ? Number(sig.v) : sig.yParity + 27;
    const call = {
      to: token.contract,
      value: 0n,
      data: encodeFunctionData({ abi: permitAbi, functionName: 'permit', args: [owner, spender as `0x${string}`, value, req.deadline, v, sig.r, sig.s] }),
    };
    // The gas estimate runs the permit: one the token would refuse (expired on chain, a used nonce)
    // throws SendRejectedError('reverted') here, before anything is signed or stored.
    const row = await this.out.signAndStore({
      requestId,
      kind: 'permit',
      account: c.keys.hot,
      call,
      currency: token.code,
      toAddress: token.contract,
      amount: '0',
      priority: 'recommended',
    });
    const refused = await this.out.firstBroadcast(row);
    // Refused and discarded: the collector short of gas is not the payer's doing.
    if (refused && /insufficient funds/i.test(refused.message)) throw new HotWalletShortError(c.native.code, refused.message);
    if (refused) throw new SendRejectedError('rejected', refused.message);
    return { txid: row.txid };
  }

  async contractSigned(address: string, message: string, signature: string): Promise<boolean> {
    if (!isHex(signature, { strict: true })) return false;
    const who = this.address(address);
    const code = await this.c.rpc.call<unknown>('eth_getCode', [who, 'latest']);
    if (typeof code !== 'string' || code === '0x' || code === '0x0') return false;
    const out = await this.tryCall(who, encodeFunctionData({ abi: permitAbi, functionName: 'isValidSignature', args: [hashMessage(message), signature as `0x${string}`] }), EIP1271_GAS);
    // The magic value is the first 4 bytes of the returned word.
    return out !== null && out.slice(0, 10).toLowerCase() === EIP1271_MAGIC;
  }
}
