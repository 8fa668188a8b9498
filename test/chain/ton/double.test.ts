// The toncenter double answers as toncenter's API v2 does, with what @ton/sandbox executed: checked
// over HTTP with plain fetch and read back with @ton/core (the transaction BOC in `data`, its hash,
// the message cells), so the TON driver's tests stand on real TVM results in the real shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Address, beginCell, Cell, external, internal, loadTransaction, SendMode, storeMessage, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { TonClient, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { startToncenterDouble, FIRST_SEQNO, type TonDouble } from './double/toncenter.ts';
import { OP_TRANSFER_NOTIFICATION, scenario, type Scenario } from './double/scenario.ts';

let d: TonDouble;
let s: Scenario;

beforeAll(async () => {
  d = await startToncenterDouble();
  s = scenario(d);
});
afterAll(async () => {
  await d?.close();
});

async function get(method: string, params: Record<string, string | number> = {}, headers: Record<string, string> = {}) {
  const q = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const r = await fetch(`${d.url}/api/v2/${method}?${q}`, { headers });
  return { status: r.status, body: (await r.json()) as any };
}

async function post(method: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${d.url}/api/v2/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

const eq = (a: Address) => a.toString({ urlSafe: true, bounceable: true, testOnly: false });

describe('toncenter double: TON with a comment', () => {
  it('serves the recipient transaction with the comment, the amount, and a hash that is the hash of its BOC', async () => {
    const payer = await s.payerWallet('alice');
    const merchant = s.freshAddress('merchant-1');
    const before = (await get('getMasterchainInfo')).body.result.last.seqno as number;
    expect(before).toBeGreaterThanOrEqual(FIRST_SEQNO);

    await s.sendTon(payer, merchant.toString({ bounceable: false }), 1_500_000_000n, 'INV-7Q4K');

    const { status, body } = await get('getTransactions', { address: merchant.toRawString(), limit: 10 });
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.result).toHaveLength(1);
    const tx = body.result[0];
    expect(tx['@type']).toBe('raw.transaction');
    expect(tx.address).toEqual({ '@type': 'accountAddress', account_address: eq(merchant) });
    expect(tx.in_msg.message).toBe('INV-7Q4K');
    expect(tx.in_msg.msg_data['@type']).toBe('msg.dataText');
    expect(Buffer.from(tx.in_msg.msg_data.text, 'base64').toString('utf8')).toBe('INV-7Q4K');
    expect(tx.in_msg.value).toBe('1500000000');
    expect(tx.in_msg.source).toBe(eq(payer.address));
    expect(tx.in_msg.destination).toBe(eq(merchant));
    expect(tx.out_msgs).toEqual([]);
    expect(typeof tx.utime).toBe('number');

    // The BOC in `data` is the transaction itself: its hash is transaction_id.hash, and @ton/core
    // reads the same lt, the same incoming value and the same comment from it.
    const cell = Cell.fromBase64(tx.data);
    expect(cell.hash().toString('base64')).toBe(tx.transaction_id.hash);
    const parsed = loadTransaction(cell.beginParse());
    expect(parsed.lt.toString()).toBe(tx.transaction_id.lt);
    const info = parsed.inMessage!.info;
    expect(info.type === 'internal' && info.value.coins).toBe(1_500_000_000n);
    const body0 = parsed.inMessage!.body.beginParse();
    expect(body0.loadUint(32)).toBe(0);
    expect(body0.loadStringTail()).toBe('INV-7Q4K');
    expect(BigInt(tx.fee)).toBe(parsed.totalFees.coins);
    expect(BigInt(tx.storage_fee) + BigInt(tx.other_fee)).toBe(BigInt(tx.fee));

    const after = (await get('getMasterchainInfo')).body.result.last.seqno as number;
    expect(after).toBeGreaterThan(before);
  });

  it('shows the payer side: an external message in, the payment among out_msgs with its fees counted in fee', async () => {
    const payer = await s.payerWallet('bob');
    const to = s.freshAddress('merchant-2');
    await s.sendTon(payer, to, 2_000_000_000n, 'hello');
    const { body } = await get('getTransactions', { address: eq(payer.address), limit: 1 });
    const tx = body.result[0];
    expect(tx.in_msg.source).toBe('');
    expect(tx.in_msg.value).toBe('0');
    expect(tx.out_msgs).toHaveLength(1);
    expect(tx.out_msgs[0].destination).toBe(eq(to));
    expect(tx.out_msgs[0].message).toBe('hello');
    const parsed = loadTransaction(Cell.fromBase64(tx.data).beginParse());
    expect(BigInt(tx.fee)).toBe(parsed.totalFees.coins + BigInt(tx.out_msgs[0].fwd_fee));
  });

  it('pages newest first from lt/hash (inclusive) back to to_lt (exclusive)', async () => {
    const payer = await s.payerWallet('carol');
    const to = s.freshAddress('merchant-paging');
    for (const c of ['p1', 'p2', 'p3', 'p4', 'p5']) await s.sendTon(payer, to, 100_000_000n, c);
    const all = (await get('getTransactions', { address: eq(to), limit: 100 })).body.result;
    expect(all.map((t: any) => t.in_msg.message)).toEqual(['p5', 'p4', 'p3', 'p2', 'p1']);
    const lts = all.map((t: any) => BigInt(t.transaction_id.lt));
    expect([...lts].sort((a, b) => (a > b ? -1 : 1))).toEqual(lts);

    const page1 = (await get('getTransactions', { address: eq(to), limit: 2 })).body.result;
    expect(page1.map((t: any) => t.in_msg.message)).toEqual(['p5', 'p4']);
    const last = page1[1];
    const page2 = (await get('getTransactions', { address: eq(to), limit: 2, lt: last.transaction_id.lt, hash: last.transaction_id.hash })).body.result;
    expect(page2.map((t: any) => t.in_msg.message)).toEqual(['p4', 'p3']);
    const hex = Buffer.from(last.transaction_id.hash, 'base64').toString('hex');
    const page2hex = (await get('getTransactions', { address: eq(to), limit: 2, lt: last.transaction_id.lt, hash: hex })).body.result;
    expect(page2hex.map((t: any) => t.in_msg.message)).toEqual(['p4', 'p3']);

    const since = (await get('getTransactions', { address: eq(to), to_lt: all[2].transaction_id.lt })).body.result;
    expect(since.map((t: any) => t.in_msg.message)).toEqual(['p5', 'p4']);

    const unknown = await get('getTransactions', { address: eq(to), lt: '1', hash: last.transaction_id.hash });
    expect(unknown.body.ok).toBe(false);
  });

  it('keeps a comment that is not UTF-8 as text data with an empty message, and a binary body raw', async () => {
    const payer = await s.payerWallet('dave');
    const to = s.freshAddress('merchant-binary');
    await s.sendTon(payer, to, 10_000_000n, null, { binaryBody: beginCell().storeUint(0, 32).storeBuffer(Buffer.from([0xff, 0xfe, 0x41])).endCell() });
    await s.sendTon(payer, to, 10_000_000n, null, { binaryBody: beginCell().storeUint(0xdeadbeef, 32).storeUint(7, 8).endCell() });
    await s.sendTon(payer, to, 10_000_000n, null);
    const [empty, raw, bad] = (await get('getTransactions', { address: eq(to) })).body.result;
    expect(bad.in_msg.msg_data['@type']).toBe('msg.dataText');
    expect(bad.in_msg.message).toBe('');
    expect(raw.in_msg.msg_data['@type']).toBe('msg.dataRaw');
    expect(Cell.fromBase64(raw.in_msg.msg_data.body).beginParse().loadUint(32)).toBe(0xdeadbeef);
    expect(raw.in_msg.message).toBe(Buffer.from([0xde, 0xad, 0xbe, 0xef, 7]).toString('base64') + '\n');
    expect(empty.in_msg.msg_data['@type']).toBe('msg.dataRaw');
    expect(empty.in_msg.message).toBe('');
  });
});

