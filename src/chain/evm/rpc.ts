// A small JSON-RPC client over fetch: the driver needs a handful of methods, exact control over
// block tags and errors, and a count of calls per method (metrics, and the scaling test).
// Errors are the chain layer's: NodeUnreachableError when no JSON-RPC answer came, NodeError
// when the node answered with one.
import type { Hex } from 'viem';
import { readCapped } from '../capped-body.ts';
import { EVM_NODE_LIMITS } from './limits.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../errors.ts';
import { requestSignal } from '../poll-signal.ts';
import { hash32, heightHex, hexData, intHex, quantityHex } from '../node-values.ts';
import { checkBlock, checkLogs, checkReceipt } from './answers.ts';

export interface RpcBlock<T = RpcTransaction | Hex> {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  baseFeePerGas?: Hex | null;
  transactions: T[];
}

export interface RpcTransaction {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  value: Hex;
  input: Hex;
  blockHash: Hex | null;
  blockNumber: Hex | null;
}

export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  removed?: boolean;
}

export interface RpcReceipt {
  transactionHash: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  /** 0x1 success, 0x0 reverted */
  status: Hex;
  gasUsed: Hex;
  effectiveGasPrice?: Hex;
}

export interface RpcCallTx {
  from?: Hex;
  to: Hex;
  value?: Hex;
  data?: Hex;
  /** A gas cap for the call (a contract the payer controls is run: bound what it may cost the node). */
  gas?: Hex;
}

/** 'latest', 'pending' or a block number in hex. */
export type BlockTag = 'latest' | 'pending' | Hex;

export class RpcClient {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly opts: { timeoutMs?: number; onRequest?: (method: string) => void; maxResponseBytes?: number } = {},
  ) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    this.opts.onRequest?.(method);
    const id = this.nextId++;
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: requestSignal(this.opts.timeoutMs ?? 20_000),
      });
    } catch (err) {
      throw new NodeUnreachableError(method, null, `request failed: ${(err as Error).message}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.opts.maxResponseBytes ?? EVM_NODE_LIMITS.maxResponseBytes, method);
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new NodeUnreachableError(method, null, `reading the answer failed: ${(err as Error).message}`);
    }
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new NodeUnreachableError(method, null, `HTTP ${res.status}: not JSON-RPC`);
    }
    if (typeof body !== 'object' || body === null) throw new NodeUnreachableError(method, null, `HTTP ${res.status}: not JSON-RPC`);
    if (body.error) throw new NodeError(method, Number.isSafeInteger(body.error.code) ? body.error.code : null, String(body.error.message), body.error.data);
    if (!res.ok) throw new NodeUnreachableError(method, null, `HTTP ${res.status}`);
    return body.result as T;
  }

  async chainId(): Promise<Hex> {
    const id = await this.call<unknown>('eth_chainId');
    intHex('eth_chainId', 'a chain id', id, Number.MAX_SAFE_INTEGER);
    return id as Hex;
  }
  async blockNumber(): Promise<number> {
    return heightHex('eth_blockNumber', await this.call<unknown>('eth_blockNumber'));
  }
  async blockWithTxs(n: number): Promise<RpcBlock<RpcTransaction> | null> {
    return checkBlock(await this.call('eth_getBlockByNumber', [hex(n), true]), true, n) as RpcBlock<RpcTransaction> | null;
  }
  async header(n: number | 'latest'): Promise<RpcBlock<Hex> | null> {
    const b = await this.call('eth_getBlockByNumber', [typeof n === 'number' ? hex(n) : n, false]);
    return checkBlock(b, false, typeof n === 'number' ? n : null) as RpcBlock<Hex> | null;
  }
  async logs(filter: { fromBlock: number; toBlock: number; address: Hex[]; topics: Array<Hex | null> }): Promise<RpcLog[]> {
    const logs = await this.call('eth_getLogs', [
      { fromBlock: hex(filter.fromBlock), toBlock: hex(filter.toBlock), address: filter.address, topics: filter.topics },
    ]);
    return checkLogs(logs, filter.fromBlock, filter.toBlock) as RpcLog[];
  }
  async receipt(txid: Hex): Promise<RpcReceipt | null> {
    return checkReceipt(await this.call('eth_getTransactionReceipt', [txid])) as RpcReceipt | null;
  }
  async nonce(address: Hex, tag: 'pending' | 'latest'): Promise<number> {
    return intHex('eth_getTransactionCount', 'a nonce', await this.call<unknown>('eth_getTransactionCount', [address, tag]), 2 ** 48);
  }
  async balance(address: Hex, tag: BlockTag = 'latest'): Promise<bigint> {
    return quantityHex('eth_getBalance', 'a balance', await this.call<unknown>('eth_getBalance', [address, tag]));
  }
  async ethCall(tx: RpcCallTx, tag: BlockTag = 'latest'): Promise<Hex> {
    return hexData('eth_call', 'call data', await this.call<unknown>('eth_call', [tx, tag]), true) as Hex;
  }
  async estimateGas(tx: RpcCallTx): Promise<bigint> {
    return quantityHex('eth_estimateGas', 'a gas estimate', await this.call<unknown>('eth_estimateGas', [tx]), 64);
  }
  async maxPriorityFee(): Promise<bigint> {
    return quantityHex('eth_maxPriorityFeePerGas', 'a fee', await this.call<unknown>('eth_maxPriorityFeePerGas'));
  }
  async gasPrice(): Promise<bigint> {
    return quantityHex('eth_gasPrice', 'a gas price', await this.call<unknown>('eth_gasPrice'));
  }
  async sendRaw(raw: Hex): Promise<Hex> {
    return hash32('eth_sendRawTransaction', 'a transaction hash', await this.call<unknown>('eth_sendRawTransaction', [raw]), true) as Hex;
  }
}

export function hex(n: number | bigint): Hex {
  return `0x${n.toString(16)}`;
}

/** A quantity the node gave (already checked by the answer's shape) as a number. */
export function num(h: Hex | string): number {
  return intHex('answer', 'a number', h, Number.MAX_SAFE_INTEGER);
}
