// The simulator's HTTP routes as a test-mode user meets them: POST /simulator/pay making the
// payer's choice first, and refusing networks the operator switched off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe.each(await backends())('the simulator routes on $name', (backend) => {
  let gw: TestGateway;
  let n = 0;
  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_NETWORKS: JSON.stringify({ BSC: { enabled: false } }) } });
  });
  afterAll(async () => gw?.close());

  const create = async (body: Record<string, unknown>) => {
    const r = await gw.api('/v1/payment', { order_id: `s-${++n}`, ...body });
    expect(r.status).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const pay = (body: unknown) => gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: body as object });
  const info = async (uuid: string) => (await gw.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;

  it('makes the payer choice given with the invoice, then pays it', async () => {
    const inv = await create({ amount: '20', currency: 'USD' });
    const refused = await pay({ invoice: inv.uuid });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toContain('The payer has not chosen a currency yet');
    const paid = await pay({ invoice: inv.uuid, currency: 'usdt', network: 'TRON' });
    expect(paid.statusCode).toBe(200);
    expect(await info(inv.uuid)).toMatchObject({ payer_currency: 'USDT', network: 'TRON', payment_status: 'paid' });
  });

  it('refuses a currency or network that is not a code', async () => {
    const inv = await create({ amount: '20', currency: 'USD' });
    for (const body of [{ currency: 5, network: 'TRON' }, { currency: 'USDT', network: ['TRON'] }]) {
      const r = await pay({ invoice: inv.uuid, ...body });
      expect(r.statusCode).toBe(422);
      expect(r.json()).toMatchObject({ state: 1 });
    }
  });

  it('refuses to pay on a network switched off, by address or by invoice', async () => {
    const address = '0x000000000000000000000000000000000000dEaD';
    const r = await pay({ address, network: 'BSC', currency: 'USDT', amount: '5' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ state: 1, message: 'Network not found or not simulated' });
    const inv = await create({ amount: '20', currency: 'USD' });
    const choice = await pay({ invoice: inv.uuid, currency: 'USDT', network: 'BSC' });
    expect(choice.statusCode).not.toBe(200);
    expect((await info(inv.uuid)).network).toBeNull();
    const choices = await pay({ invoice: inv.uuid });
    expect(choices.json().message).not.toContain('on BSC');
  });

  it('refuses a payment to an invoice address handed out before its network was switched off', async () => {
    const inv = await create({ amount: '5', currency: 'USDT', network: 'TRON' });
    const networks = gw.ctx.config.networks as Record<string, { enabled?: boolean }>;
    networks.TRON = { ...networks.TRON, enabled: false }; // the operator switches TRON off
    try {
      const r = await pay({ invoice: inv.uuid });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ state: 1, message: 'Network not found or not simulated' });
      expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null });
    } finally {
      delete networks.TRON.enabled;
    }
  });
});
