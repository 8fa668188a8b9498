// A small client of java-tron's HTTP API (/wallet/* on a full node, /walletsolidity/* for what is
// solidified), or of a provider speaking it (TronGrid and the like take `api_key` in the
// TRON-PRO-API-KEY header). Addresses go out and come back in hex ("41..."), the API's default.
// Every call is counted by path (metrics, and the scaling benchmark). Errors are the chain layer's:
// NodeUnreachableError when no answer came, NodeError (`code`: the HTTP status, if any) otherwise.
import { readCapped } from '../capped-body.ts';
import { TRON_NODE_LIMITS } from './limits.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../errors.ts';
import { requestSignal } from '../poll-signal.ts';
import { checkBlock, checkTxInfos } from './answers.ts';

export interface TronBlock {
  blockID: string;
  block_header: { raw_data: { number?: number; parentHash: string; timestamp?: number } };
  transactions?: TronTransaction[];
}

export interface TronContractJson {
  type: string;
  parameter: { value: Record<string, unknown>; type_url?: string };
}

export interface TronTransaction {
  txID: string;
  raw_data: { contract: TronContractJson[]; expiration?: number; fee_limit?: number; timestamp?: number };
  raw_data_hex: string;
  ret?: Array<{ contractRet?: string }>;
  signature?: string[];
}

export interface TronLog {
  /** 20-byte contract address, hex without the 41 prefix. */
  address: string;
  topics?: string[];
  data?: string;
}

export interface TronTxInfo {
  id: string;
  blockNumber?: number;
  blockTimeStamp?: number;
  fee?: number;
  contract_address?: string;
  /** "FAILED" when the transaction failed; absent otherwise. */
  result?: string;
  resMessage?: string;
  receipt?: { result?: string; energy_usage_total?: number; net_usage?: number; net_fee?: number; energy_fee?: number };
  log?: TronLog[];
}

export interface TronAccountResource {
  freeNetUsed?: number;
  freeNetLimit?: number;
  NetUsed?: number;
  NetLimit?: number;
  EnergyUsed?: number;
  EnergyLimit?: number;
  TotalEnergyLimit?: number;
  TotalEnergyWeight?: number;
}

export interface TriggerResult {
  result?: { result?: boolean; code?: string; message?: string };
  energy_used?: number;
  constant_result?: string[];
  transaction?: TronTransaction;
}

export interface BroadcastResult {
  result?: boolean;
  txid?: string;
  code?: string;
  message?: string;
}

export interface TronApiOptions {
  apiKey?: string;
  timeoutMs?: number;
  onRequest?: (path: string) => void;
  /** An answer larger than this is the node's fault (default 64 MiB). */
  maxResponseBytes?: number;
}

export class TronApi {
  constructor(
    private readonly url: string,
    private readonly opts: TronApiOptions = {},
  ) {}