describe('toncenter double: bad requests and availability', () => {
  it('answers a bad address with 416 and a bad limit with 422, never a crash', async () => {
    const bad = await get('getTransactions', { address: 'not-an-address' });
    expect(bad.status).toBe(416);
    expect(bad.body).toEqual({ ok: false, error: 'Incorrect address', code: 416 });
    const missing = await get('getTransactions', {});
    expect(missing.status).toBe(422);
    expect(missing.body.ok).toBe(false);
    const limit = await get('getTransactions', { address: eq(s.freshAddress('x')), limit: 101 });
    expect(limit.status).toBe(422);
    const unknown = await get('getNothing', {});
    expect(unknown.status).toBe(404);
  });

  it('answers 503 while down and serves again once up; refuses connections when asked', async () => {
    await d.down();
    const r = await get('getMasterchainInfo');
    expect(r.status).toBe(503);
    expect(r.body.ok).toBe(false);
    await d.up();
    expect((await get('getMasterchainInfo')).body.ok).toBe(true);
    await d.down({ refuse: true });
    await expect(fetch(`${d.url}/api/v2/getMasterchainInfo`)).rejects.toThrow();
    await d.up();
    expect((await get('getMasterchainInfo')).body.ok).toBe(true);
    expect(d.requests.some((x) => x.path === '/api/v2/getMasterchainInfo')).toBe(true);
  });

  it('advances the masterchain seqno on tick()', async () => {
    const a = (await get('getMasterchainInfo')).body.result.last.seqno as number;
    d.tick();
    d.tick(2);
    const b = (await get('getMasterchainInfo')).body.result;
    expect(b.last.seqno).toBe(a + 3);
    expect(b.last.workchain).toBe(-1);
    expect(b.last.shard).toBe('-9223372036854775808');
  });
});

