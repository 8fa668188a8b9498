// A TRON full node double, written from java-tron's HTTP API documentation: it keeps accounts,
// TRX and TRC-20 balances (chain-state.ts), produces blocks when told, and answers the endpoints
// the `tron` driver uses with their documented shapes (hex "41..." addresses, `{"Error": ...}` on
// a refused build, broadcast results with hex-encoded messages, `{}` for "not found").
//
// Every transaction broadcast to it is decoded and its signature checked with the official
// `tronweb` code (its protobuf classes, deserializeTransaction, ecRecover): what executes is what
// tronweb reads from the signed bytes, so a wrongly built or wrongly signed transaction fails.
//
// Test controls: mine(), reorg(), a solidity API that can be switched off, a clock jump for
// expirations, `tamper` (a compromised node that builds something else than asked), `dropBroadcasts`
// (a node that answers but loses what it was given).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { TronWeb, utils as tw } from 'tronweb';
import { freePort } from '../evm/anvil.ts';
import {
  apply,
  cloneState,
  decodeFlushCall,
  emptyState,
  energyLimit,
  ENERGY_PER_TRX,
  newAccount,
  PARAMS,
  Refused,
  simulateCall,
  TOTAL_ENERGY_LIMIT,
  TOTAL_ENERGY_WEIGHT,
  validate,
  type Effect,
  type Info,
  type State,
} from './chain-state.ts';

const proto = (globalThis as unknown as { TronWebProto: any }).TronWebProto;
const TYPE_NAMES: Record<number, string> = { 1: 'TransferContract', 31: 'TriggerSmartContract', 57: 'DelegateResourceContract', 58: 'UnDelegateResourceContract' };

export interface TxJson {
  visible: boolean;
  txID: string;
  raw_data: Record<string, any>;
  raw_data_hex: string;
  signature?: string[];
  ret?: Array<{ contractRet: string }>;
}

interface PoolTx {
  json: TxJson;
  effect: Effect;
  expiration: number;
  bytes: bigint;
}

interface Block {
  number: number;
  id: string;
  parentHash: string;
  timestamp: number;
  txs: Array<{ tx: PoolTx; contractRet: string }>;
  infos: Info[];
}

export interface NodeDoubleOptions {
  /** Serve /walletsolidity/* (default true). */
  solidity?: boolean;
  /** Blocks behind the head that are solidified (java-tron: 2/3 of the witnesses; default 3). */
  solidDepth?: number;
  /** Require this TRON-PRO-API-KEY header. */
  apiKey?: string;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const sha256 = (h: string) => createHash('sha256').update(Buffer.from(h, 'hex')).digest('hex');
const toHex41 = (a: string) => (a.startsWith('T') ? TronWeb.address.toHex(a).toLowerCase() : a.toLowerCase());

export class TronNodeDouble {
  url = '';
  readonly solidDepth: number;
  solidity: boolean;
  /** Every transaction accepted by broadcast, as tronweb decoded it. */
  readonly broadcasts: Array<{ txID: string; effect: Effect }> = [];
  /** Every call to a forwarder factory accepted by broadcast, as tronweb decoded its bytes and call
   * data (base58 addresses): who signed it, which contract it calls, and its arguments. */
  readonly factoryCalls: Array<{ txID: string; owner: string; contract: string; feeLimit: bigint; flush: { cold: string; salt: string; tokens: string[]; native: boolean } | null }> = [];
  /** Every request, by path (for the scaling test). */
  readonly calls = new Map<string, number>();
  /** A compromised node: rewrites what it builds before encoding it. */
  tamper: ((path: string, raw: Record<string, any>) => void) | null = null;
  /** A node that answers `result: true` to broadcasts but forgets them. */
  dropBroadcasts = false;
  /** Infos of REVERTed calls keep the logs the call emitted before reverting (a faulty provider). */
  leakRevertedLogs = false;

