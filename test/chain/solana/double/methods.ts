// The JSON-RPC methods of the Solana double, each translating to the chain (LiteSVM plus the
// signature index) and answering in the node's shapes: results of account reads inside
// {context: {slot, apiVersion}, value}, errors as JSON-RPC errors with the node's codes (-32602
// invalid params, -32002 preflight failure with its simulation data, -32015 a versioned
// transaction asked for without maxSupportedTransactionVersion). Default commitment is
// `finalized`, as on a node; getSignaturesForAddress and getTransaction refuse `processed`.
import type { Address } from '@solana/kit';
import { getCompiledTransactionMessageDecoder } from '@solana/kit';
import { BLOCKHASH_VALIDITY, decodeWire, fromB58, LAMPORTS_PER_SIGNATURE, toB58, type Commitment, type SolanaChain } from './chain.ts';
import { describeError } from './errors.ts';
import { renderTransaction } from './render.ts';
import { readTokenAccount, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount } from './tokens.ts';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const invalid = (msg: string) => new RpcError(-32602, `Invalid params: ${msg}`);

function config(params: unknown[], at: number): Record<string, unknown> {
  const c = params[at];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) throw invalid('invalid type: expected struct config');
  return c as Record<string, unknown>;
}

function commitmentOf(c: Record<string, unknown>, min: Commitment = 'processed'): Commitment {
  const v = c.commitment ?? 'finalized';
  if (v !== 'processed' && v !== 'confirmed' && v !== 'finalized') throw invalid(`unknown variant \`${String(v)}\``);
  if (min === 'confirmed' && v === 'processed') throw invalid('Method does not support commitment below `confirmed`');
  return v;
}

function pubkey(v: unknown): string {
  if (typeof v !== 'string') throw invalid('invalid type: expected a string pubkey');
  let bytes: Uint8Array;
  try {
    bytes = fromB58(v);
  } catch {
    throw invalid('Invalid param: Invalid');
  }
  if (bytes.length !== 32) throw invalid('Invalid param: WrongSize');
  return v;
}

function signature(v: unknown): string {
  if (typeof v !== 'string') throw invalid('invalid type: expected a string signature');
  let bytes: Uint8Array;
  try {
    bytes = fromB58(v);
  } catch {
    throw invalid('Invalid param: Invalid');
  }
  if (bytes.length !== 64) throw invalid('Invalid param: WrongSize');
  return v;
}

function decodeBytes(s: unknown, encoding: unknown): Uint8Array {
  if (typeof s !== 'string') throw invalid('invalid type: expected a string');
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) throw invalid('invalid base64 encoding');
    return new Uint8Array(Buffer.from(s, 'base64'));
  }
  if (encoding === undefined || encoding === 'base58') {
    try {
      return fromB58(s);
    } catch {
      throw invalid('invalid base58 encoding');
    }
  }
  throw invalid(`unknown variant \`${String(encoding)}\``);
}

function accountJson(chain: SolanaChain, address: string, encoding: unknown) {
  const a = chain.svm.getAccount(address as Address);
  if (!a.exists) return null;
  const owner = String(a.programAddress);
  const base = { lamports: BigInt(a.lamports), owner, executable: a.executable, rentEpoch: 18446744073709551615n, space: a.data.length };
  if (encoding === 'jsonParsed' && (owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM)) {
    const program = owner === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    const t = readTokenAccount(owner, a.data as Uint8Array);
    if (t) {
      const m = chain.svm.getAccount(t.mint as Address);
      const decimals = m.exists ? m.data[44]! : 0;
      const info = { isNative: false, mint: t.mint, owner: t.owner, state: a.data[108] === 2 ? 'frozen' : 'initialized', tokenAmount: uiTokenAmount(t.amount, decimals) };
      return { ...base, data: { program, parsed: { info, type: 'account' }, space: a.data.length } };
    }
    if (a.data.length >= 82 && a.data[45] === 1) {
      const d = a.data;
      let supply = 0n;
      for (let i = 7; i >= 0; i--) supply = (supply << 8n) | BigInt(d[36 + i]!);
      const opt = (tag: number, at: number) => (d[tag] === 1 ? toB58(d.subarray(at, at + 32)) : null);
      const info = { decimals: d[44]!, freezeAuthority: opt(46, 50), isInitialized: true, mintAuthority: opt(0, 4), supply: supply.toString() };
      return { ...base, data: { program, parsed: { info, type: 'mint' }, space: a.data.length } };
    }
  }
  if (encoding === 'base58') return { ...base, data: [toB58(a.data), 'base58'] };
  return { ...base, data: [Buffer.from(a.data).toString('base64'), 'base64'] };
}