describe('toncenter double: jettons', () => {
  it('delivers a jetton transfer as transfer_notification from the recipient\'s jetton wallet, which get_wallet_address names', async () => {
    const usdt = await s.deployJetton('USDT');
    const payer = await s.payerWallet('erin');
    const merchant = s.freshAddress('merchant-jetton');
    await usdt.mint(payer, 1_000_000_000n);
    expect(await usdt.balanceOf(payer)).toBe(1_000_000_000n);

    await s.sendJetton(payer, usdt, merchant, 25_000_000n, 'INV-JT01', 10_000_000n);
    expect(await usdt.balanceOf(merchant)).toBe(25_000_000n);

    const txs = (await get('getTransactions', { address: eq(merchant) })).body.result;
    expect(txs).toHaveLength(1);
    const msg = txs[0].in_msg;
    expect(msg.value).toBe('10000000');
    expect(msg.msg_data['@type']).toBe('msg.dataRaw');
    const body = Cell.fromBase64(msg.msg_data.body).beginParse();
    expect(body.loadUint(32)).toBe(OP_TRANSFER_NOTIFICATION);
    body.loadUint(64);
    expect(body.loadCoins()).toBe(25_000_000n);
    expect(body.loadAddress().equals(payer.address)).toBe(true);
    const payload = body.loadBit() ? body.loadRef().beginParse() : body;
    expect(payload.loadUint(32)).toBe(0);
    expect(payload.loadStringTail()).toBe('INV-JT01');

    // The notifying wallet is the one the master says belongs to the merchant (slice argument).
    const arg = beginCell().storeAddress(merchant).endCell().toBoc().toString('base64');
    const r = await post('runGetMethod', { address: eq(usdt.master), method: 'get_wallet_address', stack: [['tvm.Slice', arg]] });
    expect(r.body.ok).toBe(true);
    expect(r.body.result.exit_code).toBe(0);
    const [kind, cell] = r.body.result.stack[0];
    expect(kind).toBe('cell');
    const wallet = Cell.fromBase64(cell.bytes).beginParse().loadAddress();
    expect(eq(wallet)).toBe(msg.source);
    expect(wallet.equals(await usdt.walletOf(merchant))).toBe(true);
    // A slice given as {bytes} works the same; a cell where the method wants a slice fails in the
    // TVM with a type check error (exit code 7), as on the real service.
    const r2 = await post('runGetMethod', { address: usdt.master.toRawString(), method: 'get_wallet_address', stack: [['slice', { bytes: arg }]] });
    expect(r2.body.result.stack[0][1].bytes).toBe(cell.bytes);
    const r3 = await post('runGetMethod', { address: eq(usdt.master), method: 'get_wallet_address', stack: [['cell', { bytes: arg }]] });
    expect(r3.body).toMatchObject({ ok: true, result: { exit_code: 7, stack: [] } });
  });

  it('a fake jetton (same code, another master) notifies from a wallet the real master does not name', async () => {
    const usdt = await s.deployJetton('USDT-2');
    const fake = await s.deployFakeJetton(usdt);
    expect(fake.master.equals(usdt.master)).toBe(false);
    const payer = await s.payerWallet('mallory');
    const merchant = s.freshAddress('merchant-fake');
    await fake.mint(payer, 500n);
    await s.sendJetton(payer, fake, merchant, 500n, 'INV-FAKE', 1_000_000n);
    const [tx] = (await get('getTransactions', { address: eq(merchant) })).body.result;
    expect(Cell.fromBase64(tx.in_msg.msg_data.body).beginParse().loadUint(32)).toBe(OP_TRANSFER_NOTIFICATION);
    expect(tx.in_msg.source).toBe(eq(await fake.walletOf(merchant)));
    expect(tx.in_msg.source).not.toBe(eq(await usdt.walletOf(merchant)));
  });

  it('runGetMethod answers numbers in hex, a failing method by its exit code, an account without code with -13', async () => {
    const usdt = await s.deployJetton('USDT-3');
    const payer = await s.payerWallet('frank');
    await usdt.mint(payer, 42n);
    const data = await post('runGetMethod', { address: eq(usdt.master), method: 'get_jetton_data', stack: [] });
    expect(data.body.result.stack[0]).toEqual(['num', '0x2a']);
    const missing = await post('runGetMethod', { address: eq(usdt.master), method: 'no_such_method', stack: [] });
    expect(missing.body.ok).toBe(true);
    expect(missing.body.result.exit_code).not.toBe(0);
    const uninit = await post('runGetMethod', { address: eq(s.freshAddress('nobody')), method: 'seqno', stack: [] });
    expect(uninit.body.result.exit_code).toBe(-13);
    const badStack = await post('runGetMethod', { address: eq(usdt.master), method: 'get_wallet_address', stack: [['tvm.Slice', 'not a boc']] });
    expect(badStack.status).toBe(400);
    expect(badStack.body.ok).toBe(false);
  });
});