  private server: Server | null = null;
  private readonly genesis: State = emptyState();
  private state: State = emptyState();
  private readonly blocks: Block[] = [];
  private pool: PoolTx[] = [];
  private clockOffset = 0;
  private nonce = 0;

  constructor(private readonly opts: NodeDoubleOptions = {}) {
    this.solidDepth = opts.solidDepth ?? 3;
    this.solidity = opts.solidity ?? true;
    const t = 1_700_000_000_000;
    this.blocks.push({ number: 0, id: blockId(0, 'genesis'), parentHash: '0'.repeat(64), timestamp: t, txs: [], infos: [] });
  }

  async start(): Promise<this> {
    const port = await freePort();
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server?.closeAllConnections();
  }

  // ------------------------------------------------------------ test controls

  get head(): Block {
    return this.blocks[this.blocks.length - 1]!;
  }

  /** Creates (or tops up) an account at genesis, as if it always had it. */
  fund(address: string, sun: bigint, stakeForEnergy = 0n): void {
    for (const s of [this.genesis, this.state]) {
      const a = s.accounts.get(toHex41(address)) ?? newAccount(this.blocks[0]!.timestamp);
      a.balance += sun;
      a.frozenEnergy += stakeForEnergy;
      s.accounts.set(toHex41(address), a);
    }
  }

  /** Deploys a TRC-20 token at `contract` (base58) with `holder` owning `units`. */
  token(contract: string, holder?: string, units = 0n): void {
    for (const s of [this.genesis, this.state]) {
      const book = s.tokens.get(toHex41(contract)) ?? new Map<string, bigint>();
      if (holder) book.set(toHex41(holder), (book.get(toHex41(holder)) ?? 0n) + units);
      s.tokens.set(toHex41(contract), book);
    }
  }

  /**
   * A ForwarderFactory at `address` whose constructor created the Forwarder `implementation`, as
   * if the operator deployed it before the chain's first block (both base58).
   */
  factory(address: string, implementation: string): void {
    for (const s of [this.genesis, this.state]) {
      s.factories.set(toHex41(address), toHex41(implementation));
      s.accounts.set(toHex41(address), s.accounts.get(toHex41(address)) ?? newAccount(this.blocks[0]!.timestamp));
    }
  }

  /** Makes `address` a contract that reverts when it is sent TRX (from genesis). */
  refuseTrx(address: string): void {
    for (const s of [this.genesis, this.state]) s.refusesTrx.add(toHex41(address));
  }

  /** Whether the factory has deployed code at this deposit address yet. */
  deployed(address: string): boolean {
    return this.state.forwarders.has(toHex41(address));
  }

  trx(address: string): bigint {
    return this.state.accounts.get(toHex41(address))?.balance ?? 0n;
  }
  exists(address: string): boolean {
    return this.state.accounts.has(toHex41(address));
  }
  tokenBalance(contract: string, holder: string): bigint {
    return this.state.tokens.get(toHex41(contract))?.get(toHex41(holder)) ?? 0n;
  }
  delegated(from: string, to: string): bigint {
    return this.state.accounts.get(toHex41(from))?.delegatedTo.get(toHex41(to)) ?? 0n;
  }
  get pending(): number {
    return this.pool.length;
  }

  /** Moves the chain's clock (the next block's timestamp) forward. */
  advance(ms: number): void {
    this.clockOffset += ms;
  }

  /** Produces `n` blocks; each takes the pool's unexpired transactions that still apply. */
  mine(n = 1): void {
    for (let i = 0; i < n; i++) {
      const parent = this.head;
      const number = parent.number + 1;
      const timestamp = parent.timestamp + 3000 + this.clockOffset;
      this.clockOffset = 0;
      const block: Block = { number, id: blockId(number, `${parent.id}:${++this.nonce}`), parentHash: parent.id, timestamp, txs: [], infos: [] };
      for (const tx of this.pool) {
        if (tx.expiration <= timestamp) continue; // expired: dropped, as java-tron does
        try {
          validate(this.state, tx.effect);
        } catch {
          continue;
        }
        const { info, contractRet } = apply(this.state, tx.effect, tx.json.txID, tx.bytes, block);
        if (contractRet === 'REVERT' && this.leakRevertedLogs) info.log = leakedLog(tx.effect);
        block.txs.push({ tx, contractRet });
        block.infos.push(info);
      }
      this.pool = [];
      this.blocks.push(block);
    }
  }

