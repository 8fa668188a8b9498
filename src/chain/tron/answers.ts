// The shapes of the java-tron answers the `tron` driver scans with, checked with the shared rules
// of src/chain/node-values.ts before use: block ids and numbers, the amount of a TRX transfer,
// the ids, block numbers and logs of transaction infos. Whatever fails is the node's fault
// (FaultyNodeError), never a TypeError or a lost digit in the scan.
import { FaultyNodeError } from '../errors.ts';
import { hash32, heightNumber, hexData, intNumber, list, record } from '../node-values.ts';

// Each check returns the answer as it came once it passed (api.ts gives it its type: importing the
// types here would make the two modules import each other).

/** A block (blockID, number, parent, time, and the amounts of its TRX transfers). */
export function checkBlock(method: string, v: unknown): unknown {
  const b = record(method, 'a block', v);
  hash32(method, 'a block id', b.blockID, false);
  const raw = record(method, 'a block header', record(method, 'a block header', b.block_header).raw_data);
  // java-tron leaves the number out of the genesis block.
  if (raw.number !== undefined) heightNumber(method, raw.number);
  hash32(method, 'a parent hash', raw.parentHash, false);
  if (raw.timestamp !== undefined) intNumber(method, 'a timestamp', raw.timestamp, Number.MAX_SAFE_INTEGER);
  for (const t of b.transactions === undefined ? [] : list(method, 'the transactions', b.transactions)) {
    const tx = record(method, 'a transaction', t);
    hash32(method, 'a transaction id', tx.txID, false);
    const contracts = list(method, 'the contracts', record(method, 'a transaction', tx.raw_data).contract);
    for (const c of contracts) {
      const contract = record(method, 'a contract', c);
      if (contract.type !== 'TransferContract') continue;
      const value = record(method, 'a transfer', record(method, 'a transfer', contract.parameter).value);
      if (value.amount !== undefined) intNumber(method, 'a TRX amount', value.amount, Number.MAX_SAFE_INTEGER);
    }
  }
  return v;
}

/** A block's transaction infos: ids, block numbers and token logs in their format. */
export function checkTxInfos(method: string, v: unknown): unknown {
  for (const x of list(method, 'the transaction infos', v)) {
    const info = record(method, 'a transaction info', x);
    hash32(method, 'a transaction id', info.id, false);
    if (info.blockNumber !== undefined) heightNumber(method, info.blockNumber);
    for (const l of info.log === undefined ? [] : list(method, 'the logs', info.log)) {
      const log = record(method, 'a log', l);
      if (typeof log.address !== 'string' || !/^(41)?[0-9a-fA-F]{40}$/.test(log.address)) throw new FaultyNodeError(method, 'a log address is not an address');
      for (const t of log.topics === undefined ? [] : list(method, 'the topics', log.topics)) hash32(method, 'a topic', t, false);
      if (log.data !== undefined) hexData(method, 'log data', log.data, false);
    }
  }
  return v;
}
