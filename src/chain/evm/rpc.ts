// A small JSON-RPC client over fetch: the driver needs a handful of methods, exact control over
// block tags and errors, and a count of calls per method (metrics, and the scaling test).
// Errors are the chain layer's: NodeUnreachableError when no JSON-RPC answer came, NodeError
// when the node answered with one.
import type { Hex } from 'viem';
import { NodeError, NodeUnreachableError } from '../errors.ts';

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
}

/** 'latest', 'pending' or a block number in hex. */
export type BlockTag = 'latest' | 'pending' | Hex;

export class RpcClient {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly opts: { timeoutMs?: number; onRequest?: (method: string) => void } = {},
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
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 20_000),
      });
    } catch (err) {
      throw new NodeUnreachableError(method, null, `request failed: ${(err as Error).message}`);
    }
    const text = await res.text();
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new NodeUnreachableError(method, null, `HTTP ${res.status}: not JSON-RPC`);
    }
    if (body.error) throw new NodeError(method, body.error.code, body.error.message, body.error.data);
    if (!res.ok) throw new NodeUnreachableError(method, null, `HTTP ${res.status}`);
    return body.result as T;
  }

  chainId(): Promise<Hex> {
    return this.call('eth_chainId');
  }
  async blockNumber(): Promise<number> {
    return Number(BigInt(await this.call<Hex>('eth_blockNumber')));
  }
  blockWithTxs(n: number): Promise<RpcBlock<RpcTransaction> | null> {
    return this.call('eth_getBlockByNumber', [hex(n), true]);
  }
  header(n: number | 'latest'): Promise<RpcBlock<Hex> | null> {
    return this.call('eth_getBlockByNumber', [typeof n === 'number' ? hex(n) : n, false]);
  }
  logs(filter: { fromBlock: number; toBlock: number; address: Hex[]; topics: Array<Hex | null> }): Promise<RpcLog[]> {
    return this.call('eth_getLogs', [
      { fromBlock: hex(filter.fromBlock), toBlock: hex(filter.toBlock), address: filter.address, topics: filter.topics },
    ]);
  }
  receipt(txid: Hex): Promise<RpcReceipt | null> {
    return this.call('eth_getTransactionReceipt', [txid]);
  }
  async nonce(address: Hex, tag: 'pending' | 'latest'): Promise<number> {
    return Number(BigInt(await this.call<Hex>('eth_getTransactionCount', [address, tag])));
  }
  async balance(address: Hex, tag: BlockTag = 'latest'): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_getBalance', [address, tag]));
  }
  async ethCall(tx: RpcCallTx, tag: BlockTag = 'latest'): Promise<Hex> {
    return this.call<Hex>('eth_call', [tx, tag]);
  }
  async estimateGas(tx: RpcCallTx): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_estimateGas', [tx]));
  }
  async maxPriorityFee(): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_maxPriorityFeePerGas'));
  }
  async gasPrice(): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_gasPrice'));
  }
  sendRaw(raw: Hex): Promise<Hex> {
    return this.call('eth_sendRawTransaction', [raw]);
  }
}

export function hex(n: number | bigint): Hex {
  return `0x${n.toString(16)}`;
}

export function num(h: Hex | string): number {
  return Number(BigInt(h));
}
