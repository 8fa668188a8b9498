// The double's account, get-method, send and fee endpoints, shaped as ton-http-api prints them
// (pyTON's main.py over pytonlib/tonlib): every value read from the sandbox's accounts or from a
// transaction the sandbox executed.
import { Address, beginCell, Cell, external, loadMessage, type TupleItem } from '@ton/core';
import { GetMethodError } from '@ton/sandbox';
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { ApiError, parseAddress, type DoubleCore } from './api.ts';
import { b64, bigintHashB64, bocB64 } from './render.ts';
import { parseStack, serializeStack, StackInputError } from './stack.ts';

function stateName(st: { type: string } | undefined): 'active' | 'uninitialized' | 'frozen' {
  if (st?.type === 'active') return 'active';
  if (st?.type === 'frozen') return 'frozen';
  return 'uninitialized';
}

interface RawState {
  exists: boolean;
  balance: bigint;
  code: Cell | null;
  data: Cell | null;
  frozenHash: bigint | null;
  state: 'active' | 'uninitialized' | 'frozen';
}

async function rawState(core: DoubleCore, address: Address): Promise<RawState> {
  const sc = await core.blockchain.getContract(address);
  const st = sc.accountState;
  const active = st?.type === 'active' ? st.state : null;
  return {
    // An account the chain never touched (account_none): no transaction and nothing on it.
    exists: !(sc.lastTransactionLt === 0n && sc.balance === 0n && st?.type !== 'active'),
    balance: sc.balance,
    code: active?.code ?? null,
    data: active?.data ?? null,
    frozenHash: st?.type === 'frozen' ? st.stateHash : null,
    state: stateName(st),
  };
}

/** getAddressInformation: tonlib's raw.fullAccountState plus pyTON's `state`; an account that does not exist has balance 0 (a number, as pyTON clamps tonlib's -1). */
export async function accountInformation(core: DoubleCore, address: Address) {
  const s = await rawState(core, address);
  return {
    '@type': 'raw.fullAccountState',
    balance: s.exists ? s.balance.toString() : 0,
    extra_currencies: [],
    code: s.code ? bocB64(s.code) : '',
    data: s.data ? bocB64(s.data) : '',
    last_transaction_id: core.lastTransactionId(address),
    block_id: core.blockId(),
    frozen_hash: s.frozenHash !== null ? bigintHashB64(s.frozenHash) : '',
    sync_utime: Math.floor(Date.now() / 1000),
    '@extra': core.extra(),
    state: s.state,
  };
}

// pyTON recognises wallets by the hash of their code; the codes here are @ton/ton's, which are the
// standard wallet codes toncenter lists.
const zeroKey = Buffer.alloc(32);
const KNOWN_WALLETS: Array<{ codeHash: string; type: string; layout: 'v3' | 'v5' }> = [
  { codeHash: WalletContractV3R2.create({ workchain: 0, publicKey: zeroKey }).init.code.hash().toString('hex'), type: 'wallet v3 r2', layout: 'v3' },
  { codeHash: WalletContractV4.create({ workchain: 0, publicKey: zeroKey }).init.code.hash().toString('hex'), type: 'wallet v4 r2', layout: 'v3' },
  { codeHash: WalletContractV5R1.create({ publicKey: zeroKey }).init.code.hash().toString('hex'), type: 'wallet v5 r1', layout: 'v5' },
];

/** getWalletInformation: pyTON's dict, None fields left out (response_model_exclude_none). */
export async function walletInformation(core: DoubleCore, address: Address) {
  const s = await rawState(core, address);
  const res: Record<string, unknown> = {
    wallet: false,
    balance: s.exists && s.balance > 0n ? s.balance.toString() : 0,
    extra_currencies: [],
    account_state: s.state,
  };
  const known = s.code ? KNOWN_WALLETS.find((w) => w.codeHash === s.code!.hash().toString('hex')) : undefined;
  if (known) {
    res.wallet = true;
    res.wallet_type = known.type;
    res.seqno = null;
  }
  res.last_transaction_id = core.lastTransactionId(address);
  if (known && s.data) {
    const d = s.data.beginParse();
    if (known.layout === 'v5') {
      res.is_signature_allowed = d.loadBit();
      res.seqno = d.loadUint(32);
      res.wallet_id = d.loadUint(32);
    } else {
      res.seqno = d.loadUint(32);
      res.wallet_id = d.loadUint(32);
    }
  }
  return res;
}

function requireString(body: Record<string, unknown>, name: string, dflt?: string): string {
  const v = body[name] ?? dflt;
  if (typeof v !== 'string') throw new ApiError(422, `Validation error: ${name}: field required`);
  return v;
}

function parseBocParam(v: string, what: string): Cell {
  try {
    return Cell.fromBase64(v);
  } catch {
    throw new ApiError(400, `Error while parsing ${what}`);
  }
}

