// How ton-http-api (toncenter's API v2, pyTON over tonlib) prints accounts, transactions and
// messages, rebuilt from its source so the TON driver reads in tests exactly what it reads from
// the real service:
//   - tonlib renders `raw.transaction` / `raw.message` (TL field order kept: `@type`, then fields);
//   - pyTON's get_transactions flattens `source`/`destination` to strings and adds `message`;
//   - every address is user-friendly, bounceable, url-safe, with the mainnet flag (tonlib's
//     default rendering: `EQ..`), whatever network the service runs on; an absent address
//     (external in: no source; external out: no destination) is "";
//   - int64 fields (lt, value, fees, balance) are JSON strings; hashes are standard base64;
//   - `fee` is the transaction's total fees plus the forward and IHR fees of its outgoing
//     messages (tonlib adds them), `storage_fee` the storage phase's collected fees, `other_fee`
//     their difference.
import { createHash } from 'node:crypto';
import { Address, beginCell, Cell, Dictionary, storeMessage, storeStateInit, type DictionaryValue, type Message, type Slice, type Transaction } from '@ton/core';

export const ZERO_HASH_B64 = Buffer.alloc(32).toString('base64');

/** tonlib's rendering of an address: bounceable, url-safe, mainnet flag. */
export function friendly(a: Address): string {
  return a.toString({ urlSafe: true, bounceable: true, testOnly: false });
}

export const b64 = (b: Buffer | Uint8Array): string => Buffer.from(b).toString('base64');
export const bocB64 = (c: Cell): string => c.toBoc({ idx: false, crc32: true }).toString('base64');
export const bigintHashB64 = (h: bigint): string => b64(Buffer.from(h.toString(16).padStart(64, '0'), 'hex'));

/** Python's codecs.encode(bytes, 'base64'): MIME base64, a newline every 76 characters and at the end. */
export function pythonBase64(bytes: Buffer): string {
  if (bytes.length === 0) return '';
  const s = bytes.toString('base64');
  let out = '';
  for (let i = 0; i < s.length; i += 76) out += s.slice(i, i + 76) + '\n';
  return out;
}

/** The bytes of a cell's own data bits, zero-padded to a whole byte (what pyTON calls the "message" of a raw body). */
function cellDataBytes(c: Cell): Buffer {
  const s = c.beginParse();
  const bits = s.remainingBits;
  const b = beginCell().storeBits(s.loadBits(bits));
  if (bits % 8 !== 0) b.storeUint(0, 8 - (bits % 8));
  return b.endCell().beginParse().loadBuffer(Math.ceil(bits / 8));
}

// tonlib's CellString::load: whole bytes in each cell, a chain of at most one reference per cell,
// at most 1024 bytes and 16 cells; anything else is not a text comment and stays raw.
function loadSnakeBytes(s: Slice): Buffer | null {
  const parts: Buffer[] = [];
  let total = 0;
  let cur: Slice | null = s;
  for (let depth = 0; cur; depth++) {
    if (depth >= 16 || cur.remainingBits % 8 !== 0 || cur.remainingRefs > 1) return null;
    const n = cur.remainingBits / 8;
    total += n;
    if (total > 1024) return null;
    parts.push(cur.loadBuffer(n));
    cur = cur.remainingRefs === 1 ? cur.loadRef().beginParse() : null;
  }
  return Buffer.concat(parts);
}

export type MsgData =
  | { '@type': 'msg.dataRaw'; body: string; init_state: string }
  | { '@type': 'msg.dataText'; text: string };

/** tonlib's msg_data: a body that starts with op 0 and holds a snake string is text (its bytes in base64), anything else raw. */
export function msgData(body: Cell, init: Message['init']): MsgData {
  const s = body.beginParse();
  if (s.remainingBits >= 32 && s.preloadUint(32) === 0) {
    s.skip(32);
    const text = loadSnakeBytes(s);
    if (text) return { '@type': 'msg.dataText', text: text.toString('base64') };
  }
  const initState = init ? bocB64(beginCell().store(storeStateInit(init)).endCell()) : '';
  return { '@type': 'msg.dataRaw', body: bocB64(body), init_state: initState };
}

