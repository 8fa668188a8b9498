// `satchel simulate pay` on an invoice whose payer has not chosen a currency: without a choice it
// says what to pass and lists the choices; with --currency and --network it chooses as the payer
// page does, then pays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { satchel } from './in-process.ts';

describe.each(await backends())('satchel simulate pay choosing for the payer on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    // The command runs on the wall clock: the gateway's invoices must not be expired by it.
    gw.clock.now = Date.now();
  });
  afterAll(async () => gw?.close());

  it('lists the choices, then chooses and pays', async () => {
    const inv = (await gw.api('/v1/payment', { amount: '30', currency: 'USD', order_id: 'choose-1', currencies: [{ currency: 'USDT', network: 'TRON' }, { currency: 'ETH', network: 'ETH' }] })).body.result;
    const bare = await satchel(gw, 'simulate', 'pay', '--invoice', inv.uuid);
    expect(bare.code).toBe(2);
    expect(bare.err).toBe(
      'The payer has not chosen a currency yet: pass --currency and --network, one of\n' +
        '  --currency ETH --network ETH   (ETH on Ethereum)\n' +
        '  --currency USDT --network TRON   (USDT on TRON (TRC-20))',
    );
    const wrong = await satchel(gw, 'simulate', 'pay', '--invoice', inv.uuid, '--currency', 'BTC', '--network', 'BTC');
    expect(wrong).toMatchObject({ code: 2, err: 'This currency is not available for this invoice' });

    const paid = await satchel(gw, 'simulate', 'pay', '--invoice', inv.uuid, '--currency', 'usdt', '--network', 'tron', '--json');
    expect(paid.err).toBe('');
    expect(JSON.parse(paid.out)).toMatchObject({ amount: '30', currency: 'USDT', network: 'TRON' });
    const info = (await gw.api('/v1/payment/info', { uuid: inv.uuid })).body.result;
    expect(info).toMatchObject({ payer_currency: 'USDT', network: 'TRON', payment_status: 'paid' });

    const other = await satchel(gw, 'simulate', 'pay', '--invoice', inv.uuid, '--currency', 'ETH', '--network', 'ETH');
    expect(other).toMatchObject({ code: 2, err: 'The payer already chose USDT on TRON' });
  });
});
