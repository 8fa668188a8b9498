// The payout float's wallet: the standard wallet contracts v4r2 and v5r1 (their published code,
// whose hashes every TON explorer and wallet app knows), the address that follows from a public
// key, and the signed external message such a wallet accepts. The first transfer carries the
// StateInit, which deploys the wallet; after that the contract checks seqno and valid_until, so a
// message signed twice with the same seqno is executed at most once.
import { ed25519 } from '@noble/curves/ed25519.js';
import { beginCell, bocFromBase64, type Builder, type Cell, type TonAddress, TonCellError } from './cell.ts';
import { contractAddress, type InternalMessage, internalMessage, stateInit } from './messages.ts';

export type WalletVersion = 'v4r2' | 'v5r1';

/** wallet-contract v4r2 (code hash feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0). */
const V4R2_CODE =
  'te6cckECFAEAAtQAART/APSkE/S88sgLAQIBIAIPAgFIAwYC5tAB0NMDIXGwkl8E4CLXScEgkl8E4ALTHyGCEHBsdWe9IoIQZHN0cr2wkl8F4AP6QDAg+kQByMoHy//J0O1E0IEBQNch9AQwXIEBCPQKb6Exs5JfB+AF0z/IJYIQcGx1Z7qSODDjDQOCEGRzdHK6kl8G4w0EBQB4AfoA9AQw+CdvIjBQCqEhvvLgUIIQcGx1Z4MesXCAGFAEywUmzxZY+gIZ9ADLaRfLH1Jgyz8gyYBA+wAGAIpQBIEBCPRZMO1E0IEBQNcgyAHPFvQAye1UAXKwjiOCEGRzdHKDHrFwgBhQBcsFUAPPFiP6AhPLassfyz/JgED7AJJfA+ICASAHDgIBIAgNAgFYCQoAPbKd+1E0IEBQNch9AQwAsjKB8v/ydABgQEI9ApvoTGACASALDAAZrc52omhAIGuQ64X/wAAZrx32omhAEGuQ64WPwAARuMl+1E0NcLH4AFm9JCtvaiaECAoGuQ+gIYRw1AgIR6STfSmRDOaQPp/5g3gSgBt4EBSJhxWfMYQE+PKDCNcYINMf0x/THwL4I7vyZO1E0NMf0x/T//QE0VFDuvKhUVG68qIF+QFUEGT5EPKj+AAkpMjLH1JAyx9SMMv/UhD0AMntVPgPAdMHIcAAn2xRkyDXSpbTB9QC+wDoMOAhwAHjACHAAuMAAcADkTDjDQOkyMsfEssfy/8QERITAG7SB/oA1NQi+QAFyMoHFcv/ydB3dIAYyMsFywIizxZQBfoCFMtrEszMyXP7AMhAFIEBCPRR8qcCAHCBAQjXGPoA0z/IVCBHgQEI9FHyp4IQbm90ZXB0gBjIywXLAlAGzxZQBPoCFMtqEssfyz/Jc/sAAgBsgQEI1xj6ANM/MFIkgQEI9Fnyp4IQZHN0cnB0gBjIywXLAlAFzxZQA/oCE8tqyx8Syz/Jc/sAAAr0AMntVAj45Sg=';

/** wallet-contract-v5 r1 (code hash 20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f). */
const V5R1_CODE =
  'te6cckECFAEAAoEAART/APSkE/S88sgLAQIBIAINAgFIAwQC3NAg10nBIJFbj2Mg1wsfIIIQZXh0br0hghBzaW50vbCSXwPgghBleHRuuo60gCDXIQHQdNch+kAw+kT4KPpEMFi9kVvg7UTQgQFB1yH0BYMH9A5voTGRMOGAQNchcH/bPOAxINdJgQKAuZEw4HDiEA8CASAFDAIBIAYJAgFuBwgAGa3OdqJoQCDrkOuF/8AAGa8d9qJoQBDrkOuFj8ACAUgKCwAXsyX7UTQcdch1wsfgABGyYvtRNDXCgCAAGb5fD2omhAgKDrkPoCwBAvIOAR4g1wsfghBzaWduuvLgin8PAeaO8O2i7fshgwjXIgKDCNcjIIAg1yHTH9Mf0x/tRNDSANMfINMf0//XCgAK+QFAzPkQmiiUXwrbMeHywIffArNQB7Dy0IRRJbry4IVQNrry4Ib4I7vy0IgikvgA3gGkf8jKAMsfAc8Wye1UIJL4D95w2zzYEAP27aLt+wL0BCFukmwhjkwCIdc5MHCUIccAs44tAdcoIHYeQ2wg10nACPLgkyDXSsAC8uCTINcdBscSwgBSMLDy0InXTNc5MAGk6GwShAe78uCT10rAAPLgk+1V4tIAAcAAkVvg69csCBQgkXCWAdcsCBwS4lIQseMPINdKERITAJYB+kAB+kT4KPpEMFi68uCR7UTQgQFB1xj0BQSdf8jKAEAEgwf0U/Lgi44UA4MH9Fvy4Iwi1woAIW4Bs7Dy0JDiyFADzxYS9ADJ7VQAcjDXLAgkji0h8uCS0gDtRNDSAFETuvLQj1RQMJExnAGBAUDXIdcKAPLgjuLIygBYzxbJ7VST8sCN4gAQk1vbMeHXTNC01sNe';

