// What the driver reads from a node, whichever its RPC generation: blocks with their raw
// transactions (`getblock` verbosity 2 on Bitcoin Core 0.15+ and Litecoin Core; per-transaction
// `getrawtransaction` on Dogecoin Core 1.14, whose `getblock` has no verbosity 2 and which then
// needs -txindex), the mempool, and the chain the node is on.
import { BitcoinRpc, BitcoinRpcError } from './rpc.ts';

export interface NodeTx {
  txid: string;
  hex: string;
}

export interface NodeBlock {
  hash: string;
  height: number;
  previousblockhash: string | null;
  txs: NodeTx[];
}

interface VerboseBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  tx: Array<{ txid: string; hex: string } | string>;
}

/** How many reads go into one HTTP request. */
const BATCH = 200;

export class BitcoinNode {
  /** null until the first block read tells whether `getblock` takes verbosity 2. */
  private verbosity2: boolean | null = null;

  constructor(readonly rpc: BitcoinRpc) {}

  async chainInfo(): Promise<{ chain: string; blocks: number }> {
    return this.rpc.call('getblockchaininfo');
  }

  blockCount(): Promise<number> {
    return this.rpc.call('getblockcount');
  }

  /** Hashes of heights `from..to` (one request). A height above the tip answers null. */
  async hashes(from: number, to: number): Promise<Array<string | null>> {
    const calls = [];
    for (let h = from; h <= to; h++) calls.push({ method: 'getblockhash', params: [h] });
    const res = await this.rpc.batch<string>(calls);
    return res.map((r) => {
      if (r.ok) return r.value;
      if (r.error.code === -8) return null; // height out of range
      throw r.error;
    });
  }

  async hashAt(height: number): Promise<string | null> {
    return (await this.hashes(height, height))[0]!;
  }

  /** Blocks by hash, with every transaction's raw bytes. */
  async blocks(hashes: string[]): Promise<NodeBlock[]> {
    if (hashes.length === 0) return [];
    if (this.verbosity2 !== false) {
      const res = await this.rpc.batch<VerboseBlock>(hashes.map((h) => ({ method: 'getblock', params: [h, 2] })));
      const first = res[0]!;
      // Dogecoin Core 1.14 takes a boolean: "JSON value is not a boolean as expected" (-1 or -3).
      if (!first.ok && this.verbosity2 === null && /boolean/i.test(first.error.message)) {
        this.verbosity2 = false;
      } else {
        this.verbosity2 = true;
        return res.map((r) => {
          if (!r.ok) throw r.error;
          return toBlock(r.value, r.value.tx.map((t) => t as { txid: string; hex: string }));
        });
      }
    }
    const res = await this.rpc.batch<VerboseBlock>(hashes.map((h) => ({ method: 'getblock', params: [h, true] })));
    const blocks: VerboseBlock[] = res.map((r) => {
      if (!r.ok) throw r.error;
      return r.value;
    });
    const txids = blocks.flatMap((b) => b.tx as string[]);
    const raw = await this.rawTxs(txids, true);
    return blocks.map((b) => toBlock(b, (b.tx as string[]).map((txid) => ({ txid, hex: raw.get(txid)! }))));
  }

  /** Whether blocks are read transaction by transaction (Dogecoin Core). */
  get perTransaction(): boolean {
    return this.verbosity2 === false;
  }

  mempool(): Promise<string[]> {
    return this.rpc.call('getrawmempool', [false]);
  }

  /** Raw transactions by id; one that the node no longer has is left out (or, `required`, an error). */
  async rawTxs(txids: string[], required = false): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < txids.length; i += BATCH) {
      const part = txids.slice(i, i + BATCH);
      const res = await this.rpc.batch<string>(part.map((t) => ({ method: 'getrawtransaction', params: [t, false] })));
      res.forEach((r, j) => {
        if (r.ok) out.set(part[j]!, r.value);
        else if (required) {
          throw new BitcoinRpcError(
            'getrawtransaction',
            r.error.code,
            `${r.error.message} (a node without verbosity 2 in getblock must run with -txindex)`,
          );
        }
      });
    }
    return out;
  }

  sendRaw(hex: string): Promise<string> {
    return this.rpc.call('sendrawtransaction', [hex]);
  }

  /** Fee rate in coin per kvB for a confirmation target, or null when the node has no estimate. */
  async estimateFee(target: number): Promise<string | null> {
    try {
      const r = await this.rpc.call<{ feerate?: string; errors?: string[] }>('estimatesmartfee', [target]);
      return r.feerate ?? null;
    } catch (err) {
      if (err instanceof BitcoinRpcError && !err.unreachable) return null; // Dogecoin 1.14 has only estimatefee
      throw err;
    }
  }
}

function toBlock(b: VerboseBlock, txs: NodeTx[]): NodeBlock {
  return { hash: b.hash, height: b.height, previousblockhash: b.previousblockhash ?? null, txs };
}