  /**
   * Replaces the last `depth` blocks by `depth + 1` new ones. Their transactions return to the pool
   * unless `drop` says which txids the new chain leaves out for good.
   */
  reorg(depth: number, drop: string[] = []): void {
    const orphaned = this.blocks.splice(this.blocks.length - depth, depth);
    this.state = cloneState(this.genesis);
    for (const b of this.blocks.slice(1)) for (const { tx } of b.txs) apply(this.state, tx.effect, tx.json.txID, tx.bytes, b);
    const back = orphaned.flatMap((b) => b.txs.map((t) => t.tx)).filter((t) => !drop.includes(t.json.txID));
    this.pool = [...back, ...this.pool];
    this.nonce += 1000;
    this.mine(depth + 1);
  }

  /** An outside payer: builds through the node's own endpoint logic, signs with tronweb, broadcasts. */
  payTrx(fromPrivateKey: string, to: string, sun: bigint): string {
    const from = TronWeb.address.fromPrivateKey(fromPrivateKey) as string;
    const tx = this.build('/wallet/createtransaction', 'TransferContract', { owner_address: toHex41(from), to_address: toHex41(to), amount: Number(sun) });
    return this.signAndSend(fromPrivateKey, tx);
  }

  payToken(fromPrivateKey: string, contract: string, to: string, units: bigint): string {
    const from = TronWeb.address.fromPrivateKey(fromPrivateKey) as string;
    const data = 'a9059cbb' + toHex41(to).slice(2).padStart(64, '0') + units.toString(16).padStart(64, '0');
    const tx = this.build('/wallet/triggersmartcontract', 'TriggerSmartContract', { owner_address: toHex41(from), contract_address: toHex41(contract), data }, 100_000_000);
    return this.signAndSend(fromPrivateKey, tx);
  }

  private signAndSend(priv: string, tx: TxJson): string {
    const signed = tw.crypto.signTransaction(priv, tx) as TxJson;
    const out = this.accept(signed.raw_data_hex, signed.signature!);
    if (!out.result) throw new Error(`payer broadcast refused: ${out.code} ${Buffer.from(out.message ?? '', 'hex').toString()}`);
    return signed.txID;
  }

  // ------------------------------------------------------------ building (what the node signs off)

  private build(path: string, type: string, value: Record<string, unknown>, feeLimit?: number): TxJson {
    const head = this.head;
    const numHex = head.number.toString(16).padStart(16, '0');
    const raw: Record<string, any> = {
      contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
      ref_block_bytes: numHex.slice(12, 16),
      ref_block_hash: head.id.slice(16, 32),
      expiration: head.timestamp + 60_000,
      timestamp: head.timestamp + 1,
      ...(feeLimit ? { fee_limit: feeLimit } : {}),
    };
    this.tamper?.(path, raw);
    const pb = tw.transaction.txJsonToPb({ raw_data: raw, visible: false });
    const rawHex = (tw.transaction.txPbToRawDataHex(pb) as string).toLowerCase();
    return { visible: false, txID: sha256(rawHex), raw_data: raw, raw_data_hex: rawHex };
  }

  // ------------------------------------------------------------ broadcast: decode and verify with tronweb

