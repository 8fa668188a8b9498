// The ledger of the TRON node double (test/chain/tron/node-double.ts): accounts with TRX, Stake 2.0
// energy and delegations, TRC-20 balances, and how one transaction changes them, with the fees
// java-tron charges. A block's effects are a pure function of the state before it, so a
// reorganisation just replays the surviving blocks from genesis.
//
// Fees (java-tron's rules, simplified where noted):
// - bandwidth: raw_data + 65 signature bytes + 64 result bytes; an account has `freeNetLimit` (600)
//   free bytes a day, beyond that it burns `getTransactionFee` sun per byte (no daily recovery: the
//   double's runs are short);
// - a TRX transfer that creates its recipient burns getCreateNewAccountFeeInSystemContract +
//   getCreateAccountFee (1.1 TRX) instead of bandwidth;
// - TRC-20 `transfer`: ENERGY_TO_HOLDER energy, or ENERGY_TO_NEW when the recipient holds none of
//   the token (a new storage slot), taken from the account's energy (own stake and delegated to it)
//   first, then burned at getEnergyFee sun each, up to fee_limit (else OUT_OF_ENERGY, fee_limit
//   burned). A transfer of more than the balance REVERTs (energy used up to the revert is burned,
//   no log, no balance change).
// - the forwarder factory (src/chain/evm/forwarder/ForwarderFactory.sol on the TVM): `flush(cold,
//   salt, tokens, native)` deploys the deposit address (CREATE2 with the TVM's 0x41 prefix,
//   computed here with tronweb alone) when it has no code, then moves its whole balance of each
//   listed token and, with `native`, its TRX to `cold`; a zero cold address or a listed address
//   that is not a token REVERTs the whole call, and so does TRX sent to a cold address that refuses it. Energy: FLUSH_BASE, + FLUSH_DEPLOY the first time,
//   + FLUSH_NATIVE for TRX, + a token transfer's energy per token moved.
// - energy of an account = (own stake not delegated + delegated to it) / 1 TRX * ENERGY_PER_TRX.

import { utils } from 'tronweb';

export const PARAMS = {
  getEnergyFee: 210n,
  getTransactionFee: 1000n,
  getCreateAccountFee: 100_000n,
  getCreateNewAccountFeeInSystemContract: 1_000_000n,
  getFreeNetLimit: 600n,
} as const;
export const TOTAL_ENERGY_LIMIT = 180_000_000_000n;
export const TOTAL_ENERGY_WEIGHT = 18_000_000_000n; // TRX staked for energy, network-wide
export const ENERGY_PER_TRX = TOTAL_ENERGY_LIMIT / TOTAL_ENERGY_WEIGHT;
export const ENERGY_TO_HOLDER = 14_650n;
export const ENERGY_TO_NEW = 29_650n;
/** Energy a reverting transfer burns before it stops. */
export const ENERGY_REVERT = 1_200n;
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const FLUSH_BASE = 8_000n;
export const FLUSH_DEPLOY = 45_000n;
export const FLUSH_NATIVE = 9_000n;
/** `flush(address,bytes32,address[],bool)` and `implementation()`, by tronweb's keccak256. */
export const FLUSH_SELECTOR = utils.ethersUtils.id('flush(address,bytes32,address[],bool)').slice(2, 10);
export const IMPLEMENTATION_SELECTOR = utils.ethersUtils.id('implementation()').slice(2, 10);
const ZERO41 = `41${'0'.repeat(40)}`;

export interface Account {
  balance: bigint;
  /** Stake 2.0 for energy (sun), own. */
  frozenEnergy: bigint;
  /** Delegated to others, by receiver. */
  delegatedTo: Map<string, bigint>;
  /** Delegated to this account (sun of stake). */
  acquired: bigint;
  energyUsed: bigint;
  freeNetUsed: bigint;
  createTime: number;
}