describe('toncenter double: accounts, sending and fees', () => {
  it('getAddressInformation and getWalletInformation read the sandbox account', async () => {
    const payer = await s.payerWallet('grace');
    const fresh = s.freshAddress('never-used');
    const none = (await get('getAddressInformation', { address: eq(fresh) })).body.result;
    expect(none.state).toBe('uninitialized');
    expect(none.balance).toBe(0);
    expect(none.last_transaction_id.lt).toBe('0');

    const notYet = (await get('getWalletInformation', { address: eq(payer.address) })).body.result;
    expect(notYet.wallet).toBe(false);
    expect(notYet.account_state).toBe('uninitialized');
    expect(BigInt(notYet.balance)).toBeGreaterThan(0n);

    await s.sendTon(payer, fresh, 1_000_000n, 'x');
    await s.sendTon(payer, fresh, 1_000_000n, 'y');
    const info = (await get('getAddressInformation', { address: eq(payer.address) })).body.result;
    expect(info.state).toBe('active');
    const sc = await d.blockchain.getContract(payer.address);
    expect(info.balance).toBe(sc.balance.toString());
    expect(Cell.fromBase64(info.code).hash().equals(payer.wallet.init!.code.hash())).toBe(true);
    const w = (await get('getWalletInformation', { address: eq(payer.address) })).body.result;
    expect(w).toMatchObject({ wallet: true, wallet_type: 'wallet v4 r2', seqno: 2, account_state: 'active', wallet_id: 698983191 });
    expect(w.last_transaction_id).toEqual(info.last_transaction_id);
  });

  it('sendBocReturnHash executes an external message signed with WalletContractV4, and the transfer shows up', async () => {
    const funder = await s.payerWallet('heidi');
    const key = keyPairFromSeed(Buffer.alloc(32, 7));
    const wallet = WalletContractV4.create({ workchain: 0, publicKey: key.publicKey });
    await s.sendTon(funder, wallet.address, toNano('5'), null);
    const to = s.freshAddress('payout-dest');
    const transfer = wallet.createTransfer({ seqno: 0, secretKey: key.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS, messages: [internal({ to, value: toNano('1.25'), bounce: false, body: 'refund R-1' })] });
    const ext = beginCell().store(storeMessage(external({ to: wallet.address, init: wallet.init, body: transfer }))).endCell();

    const fee = await post('estimateFee', { address: eq(wallet.address), body: transfer.toBoc().toString('base64'), init_code: wallet.init.code.toBoc().toString('base64'), init_data: wallet.init.data.toBoc().toString('base64'), ignore_chksig: true });
    expect(fee.body.ok).toBe(true);
    expect(fee.body.result['@type']).toBe('query.fees');
    const f = fee.body.result.source_fees;
    expect(f.gas_fee).toBeGreaterThan(0);
    expect(f.in_fwd_fee).toBeGreaterThan(0);
    expect(f.fwd_fee).toBeGreaterThan(0);
    expect((await get('getTransactions', { address: eq(wallet.address) })).body.result).toHaveLength(1);

    const sent = await post('sendBocReturnHash', { boc: ext.toBoc().toString('base64') });
    expect(sent.body.ok).toBe(true);
    expect(sent.body.result.hash).toBe(ext.hash().toString('base64'));
    const [tx] = (await get('getTransactions', { address: eq(to) })).body.result;
    expect(tx.in_msg.message).toBe('refund R-1');
    expect(tx.in_msg.value).toBe('1250000000');
    expect(tx.in_msg.source).toBe(eq(wallet.address));
    const [walletTx] = (await get('getTransactions', { address: eq(wallet.address), limit: 1 })).body.result;
    expect(walletTx.in_msg.hash).toBe(ext.hash().toString('base64'));

    // The same message again is refused: the wallet's seqno moved on.
    const again = await post('sendBocReturnHash', { boc: ext.toBoc().toString('base64') });
    expect(again.body.ok).toBe(false);
    expect(again.status).toBe(500);
    expect((await get('getTransactions', { address: eq(to) })).body.result).toHaveLength(1);
    const garbage = await post('sendBocReturnHash', { boc: 'bm90IGEgYm9j' });
    expect(garbage.body.ok).toBe(false);
  });

  it('a wallet v5r1 deployed by its first signed transfer through sendBocReturnHash reads as "wallet v5 r1" with its seqno', async () => {
    const funder = await s.payerWallet('kim');
    const key = keyPairFromSeed(Buffer.alloc(32, 9));
    const wallet = WalletContractV5R1.create({ publicKey: key.publicKey });
    await s.sendTon(funder, wallet.address, toNano('3'), null);
    const to = s.freshAddress('v5-dest');
    const transfer = wallet.createTransfer({ seqno: 0, secretKey: key.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS, messages: [internal({ to, value: toNano('0.5'), bounce: false, body: 'memo-v5' })] });
    const ext = beginCell().store(storeMessage(external({ to: wallet.address, init: wallet.init, body: transfer }))).endCell();
    expect((await post('sendBocReturnHash', { boc: ext.toBoc().toString('base64') })).body.ok).toBe(true);
    const w = (await get('getWalletInformation', { address: wallet.address.toRawString() })).body.result;
    expect(w).toMatchObject({ wallet: true, wallet_type: 'wallet v5 r1', seqno: 1, account_state: 'active', is_signature_allowed: true });
    expect((await get('getTransactions', { address: eq(to) })).body.result[0].in_msg.message).toBe('memo-v5');
  });

  it('bounces a bounceable payment to an address without a contract and one to a rejecting contract', async () => {
    const payer = await s.payerWallet('ivan');
    const nowhere = s.freshAddress('bounce-nowhere');
    const p = await s.sendBouncing(payer, nowhere, toNano('2'), 'INV-B1');
    expect(p.received).toBeDefined();
    const [tx] = (await get('getTransactions', { address: eq(nowhere) })).body.result;
    expect(tx.out_msgs).toHaveLength(1);
    expect(tx.out_msgs[0].destination).toBe(eq(payer.address));
    const [back] = (await get('getTransactions', { address: eq(payer.address), limit: 1 })).body.result;
    expect(back.in_msg.source).toBe(eq(nowhere));
    expect(Cell.fromBase64(back.in_msg.msg_data.body).beginParse().loadUint(32)).toBe(0xffffffff);
    const parsed = loadTransaction(Cell.fromBase64(back.data).beginParse());
    expect(parsed.inMessage!.info.type === 'internal' && parsed.inMessage!.info.bounced).toBe(true);

    const rejecter = await s.deployRejecter('r1');
    await s.sendTon(payer, rejecter, toNano('1'), 'INV-B2', { bounce: true });
    const [rtx] = (await get('getTransactions', { address: eq(rejecter) })).body.result;
    expect(rtx.in_msg.message).toBe('INV-B2');
    expect(rtx.out_msgs[0].destination).toBe(eq(payer.address));
    expect(Cell.fromBase64(rtx.out_msgs[0].msg_data.body).beginParse().loadUint(32)).toBe(0xffffffff);
  });
});

