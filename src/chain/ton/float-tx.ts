// What the payout float needs to read of a transaction (its BOC, whose hash is the transaction id):
// the external message that started it (matched by its normalized hash, TEP-467, which does not
// depend on how the node re-serialized the message), how many messages it sent, whether it was
// aborted, and, for a transaction a payout caused further down the chain, the internal message
// that started it (source and created_lt: an outgoing message's created_lt is the sending
// transaction's lt + 1 + its index, which ties a delivery to the payout that sent it).
import { bytesToHex } from '@noble/hashes/utils.js';
import { FaultyNodeError } from '../errors.ts';
import { bocBytes, readAborted, type TonTx } from './answers.ts';
import { beginCell, Builder, parseBoc, type Cell, type Slice, type TonAddress } from './cell.ts';

export interface FloatTx {
  hash: string;
  lt: bigint;
  outCount: number;
  /** The ordinary transaction was aborted (compute or action phase failed, or skipped). */
  aborted: boolean;
  /** The normalized hash of the external message that started it (hex), or null. */
  externalHash: string | null;
  /** The internal message that started it, or null. */
  internal: { source: string | null; createdLt: bigint; bounce: boolean; bounced: boolean } | null;
}

const raw = (a: TonAddress): string => `${a.workchain}:${bytesToHex(a.hash)}`;

/** TEP-467: ext_in_msg_info with no source, no import fee, no StateInit, the body by reference. */
export function normalizedHash(dest: TonAddress, body: Cell): string {
  return bytesToHex(beginCell().storeUint(2, 2).storeUint(0, 2).storeAddress(dest).storeCoins(0n).storeBit(0).storeBit(1).storeRef(body).endCell().hash());
}

/** The destination and body of an external inbound message (what estimateFee and the match need). */
export function externalParts(message: Cell): { dest: TonAddress; body: Cell } {
  const s = message.beginParse();
  if (s.loadUintNumber(2) !== 2) throw new Error('not an external inbound message');
  skipExternalAddress(s);
  const dest = s.loadAddress();
  if (!dest) throw new Error('an external message without destination');
  s.loadCoins();
  if (s.loadBit()) skipInit(s);
  return { dest, body: bodyOf(s) };
}

function skipExternalAddress(s: Slice): void {
  const tag = s.loadUintNumber(2);
  if (tag === 0) return;
  if (tag !== 1) throw new Error('an external message whose source is not an external address');
  s.skip(s.loadUintNumber(9));
}

function skipInit(s: Slice): void {
  if (s.loadBit()) {
    s.loadRef();
    return;
  }
  if (s.loadBit()) s.skip(5);
  if (s.loadBit()) s.skip(2);
  for (let i = 0; i < 3; i++) if (s.loadBit()) s.loadRef();
}

function bodyOf(s: Slice): Cell {
  if (s.loadBit()) return s.loadRef();
  return new Builder().storeSlice(s).endCell();
}

/** Reads `tx` of `account` (raw); the BOC must hash to the id the node gave. */
export function readFloatTx(method: string, tx: TonTx, account: string): FloatTx {
  try {
    const roots = parseBoc(bocBytes(method, 'transaction BOC', tx.data), { maxBytes: 256 * 1024, maxCells: 4096, maxDepth: 256 });
    const root = roots[0];
    if (roots.length !== 1 || !root) throw new FaultyNodeError(method, 'a transaction BOC holds more than one root');
    if (bytesToHex(root.hash()) !== tx.hash) throw new FaultyNodeError(method, `transaction ${tx.hash}: its BOC has another hash`);
    const s = root.beginParse();
    if (s.loadUintNumber(4) !== 0b0111) throw new Error('not a transaction');
    const acc = `0:${bytesToHex(s.loadBuffer(32))}`;
    if (acc !== account) throw new FaultyNodeError(method, `transaction ${tx.hash} belongs to another account`);
    const lt = s.loadUint(64);
    if (lt !== tx.lt) throw new FaultyNodeError(method, `transaction ${tx.hash}: listed at logical time ${tx.lt}, its BOC says ${lt}`);
    s.skip(256 + 64 + 32);
    const outCount = s.loadUintNumber(15);
    s.skip(4);
    const msgs = s.loadRef().beginParse();
    const inMsg = msgs.loadBit() ? msgs.loadRef() : null;
    s.loadCoins();
    if (s.loadBit()) s.loadRef();
    s.loadRef();
    // Any kind of transaction but an ordinary one counts as aborted here.
    const aborted = readAborted(s.loadRef().beginParse()) ?? true;
    let externalHash: string | null = null;
    let internal: FloatTx['internal'] = null;
    if (inMsg) {
      const m = inMsg.beginParse();
      if (m.preloadUint(2) === 2n) {
        const { dest, body } = externalParts(inMsg);
        externalHash = normalizedHash(dest, body);
      } else if (!m.loadBit()) {
        m.loadBit();
        const bounce = m.loadBit();
        const bounced = m.loadBit();
        const source = m.loadAddress();
        m.loadAddress();
        m.loadCoins();
        if (m.loadBit()) m.loadRef();
        m.loadCoins();
        m.loadCoins();
        const createdLt = m.loadUint(64);
        internal = { source: source ? raw(source) : null, createdLt, bounce, bounced };
      }
    }
    return { hash: tx.hash, lt, outCount, aborted, externalHash, internal };
  } catch (err) {
    if (err instanceof FaultyNodeError) throw err;
    throw new FaultyNodeError(method, `transaction ${tx.hash}: unreadable BOC (${(err as Error).message.slice(0, 120)})`);
  }
}
