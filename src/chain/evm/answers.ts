// The shapes of the JSON-RPC answers the `evm` driver reads, checked field by field with the
// shared rules of src/chain/node-values.ts before anything uses them: a block is the height that
// was asked for, with hashes, addresses and amounts in their format; logs lie in the asked range.
// Whatever fails is the node's fault (FaultyNodeError), never a TypeError in the scan.
import { FaultyNodeError } from '../errors.ts';
import { evmAddress, hash32, heightHex, hexData, intHex, list, MAX_INDEX, quantityHex, record } from '../node-values.ts';

const M = 'eth_getBlockByNumber';

// Each check returns the answer as it came once it passed (rpc.ts gives it its type: importing the
// types here would make the two modules import each other).

/** A block (or null: the node has none at that height); `at`: the height asked for, if one was. */
export function checkBlock(v: unknown, full: boolean, at: number | null): unknown {
  if (v === null) return null;
  const b = record(M, 'a block', v);
  const n = heightHex(M, b.number);
  if (at !== null && n !== at) throw new FaultyNodeError(M, `asked for block ${at}, the node answered block ${n}`);
  hash32(M, 'a block hash', b.hash, true);
  hash32(M, 'a parent hash', b.parentHash, true);
  quantityHex(M, 'a timestamp', b.timestamp, 64);
  if (b.baseFeePerGas !== undefined && b.baseFeePerGas !== null) quantityHex(M, 'a base fee', b.baseFeePerGas);
  const txs = list(M, 'the transactions', b.transactions);
  for (const t of txs) {
    if (!full) {
      hash32(M, 'a transaction hash', t, true);
      continue;
    }
    const tx = record(M, 'a transaction', t);
    hash32(M, 'a transaction hash', tx.hash, true);
    evmAddress(M, 'a sender', tx.from);
    if (tx.to !== null && tx.to !== undefined) evmAddress(M, 'a recipient', tx.to);
    quantityHex(M, 'a transaction value', tx.value);
  }
  return v;
}

/** Token transfer logs of blocks from..to. */
export function checkLogs(v: unknown, from: number, to: number): unknown {
  const method = 'eth_getLogs';
  for (const x of list(method, 'the logs', v)) {
    const l = record(method, 'a log', x);
    evmAddress(method, 'a log address', l.address);
    for (const t of list(method, 'the topics', l.topics)) hash32(method, 'a topic', t, true);
    hexData(method, 'log data', l.data, true);
    const n = heightHex(method, l.blockNumber);
    if (n < from || n > to) throw new FaultyNodeError(method, `asked for blocks ${from} to ${to}, the node answered a log of block ${n}`);
    hash32(method, 'a block hash', l.blockHash, true);
    hash32(method, 'a transaction hash', l.transactionHash, true);
    intHex(method, 'a log index', l.logIndex, MAX_INDEX);
  }
  return v;
}

export function checkReceipt(v: unknown): unknown {
  const method = 'eth_getTransactionReceipt';
  if (v === null) return null;
  const r = record(method, 'a receipt', v);
  hash32(method, 'a transaction hash', r.transactionHash, true);
  heightHex(method, r.blockNumber);
  hash32(method, 'a block hash', r.blockHash, true);
  quantityHex(method, 'a status', r.status, 8);
  quantityHex(method, 'gas used', r.gasUsed, 64);
  if (r.effectiveGasPrice !== undefined) quantityHex(method, 'a gas price', r.effectiveGasPrice);
  return v;
}
