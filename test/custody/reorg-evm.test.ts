// Reorganisations on a watch-only EVM network, through the whole gateway on anvil: a payment to a
// forwarder is handled as on any deposit address (a payment the new chain drops goes back to
// `process` with nothing credited and nothing flushed; a payment the new chain carries in another
// block is followed there and credited once), and the flush moves to the merchant's cold address
// exactly what the surviving chain paid. A flush transaction that a reorganisation drops is made
// again, and the cold address still receives the deposit once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../helpers/backends.ts';
import { balanceOf } from '../../src/ledger/index.ts';
import { checkCustody, writeCustody } from '../../src/custody/store.ts';
import { evmDb } from '../../src/chain/evm/schema.ts';
import { startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';

describe.each(await backends())('reorganisations on a watch-only EVM network ($name)', (backend) => {
  let g: EvmGateway;
  let secrets: string;
  const relayerKey = generatePrivateKey();
  const cold = privateKeyToAccount(generatePrivateKey()).address;
  let n = 0;

  beforeAll(async () => {
    secrets = mkdtempSync(join(tmpdir(), 'satchel-reorg-'));
    const relayerFile = join(secrets, 'relayer.key');
    writeFileSync(relayerFile, relayerKey, { mode: 0o600 });
    g = await startEvmGateway(backend, { confirmations: 2, network: { custody: 'watch-only', relayer_key_file: relayerFile, flush: { every_seconds: 0 } } });
    await g.anvil.wallet(0).sendTransaction({ to: privateKeyToAccount(relayerKey).address, value: parseEther('1') });
    await g.anvil.mine();
    const req = { merchantId: g.merchant.id, network: 'ETH', input: { address: cold }, actor: 'test', replace: false };
    const checked = await checkCustody(g.ctx, req);
    await g.ctx.storage.write((trx) => writeCustody(trx, req, checked, Date.now()));
  });
  afterAll(async () => {
    await g?.stopAll();
    rmSync(secrets, { recursive: true, force: true });
  });

  const invoice = async () => {
    const r = await g.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'ETH', order_id: `reorg-${++n}` });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as { uuid: string; address: Address };
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result as Record<string, unknown>;
  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'USDT');
  const credits = (uuid: string) => g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', uuid).execute();
  const flushedFrom = async (address: string) =>
    (await evmDb(g.ctx.storage.db).selectFrom('evm_movements').selectAll().where('kind', '=', 'flush').execute()).filter((m) => m.from_address.toLowerCase() === address.toLowerCase());
  /** Flush rounds as the scanner runs them, until the cold address holds `usdt` (or rounds run out). */
  async function flushUntil(usdt: bigint): Promise<void> {
    for (let i = 0; i < 6 && (await g.usdt.balanceOf(cold)) < usdt; i++) {
      await g.driver().flush();
      await g.mineAndTick();
    }
    await g.mineAndTick(2);
  }

  it('a payment to a forwarder that a reorganisation removes: check -> process, nothing credited, nothing flushed', async () => {
    const inv = await invoice();
    const before = await balance();
    const snapshot = await g.anvil.rpc<string>('evm_snapshot');
    const txid = await g.payToken(inv.address, '100');
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', txid });

    // A longer chain without that transaction replaces it.
    await g.anvil.rpc('evm_revert', [snapshot]);
    await g.anvil.mine(3);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: null });
    expect(await balance()).toBe(before);
    expect(await credits(inv.uuid)).toEqual([]);
    const row = await g.ctx.storage.db.selectFrom('chain_transfers').select('status').where('txid', '=', txid).executeTakeFirstOrThrow();
    expect(row.status).toBe('dropped');

    // A flush round finds nothing to move from that forwarder: the payment is not on the chain.
    await g.driver().flush();
    await g.mineAndTick(2);
    await g.driver().flush();
    await g.mineAndTick(2);
    expect(await flushedFrom(inv.address)).toEqual([]);
    expect(await g.usdt.balanceOf(cold)).toBe(0n);

    // Paid on the new chain: credited once, and flushed to the cold address.
    await g.payToken(inv.address, '100');
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '100.00' });
    expect(await credits(inv.uuid)).toHaveLength(1);
    await flushUntil(parseUnits('100', 6));
    expect(await g.usdt.balanceOf(cold)).toBe(parseUnits('100', 6));
    expect(await g.usdt.balanceOf(inv.address)).toBe(0n);
  });

  it('a payment a reorganisation moves to another block is followed there, credited once and flushed once', async () => {
    const inv = await invoice();
    const coldBefore = await g.usdt.balanceOf(cold);
    const snapshot = await g.anvil.rpc<string>('evm_snapshot');
    const txid = await g.payToken(inv.address, '100');
    const raw = await g.anvil.rpc<string>('eth_getRawTransactionByHash', [txid]);
    await g.mineAndTick();
    const first = await g.anvil.pub.getTransactionReceipt({ hash: txid });
    expect((await info(inv.uuid)).payment_status).toBe('check');

    // The competing chain has an empty block first, then the same transaction.
    await g.anvil.rpc('evm_revert', [snapshot]);
    await g.anvil.mine();
    await g.anvil.rpc('eth_sendRawTransaction', [raw]);
    await g.anvil.mine(2);
    const moved = await g.anvil.pub.getTransactionReceipt({ hash: txid });
    expect(moved.blockNumber).toBe(first.blockNumber + 1n);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '100.00', txid });
    expect(await credits(inv.uuid)).toHaveLength(1);

    await flushUntil(coldBefore + parseUnits('100', 6));
    expect(await g.usdt.balanceOf(cold)).toBe(coldBefore + parseUnits('100', 6));
    expect(await g.usdt.balanceOf(inv.address)).toBe(0n);
    expect((await flushedFrom(inv.address)).filter((m) => m.currency === 'USDT')).toHaveLength(1);
  });

  it('a flush a reorganisation drops is made again: the cold address receives the deposit once', async () => {
    const inv = await invoice();
    const coldBefore = await g.usdt.balanceOf(cold);
    await g.payToken(inv.address, '100');
    await g.mineAndTick(2);
    expect((await info(inv.uuid)).payment_status).toBe('paid');

    const snapshot = await g.anvil.rpc<string>('evm_snapshot');
    await g.driver().flush();
    await g.mineAndTick();
    const sent = await flushedFrom(inv.address);
    expect(sent.length).toBeGreaterThan(0);
    expect(await g.usdt.balanceOf(cold)).toBe(coldBefore + parseUnits('100', 6));

    // A longer chain without the flush: the deposit is back at the forwarder.
    await g.anvil.rpc('evm_revert', [snapshot]);
    await g.anvil.mine(3);
    await g.tick();
    expect(await g.usdt.balanceOf(cold)).toBe(coldBefore);
    expect(await g.usdt.balanceOf(inv.address)).toBe(parseUnits('100', 6));
    // The payment itself was final before the fork: still paid, still credited once.
    expect((await info(inv.uuid)).payment_status).toBe('paid');
    expect(await credits(inv.uuid)).toHaveLength(1);

    await flushUntil(coldBefore + parseUnits('100', 6));
    expect(await g.usdt.balanceOf(cold)).toBe(coldBefore + parseUnits('100', 6));
    expect(await g.usdt.balanceOf(inv.address)).toBe(0n);
  });
});
