// The shapes of the toncenter API v2 answers the `ton` driver uses, checked before use with the
// shared rules of src/chain/node-values.ts: seqnos and counts as safe integers, logical times and
// amounts as decimal strings below their TL-B widths, hashes as 32 bytes of base64, addresses in
// raw or user-friendly form with a valid checksum, BOCs as base64. Whatever fails is the node's
// fault (FaultyNodeError), never a TypeError, a lost digit or a credit.
import { base64, base64url } from '@scure/base';
import { bytesToHex } from '@noble/hashes/utils.js';
import { FaultyNodeError } from '../errors.ts';
import { heightNumber, intNumber, list, record } from '../node-values.ts';
import { crc16 } from '../address/ton.ts';
import { Builder, parseBoc, type Cell, type Slice, type TonAddress } from './cell.ts';

/** A transaction of an account as getTransactions lists it, checked. */
export interface TonTx {
  lt: bigint;
  /** The transaction's hash as the node wrote it (base64), for paging. */
  hashB64: string;
  /** The same hash, 64 lowercase hex digits (the gateway's txid). */
  hash: string;
  utime: number;
  /** The whole transaction, a base64 BOC: what detection reads (its hash must be `hash`). */
  data: string;
  /** The incoming message as the node decoded it (null: none); only the BOC in `data` is trusted. */
  inMsg: { source: string | null; value: bigint; message: string | null } | null;
}

export interface TonAccountInfo {
  balance: bigint;
  state: string;
  lastTransaction: { lt: bigint; hashB64: string } | null;
}

export interface TonWalletInfo {
  wallet: boolean;
  balance: bigint;
  state: string;
  walletType: string | null;
  seqno: number | null;
}

/** A stack entry of a get-method's result: a number, or a cell/slice as a base64 BOC. */
export type TonStackEntry = { type: 'num'; value: bigint } | { type: 'cell'; boc: string } | { type: 'other'; name: string };

export interface TonGetResult {
  exitCode: number;
  stack: TonStackEntry[];
}

function fault(method: string, what: string): FaultyNodeError {
  return new FaultyNodeError(method, `the node answered a malformed ${what}`);
}

/** A decimal string (or, for small values, a JSON integer) below 2^bits. */
export function uintString(method: string, what: string, v: unknown, bits: number): bigint {
  let n: bigint;
  if (typeof v === 'string' && /^\d{1,40}$/.test(v)) n = BigInt(v);
  else if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  else throw fault(method, what);
  if (n >= 1n << BigInt(bits)) throw fault(method, what);
  return n;
}

/** 32 bytes written in base64 (standard or URL-safe) or 64 hex digits. */
export function hashBytes(method: string, what: string, v: unknown): Uint8Array {
  if (typeof v === 'string' && /^[0-9a-fA-F]{64}$/.test(v)) return Uint8Array.from(v.match(/../g)!.map((h) => parseInt(h, 16)));
  if (typeof v !== 'string' || v.length !== 44) throw fault(method, what);
  try {
    return /[-_]/.test(v) ? base64url.decode(v) : base64.decode(v);
  } catch {
    throw fault(method, what);
  }
}

/** A base64 BOC (non-empty, standard alphabet with padding or URL-safe). */
export function bocBytes(method: string, what: string, v: unknown): Uint8Array {
  if (typeof v !== 'string' || v === '' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(v)) throw fault(method, what);
  const s = v.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  try {
    return base64.decode(s + '='.repeat((4 - (s.length % 4)) % 4));
  } catch {
    throw fault(method, what);
  }
}

/**
 * An address as the node prints it: raw `wc:hex`, or user-friendly (any flags: nodes print every
 * address with the mainnet flag), as raw `wc:<64 lowercase hex>`; '' or absent (an external
 * message's source) is null.
 */
export function nodeAddress(method: string, what: string, v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw fault(method, what);
  const raw = /^(-?\d{1,3}):([0-9a-fA-F]{64})$/.exec(v);
  if (raw) return `${Number(raw[1])}:${raw[2]!.toLowerCase()}`;
  if (!/^[A-Za-z0-9+/_-]{48}$/.test(v)) throw fault(method, what);
  const bytes = /[-_]/.test(v) ? base64url.decode(v) : base64.decode(v);
  if (crc16(bytes.subarray(0, 34)) !== ((bytes[34]! << 8) | bytes[35]!)) throw fault(method, what);
  const wc = bytes[1]! > 127 ? bytes[1]! - 256 : bytes[1]!;
  return `${wc}:${bytesToHex(bytes.subarray(2, 34))}`;
}