describe('toncenter double: API key', () => {
  it('refuses a missing or wrong key with 401 and serves the right one (header or query)', async () => {
    const k = await startToncenterDouble({ apiKey: 'sekret' });
    try {
      const at = (path: string, headers: Record<string, string> = {}) => fetch(`${k.url}/api/v2/${path}`, { headers }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const none = await at('getMasterchainInfo');
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ ok: false, code: 401 });
      expect((await at('getMasterchainInfo', { 'X-API-Key': 'wrong' })).status).toBe(401);
      const ok = await at('getMasterchainInfo', { 'X-API-Key': 'sekret' });
      expect(ok.status).toBe(200);
      expect(ok.body.result.last.seqno).toBe(FIRST_SEQNO);
      expect((await at('getMasterchainInfo?api_key=sekret')).status).toBe(200);
      expect(k.requests.map((r) => r.apiKey)).toEqual([null, 'wrong', 'sekret', 'sekret']);
    } finally {
      await k.close();
    }
  });
});

describe('toncenter double: read by @ton/ton', () => {
  it("@ton/ton's TonClient (its own schemas, over JSON-RPC) reads the same transactions, balances, get methods and fees", async () => {
    const usdt = await s.deployJetton('USDT-4');
    const payer = await s.payerWallet('judy');
    const merchant = s.freshAddress('merchant-client');
    await s.sendTon(payer, merchant, 3_000_000_000n, 'INV-CL01');
    await usdt.mint(payer, 77n);

    const client = new TonClient({ endpoint: `${d.url}/api/v2/jsonRPC` });
    const [tx] = await client.getTransactions(merchant, { limit: 5 });
    expect(tx!.inMessage!.body.beginParse().skip(32).loadStringTail()).toBe('INV-CL01');
    const rest = (await get('getTransactions', { address: eq(merchant) })).body.result[0];
    expect(tx!.hash().toString('base64')).toBe(rest.transaction_id.hash);
    expect(await client.getBalance(payer.address)).toBe((await d.blockchain.getContract(payer.address)).balance);
    const state = await client.getContractState(payer.address);
    expect(state.state).toBe('active');
    const seqno = await client.open(WalletContractV4.create({ workchain: 0, publicKey: payer.keyPair.publicKey })).getSeqno();
    expect(seqno).toBe(1);
    const w = await client.runMethod(usdt.master, 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(payer.address).endCell() }]);
    expect(w.stack.readAddress().equals(await usdt.walletOf(payer))).toBe(true);
    const transfer = payer.wallet.createTransfer({ seqno, secretKey: payer.keyPair.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to: merchant, value: 1n, body: 'x' })] });
    const fee = await client.estimateExternalMessageFee(payer.address, { body: transfer, initCode: null, initData: null, ignoreSignature: true });
    expect(fee.source_fees.gas_fee).toBeGreaterThan(0);
    // An empty body is not a transfer the wallet accepts: refused, as tonlib refuses it.
    const refused = await client.estimateExternalMessageFee(payer.address, { body: beginCell().endCell(), initCode: null, initData: null, ignoreSignature: true }).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
  });
});