  private accept(rawHex: string, signatures: string[]): { result?: boolean; txid?: string; code?: string; message?: string } {
    const txID = sha256(rawHex);
    const refuse = (code: string, message: string) => ({ code, txid: txID, message: Buffer.from(message).toString('hex') });
    let decoded: any;
    let type: string;
    try {
      const rawPb = proto.Transaction.raw.deserializeBinary(Buffer.from(rawHex, 'hex'));
      const contracts = rawPb.getContractList();
      if (contracts.length !== 1) return refuse('CONTRACT_VALIDATE_ERROR', 'one contract per transaction');
      type = TYPE_NAMES[contracts[0].getType()] ?? `type ${contracts[0].getType()}`;
      if (!TYPE_NAMES[contracts[0].getType()]) return refuse('CONTRACT_VALIDATE_ERROR', `the double does not run ${type}`);
      decoded = tw.deserializeTx.deserializeTransaction(type, rawHex);
    } catch (err) {
      return refuse('OTHER_ERROR', `undecodable transaction: ${(err as Error).message}`);
    }
    const v = decoded.contract[0].parameter.value as Record<string, any>;
    const effect = toEffect(type, v, BigInt(decoded.fee_limit ?? 0));
    // Signature: exactly one, by the owner, over sha256(raw_data).
    if (signatures.length !== 1) return refuse('SIGERROR', 'one signature expected');
    let signer: string;
    try {
      signer = tw.crypto.ecRecover(txID, signatures[0]!).toLowerCase();
    } catch {
      return refuse('SIGERROR', 'Validate signature error: bad signature');
    }
    if (signer !== effect.owner) return refuse('SIGERROR', `Validate signature error: ${signer} is not the owner ${effect.owner}`);
    if (this.blocks.some((b) => b.txs.some((t) => t.tx.json.txID === txID)) || this.pool.some((t) => t.json.txID === txID)) {
      return refuse('DUP_TRANSACTION_ERROR', 'Dup transaction.');
    }
    if (Number(decoded.expiration) <= this.head.timestamp) return refuse('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
    // TaPoS: the reference block must be on this chain.
    const ref = this.blocks.find((b) => b.number.toString(16).padStart(16, '0').slice(12, 16) === decoded.ref_block_bytes.toLowerCase() && b.id.slice(16, 32) === decoded.ref_block_hash.toLowerCase());
    if (!ref) return refuse('TAPOS_ERROR', 'Tapos check error');
    try {
      validate(this.state, effect);
    } catch (err) {
      if (err instanceof Refused) return refuse(err.code, err.message);
      throw err;
    }
    this.broadcasts.push({ txID, effect });
    if (effect.type === 'TriggerSmartContract' && this.state.factories.has(effect.contract)) {
      const call = decodeFlushCall(effect.data);
      const b58 = (h: string) => TronWeb.address.fromHex(h) as string;
      this.factoryCalls.push({
        txID,
        owner: b58(effect.owner),
        contract: b58(effect.contract),
        feeLimit: effect.feeLimit,
        flush: call && { cold: b58(call.cold), salt: call.salt, tokens: call.tokens.map(b58), native: call.native },
      });
    }
    if (this.dropBroadcasts) return { result: true, txid: txID };
    const json: TxJson = { visible: false, txID, raw_data: { ...decoded, contract: decoded.contract }, raw_data_hex: rawHex, signature: signatures };
    this.pool.push({ json, effect, expiration: Number(decoded.expiration), bytes: BigInt(rawHex.length / 2 + 65 + 64) });
    return { result: true, txid: txID };
  }

  // ------------------------------------------------------------ HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0]!;
    this.calls.set(path, (this.calls.get(path) ?? 0) + 1);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (this.opts.apiKey && req.headers['tron-pro-api-key'] !== this.opts.apiKey) return send(401, { Error: 'ApiKey not exists' });
    let body: Record<string, any> = {};
    try {
      const text = Buffer.concat(chunks).toString();
      body = text ? JSON.parse(text) : {};
    } catch {
      return send(200, { Error: 'invalid JSON' });
    }
    try {
      const out = this.route(path, body);
      if (out === undefined) return send(404, '');
      send(200, out);
    } catch (err) {
      send(200, { Error: (err as Error).message });
    }
  }