export function checkMasterchainInfo(method: string, v: unknown): number {
  const last = record(method, 'the last masterchain block', record(method, 'masterchain info', v).last);
  return heightNumber(method, last.seqno);
}

function checkTxId(method: string, v: unknown): { lt: bigint; hashB64: string; hash: string } {
  const id = record(method, 'a transaction id', v);
  const lt = uintString(method, 'logical time', id.lt, 64);
  const bytes = hashBytes(method, 'transaction hash', id.hash);
  return { lt, hashB64: id.hash as string, hash: bytesToHex(bytes) };
}

export function checkTransactions(method: string, v: unknown, limit: number): TonTx[] {
  const txs = list(method, 'the transactions', v);
  if (txs.length > limit) throw new FaultyNodeError(method, `asked for at most ${limit} transactions, the node answered ${txs.length}`);
  return txs.map((t) => {
    const tx = record(method, 'a transaction', t);
    const id = checkTxId(method, tx.transaction_id);
    const utime = intNumber(method, 'a transaction time', tx.utime, 2 ** 32 - 1);
    bocBytes(method, 'transaction BOC', tx.data);
    let inMsg: TonTx['inMsg'] = null;
    if (tx.in_msg !== undefined && tx.in_msg !== null) {
      const m = record(method, 'an incoming message', tx.in_msg);
      const message = typeof m.message === 'string' ? m.message : null;
      inMsg = { source: nodeAddress(method, 'message source', m.source), value: m.value === undefined ? 0n : uintString(method, 'message value', m.value, 120), message };
    }
    return { ...id, utime, data: tx.data as string, inMsg };
  });
}

export function checkAddressInformation(method: string, v: unknown): TonAccountInfo {
  const r = record(method, 'address information', v);
  const state = typeof r.state === 'string' ? r.state : 'uninitialized';
  let lastTransaction: TonAccountInfo['lastTransaction'] = null;
  if (r.last_transaction_id !== undefined && r.last_transaction_id !== null) {
    const id = checkTxId(method, r.last_transaction_id);
    if (id.lt !== 0n) lastTransaction = { lt: id.lt, hashB64: id.hashB64 };
  }
  return { balance: uintString(method, 'balance', r.balance ?? '0', 120), state, lastTransaction };
}

export function checkWalletInformation(method: string, v: unknown): TonWalletInfo {
  const r = record(method, 'wallet information', v);
  const seqno = r.seqno === undefined || r.seqno === null ? null : intNumber(method, 'a wallet seqno', r.seqno, 2 ** 32 - 1);
  return {
    wallet: r.wallet === true,
    balance: uintString(method, 'balance', r.balance ?? '0', 120),
    state: typeof r.account_state === 'string' ? r.account_state : 'uninitialized',
    walletType: typeof r.wallet_type === 'string' ? r.wallet_type : null,
    seqno,
  };
}

export function checkRunGetMethod(method: string, v: unknown): TonGetResult {
  const r = record(method, 'get-method result', v);
  const exit = r.exit_code;
  if (typeof exit !== 'number' || !Number.isSafeInteger(exit) || Math.abs(exit) > 2 ** 31) throw fault(method, 'exit code');
  const stack = list(method, 'the stack', r.stack).map((e): TonStackEntry => {
    const entry = list(method, 'a stack entry', e);
    const [type, value] = entry;
    if (typeof type !== 'string') throw fault(method, 'stack entry');
    if (type === 'num') {
      if (typeof value !== 'string' || !/^-?0x[0-9a-fA-F]{1,64}$/.test(value)) throw fault(method, 'stack number');
      return { type: 'num', value: value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value) };
    }
    if (type === 'cell' || type === 'slice' || type === 'tvm.Cell' || type === 'tvm.Slice') {
      const boc = typeof value === 'string' ? value : record(method, 'a stack cell', value).bytes;
      bocBytes(method, 'stack cell', boc);
      return { type: 'cell', boc: boc as string };
    }
    return { type: 'other', name: type.slice(0, 40) };
  });
  return { exitCode: exit, stack };
}

// ----------------------------------------------------------------- the transaction BOC

/** The parts of a transaction (its BOC, `data`) detection reads. */
export interface TonTxContent {
  /** The account's 32-byte hash the transaction belongs to. */
  account: Uint8Array;
  lt: bigint;
  inMsg: TonInMessage | null;
  /** The transaction was aborted (an ordinary transaction); null when of another kind. */
  aborted: boolean | null;
}

export interface TonInMessage {
  /** False for an external message (a wallet's owner sending from it): never a payment. */
  internal: boolean;
  bounce: boolean;
  bounced: boolean;
  source: TonAddress | null;
  value: bigint;
  body: Cell | null;
}

