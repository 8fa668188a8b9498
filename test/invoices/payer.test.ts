import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { simulateConfirm, simulatePay } from '../../src/simulator/payments.ts';
import { updateProfile } from '../../src/merchants/profile.ts';
import { setWalletStatus } from '../../src/ledger/merchant-wallets.ts';

describe.each(await backends())('payer API on $name', (backend) => {
  let gw: TestGateway;
  let n = 0;
  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_PAYER_RATE_LIMIT: '1000' } });
  });
  afterAll(async () => gw?.close());

  const create = async (body: Record<string, unknown>) =>
    (await gw.api('/v1/payment', { order_id: `p-${++n}`, additional_data: 'secret note', ...body })).body.result as Record<string, any>;
  const get = (uuid: string, headers: Record<string, string> = {}) => gw.app.inject({ method: 'GET', url: `/api/pay/${uuid}`, headers });

  it('shows a fiat invoice with its currency options, priced, and nothing private', async () => {
    const inv = await create({ amount: '130', currency: 'USD', currencies: [{ currency: 'BTC' }, { currency: 'USDT', network: 'TRON' }, { currency: 'USDT', network: 'BSC' }] });
    const res = await get(inv.uuid);
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const v = res.json().result;
    expect(v).toMatchObject({ kind: 'invoice', uuid: inv.uuid, status: 'process', amount: '130.00', currency: 'USD', currency_is_fiat: true, payer_currency: null, address: null, test_mode: true });
    expect(v.options).toEqual([
      { currency: 'BTC', name: 'Bitcoin', networks: [{ network: 'BTC', network_name: 'Bitcoin', amount: '0.002' }] },
      { currency: 'USDT', name: 'Tether', networks: [
        { network: 'BSC', network_name: 'BNB Smart Chain (BEP-20)', amount: '130.00' },
        { network: 'TRON', network_name: 'TRON (TRC-20)', amount: '130.00' },
      ] },
    ]);
    expect(JSON.stringify(v)).not.toMatch(/secret note|commission|merchant_amount/);
  });

  it('names a token standard beside tokens only: "Ethereum" for ETH, "Ethereum (ERC-20)" for USDT on it', async () => {
    const inv = await create({ amount: '50', currency: 'USD', currencies: [{ currency: 'ETH', network: 'ETH' }, { currency: 'USDT', network: 'ETH' }, { currency: 'TRX' }, { currency: 'BNB' }, { currency: 'USDT', network: 'TRON' }] });
    const v = (await get(inv.uuid)).json().result;
    const labels = Object.fromEntries(v.options.flatMap((o: any) => o.networks.map((n: any) => [`${o.currency} ${n.network}`, n.network_name])));
    expect(labels).toEqual({
      'ETH ETH': 'Ethereum',
      'USDT ETH': 'Ethereum (ERC-20)',
      'USDT TRON': 'TRON (TRC-20)',
      'TRX TRON': 'TRON',
      'BNB BSC': 'BNB Smart Chain',
    });
    const chosen = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'ETH', network: 'ETH' } });
    expect(chosen.json().result).toMatchObject({ network: 'ETH', network_name: 'Ethereum' });
  });

  it('lets the payer choose once: address, amount, QR content and wallet link fixed', async () => {
    const inv = await create({ amount: '130', currency: 'USD' });
    const bad = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'USDT', network: 'BTC' } });
    expect(bad.statusCode).toBe(422);
    // The code is what the page words in the payer's language; the message is for other clients.
    expect(bad.json()).toEqual({ state: 1, message: 'This currency is not available for this invoice', code: 'not_available' });
    const ok = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'BTC', network: 'BTC' } });
    expect(ok.statusCode).toBe(200);
    const v = ok.json().result;
    expect(v).toMatchObject({ payer_currency: 'BTC', network: 'BTC', network_name: 'Bitcoin', payer_amount: '0.002', options: null });
    expect(v.address).toMatch(/^bc1q/);
    expect(v.qr_content).toBe(`bitcoin:${v.address}?amount=0.002`);
    const again = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'BTC', network: 'BTC' } });
    expect(again.json().result.address).toBe(v.address);
    const other = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'USDT', network: 'TRON' } });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({ state: 1, message: 'A currency has already been chosen for this invoice', code: 'already_chosen' });
    const missing = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'BTC' } });
    expect(missing.json()).toEqual({ state: 1, message: 'Choose a currency and a network', code: 'choice_missing' });
    // The merchant sees the choice too.
    const info = (await gw.api('/v1/payment/info', { uuid: inv.uuid })).body.result;
    expect(info).toMatchObject({ payer_currency: 'BTC', network: 'BTC', address: v.address, payer_amount: '0.002', merchant_amount: '0.00196' });
  });

  it('refuses a currency whose business wallet the operator switched off, as creation does', async () => {
    const inv = await create({ amount: '130', currency: 'USD', currencies: [{ currency: 'BTC' }, { currency: 'USDT', network: 'TRON' }] });
    const listed = (v: any) => v.options.map((o: any) => o.currency);
    expect(listed((await get(inv.uuid)).json().result)).toEqual(['BTC', 'USDT']);
    await setWalletStatus(gw.ctx, gw.merchant.id, 'business', 'BTC', 'in_active');
    try {
      // The page no longer lists it, and a payer who picks it anyway (a page opened before) is refused.
      expect(listed((await get(inv.uuid)).json().result)).toEqual(['USDT']);
      const pick = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'BTC', network: 'BTC' } });
      expect(pick.statusCode).toBe(422);
      expect(pick.json()).toEqual({ state: 1, message: 'This currency is not available for this invoice', code: 'not_available' });
      expect((await get(inv.uuid)).json().result).toMatchObject({ address: null, payer_currency: null });
      const other = await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'USDT', network: 'TRON' } });
      expect(other.json().result).toMatchObject({ payer_currency: 'USDT', network: 'TRON' });
    } finally {
      await setWalletStatus(gw.ctx, gw.merchant.id, 'business', 'BTC', 'active');
    }
  });

  it('answers 304 to a poll with the current ETag, and a new ETag after a payment', async () => {
    const inv = await create({ amount: '100', currency: 'USDT', network: 'TRON' });
    const first = await get(inv.uuid);
    const tag = first.headers.etag as string;
    expect(tag).toBeTruthy();
    const same = await get(inv.uuid, { 'if-none-match': tag });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '40' });
    const changed = await get(inv.uuid, { 'if-none-match': tag });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().result).toMatchObject({ status: 'process', payment_amount: '40.00', remaining: '60.00', qr_content: inv.address });
    await simulatePay(gw.ctx, { invoice: inv.uuid, unconfirmed: true });
    const seen = (await get(inv.uuid)).json().result;
    expect(seen).toMatchObject({ status: 'check', confirmations: { current: 0, required: 19 } });
  });

  it('answers 304 to a poll with the ETag of the last answer in every state: choosing, paying, seen, confirmed, after a profile change', async () => {
    // A 304 is decided from one narrow read; a 200 carries the tag of the full read. They must agree.
    const still = async (uuid: string) => {
      const full = await get(uuid);
      expect(full.statusCode).toBe(200);
      const tag = full.headers.etag as string;
      const again = await get(uuid, { 'if-none-match': tag });
      expect(again.statusCode).toBe(304);
      expect(again.headers.etag).toBe(tag);
      return tag;
    };
    const inv = await create({ amount: '130', currency: 'USD' });
    const tags = [await still(inv.uuid)];
    await gw.app.inject({ method: 'POST', url: `/api/pay/${inv.uuid}/choose`, payload: { currency: 'USDT', network: 'TRON' } });
    tags.push(await still(inv.uuid));
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '30', unconfirmed: true });
    tags.push(await still(inv.uuid));
    await simulateConfirm(gw.ctx, { invoice: inv.uuid });
    tags.push(await still(inv.uuid));
    await updateProfile(gw.ctx.storage.db, gw.merchant.id, { display_name: 'Poll shop' }, Date.now() + 2000);
    tags.push(await still(inv.uuid));
    expect(new Set(tags).size).toBe(tags.length);
    // An unknown or malformed id is still a 404, whatever tag is sent.
    expect((await get('00000000-0000-4000-8000-000000000000', { 'if-none-match': tags[0]! })).statusCode).toBe(404);
    expect((await get('not-a-uuid', { 'if-none-match': tags[0]! })).statusCode).toBe(404);
  });

  it('answers 200 with the new profile to a poll after the merchant changes it (the ETag covers the profile)', async () => {
    const inv = await create({ amount: '10', currency: 'USDT', network: 'TRON' });
    const first = await get(inv.uuid);
    const tag = first.headers.etag as string;
    expect((await get(inv.uuid, { 'if-none-match': tag })).statusCode).toBe(304);
    await updateProfile(gw.ctx.storage.db, gw.merchant.id, { display_name: 'Renamed shop' }, Date.now() + 1000);
    const changed = await get(inv.uuid, { 'if-none-match': tag });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().result.merchant).toMatchObject({ display_name: 'Renamed shop' });
    expect(changed.headers.etag).not.toBe(tag);
  });

  it('offers no browser-wallet payment on a simulated network (its address is not watched on a real chain)', async () => {
    const inv = await create({ amount: '10', currency: 'USDT', network: 'ETH' });
    expect((await get(inv.uuid)).json().result).toMatchObject({ network: 'ETH', evm: null });
  });

  it('says whether the invoice takes several payments, and gives the transaction with its explorer link', async () => {
    const single = await create({ amount: '10', currency: 'USDT', network: 'TRON', is_payment_multiple: false });
    expect((await get(single.uuid)).json().result).toMatchObject({ is_payment_multiple: false, txid: null, explorer_url: null });
    const inv = await create({ amount: '10', currency: 'USDT', network: 'TRON' });
    expect((await get(inv.uuid)).json().result).toMatchObject({ is_payment_multiple: true, txid: null, explorer_url: null, paid_at: null });
    const { txid } = await simulatePay(gw.ctx, { invoice: inv.uuid });
    // A simulated chain: no public explorer knows the transaction, so no link to one.
    expect((await get(inv.uuid)).json().result).toMatchObject({ status: 'paid', test_mode: true, txid, explorer_url: null, paid_at: Math.floor(gw.clock.now / 1000) });
    // The same invoice as the page sees it when TRON runs on a real driver: the registry's template.
    const networks = gw.ctx.config.networks;
    const saved = networks.TRON;
    networks.TRON = { ...saved, driver: 'tron', custody: 'hot' };
    try {
      const real = (await get(inv.uuid)).json().result;
      expect(real).toMatchObject({ test_mode: false, txid, explorer_url: `https://tronscan.org/#/transaction/${txid}` });
      // The operator's own explorer, when the network names one.
      networks.TRON = { ...saved, driver: 'tron', custody: 'hot', explorer_url: 'https://explorer.shop.example/tx/{txid}' };
      expect((await get(inv.uuid)).json().result).toMatchObject({ explorer_url: `https://explorer.shop.example/tx/${txid}` });
    } finally {
      if (saved) networks.TRON = saved;
      else delete networks.TRON;
    }
  });

  it('answers 404 with an envelope for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', '%00']) {
      const res = await get(id);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ state: 1, message: 'Not found' });
    }
    const choose = await gw.app.inject({ method: 'POST', url: '/api/pay/nope/choose', payload: '{' });
    expect([400, 404]).toContain(choose.statusCode);
  });

  it('rate-limits a client that polls too fast', async () => {
    const limited = await startTestGateway(backend, { env: { SATCHEL_PAYER_RATE_LIMIT: '5' } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 7; i++) codes.push((await limited.app.inject({ method: 'GET', url: '/api/pay/00000000-0000-4000-8000-000000000000' })).statusCode);
      expect(codes).toEqual([404, 404, 404, 404, 404, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});