  private route(path: string, b: Record<string, any>): unknown {
    const solid = this.blocks[Math.max(0, this.blocks.length - 1 - this.solidDepth)]!;
    if (path.startsWith('/walletsolidity/') && !this.solidity) return undefined;
    switch (path) {
      case '/wallet/getnowblock':
        return this.blockJson(this.head);
      case '/walletsolidity/getnowblock':
        return this.blockJson(solid);
      case '/wallet/getblockbynum': {
        const blk = this.blocks[Number(b.num)];
        return blk ? this.blockJson(blk) : {};
      }
      case '/wallet/getblockbylimitnext': {
        const start = Number(b.startNum);
        const end = Number(b.endNum);
        if (!(end > start) || end - start > 100) throw new Error('startNum and endNum: 0 < endNum - startNum <= 100');
        const list = this.blocks.slice(start, end).map((x) => this.blockJson(x));
        return list.length ? { block: list } : {};
      }
      case '/wallet/gettransactioninfobyblocknum':
        return this.blocks[Number(b.num)]?.infos ?? [];
      case '/wallet/gettransactioninfobyid':
      case '/walletsolidity/gettransactioninfobyid': {
        const limit = path.startsWith('/walletsolidity') ? solid.number : this.head.number;
        for (const blk of this.blocks.slice(1, limit + 1)) {
          const info = blk.infos.find((i) => i.id === String(b.value));
          if (info) return info;
        }
        return {};
      }
      case '/wallet/getaccount': {
        const a = this.state.accounts.get(toHex41(String(b.address)));
        if (!a) return {};
        return { address: toHex41(String(b.address)), balance: Number(a.balance), create_time: a.createTime, frozenV2: [{}, { type: 'ENERGY', amount: Number(a.frozenEnergy) }] };
      }
      case '/wallet/getaccountresource': {
        const a = this.state.accounts.get(toHex41(String(b.address)));
        const out: Record<string, number> = { freeNetLimit: Number(PARAMS.getFreeNetLimit), TotalEnergyLimit: Number(TOTAL_ENERGY_LIMIT), TotalEnergyWeight: Number(TOTAL_ENERGY_WEIGHT) };
        if (a) {
          if (a.freeNetUsed) out.freeNetUsed = Number(a.freeNetUsed);
          const limit = energyLimit(a);
          if (limit) out.EnergyLimit = Number(limit);
          if (a.energyUsed) out.EnergyUsed = Number(a.energyUsed);
        }
        return out;
      }
      case '/wallet/getchainparameters':
        return { chainParameter: Object.entries(PARAMS).map(([key, value]) => ({ key, value: Number(value) })) };
      case '/wallet/createtransaction': {
        const value = { owner_address: toHex41(b.owner_address), to_address: toHex41(b.to_address), amount: Number(b.amount) };
        validate(this.state, toEffect('TransferContract', value, 0n));
        return this.build(path, 'TransferContract', value);
      }
      case '/wallet/triggersmartcontract':
      case '/wallet/triggerconstantcontract': {
        // java-tron: the selector is the first 4 bytes of keccak256 of the function's signature.
        const selector = String(b.function_selector ?? '');
        const sel = selector ? tw.ethersUtils.id(selector).slice(2, 10) : null;
        const data = b.data ? String(b.data) : sel ? sel + String(b.parameter ?? '') : '';
        const value = { owner_address: toHex41(b.owner_address), contract_address: toHex41(b.contract_address), data };
        const contract = toHex41(b.contract_address);
        if (!this.state.tokens.has(contract) && !this.state.factories.has(contract)) return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('No contract or not a smart contract').toString('hex') } };
        if (path === '/wallet/triggerconstantcontract') {
          const sim = simulateCall(this.state, value.owner_address, contract, data);
          const tx = this.build(path, 'TriggerSmartContract', value);
          const out: Record<string, unknown> = { result: { result: true }, energy_used: Number(sim.energy), constant_result: [sim.result], transaction: { ...tx, ret: [{}] } };
          if (sim.reverted) {
            out.result = { result: true, message: Buffer.from('REVERT opcode executed').toString('hex') };
            out.transaction = { ...tx, ret: [{ ret: 'FAILED' }] };
          }
          return out;
        }
        if (!this.state.accounts.has(value.owner_address)) return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('Validate TriggerSmartContract error, no OwnerAccount.').toString('hex') } };
        return { result: { result: true }, transaction: this.build(path, 'TriggerSmartContract', value, Number(b.fee_limit)) };
      }
      case '/wallet/delegateresource':
      case '/wallet/undelegateresource': {
        const type = path === '/wallet/delegateresource' ? 'DelegateResourceContract' : 'UnDelegateResourceContract';
        const value: Record<string, unknown> = { owner_address: toHex41(b.owner_address), receiver_address: toHex41(b.receiver_address), balance: Number(b.balance), resource: String(b.resource ?? 'BANDWIDTH') };
        if (type === 'DelegateResourceContract') value.lock = b.lock === true;
        validate(this.state, toEffect(type, value, 0n));
        return this.build(path, type, value);
      }
      case '/wallet/broadcasthex': {
        const pb = proto.Transaction.deserializeBinary(Buffer.from(String(b.transaction), 'hex'));
        const rawHex = hex(pb.getRawData().serializeBinary());
        const sigs = (pb.getSignatureList_asU8() as Uint8Array[]).map(hex);
        return this.accept(rawHex, sigs);
      }
      case '/wallet/broadcasttransaction': {
        const pb = tw.transaction.txJsonToPb(b);
        const rawHex = (tw.transaction.txPbToRawDataHex(pb) as string).toLowerCase();
        if (rawHex !== String(b.raw_data_hex).toLowerCase()) return { code: 'SIGERROR', message: Buffer.from('raw_data does not match raw_data_hex').toString('hex') };
        return this.accept(rawHex, b.signature ?? []);
      }
      default:
        return undefined;
    }
  }

  private blockJson(b: Block): Record<string, unknown> {
    const out: Record<string, unknown> = {
      blockID: b.id,
      block_header: {
        raw_data: { ...(b.number ? { number: b.number } : {}), txTrieRoot: '0'.repeat(64), witness_address: '41' + '0'.repeat(40), parentHash: b.parentHash, version: 31, timestamp: b.timestamp },
        witness_signature: '00',
      },
    };
    if (b.txs.length) out.transactions = b.txs.map(({ tx, contractRet }) => ({ ret: [{ contractRet }], signature: tx.json.signature, txID: tx.json.txID, raw_data: tx.json.raw_data, raw_data_hex: tx.json.raw_data_hex }));
    return out;
  }
}