const BOC_LIMITS = { maxBytes: 256 * 1024, maxCells: 4096, maxDepth: 256 };

/**
 * Reads a transaction's BOC: it must be the transaction the node named (its hash is the
 * transaction id, its logical time the one listed), of `account`. What the node decoded beside it
 * (`in_msg`, `message`) is not used: only these bytes, whose hash the id binds.
 */
export function readTransaction(method: string, tx: TonTx, account: Uint8Array): TonTxContent {
  let content: TonTxContent;
  try {
    const roots = parseBoc(bocBytes(method, 'transaction BOC', tx.data), BOC_LIMITS);
    if (roots.length !== 1) throw new FaultyNodeError(method, 'a transaction BOC holds more than one root');
    const root = roots[0]!;
    if (bytesToHex(root.hash()) !== tx.hash) throw new FaultyNodeError(method, `transaction ${tx.hash}: its BOC has another hash`);
    content = parseTransaction(root);
  } catch (err) {
    if (err instanceof FaultyNodeError) throw err;
    throw new FaultyNodeError(method, `transaction ${tx.hash}: unreadable BOC (${(err as Error).message.slice(0, 120)})`);
  }
  if (bytesToHex(content.account) !== bytesToHex(account)) throw new FaultyNodeError(method, `transaction ${tx.hash} belongs to another account`);
  if (content.lt !== tx.lt) throw new FaultyNodeError(method, `transaction ${tx.hash}: listed at logical time ${tx.lt}, its BOC says ${content.lt}`);
  return content;
}

function parseTransaction(root: Cell): TonTxContent {
  const s = root.beginParse();
  if (s.loadUintNumber(4) !== 0b0111) throw new Error('not a transaction');
  const account = s.loadBuffer(32);
  const lt = s.loadUint(64);
  s.skip(256 + 64 + 32 + 15 + 2 + 2);
  const msgs = s.loadRef().beginParse();
  const inMsgCell = msgs.loadBit() ? msgs.loadRef() : null;
  s.loadCoins();
  if (s.loadBit()) s.loadRef(); // total_fees' extra currencies
  s.loadRef(); // state_update
  const aborted = readAborted(s.loadRef().beginParse());
  return { account, lt, inMsg: inMsgCell ? parseMessage(inMsgCell) : null, aborted };
}

function parseMessage(cell: Cell): TonInMessage {
  const s = cell.beginParse();
  if (s.loadBit()) {
    // ext_in_msg_info$10 (or ext_out): no value, not a payment.
    return { internal: false, bounce: false, bounced: false, source: null, value: 0n, body: null };
  }
  s.loadBit(); // ihr_disabled
  const bounce = s.loadBit();
  const bounced = s.loadBit();
  const source = s.loadAddress();
  s.loadAddress(); // destination: the account, checked by the transaction's own field
  const value = s.loadCoins();
  if (s.loadBit()) s.loadRef(); // extra currencies
  s.loadCoins(); // ihr_fee
  s.loadCoins(); // fwd_fee
  s.skip(64 + 32);
  if (s.loadBit()) {
    // init: Either StateInit ^StateInit
    if (s.loadBit()) s.loadRef();
    else {
      if (s.loadBit()) s.skip(5);
      if (s.loadBit()) s.skip(2);
      for (let i = 0; i < 3; i++) if (s.loadBit()) s.loadRef();
    }
  }
  let body: Cell | null;
  if (s.loadBit()) body = s.loadRef();
  else body = s.remainingBits === 0 && s.remainingRefs === 0 ? null : new Builder().storeSlice(s).endCell();
  return { internal: true, bounce, bounced, source, value, body };
}

/** The `aborted` flag of an ordinary transaction's description; null for other kinds. */
export function readAborted(d: Slice): boolean | null {
  if (d.loadUintNumber(4) !== 0) return null;
  d.loadBit(); // credit_first
  if (d.loadBit()) {
    d.loadCoins();
    if (d.loadBit()) d.loadCoins();
    if (d.loadBit()) d.loadBit();
  }
  if (d.loadBit()) {
    if (d.loadBit()) d.loadCoins();
    d.loadCoins();
    if (d.loadBit()) d.loadRef();
  }
  if (d.loadBit()) {
    d.skip(3);
    d.loadCoins();
    d.loadRef();
  } else {
    // ComputeSkipReason: 00, 01, 10 or 110.
    const a = d.loadBit();
    const b = d.loadBit();
    if (a && b) d.loadBit();
  }
  if (d.loadBit()) d.loadRef(); // action phase
  return d.loadBit();
}