export interface State {
  accounts: Map<string, Account>;
  /** TRC-20 balances by contract (41-hex) then holder (41-hex). */
  tokens: Map<string, Map<string, bigint>>;
  /** Forwarder factories (41-hex) and the implementation each one's constructor created (41-hex). */
  factories: Map<string, string>;
  /** Deposit addresses (41-hex) a factory has deployed. */
  forwarders: Set<string>;
  /** Contract accounts (41-hex) whose code reverts when sent TRX (a cold address that refuses it). */
  refusesTrx: Set<string>;
}

export function emptyState(): State {
  return { accounts: new Map(), tokens: new Map(), factories: new Map(), forwarders: new Set(), refusesTrx: new Set() };
}

/** A factory's `flush` call, as tronweb's ABI coder reads the call data (addresses 41-hex). */
export interface FlushCall {
  cold: string;
  salt: string;
  tokens: string[];
  native: boolean;
}

/** The call data of a factory call decoded by tronweb, or null when it is not `flush`. */
export function decodeFlushCall(data: string): FlushCall | null {
  const d = data.toLowerCase().replace(/^0x/, '');
  if (!d.startsWith(FLUSH_SELECTOR)) return null;
  try {
    const r = utils.abi.decodeParams(['cold', 'salt', 'tokens', 'native'], ['address', 'bytes32', 'address[]', 'bool'], `0x${d.slice(8)}`, false) as any;
    return { cold: String(r.cold).toLowerCase(), salt: String(r.salt).toLowerCase(), tokens: [...r.tokens].map((t: string) => `41${t.slice(2).toLowerCase()}`), native: r.native === true };
  } catch {
    return null;
  }
}

/**
 * The deposit address a factory deploys for (cold, salt), by the TVM's CREATE2 rule (java-tron
 * WalletUtil.generateContractAddress2): keccak256(0x41 ++ factory ++ salt ++ keccak256(init code)),
 * last 20 bytes; the init code is ForwarderFactory.proxyInitCode's. tronweb's keccak256 only.
 */
export function tvmForwarderAddress(factory: string, implementation: string, cold: string, salt: string): string {
  const k = utils.ethersUtils.keccak256;
  const init = '0x3d604780600a3d3981f3' + '36600557005b363d3d373d3d3d363d73' + implementation.slice(2) + '5af43d82803e903d91603157fd5bf3' + cold.slice(2);
  return `41${k('0x41' + factory.slice(2) + salt.replace(/^0x/, '') + k(init).slice(2)).slice(-40)}`;
}

/** What a factory flush does to `s` (applied when `apply`; only measured otherwise). */
function runFlush(s: State, factory: string, call: FlushCall, mutate: boolean): { energy: bigint; reverted: boolean; forwarder: string; logs: NonNullable<Info['log']>; moved: { trx: bigint; tokens: Map<string, bigint> } } {
  const implementation = s.factories.get(factory)!;
  const forwarder = tvmForwarderAddress(factory, implementation, call.cold, call.salt);
  let energy = FLUSH_BASE;
  const logs: NonNullable<Info['log']> = [];
  const moved = { trx: 0n, tokens: new Map<string, bigint>() };
  const revert = () => ({ energy: energy + ENERGY_REVERT, reverted: true, forwarder, logs: [], moved: { trx: 0n, tokens: new Map() } });
  if (call.cold === ZERO41) return revert();
  if (!s.forwarders.has(forwarder)) energy += FLUSH_DEPLOY;
  const trx = call.native ? (s.accounts.get(forwarder)?.balance ?? 0n) : 0n;
  if (trx > 0n) {
    if (s.refusesTrx.has(call.cold)) return revert(); // NativeTransferFailed
    energy += FLUSH_NATIVE;
    moved.trx = trx;
  }
  for (const token of call.tokens) {
    if (!s.tokens.has(token)) return revert(); // TokenBalanceFailed: no 32-byte balanceOf answer
    const units = tokenBalance(s, token, forwarder);
    if (units === 0n) continue;
    energy += tokenBalance(s, token, call.cold) > 0n || moved.tokens.has(token) ? ENERGY_TO_HOLDER : ENERGY_TO_NEW;
    moved.tokens.set(token, (moved.tokens.get(token) ?? 0n) + units);
    logs.push({ address: token.slice(2), topics: [TRANSFER_TOPIC, forwarder.slice(2).padStart(64, '0'), call.cold.slice(2).padStart(64, '0')], data: units.toString(16).padStart(64, '0') });
  }
  if (mutate) {
    s.forwarders.add(forwarder);
    if (moved.trx > 0n) {
      s.accounts.get(forwarder)!.balance -= moved.trx;
      if (!s.accounts.has(call.cold)) s.accounts.set(call.cold, newAccount(0));
      s.accounts.get(call.cold)!.balance += moved.trx;
    }
    for (const [token, units] of moved.tokens) {
      const book = s.tokens.get(token)!;
      book.set(forwarder, 0n);
      book.set(call.cold, (book.get(call.cold) ?? 0n) + units);
    }
  }
  return { energy, reverted: false, forwarder, logs, moved };
}

