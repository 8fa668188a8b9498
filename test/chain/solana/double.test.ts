// The Solana JSON-RPC double translates faithfully: @solana/kit's RPC client (an independent
// reader, test-only) reads payments that kit built and LiteSVM executed, and every balance the
// double reports is the one LiteSVM holds. Commitment, failed transactions, blockhash expiry,
// paging and batches behave as a node's do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, signature, type Address, type KeyPairSigner } from '@solana/kit';
import { startSolanaDouble, type SolanaDouble } from './double/server.ts';
import { LAMPORTS_PER_SOL, scenario, type Mint, type Scenario } from './double/scenario.ts';

async function rpcRaw(url: string, body: unknown): Promise<any> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return r.json();
}

describe('solana JSON-RPC double over LiteSVM', () => {
  let d: SolanaDouble;
  let sc: Scenario;
  let payer: KeyPairSigner;
  let merchant: KeyPairSigner;
  let usdc: Mint;

  beforeAll(async () => {
    d = await startSolanaDouble();
    sc = scenario(d);
    payer = await sc.payer();
    merchant = await sc.payer(LAMPORTS_PER_SOL);
    usdc = await sc.mint(6);
    await sc.mintTo(usdc, payer.address, 1_000_000_000n);
  }, 60_000);
  afterAll(async () => d?.close());

  it('a SOL payment with a reference: indexed under the reference, balances from LiteSVM, confirmed then finalized', async () => {
    const ref = await sc.reference();
    const before = d.chain.svm.getBalance(merchant.address)!;
    const sig = await sc.paySol(payer, merchant.address, 1_250_000n, [ref]);
    expect(d.chain.svm.getBalance(merchant.address)).toBe(before + 1_250_000n);

    // A node's default commitment is finalized: not there yet (kit itself defaults to confirmed).
    expect((await rpcRaw(d.url, { jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [ref] })).result).toEqual([]);
    expect(await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'finalized' }).send()).toEqual([]);
    const confirmed = await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'confirmed' }).send();
    expect(confirmed.map((s) => [s.signature, s.confirmationStatus, s.err])).toEqual([[sig, 'confirmed', null]]);

    const tx = await sc.rpc.getTransaction(signature(sig), { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx).not.toBeNull();
    const keys = tx!.transaction.message.accountKeys;
    const ix = tx!.transaction.message.instructions[0]!;
    expect(keys[ix.programIdIndex]).toBe('11111111111111111111111111111111');
    expect(ix.accounts.map((i) => keys[i])).toEqual([payer.address, merchant.address, ref]);
    const m = keys.indexOf(merchant.address as Address);
    expect(tx!.meta!.postBalances[m]! - tx!.meta!.preBalances[m]!).toBe(1_250_000n);
    expect(tx!.meta!.err).toBeNull();
    expect(tx!.meta!.fee).toBe(5000n);
    expect(tx!.version).toBe('legacy');

    d.chain.finalizeAll();
    const fin = await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'finalized' }).send();
    expect(fin.map((s) => s.confirmationStatus)).toEqual(['finalized']);
    const st = await sc.rpc.getSignatureStatuses([signature(sig)], { searchTransactionHistory: true }).send();
    expect(st.value[0]).toMatchObject({ confirmationStatus: 'finalized', confirmations: null, err: null });
  });

  it('jsonParsed drops the reference from a parsed System transfer but keeps it in accountKeys', async () => {
    const ref = await sc.reference();
    const sig = await sc.paySol(payer, merchant.address, 7n, [ref]);
    const tx: any = await sc.rpc.getTransaction(signature(sig), { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(tx.transaction.message.instructions[0]).toMatchObject({ program: 'system', parsed: { type: 'transfer', info: { source: payer.address, destination: merchant.address, lamports: 7n } } });
    const flags = Object.fromEntries(tx.transaction.message.accountKeys.map((k: any) => [k.pubkey, [k.signer, k.writable, k.source]]));
    expect(flags).toEqual({
      [payer.address]: [true, true, 'transaction'],
      [merchant.address]: [false, true, 'transaction'],
      '11111111111111111111111111111111': [false, false, 'transaction'],
      [ref]: [false, false, 'transaction'],
    });
    const refKey = tx.transaction.message.accountKeys.find((k: any) => k.pubkey === ref);
    expect(refKey).toMatchObject({ signer: false, writable: false });
  });

  it('an SPL transferChecked to the merchant ATA: token balances with owner, mint and amount', async () => {
    const ref = await sc.reference();
    const sig = await sc.payToken(payer, merchant.address, usdc, 2_500_000n, [ref]);
    const merchantAta = await sc.ata(merchant.address, usdc);
    const tx = await sc.rpc.getTransaction(signature(sig), { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const keys = tx!.transaction.message.accountKeys;
    const i = keys.indexOf(merchantAta);
    const post = tx!.meta!.postTokenBalances!.find((b) => b.accountIndex === i)!;
    expect(post).toMatchObject({ mint: usdc.address, owner: merchant.address, uiTokenAmount: { amount: '2500000', decimals: 6, uiAmountString: '2.5' } });
    expect(tx!.meta!.preTokenBalances!.find((b) => b.accountIndex === i)).toBeUndefined(); // the ATA was created in this transaction
    const transfer = tx!.transaction.message.instructions.find((x) => keys[x.programIdIndex] === 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')!;
    expect(transfer.accounts.map((k) => keys[k])).toEqual([await sc.ata(payer.address, usdc), usdc.address, merchantAta, payer.address, ref]);
    expect(tx!.meta!.innerInstructions!.length).toBeGreaterThan(0); // the ATA program's CPIs
    const accts = await sc.rpc.getTokenAccountsByOwner(merchant.address, { mint: usdc.address }, { encoding: 'jsonParsed' }).send();
    expect(accts.value.map((a) => [a.pubkey, (a.account.data as any).parsed.info.tokenAmount.amount])).toEqual([[merchantAta, '2500000']]);
    const info = await sc.rpc.getAccountInfo(usdc.address, { encoding: 'jsonParsed' }).send();
    expect((info.value!.data as any).parsed).toMatchObject({ type: 'mint', info: { decimals: 6, supply: '1000000000' } });
  });

  it('a failed transaction: refused by preflight; with skipPreflight it lands with meta.err and only the fee moves', async () => {
    const ref = await sc.reference();
    const poor = await sc.payer(1_000_000n);
    await expect(sc.paySol(poor, merchant.address, 5_000_000n, [ref])).rejects.toThrow();
    expect(await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'confirmed' }).send()).toEqual([]);
    const mBefore = d.chain.svm.getBalance(merchant.address)!;
    const sig = await sc.pay(poor, [{ to: merchant.address, amount: 5_000_000n, references: [ref] }], { skipPreflight: true });
    expect(d.chain.svm.getBalance(merchant.address)).toBe(mBefore);
    expect(d.chain.svm.getBalance(poor.address)).toBe(1_000_000n - 5000n);
    const sigs = await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'confirmed' }).send();
    expect(sigs.map((s) => [s.signature, s.err])).toEqual([[sig, { InstructionError: [0n, { Custom: 1n }] }]]);
    const tx = await sc.rpc.getTransaction(signature(sig), { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx!.meta!.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(tx!.meta!.postBalances[1]).toBe(tx!.meta!.preBalances[1]);
  });

  it('blockhash expiry: lastValidBlockHeight passes, the hash is invalid, a late send is refused or dropped', async () => {
    const { value: bh } = await sc.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    expect((await sc.rpc.isBlockhashValid(bh.blockhash, { commitment: 'confirmed' }).send()).value).toBe(true);
    const height = await sc.rpc.getBlockHeight({ commitment: 'confirmed' }).send();
    expect(bh.lastValidBlockHeight).toBe(height + 150n);
    expect(await sc.rpc.getSlot({ commitment: 'confirmed' }).send()).not.toBe(height);
    d.chain.expireBlockhashes();
    expect((await sc.rpc.getBlockHeight({ commitment: 'confirmed' }).send()) > bh.lastValidBlockHeight).toBe(true);
    expect((await sc.rpc.isBlockhashValid(bh.blockhash, { commitment: 'confirmed' }).send()).value).toBe(false);
  });

  it('paging newest first with before/until and limit; batch requests; unknown method and bad params', async () => {
    const ref = await sc.reference();
    const sigs: string[] = [];
    for (let i = 0; i < 4; i++) sigs.push(await sc.paySol(payer, merchant.address, BigInt(100 + i), [ref]));
    const all = (await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'confirmed' }).send()).map((s) => s.signature);
    expect(all).toEqual([...sigs].reverse());
    const page = await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'confirmed', before: signature(sigs[3]!), limit: 2 }).send();
    expect(page.map((s) => s.signature)).toEqual([sigs[2], sigs[1]]);
    const upto = await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'confirmed', until: signature(sigs[1]!) }).send();
    expect(upto.map((s) => s.signature)).toEqual([sigs[3], sigs[2]]);

    const batch = await rpcRaw(d.url, [
      { jsonrpc: '2.0', id: 1, method: 'getBalance', params: [merchant.address] },
      { jsonrpc: '2.0', id: 2, method: 'nope', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'getBalance', params: ['not-base58!'] },
      { jsonrpc: '2.0', id: 4, method: 'getSignaturesForAddress', params: [ref, { commitment: 'processed' }] },
    ]);
    expect(batch[0]).toMatchObject({ id: 1, result: { value: Number(d.chain.svm.getBalance(merchant.address)) } });
    expect(batch[1]).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(batch[2]).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(batch[3]).toMatchObject({ id: 4, error: { code: -32602 } });
    expect(await rpcRaw(d.url, 'x')).toMatchObject({ error: { code: -32600 } });
    const bad = await fetch(d.url, { method: 'POST', body: '{' });
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('rent, fees and a duplicate send', async () => {
    expect(await sc.rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2039280n);
    const ref = await sc.reference();
    const sig = await sc.paySol(payer, merchant.address, 1n, [ref]);
    const e = d.chain.get(sig)!;
    const wire = Buffer.from(e.tx.wire).toString('base64');
    const dup = await rpcRaw(d.url, { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] });
    expect(dup.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
    const quiet = await rpcRaw(d.url, { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64', skipPreflight: true }] });
    expect(quiet.result).toBe(sig);
    expect((await sc.rpc.getSignaturesForAddress(address(ref), { commitment: 'confirmed' }).send()).length).toBe(1);
  });
});
