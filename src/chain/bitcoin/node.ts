// What the driver reads from a node, whichever its RPC generation: blocks with their raw
// transactions (`getblock` verbosity 2 on Bitcoin Core 0.15+ and Litecoin Core; per-transaction
// `getrawtransaction` on Dogecoin Core 1.14, whose `getblock` has no verbosity 2 and which then
// needs -txindex), the mempool, and the chain the node is on.
import { FaultyNodeError } from '../errors.ts';
import { hash32, heightNumber, hexData, list, record } from '../node-values.ts';
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
    const info = record('getblockchaininfo', 'the chain info', await this.rpc.call<unknown>('getblockchaininfo'));
    if (typeof info.chain !== 'string') throw new FaultyNodeError('getblockchaininfo', 'the chain info names no chain');
    return { chain: info.chain, blocks: heightNumber('getblockchaininfo', info.blocks) };
  }

  async blockCount(): Promise<number> {
    return heightNumber('getblockcount', await this.rpc.call<unknown>('getblockcount'));
  }

  /** Hashes of heights `from..to` (one request). A height above the tip answers null. */
  async hashes(from: number, to: number): Promise<Array<string | null>> {
    const calls = [];
    for (let h = from; h <= to; h++) calls.push({ method: 'getblockhash', params: [h] });
    const res = await this.rpc.batch<unknown>(calls);
    return res.map((r) => {
      if (r.ok) return hash32('getblockhash', 'a block hash', r.value, false);
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
        return res.map((r, i) => {
          if (!r.ok) throw r.error;
          const b = checkBlock(r.value, hashes[i]!);
          return toBlock(b, b.tx.map((t) => checkTx(t)));
        });
      }
    }
    const res = await this.rpc.batch<VerboseBlock>(hashes.map((h) => ({ method: 'getblock', params: [h, true] })));
    const blocks: VerboseBlock[] = res.map((r, i) => {
      if (!r.ok) throw r.error;
      const b = checkBlock(r.value, hashes[i]!);
      for (const t of b.tx) hash32('getblock', 'a txid', t, false);
      return b;
    });
    const txids = blocks.flatMap((b) => b.tx as string[]);
    const raw = await this.rawTxs(txids, true);
    return blocks.map((b) => toBlock(b, (b.tx as string[]).map((txid) => ({ txid, hex: raw.get(txid)! }))));
  }

  /** Whether blocks are read transaction by transaction (Dogecoin Core). */
  get perTransaction(): boolean {
    return this.verbosity2 === false;
  }

  async mempool(): Promise<string[]> {
    const ids = list('getrawmempool', 'the mempool', await this.rpc.call<unknown>('getrawmempool', [false]));
    return ids.map((t) => hash32('getrawmempool', 'a txid', t, false));
  }

  /** Raw transactions by id; one that the node no longer has is left out (or, `required`, an error). */
  async rawTxs(txids: string[], required = false): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < txids.length; i += BATCH) {
      const part = txids.slice(i, i + BATCH);
      const res = await this.rpc.batch<unknown>(part.map((t) => ({ method: 'getrawtransaction', params: [t, false] })));
      res.forEach((r, j) => {
        if (r.ok) out.set(part[j]!, hexData('getrawtransaction', 'a raw transaction', r.value, false));
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

  async sendRaw(hex: string): Promise<string> {
    return hash32('sendrawtransaction', 'a txid', await this.rpc.call<unknown>('sendrawtransaction', [hex]), false);
  }

  /** Fee rate in coin per kvB for a confirmation target, or null when the node has no estimate. */
  async estimateFee(target: number): Promise<string | null> {
    try {
      const r = record('estimatesmartfee', 'a fee estimate', await this.rpc.call<unknown>('estimatesmartfee', [target]));
      if (r.feerate === undefined) return null;
      // The RPC client turned the JSON number into its exact text; anything else is not a rate.
      if (typeof r.feerate !== 'string' || !/^\d{1,8}(\.\d{1,8})?$/.test(r.feerate)) throw new FaultyNodeError('estimatesmartfee', 'the fee rate is not a non-negative amount');
      return r.feerate;
    } catch (err) {
      if (err instanceof BitcoinRpcError && !err.unreachable) return null; // Dogecoin 1.14 has only estimatefee
      throw err;
    }
  }
}

/** A `getblock` answer: the block asked for, its height and parent in their format, a list of transactions. */
function checkBlock(v: unknown, asked: string): VerboseBlock {
  const m = 'getblock';
  const b = record(m, 'a block', v);
  if (hash32(m, 'a block hash', b.hash, false) !== asked) throw new FaultyNodeError(m, `asked for block ${asked}, the node answered ${String(b.hash)}`);
  heightNumber(m, b.height);
  if (b.previousblockhash !== undefined) hash32(m, 'a parent hash', b.previousblockhash, false);
  list(m, 'the transactions', b.tx);
  return v as VerboseBlock;
}

/** A transaction of a verbosity 2 block: its txid and raw bytes. */
function checkTx(v: unknown): NodeTx {
  const t = record('getblock', 'a transaction', v);
  return { txid: hash32('getblock', 'a txid', t.txid, false), hex: hexData('getblock', 'a raw transaction', t.hex, false) };
}

function toBlock(b: VerboseBlock, txs: NodeTx[]): NodeBlock {
  return { hash: b.hash, height: b.height, previousblockhash: b.previousblockhash ?? null, txs };
}
