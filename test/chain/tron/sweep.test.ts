// Activation and sweeping on the TRON node double, in both ways of paying for energy: burning TRX
// (the hot wallet sends the deposit address exactly what its token transfer will burn) and
// delegating staked energy (Stake 2.0 delegateresource, reclaimed after the sweep). Every
// movement is recorded; the double runs TRON's fee rules, so a wrong amount leaves TRX behind or
// makes the transfer fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { tronDb } from '../../../src/chain/tron/schema.ts';
import { ENERGY_TO_NEW, PARAMS } from './chain-state.ts';
import { TRON_USDT as USDT, TRX as UNITS, startTronGateway, type TronGateway } from '../gateway-setup.ts';

/** Today's custody: deposit addresses from the gateway's seed, swept to the hot wallet. */
const HOT = { custody: 'hot' } as const;

const SWEEP = { enabled: true, every_seconds: 0, min_native: '1', min_token: { USDT: '1' } };

async function paidInvoice(g: TronGateway, currency: 'USDT' | 'TRX', amount: string): Promise<string> {
  const r = await g.api('/v1/payment', { amount, currency, network: 'TRON', order_id: `sweep-${Math.random().toString(36).slice(2)}` });
  expect(r.status, r.raw).toBe(200);
  const address = r.body.result.address as string;
  if (currency === 'USDT') g.payUsdt(address, amount);
  else g.payTrx(address, amount);
  await g.mineAndTick(3);
  expect((await g.api('/v1/payment/info', { uuid: r.body.result.uuid })).body.result).toMatchObject({ payment_status: 'paid' });
  return address;
}

const movements = (g: TronGateway, address: string) =>
  tronDb(g.ctx.storage.db)
    .selectFrom('tron_movements')
    .select(['kind', 'currency', 'from_address', 'to_address', 'amount', 'status', 'energy', 'txid'])
    .where((eb) => eb.or([eb('from_address', '=', address), eb('to_address', '=', address)]))
    .orderBy('created_at')
    .execute();

/** One sweep round, then the blocks that make what it sent final. */
async function round(g: TronGateway): Promise<void> {
  await g.driver().sweep();
  await g.mineAndTick(3);
}

describe.each(await backends())('TRON sweeping on $name', (backend) => {
  describe('burning TRX for energy', () => {
    let g: TronGateway;
    beforeAll(async () => {
      g = await startTronGateway(backend, { hotTrx: '1000', network: { ...HOT, sweep: { ...SWEEP, resources: 'burn' } } });
    });
    afterAll(async () => g?.stopAll());

    it('activates the deposit address with exactly the TRX the USDT transfer burns, then sweeps it all', async () => {
      const hot = g.driver().hotWallet;
      const address = await paidInvoice(g, 'USDT', '100');
      expect(g.node.exists(address)).toBe(false); // a TRC-20 transfer does not create the account
      const hotTrx = g.node.trx(hot);
      const burn = ENERGY_TO_NEW * PARAMS.getEnergyFee; // the hot wallet holds no USDT yet

      await round(g); // activation: the hot wallet sends the exact burn
      expect(g.node.trx(address)).toBe(burn);
      expect(hotTrx - g.node.trx(hot)).toBe(burn + PARAMS.getCreateAccountFee + PARAMS.getCreateNewAccountFeeInSystemContract);
      await round(g); // the sweep, signed by the deposit key
      expect(g.node.tokenBalance(USDT, address)).toBe(0n);
      expect(g.node.tokenBalance(USDT, hot)).toBe(UNITS('100'));
      expect(g.node.trx(address)).toBe(0n); // exactly what was burned: nothing left behind
      await g.driver().sweep();
      expect(await movements(g, address)).toEqual([
        expect.objectContaining({ kind: 'activate', currency: 'TRX', from_address: hot, to_address: address, amount: '6.2265', status: 'done', energy: Number(ENERGY_TO_NEW) }),
        expect.objectContaining({ kind: 'sweep', currency: 'USDT', from_address: address, to_address: hot, amount: '100', status: 'done' }),
      ]);
    });

    it('sweeps TRX (free bandwidth: all of it) and leaves what is below the threshold', async () => {
      const hot = g.driver().hotWallet;
      const address = await paidInvoice(g, 'TRX', '50');
      const hotTrx = g.node.trx(hot);
      await round(g);
      expect(g.node.trx(address)).toBe(0n);
      expect(g.node.trx(hot) - hotTrx).toBe(UNITS('50'));
      expect(await movements(g, address)).toEqual([expect.objectContaining({ kind: 'sweep', currency: 'TRX', amount: '50', status: 'sent' })]);
      await g.driver().sweep();
      expect((await movements(g, address))[0]).toMatchObject({ status: 'done' });
      // Paid again, below min_native: nothing moves.
      g.payTrx(address, '0.5');
      await g.mineAndTick(3);
      await round(g);
      expect(g.node.trx(address)).toBe(UNITS('0.5'));
      expect(await movements(g, address)).toHaveLength(1);
    });
  });

  describe('delegating staked energy', () => {
    let g: TronGateway;
    beforeAll(async () => {
      g = await startTronGateway(backend, { hotTrx: '100', hotStake: '100000', network: { ...HOT, sweep: { ...SWEEP, resources: 'delegate' } } });
    });
    afterAll(async () => g?.stopAll());

    it('activates, delegates the energy, sweeps with it (no TRX burned), takes the delegation back', async () => {
      const hot = g.driver().hotWallet;
      const address = await paidInvoice(g, 'USDT', '250');
      for (let i = 0; i < 4; i++) await round(g);
      await g.driver().sweep();
      expect(g.node.tokenBalance(USDT, address)).toBe(0n);
      expect(g.node.tokenBalance(USDT, hot)).toBe(UNITS('250'));
      expect(g.node.delegated(hot, address)).toBe(0n); // reclaimed
      expect(g.node.trx(address)).toBe(1n); // the activation's one sun: the transfer burned nothing
      const m = await movements(g, address);
      expect(m.map((x) => [x.kind, x.status])).toEqual([['activate', 'done'], ['delegate', 'done'], ['sweep', 'done'], ['undelegate', 'done']]);
      expect(m[1]).toMatchObject({ from_address: hot, to_address: address, amount: '2966', energy: Number(ENERGY_TO_NEW) });
      expect(m[3]).toMatchObject({ from_address: address, to_address: hot, amount: '2966' });
      expect(new Set(m.map((x) => x.txid)).size).toBe(4);
    });
  });
});