/** What a transaction does, as tronweb decoded it from the signed bytes. */
export type Effect =
  | { type: 'TransferContract'; owner: string; to: string; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: string; contract: string; data: string; callValue: bigint; feeLimit: bigint }
  | { type: 'DelegateResourceContract'; owner: string; receiver: string; balance: bigint; resource: string }
  | { type: 'UnDelegateResourceContract'; owner: string; receiver: string; balance: bigint; resource: string };

export interface Info {
  id: string;
  fee: number;
  blockNumber: number;
  blockTimeStamp: number;
  contractResult: string[];
  contract_address?: string;
  receipt: Record<string, unknown>;
  log?: Array<{ address: string; topics: string[]; data: string }>;
  result?: 'FAILED';
  resMessage?: string;
}

export class Refused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function cloneState(s: State): State {
  return {
    accounts: new Map([...s.accounts].map(([k, a]) => [k, { ...a, delegatedTo: new Map(a.delegatedTo) }])),
    tokens: new Map([...s.tokens].map(([k, m]) => [k, new Map(m)])),
    factories: new Map(s.factories),
    forwarders: new Set(s.forwarders),
    refusesTrx: new Set(s.refusesTrx),
  };
}

export function newAccount(now: number): Account {
  return { balance: 0n, frozenEnergy: 0n, delegatedTo: new Map(), acquired: 0n, energyUsed: 0n, freeNetUsed: 0n, createTime: now };
}

export function energyLimit(a: Account): bigint {
  let delegated = 0n;
  for (const v of a.delegatedTo.values()) delegated += v;
  return ((a.frozenEnergy - delegated + a.acquired) / 1_000_000n) * ENERGY_PER_TRX;
}

export function tokenBalance(s: State, contract: string, holder: string): bigint {
  return s.tokens.get(contract)?.get(holder) ?? 0n;
}

/** `transfer(address,uint256)` call data: the recipient (41-hex) and amount, or null. */
export function decodeTransferCall(data: string): { to: string; amount: bigint } | null {
  const d = data.toLowerCase().replace(/^0x/, '');
  if (!d.startsWith('a9059cbb') || d.length !== 8 + 128) return null;
  return { to: `41${d.slice(8 + 24, 8 + 64)}`, amount: BigInt(`0x${d.slice(8 + 64)}`) };
}