export type Handler = (chain: SolanaChain, params: unknown[]) => unknown;

function ctx(chain: SolanaChain, c: Commitment = 'finalized') {
  return { slot: chain.slotAt(c), apiVersion: '2.2.0' };
}

function sendTransaction(chain: SolanaChain, params: unknown[]): string {
  const c = config(params, 1);
  let tx;
  try {
    tx = decodeWire(decodeBytes(params[0], c.encoding));
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw invalid(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`);
  }
  const sig = tx.signatures[0]!;
  const preflight = c.skipPreflight !== true;
  const fail = (err: unknown, logs: string[]) =>
    new RpcError(-32002, `Transaction simulation failed: ${describeError(err)}`, { accounts: null, err, innerInstructions: null, logs, replacementBlockhash: null, returnData: null, unitsConsumed: 0 });
  // A duplicate or an expired blockhash never executes; with preflight the node says why, without
  // it the node accepts the bytes and the leader drops them.
  if (chain.get(sig)) {
    if (preflight) throw fail('AlreadyProcessed', []);
    return sig;
  }
  if (!chain.isBlockhashValid(tx.recentBlockhash)) {
    if (preflight) throw fail('BlockhashNotFound', []);
    return sig;
  }
  if (preflight) {
    const sim = chain.simulate(tx);
    if (sim.err !== null) throw fail(sim.err, sim.logs);
  }
  chain.execute(tx);
  return sig;
}

function getSignaturesForAddress(chain: SolanaChain, params: unknown[]) {
  const address = pubkey(params[0]);
  const c = config(params, 1);
  const commitment = commitmentOf(c, 'confirmed');
  const limit = c.limit ?? 1000;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) throw invalid('Invalid limit; max 1000');
  const before = c.before === undefined || c.before === null ? null : signature(c.before);
  const until = c.until === undefined || c.until === null ? null : signature(c.until);
  const list = chain.signaturesOf(address).filter((e) => chain.visibleAt(e, commitment));
  let start = 0;
  if (before !== null) {
    const i = list.findIndex((e) => e.tx.signatures[0] === before);
    if (i < 0) return [];
    start = i + 1;
  }
  const out = [];
  for (let i = start; i < list.length && out.length < limit; i++) {
    const e = list[i]!;
    if (until !== null && e.tx.signatures[0] === until) break;
    out.push({ signature: e.tx.signatures[0], slot: e.slot, err: e.err, memo: null, blockTime: e.blockTime, confirmationStatus: chain.statusOf(e) });
  }
  return out;
}

function getTransaction(chain: SolanaChain, params: unknown[]) {
  const sig = signature(params[0]);
  const c = typeof params[1] === 'string' ? { encoding: params[1] } : config(params, 1);
  const commitment = commitmentOf(c, 'confirmed');
  const encoding = c.encoding ?? 'json';
  if (encoding !== 'json' && encoding !== 'jsonParsed') throw invalid(`unsupported encoding for the double: ${String(encoding)}`);
  const max = c.maxSupportedTransactionVersion;
  if (max !== undefined && max !== null && max !== 0) throw invalid('maxSupportedTransactionVersion must be 0');
  const e = chain.get(sig);
  if (!e || !chain.visibleAt(e, commitment)) return null;
  if (e.tx.version === 0 && (max === undefined || max === null)) {
    throw new RpcError(-32015, 'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0');
  }
  return renderTransaction(e, encoding, max === 0);
}

function getSignatureStatuses(chain: SolanaChain, params: unknown[]) {
  const sigs = params[0];
  if (!Array.isArray(sigs)) throw invalid('invalid type: expected a sequence of signatures');
  if (sigs.length > 256) throw invalid('Too many inputs provided; max 256');
  const history = config(params, 1).searchTransactionHistory === true;
  const value = sigs.map((s) => {
    const e = chain.get(signature(s));
    // Without searchTransactionHistory a node answers from its recent status cache only.
    if (!e || (!history && chain.slot - e.slot > BLOCKHASH_VALIDITY)) return null;
    const status = chain.statusOf(e);
    return { slot: e.slot, confirmations: status === 'finalized' ? null : Number(chain.slot - e.slot), err: e.err, status: e.err === null ? { Ok: null } : { Err: e.err }, confirmationStatus: status };
  });
  return { context: ctx(chain, 'processed'), value };
}

export const METHODS: Record<string, Handler> = {
  getSlot: (chain, p) => chain.slotAt(commitmentOf(config(p, 0))),
  getBlockHeight: (chain, p) => chain.heightOf(chain.slotAt(commitmentOf(config(p, 0)))),
  getLatestBlockhash: (chain, p) => {
    const slot = chain.slotAt(commitmentOf(config(p, 0)));
    return { context: { slot, apiVersion: '2.2.0' }, value: { blockhash: chain.blockhashAt(slot), lastValidBlockHeight: chain.heightOf(slot) + BLOCKHASH_VALIDITY } };
  },
  isBlockhashValid: (chain, p) => {
    if (typeof p[0] !== 'string') throw invalid('invalid type: expected a string blockhash');
    return { context: ctx(chain, commitmentOf(config(p, 1))), value: chain.isBlockhashValid(p[0]) };
  },
  getBalance: (chain, p) => {
    const a = chain.svm.getAccount(pubkey(p[0]) as Address);
    return { context: ctx(chain, commitmentOf(config(p, 1))), value: a.exists ? BigInt(a.lamports) : 0n };
  },
  getAccountInfo: (chain, p) => {
    const c = config(p, 1);
    return { context: ctx(chain, commitmentOf(c)), value: accountJson(chain, pubkey(p[0]), c.encoding ?? 'base58') };
  },
  getTokenAccountsByOwner: (chain, p) => {
    const owner = pubkey(p[0]);
    const filter = p[1] as { mint?: unknown; programId?: unknown } | undefined;
    if (!filter || typeof filter !== 'object' || (filter.mint === undefined) === (filter.programId === undefined)) throw invalid('Invalid params: expected {mint} or {programId}');
    const c = config(p, 2);
    const mint = filter.mint === undefined ? null : pubkey(filter.mint);
    const programs = filter.programId === undefined ? [TOKEN_PROGRAM, TOKEN_2022_PROGRAM] : [pubkey(filter.programId)];
    if (!programs.every((x) => x === TOKEN_PROGRAM || x === TOKEN_2022_PROGRAM)) throw invalid('Invalid param: unrecognized Token program id');
    const value = [];
    for (const prog of programs) {
      for (const acc of chain.svm.getProgramAccounts(prog as Address)) {
        const t = readTokenAccount(prog, acc.data as Uint8Array);
        if (!t || t.owner !== owner || (mint !== null && t.mint !== mint)) continue;
        value.push({ pubkey: String(acc.address), account: accountJson(chain, String(acc.address), c.encoding ?? 'base58') });
      }
    }
    return { context: ctx(chain, commitmentOf(c)), value };
  },
  getMinimumBalanceForRentExemption: (chain, p) => {
    const n = p[0];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw invalid('invalid type: expected usize');
    return chain.svm.minimumBalanceForRentExemption(BigInt(n));
  },
  getFeeForMessage: (chain, p) => {
    const c = config(p, 1);
    let msg;
    try {
      msg = getCompiledTransactionMessageDecoder().decode(decodeBytes(p[0], 'base64'));
    } catch (e) {
      if (e instanceof RpcError) throw e;
      throw invalid('invalid message');
    }
    const fee = chain.isBlockhashValid(String(msg.lifetimeToken)) ? LAMPORTS_PER_SIGNATURE * BigInt(msg.header.numSignerAccounts) : null;
    return { context: ctx(chain, commitmentOf(c)), value: fee };
  },
  getSignaturesForAddress,
  getTransaction,
  getSignatureStatuses,
  sendTransaction,
};
