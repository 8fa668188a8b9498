// The Monero test rig itself: a real regtest monerod, a funded payer, a view-only wallet that sees
// a payment to a subaddress in the pool and then in a block, pop_blocks, and a daemon restart that
// keeps the chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMoneroRig, type MoneroRig, type WalletRpc } from '../../helpers/monero-rig.ts';

describe('monero regtest rig', () => {
  let rig: MoneroRig;
  let watcher: WalletRpc;
  beforeAll(async () => {
    rig = await startMoneroRig();
    watcher = await rig.startWalletRpc();
  }, 240_000);
  afterAll(async () => {
    await rig?.close();
  }, 120_000);

  it('pays a view-only wallet from the funded payer, pops the block, survives a daemon restart', async () => {
    const balance = await rig.payer.rpc<{ unlocked_balance: number }>('get_balance', { account_index: 0 });
    expect(balance.unlocked_balance).toBeGreaterThan(0);

    // A receiver whose view key only is known to the watcher.
    const recv = await rig.startWalletRpc();
    await recv.rpc('create_wallet', { filename: 'recv', password: '', language: 'English' });
    const { address } = await recv.rpc<{ address: string }>('get_address', { account_index: 0 });
    const { key: viewKey } = await recv.rpc<{ key: string }>('query_key', { key_type: 'view_key' });
    const start = await rig.height();
    await watcher.rpc('generate_from_keys', { filename: 'view', address, viewkey: viewKey, password: '', restore_height: start });
    const sub = await watcher.rpc<{ address: string; address_index: number }>('create_address', { account_index: 0 });
    expect(sub.address_index).toBe(1);

    const txid = await rig.pay(sub.address, 1_234_567_890n);
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    await watcher.rpc('refresh', {});
    const pool = await watcher.rpc<{ pool?: Array<{ txid: string; amount: number; subaddr_index: { major: number; minor: number } }> }>('get_transfers', { pool: true });
    expect(pool.pool?.map((t) => [t.txid, t.amount, t.subaddr_index.minor])).toEqual([[txid, 1_234_567_890, 1]]);

    const h = await rig.mine(1);
    expect(h).toBe(start + 1);
    await watcher.rpc('refresh', {});
    const mined = await watcher.rpc<{ in?: Array<{ txid: string; height: number }> }>('get_transfers', { in: true });
    expect(mined.in?.map((t) => [t.txid, t.height])).toEqual([[txid, start]]);

    expect(await rig.popBlocks(1)).toBe(start);
    const info = await rig.daemon<{ tx_pool_size: number }>('get_info');
    expect(info.tx_pool_size).toBe(1); // the popped transaction went back to the pool

    await rig.stopDaemon();
    await rig.startDaemon();
    expect(await rig.height()).toBe(start);
    await rig.mine(2);
    expect(await rig.height()).toBe(start + 2);
    await recv.stop();
  }, 240_000);
});