/** java-tron's block id: the block number in the first 8 bytes, then 24 bytes of its hash. */
function blockId(number: number, seed: string): string {
  return number.toString(16).padStart(16, '0') + createHash('sha256').update(seed).digest('hex').slice(16);
}

function toEffect(type: string, v: Record<string, any>, feeLimit: bigint): Effect {
  const a = (x: unknown) => String(x ?? '').toLowerCase();
  switch (type) {
    case 'TransferContract':
      return { type, owner: a(v.owner_address), to: a(v.to_address), amount: BigInt(v.amount ?? 0) };
    case 'TriggerSmartContract':
      return { type, owner: a(v.owner_address), contract: a(v.contract_address), data: a(v.data), callValue: BigInt(v.call_value ?? 0), feeLimit };
    case 'DelegateResourceContract':
    case 'UnDelegateResourceContract':
      return { type, owner: a(v.owner_address), receiver: a(v.receiver_address), balance: BigInt(v.balance ?? 0), resource: String(v.resource) };
    default:
      throw new Error(`unsupported ${type}`);
  }
}

function leakedLog(e: Effect): Info['log'] {
  if (e.type !== 'TriggerSmartContract') return undefined;
  const d = e.data.replace(/^0x/, '');
  return [{ address: e.contract.slice(2), topics: ['ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', e.owner.slice(2).padStart(64, '0'), d.slice(8 + 24, 8 + 64).padStart(64, '0')], data: d.slice(8 + 64) }];
}

export { ENERGY_PER_TRX };