let codes: Record<WalletVersion, Cell> | null = null;
export function walletCode(version: WalletVersion): Cell {
  codes ??= { v4r2: bocFromBase64(V4R2_CODE), v5r1: bocFromBase64(V5R1_CODE) };
  return codes[version];
}

export interface WalletOptions {
  /** Default 0 (the basechain). */
  workchain?: number;
  /** v4r2: the wallet_id, default 698983191 + workchain. v5r1: the subwallet number, default 0. */
  subwalletId?: number;
  /** v5r1 only: the network's global id, -239 mainnet (default), -3 testnet. */
  networkGlobalId?: number;
}

export const MAINNET_GLOBAL_ID = -239;
export const TESTNET_GLOBAL_ID = -3;

/** v5r1's wallet_id: the network id XOR the client context (1, workchain, version 0, subwallet). */
function v5WalletId(opts: WalletOptions): bigint {
  const workchain = opts.workchain ?? 0;
  const sub = opts.subwalletId ?? 0;
  if (!Number.isInteger(sub) || sub < 0 || sub >= 1 << 15) throw new TonCellError(`a v5r1 subwallet number is 0..32767, not ${sub}`);
  const context = beginCell().storeUint(1, 1).storeInt(workchain, 8).storeUint(0, 8).storeUint(sub, 15).endCell().beginParse().loadInt(32);
  return BigInt(opts.networkGlobalId ?? MAINNET_GLOBAL_ID) ^ context;
}

function v4WalletId(opts: WalletOptions): number {
  const id = opts.subwalletId ?? 698983191 + (opts.workchain ?? 0);
  if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new TonCellError(`a v4r2 wallet_id is a uint32, not ${id}`);
  return id;
}

function checkKey(publicKey: Uint8Array): void {
  if (publicKey.length !== 32) throw new TonCellError(`an ed25519 public key is 32 bytes, not ${publicKey.length}`);
}

/** The wallet's initial data: seqno 0, its id, the key, no plugins / extensions. */
export function walletData(version: WalletVersion, publicKey: Uint8Array, opts: WalletOptions = {}): Cell {
  checkKey(publicKey);
  if (version === 'v4r2') return beginCell().storeUint(0, 32).storeUint(v4WalletId(opts), 32).storeBuffer(publicKey).storeBit(0).endCell();
  return beginCell().storeBit(1).storeUint(0, 32).storeInt(v5WalletId(opts), 32).storeBuffer(publicKey).storeBit(0).endCell();
}

export function walletStateInit(version: WalletVersion, publicKey: Uint8Array, opts: WalletOptions = {}): Cell {
  return stateInit({ code: walletCode(version), data: walletData(version, publicKey, opts) });
}

export function walletAddress(version: WalletVersion, publicKey: Uint8Array, opts: WalletOptions = {}): TonAddress {
  return contractAddress(opts.workchain ?? 0, walletStateInit(version, publicKey, opts));
}

export interface TransferRequest extends WalletOptions {
  /** The 32-byte ed25519 seed. */
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  seqno: number;
  /** Unix seconds after which the wallet refuses the message. */
  validUntil: number;
  messages: InternalMessage[];
  /** Send mode of every message (3 = pay fees separately, ignore errors, is the usual one). */
  sendMode: number;
  /** Attach the StateInit: needed while the wallet is not deployed yet (seqno 0). */
  withStateInit: boolean;
}

const V5_SIGNED_EXTERNAL = 0x7369676e;
const V5_ACTION_SEND_MSG = 0x0ec3c86d;
/** Send mode +2: v5r1 requires it on externally signed actions (an error must not replay the message). */
const IGNORE_ERRORS = 2;

