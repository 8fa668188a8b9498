// getTransaction's answer in the two encodings the driver may ask for, as a Solana RPC node
// (agave's rpc + transaction-status crates) renders them. `json`: accountKeys as base58 strings,
// instructions with programIdIndex, account indexes and base58 data. `jsonParsed`: accountKeys as
// {pubkey, signer, source, writable}, and the instructions of programs the node knows parsed
// (System transfer, SPL Token transfer/transferChecked) — a parsed instruction drops its account
// list, so a Solana Pay reference on a parsed System transfer is only visible in accountKeys —
// while other instructions keep `accounts` (as base58 keys) and `data`.
import type { CompiledIx, ExecutedTx } from './chain.ts';
import { toB58 } from './chain.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount, type TokenBalance } from './tokens.ts';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';

function u64le(b: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[at + i]!);
  return v;
}

function tokenBalances(list: TokenBalance[]) {
  return list.map((t) => ({ accountIndex: t.accountIndex, mint: t.mint, owner: t.owner, programId: t.programId, uiTokenAmount: uiTokenAmount(t.amount, t.decimals) }));
}

export function isWritable(e: ExecutedTx, i: number): boolean {
  const h = e.tx.header;
  const n = e.tx.accountKeys.length;
  if (i < h.numRequiredSignatures) return i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
  return i < n - h.numReadonlyUnsignedAccounts;
}

function jsonIx(ix: CompiledIx, stackHeight: number | null) {
  return { programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: toB58(ix.data), stackHeight };
}

function parsedIx(e: ExecutedTx, ix: CompiledIx, stackHeight: number | null): unknown {
  const keys = e.tx.accountKeys;
  const programId = keys[ix.programIdIndex]!;
  const acc = (k: number) => keys[ix.accounts[k]!]!;
  const d = ix.data;
  if (programId === SYSTEM_PROGRAM && d.length === 12 && d[0] === 2 && d[1] === 0 && d[2] === 0 && d[3] === 0 && ix.accounts.length >= 2) {
    const lamports = u64le(d, 4);
    return { program: 'system', programId, parsed: { type: 'transfer', info: { source: acc(0), destination: acc(1), lamports } }, stackHeight };
  }
  if ((programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) && ix.accounts.length >= 3) {
    const program = programId === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    if (d.length === 9 && d[0] === 3) {
      return { program, programId, parsed: { type: 'transfer', info: { source: acc(0), destination: acc(1), authority: acc(2), amount: u64le(d, 1).toString() } }, stackHeight };
    }
    if (d.length === 10 && d[0] === 12 && ix.accounts.length >= 4) {
      const mint = acc(1);
      const decimals = d[9]!;
      return {
        program,
        programId,
        parsed: { type: 'transferChecked', info: { source: acc(0), mint, destination: acc(2), authority: acc(3), tokenAmount: uiTokenAmount(u64le(d, 1), decimals) } },
        stackHeight,
      };
    }
  }
  return { programId, accounts: ix.accounts.map((i) => keys[i]!), data: toB58(ix.data), stackHeight };
}

export function renderTransaction(e: ExecutedTx, encoding: 'json' | 'jsonParsed', withVersion: boolean): unknown {
  const parsed = encoding === 'jsonParsed';
  const keys = e.tx.accountKeys;
  const meta = {
    err: e.err,
    status: e.err === null ? { Ok: null } : { Err: e.err },
    fee: e.fee,
    preBalances: e.preBalances,
    postBalances: e.postBalances,
    innerInstructions: e.inner.map((g) => ({
      index: g.index,
      instructions: g.instructions.map((ix) => (parsed ? parsedIx(e, ix, ix.stackHeight) : jsonIx(ix, ix.stackHeight))),
    })),
    logMessages: e.logs,
    preTokenBalances: tokenBalances(e.preTokenBalances),
    postTokenBalances: tokenBalances(e.postTokenBalances),
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: e.computeUnits,
  };
  const message = parsed
    ? {
        accountKeys: keys.map((pubkey, i) => ({ pubkey, signer: i < e.tx.header.numRequiredSignatures, source: 'transaction', writable: isWritable(e, i) })),
        recentBlockhash: e.tx.recentBlockhash,
        instructions: e.tx.instructions.map((ix) => parsedIx(e, ix, null)),
      }
    : {
        header: e.tx.header,
        accountKeys: keys,
        recentBlockhash: e.tx.recentBlockhash,
        instructions: e.tx.instructions.map((ix) => jsonIx(ix, null)),
      };
  const out: Record<string, unknown> = { slot: e.slot, blockTime: e.blockTime, meta, transaction: { signatures: e.tx.signatures, message } };
  if (withVersion) out.version = e.tx.version;
  return out;
}