/** Energy a token call would use now, and whether it reverts (triggerconstantcontract). */
export function simulateCall(s: State, owner: string, contract: string, data: string): { energy: bigint; reverted: boolean; result: string } {
  const d = data.toLowerCase();
  if (s.factories.has(contract)) {
    if (d === IMPLEMENTATION_SELECTOR) return { energy: 300n, reverted: false, result: s.factories.get(contract)!.slice(2).padStart(64, '0') };
    const call = decodeFlushCall(d);
    if (!call) return { energy: ENERGY_REVERT, reverted: true, result: '' };
    const r = runFlush(s, contract, call, false);
    return { energy: r.energy, reverted: r.reverted, result: r.reverted ? '' : r.forwarder.slice(2).padStart(64, '0') };
  }
  if (d.startsWith('70a08231') && d.length === 72) {
    return { energy: 500n, reverted: false, result: tokenBalance(s, contract, `41${d.slice(32)}`).toString(16).padStart(64, '0') };
  }
  const call = decodeTransferCall(d);
  if (!call || !s.tokens.has(contract)) return { energy: ENERGY_REVERT, reverted: true, result: '' };
  if (tokenBalance(s, contract, owner) < call.amount) return { energy: ENERGY_REVERT, reverted: true, result: '' };
  const energy = tokenBalance(s, contract, call.to) > 0n || call.to === owner ? ENERGY_TO_HOLDER : ENERGY_TO_NEW;
  return { energy, reverted: false, result: '1'.padStart(64, '0') };
}

/** Checks a transaction can be taken into the pool (java-tron's validate()); throws Refused. */
export function validate(s: State, e: Effect): void {
  const owner = s.accounts.get(e.owner);
  if (!owner) throw new Refused('CONTRACT_VALIDATE_ERROR', `Validate ${e.type} error, no OwnerAccount.`);
  switch (e.type) {
    case 'TransferContract':
      if (e.amount <= 0n) throw new Refused('CONTRACT_VALIDATE_ERROR', 'Amount must be greater than 0.');
      if (e.owner === e.to) throw new Refused('CONTRACT_VALIDATE_ERROR', 'Cannot transfer TRX to yourself.');
      if (owner.balance < e.amount) throw new Refused('CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, balance is not sufficient.');
      return;
    case 'TriggerSmartContract':
      if (!s.tokens.has(e.contract) && !s.factories.has(e.contract)) throw new Refused('CONTRACT_VALIDATE_ERROR', 'No contract or not a smart contract');
      return;
    case 'DelegateResourceContract': {
      if (!s.accounts.has(e.receiver)) throw new Refused('CONTRACT_VALIDATE_ERROR', 'Account does not exist');
      let delegated = 0n;
      for (const v of owner.delegatedTo.values()) delegated += v;
      if (e.balance < 1_000_000n) throw new Refused('CONTRACT_VALIDATE_ERROR', 'delegateBalance must be greater than or equal to 1 TRX');
      if (owner.frozenEnergy - delegated < e.balance) throw new Refused('CONTRACT_VALIDATE_ERROR', 'delegateBalance must be less than or equal to available FreezeEnergyV2 balance');
      return;
    }
    case 'UnDelegateResourceContract':
      if ((owner.delegatedTo.get(e.receiver) ?? 0n) < e.balance) throw new Refused('CONTRACT_VALIDATE_ERROR', 'insufficient delegatedFrozenBalance(Energy)');
      return;
  }
}

/**
 * Applies a transaction in a block; returns its info (java-tron's TransactionInfo shape) and its
 * contractRet. `bytes` is its bandwidth size.
 */