/** pyTON's decoded `message`: a text comment as UTF-8 ("" when it is not valid UTF-8), a raw body as python-base64 of its first cell's bytes. */
export function decodedMessage(data: MsgData, body: Cell): string {
  if (data['@type'] === 'msg.dataText') {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(data.text, 'base64'));
    } catch {
      return '';
    }
  }
  return pythonBase64(cellDataBytes(body));
}

export interface RawMessageJson {
  '@type': 'raw.message';
  hash: string;
  source: string;
  destination: string;
  value: string;
  extra_currencies: unknown[];
  fwd_fee: string;
  ihr_fee: string;
  created_lt: string;
  body_hash: string;
  msg_data: MsgData;
  message: string;
}

export function renderMessage(m: Message, msgCell: Cell): RawMessageJson {
  const i = m.info;
  const data = msgData(m.body, m.init);
  return {
    '@type': 'raw.message',
    hash: b64(msgCell.hash()),
    source: i.type === 'external-in' ? '' : friendly(i.src),
    destination: i.type === 'external-out' ? '' : friendly(i.dest),
    value: i.type === 'internal' ? i.value.coins.toString() : '0',
    extra_currencies: [],
    fwd_fee: i.type === 'internal' ? i.forwardFee.toString() : '0',
    ihr_fee: i.type === 'internal' ? i.ihrFee.toString() : '0',
    created_lt: i.type === 'external-in' ? '0' : i.createdLt.toString(),
    body_hash: b64(m.body.hash()),
    msg_data: data,
    message: decodedMessage(data, m.body),
  };
}

export interface RawTransactionJson {
  '@type': 'raw.transaction';
  address: { '@type': 'accountAddress'; account_address: string };
  utime: number;
  data: string;
  transaction_id: { '@type': 'internal.transactionId'; lt: string; hash: string };
  fee: string;
  storage_fee: string;
  other_fee: string;
  in_msg?: RawMessageJson;
  out_msgs: RawMessageJson[];
}

/** One transaction as getTransactions prints it; `account` is the account it belongs to. */
export function renderTransaction(tx: Transaction, account: Address): RawTransactionJson {
  // The message cells as stored in the transaction (its in_msg ref and out_msgs dictionary), so
  // each message's hash is the hash of what the chain holds.
  const raw = tx.raw.beginParse();
  const io = raw.loadRef().beginParse();
  const inCell = io.loadBit() ? io.loadRef() : null;
  const outCells = io.loadDict(dictKeyU15, dictValueRef);
  let outFees = 0n;
  const outs: RawMessageJson[] = [];
  for (const [k, m] of tx.outMessages) {
    if (m.info.type === 'internal') outFees += m.info.forwardFee + m.info.ihrFee;
    const cell = outCells.get(k);
    outs.push(renderMessage(m, cell ?? beginCell().store(storeMessage(m)).endCell()));
  }
  const fee = tx.totalFees.coins + outFees;
  const d = tx.description;
  const storage = 'storagePhase' in d && d.storagePhase ? d.storagePhase.storageFeesCollected : 0n;
  return {
    '@type': 'raw.transaction',
    address: { '@type': 'accountAddress', account_address: friendly(account) },
    utime: tx.now,
    data: bocB64(tx.raw),
    transaction_id: { '@type': 'internal.transactionId', lt: tx.lt.toString(), hash: b64(tx.hash()) },
    fee: fee.toString(),
    storage_fee: storage.toString(),
    other_fee: (fee - storage).toString(),
    ...(tx.inMessage && inCell ? { in_msg: renderMessage(tx.inMessage, inCell) } : {}),
    out_msgs: outs,
  };
}

const dictKeyU15 = Dictionary.Keys.Uint(15);
const dictValueRef: DictionaryValue<Cell> = {
  serialize: (src, builder) => void builder.storeRef(src),
  parse: (src) => src.loadRef(),
};

/** A deterministic 32-byte hash (base64) for things the sandbox does not have, such as masterchain blocks. */
export function fakeHash(label: string): string {
  return createHash('sha256').update(label).digest('base64');
}