/** runGetMethod: tonlib's smc.runResult; a non-zero exit code is still ok:true, an account without code gives exit code -13. */
export async function runGetMethod(core: DoubleCore, body: Record<string, unknown>) {
  const address = parseAddress(typeof body.address === 'string' ? body.address : undefined);
  const method = body.method;
  if (typeof method !== 'string' && !(typeof method === 'number' && Number.isInteger(method))) throw new ApiError(422, 'Validation error: method: field required');
  if (body.stack === undefined) throw new ApiError(422, 'Validation error: stack: field required');
  let stack: TupleItem[];
  try {
    stack = parseStack(body.stack);
  } catch (e) {
    if (e instanceof StackInputError) throw new ApiError(400, e.message);
    throw e;
  }
  const base = { '@type': 'smc.runResult' };
  const tail = () => ({ block_id: core.blockId(), last_transaction_id: core.lastTransactionId(address), '@extra': core.extra() });
  const sc = await core.blockchain.getContract(address);
  if (sc.accountState?.type !== 'active') return { ...base, gas_used: 0, stack: [], exit_code: -13, ...tail() };
  try {
    const r = await core.blockchain.runGetMethod(address, method, stack);
    return { ...base, gas_used: Number(r.gasUsed), stack: serializeStack(r.stack), exit_code: r.exitCode, ...tail() };
  } catch (e) {
    if (e instanceof GetMethodError) return { ...base, gas_used: Number(e.gasUsed), stack: [], exit_code: e.exitCode, ...tail() };
    throw e;
  }
}

/** The normalized hash of an external message (TEP-467): no source, no import fee, no StateInit, body by reference. */
function normalizedHash(dest: Address, body: Cell): Buffer {
  return beginCell().storeUint(2, 2).storeUint(0, 2).storeAddress(dest).storeCoins(0).storeBit(0).storeBit(1).storeRef(body).endCell().hash();
}

const NOT_ACCEPTED = 'LITE_SERVER_UNKNOWN: cannot apply external message to current state : External message was not accepted';

/** sendBocReturnHash: the external message is executed in the sandbox before the answer (the real network would include it within seconds). */
export async function sendBocReturnHash(core: DoubleCore, body: Record<string, unknown>) {
  const cell = parseBocParam(requireString(body, 'boc'), 'boc');
  let msg;
  try {
    msg = loadMessage(cell.beginParse());
  } catch {
    throw new ApiError(400, 'Error while parsing boc: not a message');
  }
  if (msg.info.type !== 'external-in') throw new ApiError(500, 'LITE_SERVER_UNKNOWN: not an inbound external message');
  try {
    await core.blockchain.sendMessage(cell);
  } catch (e) {
    throw new ApiError(500, `${NOT_ACCEPTED}\n${e instanceof Error ? e.message.split('\n')[0] : ''}`.trim());
  }
  return { '@type': 'raw.extMessageInfo', hash: b64(cell.hash()), hash_norm: b64(normalizedHash(msg.info.dest, msg.body)), '@extra': core.extra() };
}

/** estimateFee: the external message run once on a copy of the account's state (signature checks skipped unless ignore_chksig is false), tonlib's query.fees from that run. */
export async function estimateFee(core: DoubleCore, body: Record<string, unknown>) {
  const address = parseAddress(typeof body.address === 'string' ? body.address : undefined);
  const msgBody = parseBocParam(requireString(body, 'body'), 'body');
  const initCode = requireString(body, 'init_code', '');
  const initData = requireString(body, 'init_data', '');
  const init = initCode && initData ? { code: parseBocParam(initCode, 'init_code'), data: parseBocParam(initData, 'init_data') } : undefined;
  const ignoreChksig = body.ignore_chksig === undefined ? true : body.ignore_chksig === true;
  const sc = await core.blockchain.getContract(address);
  const snap = sc.snapshot();
  let tx;
  try {
    tx = await sc.receiveMessage(external({ to: address, init, body: msgBody }), { ignoreChksig });
  } catch (e) {
    throw new ApiError(500, `${NOT_ACCEPTED}\n${e instanceof Error ? e.message.split('\n')[0] : ''}`.trim());
  } finally {
    sc.loadFrom(snap);
  }
  const d = tx.description;
  if (d.type !== 'generic') throw new ApiError(500, 'unexpected transaction type');
  const storage = d.storagePhase?.storageFeesCollected ?? 0n;
  const gas = d.computePhase.type === 'vm' ? d.computePhase.gasFees : 0n;
  const fwd = d.actionPhase?.totalFwdFees ?? 0n;
  const actionFees = d.actionPhase?.totalActionFees ?? 0n;
  const inFwd = tx.totalFees.coins - storage - gas - actionFees;
  return {
    '@type': 'query.fees',
    source_fees: { '@type': 'fees', in_fwd_fee: Number(inFwd), storage_fee: Number(storage), gas_fee: Number(gas), fwd_fee: Number(fwd) },
    destination_fees: [],
    '@extra': core.extra(),
  };
}