  async post<T>(path: string, body: Record<string, unknown> = {}): Promise<T> {
    this.opts.onRequest?.(path);
    let res: Response;
    try {
      res = await fetch(this.url.replace(/\/+$/, '') + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { 'TRON-PRO-API-KEY': this.opts.apiKey } : {}) },
        body: JSON.stringify(body),
        signal: requestSignal(this.opts.timeoutMs ?? 20_000),
      });
    } catch (err) {
      throw new NodeUnreachableError(path, null, `request failed: ${(err as Error).message}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.opts.maxResponseBytes ?? TRON_NODE_LIMITS.maxResponseBytes, path);
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new NodeUnreachableError(path, null, `reading the answer failed: ${(err as Error).message}`);
    }
    if (!res.ok) throw new NodeError(path, res.status, `HTTP ${res.status}`);
    let parsed: unknown;
    try {
      // Amounts and balances fit in a double (at most 9e16 sun, below 2^53 by design of the chain);
      // token amounts travel as hex words, never as JSON numbers.
      parsed = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new NodeError(path, null, 'the answer is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null) throw new FaultyNodeError(path, 'the answer is not a JSON object or array');
    if ('Error' in parsed) {
      throw new NodeError(path, null, String((parsed as { Error: unknown }).Error));
    }
    return parsed as T;
  }

  async nowBlock(): Promise<TronBlock> {
    return checkBlock('/wallet/getnowblock', await this.post('/wallet/getnowblock')) as TronBlock;
  }
  /** The newest solidified block, or null when the node does not serve the solidity API. */
  async solidNowBlock(): Promise<TronBlock | null> {
    try {
      const b = await this.post<TronBlock>('/walletsolidity/getnowblock');
      return b.blockID ? (checkBlock('/walletsolidity/getnowblock', b) as TronBlock) : null;
    } catch (err) {
      if (err instanceof NodeError && (err.code === 404 || err.code === 405 || err.code === 501)) return null;
      throw err;
    }
  }
  async blockByNum(num: number): Promise<TronBlock | null> {
    const b = await this.post<TronBlock>('/wallet/getblockbynum', { num });
    if (!b.blockID) return null;
    const block = checkBlock('/wallet/getblockbynum', b) as TronBlock;
    if ((block.block_header.raw_data.number ?? 0) !== num) throw new FaultyNodeError('/wallet/getblockbynum', `asked for block ${num}, the node answered another`);
    return block;
  }
  /** Blocks [start, end) in one call (the node caps a range at 100). */
  async blocks(start: number, end: number): Promise<TronBlock[]> {
    const path = '/wallet/getblockbylimitnext';
    const r = await this.post<{ block?: unknown }>(path, { startNum: start, endNum: end });
    if (r.block === undefined) return [];
    if (!Array.isArray(r.block) || r.block.length > end - start) throw new FaultyNodeError(path, `asked for ${end - start} blocks, the node answered something else`);
    return r.block.map((b) => checkBlock(path, b) as TronBlock);
  }
  async txInfosByBlock(num: number): Promise<TronTxInfo[]> {
    const path = '/wallet/gettransactioninfobyblocknum';
    const r = await this.post<unknown>(path, { num });
    return Array.isArray(r) ? (checkTxInfos(path, r) as TronTxInfo[]) : [];
  }
  async txInfo(txid: string, solid = false): Promise<TronTxInfo | null> {
    const r = await this.post<TronTxInfo>(solid ? '/walletsolidity/gettransactioninfobyid' : '/wallet/gettransactioninfobyid', { value: txid });
    return r.id ? r : null;
  }
  /** The account, or null while it does not exist on chain (not activated). */
  async account(addressHex: string): Promise<{ balance: bigint } | null> {
    const r = await this.post<{ address?: string; balance?: number }>('/wallet/getaccount', { address: addressHex });
    return r.address ? { balance: BigInt(r.balance ?? 0) } : null;
  }
  accountResource(addressHex: string): Promise<TronAccountResource> {
    return this.post('/wallet/getaccountresource', { address: addressHex });
  }
  async chainParameters(): Promise<Map<string, bigint>> {
    const r = await this.post<{ chainParameter?: Array<{ key: string; value?: number }> }>('/wallet/getchainparameters');
    return new Map((r.chainParameter ?? []).map((p) => [p.key, BigInt(p.value ?? 0)]));
  }
  createTransaction(owner: string, to: string, amount: bigint): Promise<TronTransaction> {
    return this.post('/wallet/createtransaction', { owner_address: owner, to_address: to, amount: Number(amount) });
  }
  triggerSmartContract(p: { owner: string; contract: string; selector: string; parameter: string; feeLimit: bigint }): Promise<TriggerResult> {
    return this.post('/wallet/triggersmartcontract', {
      owner_address: p.owner,
      contract_address: p.contract,
      function_selector: p.selector,
      parameter: p.parameter,
      fee_limit: Number(p.feeLimit),
      call_value: 0,
    });
  }
  triggerConstantContract(p: { owner: string; contract: string; selector: string; parameter: string }): Promise<TriggerResult> {
    return this.post('/wallet/triggerconstantcontract', {
      owner_address: p.owner,
      contract_address: p.contract,
      function_selector: p.selector,
      parameter: p.parameter,
    });
  }
  delegateResource(owner: string, receiver: string, balance: bigint): Promise<TronTransaction> {
    return this.post('/wallet/delegateresource', { owner_address: owner, receiver_address: receiver, balance: Number(balance), resource: 'ENERGY', lock: false });
  }
  undelegateResource(owner: string, receiver: string, balance: bigint): Promise<TronTransaction> {
    return this.post('/wallet/undelegateresource', { owner_address: owner, receiver_address: receiver, balance: Number(balance), resource: 'ENERGY' });
  }
  /** Takes the signed Transaction protobuf as hex (what the driver signed, byte for byte). */
  broadcastHex(hex: string): Promise<BroadcastResult> {
    return this.post('/wallet/broadcasthex', { transaction: hex });
  }
}

/** java-tron sends error messages of broadcasts and contract calls hex-encoded. */
export function nodeMessage(m: string | undefined): string {
  if (!m) return '';
  if (/^([0-9a-f]{2})+$/i.test(m)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(m.match(/../g)!.map((h) => parseInt(h, 16))));
    } catch {
      return m;
    }
  }
  return m;
}
