// A gateway that ran ETH in hot custody, then switched it to watch-only: the seed's deposit
// addresses that were paid and never swept stay where they are (a watch-only network never sweeps),
// and `satchel doctor` says so, with the amounts and what to do. Once swept (back in hot custody,
// as docs/custody.md tells the operator), the doctor's line is OK.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits } from 'viem';
import { backends } from '../helpers/backends.ts';
import { createContext } from '../../src/compose.ts';
import type { Ctx } from '../../src/context.ts';
import { runDoctor, type DoctorDeps, type Finding } from '../../src/doctor/index.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';

const deps: DoctorDeps = { get: async () => 200, lookup: async () => ['93.184.216.34'], connect: async () => {} };

describe.each(await backends())('deposits left from hot custody after the switch to watch-only ($name)', (backend) => {
  let g: EvmGateway;
  const opened: Ctx[] = [];
  let n = 0;

  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: 1, sweep: { enabled: true, every_seconds: 0 } });
  });
  afterAll(async () => {
    for (const ctx of opened) {
      await createWorkers(ctx).stop();
      await ctx.storage.close();
    }
    await g?.stopAll();
  });

  /** The same data folder, database and node, with ETH now in watch-only custody (as after an edit of the config and a restart). */
  async function switched(): Promise<Ctx> {
    const { sweep: _sweep, ...rest } = g.network;
    const ctx = await createContext({ ...g.config, networks: { ETH: { ...rest, custody: 'watch-only' } } });
    opened.push(ctx);
    expect(ctx.chains.custodyMode('ETH')).toBe('watch-only');
    return ctx;
  }
  const line = async (ctx: Ctx): Promise<Finding | undefined> => (await runDoctor(ctx, deps)).find((f) => f.name === 'seed deposits ETH');
  /** The doctor's line on the switched gateway, which is then shut down again. */
  async function lineAfterSwitch(): Promise<Finding | undefined> {
    const ctx = await switched();
    try {
      return await line(ctx);
    } finally {
      opened.splice(opened.indexOf(ctx), 1);
      await createWorkers(ctx).stop();
      await ctx.storage.close();
    }
  }

  it('says nothing while the network is in hot custody, where the sweep moves them', async () => {
    const paid = async (body: Record<string, unknown>) => {
      const inv = (await g.api('/v1/payment', { network: 'ETH', order_id: `left-${++n}`, ...body })).body.result;
      return inv as { uuid: string; address: string };
    };
    const usdt = await paid({ amount: '100', currency: 'USDT' });
    const eth = await paid({ amount: '0.05', currency: 'ETH' });
    await g.payToken(usdt.address, '100');
    await g.payNative(eth.address, '0.05');
    await g.mineAndTick(2);
    for (const inv of [usdt, eth]) expect((await g.api('/v1/payment/info', { uuid: inv.uuid })).body.result.payment_status).toBe('paid');
    expect(await line(g.ctx)).toBeUndefined();
  });

  it('warns once the network is watch-only: the seed\'s deposit addresses hold payments never swept, with the amounts and the way out', async () => {
    const f = await lineAfterSwitch();
    expect(f).toMatchObject({ status: 'WARN' });
    expect(f!.detail).toContain('2 deposit addresses derived from the seed hold payments never swept');
    expect(f!.detail).toContain('100 USDT');
    expect(f!.detail).toContain('0.05 ETH');
    expect(f!.fix).toContain('set "custody": "hot" on ETH');
  });

  it('is OK once a sweep in hot custody has moved them', async () => {
    const driver = g.driver();
    await g.anvil.wallet(0).sendTransaction({ to: driver.hotWallet, value: parseEther('1') });
    await g.anvil.mine();
    const hotUsdt = await g.usdt.balanceOf(driver.hotWallet);
    for (let round = 0; round < 6; round++) {
      await driver.sweep();
      await g.mineAndTick();
    }
    expect(await g.usdt.balanceOf(driver.hotWallet)).toBe(hotUsdt + parseUnits('100', 6));
    const f = await lineAfterSwitch();
    expect(f).toMatchObject({ status: 'OK', detail: '2 deposit addresses from hot custody, every payment to them swept' });
  });
});
