// The message bodies and envelopes the TON family writes and reads: text comments (how a payer
// names the invoice), jetton transfer / transfer_notification (TEP-74, how USDT moves and is
// announced to the receiver), the internal message a wallet signs, and StateInit (how a wallet is
// deployed and where its address comes from). Readers of what arrives from the chain never throw:
// anything malformed reads as "not a payment we understand", which the driver reports unmatched.
import { beginCell, Builder, Cell, type Slice, type TonAddress } from './cell.ts';

export const OP = {
  comment: 0x00000000,
  encryptedComment: 0x2167da4b,
  jettonTransfer: 0x0f8a7ea5,
  jettonTransferNotification: 0x7362d09c,
} as const;

/** A text comment: op 0 and the UTF-8 text in snake format. */
export function commentBody(text: string): Cell {
  return beginCell().storeUint(OP.comment, 32).storeStringTail(text).endCell();
}

export type CommentReading = { kind: 'none' } | { kind: 'text'; text: string } | { kind: 'binary' } | { kind: 'other'; op: number };

/**
 * What a message body says as a comment. Text needs op 0 and valid UTF-8; an encrypted comment,
 * op 0 with bytes that are not UTF-8, or a body too short for an op are 'binary' (present but not
 * readable as text); any other op is 'other'.
 */
export function readComment(body: Cell | null): CommentReading {
  if (body === null || (body.bitLength === 0 && body.refs.length === 0)) return { kind: 'none' };
  try {
    const s = body.beginParse();
    if (s.remainingBits < 32) return { kind: 'binary' };
    const op = s.loadUintNumber(32);
    if (op === OP.encryptedComment || op === 0xffffffff) return { kind: 'binary' };
    if (op !== OP.comment) return { kind: 'other', op };
    return { kind: 'text', text: s.loadStringTail() };
  } catch {
    return { kind: 'binary' };
  }
}

export interface JettonTransfer {
  queryId: bigint;
  amount: bigint;
  destination: TonAddress;
  responseDestination: TonAddress | null;
  forwardTonAmount: bigint;
  forwardPayload: Cell | null;
}

/** The body sent to one's own jetton wallet to move jettons (no custom payload). */
export function jettonTransferBody(t: JettonTransfer): Cell {
  const b = beginCell()
    .storeUint(OP.jettonTransfer, 32)
    .storeUint(t.queryId, 64)
    .storeCoins(t.amount)
    .storeAddress(t.destination)
    .storeAddress(t.responseDestination)
    .storeBit(0)
    .storeCoins(t.forwardTonAmount);
  // Either Cell ^Cell: the payload by reference, so its size never has to fit here.
  return (t.forwardPayload ? b.storeBit(1).storeRef(t.forwardPayload) : b.storeBit(0)).endCell();
}

export interface TransferNotification {
  queryId: bigint;
  amount: bigint;
  sender: TonAddress | null;
  forwardPayload: Cell | null;
}

/**
 * A jetton wallet's transfer_notification to its owner, or null when the body is not one or is
 * malformed. forwardPayload is null when the notification carries none (no Either bit, or an
 * empty inline payload).
 */
export function parseTransferNotification(body: Cell): TransferNotification | null {
  try {
    const s = body.beginParse();
    if (s.loadUintNumber(32) !== OP.jettonTransferNotification) return null;
    const queryId = s.loadUint(64);
    const amount = s.loadCoins();
    const sender = s.loadAddress();
    return { queryId, amount, sender, forwardPayload: eitherPayload(s) };
  } catch {
    return null;
  }
}

/** Either Cell ^Cell read to the end of the slice; throws (caught above) on a missing reference. */
function eitherPayload(s: Slice): Cell | null {
  if (s.remainingBits === 0) return null;
  if (s.loadBit()) return s.loadRef();
  if (s.remainingBits === 0 && s.remainingRefs === 0) return null;
  return new Builder().storeSlice(s).endCell();
}

export interface StateInit {
  code: Cell;
  data: Cell;
}

/** StateInit with code and data only (no split depth, no special, no libraries). */
export function stateInit(init: StateInit): Cell {
  return beginCell().storeBit(0).storeBit(0).storeMaybeRef(init.code).storeMaybeRef(init.data).storeBit(0).endCell();
}

/** The address a contract gets from its StateInit: the cell's hash in the workchain. */
export function contractAddress(workchain: number, init: Cell): TonAddress {
  return { workchain, hash: init.hash() };
}

export interface InternalMessage {
  to: TonAddress;
  value: bigint;
  bounce: boolean;
  body: Cell | null;
  stateInit: Cell | null;
}

/**
 * The MessageRelaxed a wallet signs and sends: int_msg_info with no source (the wallet fills it),
 * ihr disabled, zero fees and times; StateInit and body inline when they fit, else by reference,
 * laid out exactly as @ton/core does so the same message gives the same hash.
 */
export function internalMessage(m: InternalMessage): Cell {
  const b = beginCell()
    .storeBit(0)
    .storeBit(1)
    .storeBit(m.bounce)
    .storeBit(0)
    .storeAddress(null)
    .storeAddress(m.to)
    .storeCoins(m.value)
    .storeBit(0)
    .storeCoins(0n)
    .storeCoins(0n)
    .storeUint(0n, 64)
    .storeUint(0, 32);
  if (m.stateInit) {
    b.storeBit(1);
    if (b.availableBits - 2 >= m.stateInit.bitLength) b.storeBit(0).storeSlice(m.stateInit.beginParse());
    else b.storeBit(1).storeRef(m.stateInit);
  } else {
    b.storeBit(0);
  }
  const body = m.body ?? Cell.EMPTY;
  if (b.availableBits - 1 >= body.bitLength && b.availableRefs >= body.refs.length && !body.exotic) b.storeBit(0).storeSlice(body.beginParse());
  else b.storeBit(1).storeRef(body);
  return b.endCell();
}