/** The external message (ext_in_msg_info to the wallet) carrying a signed transfer. */
export function signedTransfer(version: WalletVersion, req: TransferRequest): Cell {
  checkKey(req.publicKey);
  if (req.secretKey.length !== 32) throw new TonCellError(`the wallet key is a 32-byte ed25519 seed, not ${req.secretKey.length} bytes`);
  const derived = ed25519.getPublicKey(req.secretKey);
  if (!derived.every((v, i) => v === req.publicKey[i])) throw new TonCellError('the public key does not belong to the wallet key');
  for (const [name, v] of [['seqno', req.seqno], ['validUntil', req.validUntil]] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new TonCellError(`${name} must be a uint32, not ${v}`);
  }
  if (!Number.isInteger(req.sendMode) || req.sendMode < 0 || req.sendMode > 255) throw new TonCellError(`sendMode must be 0..255, not ${req.sendMode}`);
  if (req.messages.length < 1 || req.messages.length > (version === 'v4r2' ? 4 : 255)) throw new TonCellError(`a ${version} transfer carries 1..${version === 'v4r2' ? 4 : 255} messages, not ${req.messages.length}`);
  const outs = req.messages.map((m) => internalMessage(m));
  let signing: Builder;
  if (version === 'v4r2') {
    signing = beginCell().storeUint(v4WalletId(req), 32).storeUint(req.validUntil, 32).storeUint(req.seqno, 32).storeUint(0, 8);
    for (const out of outs) signing.storeUint(req.sendMode, 8).storeRef(out);
  } else {
    // out_list: each action cell refers to the list before it, the last action is the head.
    let list = beginCell().endCell();
    for (const out of outs) list = beginCell().storeRef(list).storeUint(V5_ACTION_SEND_MSG, 32).storeUint(req.sendMode | IGNORE_ERRORS, 8).storeRef(out).endCell();
    signing = beginCell().storeUint(V5_SIGNED_EXTERNAL, 32).storeInt(v5WalletId(req), 32).storeUint(req.validUntil, 32).storeUint(req.seqno, 32).storeMaybeRef(list).storeBit(0);
  }
  const unsigned = signing.endCell();
  const signature = ed25519.sign(unsigned.hash(), req.secretKey);
  // v4r2 reads the signature first, v5r1 from the end of the body.
  const body = version === 'v4r2' ? beginCell().storeBuffer(signature).storeSlice(unsigned.beginParse()).endCell() : beginCell().storeSlice(unsigned.beginParse()).storeBuffer(signature).endCell();
  const to = walletAddress(version, req.publicKey, req);
  return externalMessage(to, req.withStateInit ? walletStateInit(version, req.publicKey, req) : null, body);
}

/** ext_in_msg_info$10 src:addr_none dest import_fee:0, then init and body as @ton/core lays them out. */
export function externalMessage(to: TonAddress, init: Cell | null, body: Cell): Cell {
  const b = beginCell().storeUint(2, 2).storeAddress(null).storeAddress(to).storeCoins(0n);
  if (init) {
    b.storeBit(1);
    if (b.availableBits - 2 >= init.bitLength + body.bitLength) b.storeBit(0).storeSlice(init.beginParse());
    else b.storeBit(1).storeRef(init);
  } else {
    b.storeBit(0);
  }
  if (b.availableBits - 1 >= body.bitLength && b.availableRefs >= body.refs.length) b.storeBit(0).storeSlice(body.beginParse());
  else b.storeBit(1).storeRef(body);
  return b.endCell();
}

/**
 * The normalized hash of an external message (TEP-467): source, import fee and StateInit dropped,
 * the body by reference. It is the same for every copy of one signed message, however a node
 * re-encodes it, so it finds the transaction a broadcast payout became.
 */
export function normalizedExternalHash(message: Cell): Uint8Array {
  const s = message.beginParse();
  if (s.loadUintNumber(2) !== 2) throw new TonCellError('not an inbound external message');
  const srcTag = s.loadUintNumber(2);
  if (srcTag === 1) s.skip(s.loadUintNumber(9));
  else if (srcTag !== 0) throw new TonCellError('an external message source must be addr_none or addr_extern');
  const dest = s.loadAddress();
  if (dest === null) throw new TonCellError('an external message needs a destination');
  s.loadCoins();
  if (s.loadBit()) {
    if (s.loadBit()) s.loadRef();
    else {
      // StateInit inline: split_depth, special, code, data, library.
      if (s.loadBit()) s.skip(5);
      if (s.loadBit()) s.skip(2);
      for (let i = 0; i < 3; i++) s.loadMaybeRef();
    }
  }
  const body = s.loadBit() ? s.loadRef() : beginCell().storeSlice(s).endCell();
  return beginCell().storeUint(2, 2).storeUint(0, 2).storeAddress(dest).storeCoins(0n).storeBit(0).storeBit(1).storeRef(body).endCell().hash();
}