export function apply(s: State, e: Effect, txid: string, bytes: bigint, block: { number: number; timestamp: number }): { info: Info; contractRet: string } {
  const owner = s.accounts.get(e.owner)!;
  const info: Info = { id: txid, fee: 0, blockNumber: block.number, blockTimeStamp: block.timestamp, contractResult: [''], receipt: {} };
  let fee = 0n;
  // Bandwidth (a transfer creating its recipient pays the creation fee instead).
  const creates = e.type === 'TransferContract' && !s.accounts.has(e.to);
  if (creates) {
    fee += PARAMS.getCreateNewAccountFeeInSystemContract + PARAMS.getCreateAccountFee;
    info.receipt.net_fee = Number(PARAMS.getCreateAccountFee);
  } else if (owner.freeNetUsed + bytes <= PARAMS.getFreeNetLimit) {
    owner.freeNetUsed += bytes;
    info.receipt.net_usage = Number(bytes);
  } else {
    fee += bytes * PARAMS.getTransactionFee;
    info.receipt.net_fee = Number(bytes * PARAMS.getTransactionFee);
  }
  const fail = (result: string, message: string): { info: Info; contractRet: string } => {
    owner.balance -= fee > owner.balance ? owner.balance : fee;
    info.fee = Number(fee);
    info.result = 'FAILED';
    info.resMessage = Buffer.from(message).toString('hex');
    info.receipt.result = result;
    return { info, contractRet: result };
  };
  if (owner.balance < fee) return fail('OUT_OF_ENERGY', 'not enough TRX for bandwidth');

  switch (e.type) {
    case 'TransferContract': {
      if (owner.balance < e.amount + fee) return fail('FAILED', 'balance is not sufficient');
      owner.balance -= e.amount + fee;
      if (creates) s.accounts.set(e.to, newAccount(block.timestamp));
      s.accounts.get(e.to)!.balance += e.amount;
      info.fee = Number(fee);
      return { info, contractRet: 'SUCCESS' };
    }
    case 'TriggerSmartContract': {
      info.contract_address = e.contract;
      const sim = simulateCall(s, e.owner, e.contract, e.data);
      const available = energyLimit(owner) - owner.energyUsed;
      const fromStake = sim.energy < available ? sim.energy : available > 0n ? available : 0n;
      const burn = (sim.energy - fromStake) * PARAMS.getEnergyFee;
      if (burn > e.feeLimit || owner.balance < fee + burn) {
        fee += e.feeLimit < owner.balance - fee ? e.feeLimit : owner.balance - fee;
        return fail('OUT_OF_ENERGY', 'Not enough energy');
      }
      owner.energyUsed += fromStake;
      fee += burn;
      owner.balance -= fee;
      info.fee = Number(fee);
      info.receipt.energy_usage_total = Number(sim.energy);
      if (fromStake > 0n) info.receipt.energy_usage = Number(fromStake);
      if (burn > 0n) info.receipt.energy_fee = Number(burn);
      if (sim.reverted) {
        info.result = 'FAILED';
        info.resMessage = Buffer.from('REVERT opcode executed').toString('hex');
        info.receipt.result = 'REVERT';
        return { info, contractRet: 'REVERT' };
      }
      info.receipt.result = 'SUCCESS';
      info.contractResult = [sim.result];
      if (s.factories.has(e.contract)) {
        const r = runFlush(s, e.contract, decodeFlushCall(e.data)!, true);
        if (r.logs.length) info.log = r.logs;
        return { info, contractRet: 'SUCCESS' };
      }
      const call = decodeTransferCall(e.data)!;
      const book = s.tokens.get(e.contract)!;
      book.set(e.owner, (book.get(e.owner) ?? 0n) - call.amount);
      book.set(call.to, (book.get(call.to) ?? 0n) + call.amount);
      info.receipt.result = 'SUCCESS';
      info.contractResult = [sim.result];
      info.log = [
        {
          address: e.contract.slice(2),
          topics: [TRANSFER_TOPIC, e.owner.slice(2).padStart(64, '0'), call.to.slice(2).padStart(64, '0')],
          data: call.amount.toString(16).padStart(64, '0'),
        },
      ];
      return { info, contractRet: 'SUCCESS' };
    }
    case 'DelegateResourceContract': {
      owner.balance -= fee;
      info.fee = Number(fee);
      owner.delegatedTo.set(e.receiver, (owner.delegatedTo.get(e.receiver) ?? 0n) + e.balance);
      s.accounts.get(e.receiver)!.acquired += e.balance;
      return { info, contractRet: 'SUCCESS' };
    }
    case 'UnDelegateResourceContract': {
      owner.balance -= fee;
      info.fee = Number(fee);
      const left = (owner.delegatedTo.get(e.receiver) ?? 0n) - e.balance;
      if (left > 0n) owner.delegatedTo.set(e.receiver, left);
      else owner.delegatedTo.delete(e.receiver);
      const r = s.accounts.get(e.receiver)!;
      r.acquired -= e.balance;
      return { info, contractRet: 'SUCCESS' };
    }
  }
}
