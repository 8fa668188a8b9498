// @vitest-environment jsdom
// Every screen the payer can meet, driven by what the payer API answers.
import { afterEach, describe, expect, test } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/preact';
import {
  chooseOptions,
  fakeServer,
  invoiceFixture,
  ok,
  renderPage,
  resetPage,
  serve,
  walletFixture,
} from './helpers.tsx';
import type { PayerInvoice } from '../../src/contracts/payer.ts';

afterEach(resetPage);

const heading = (name: string | RegExp) => screen.findByRole('heading', { level: 1, name });

describe('pay', () => {
  test('shows amount with currency and network, the order amount in fiat, address, QR and wallet link', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    await heading('Send the payment');
    expect(screen.getByText('USDT on TRON (TRC-20)')).toBeTruthy();
    expect(screen.getByText('1,250.378412 USDT')).toBeTruthy();
    expect(screen.getByText('≈ 1,250.00 USD')).toBeTruthy();
    expect(screen.getByText('TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA')).toBeTruthy();
    expect(screen.getByText(/Send only USDT on TRON \(TRC-20\) to this address/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy amount' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy address' })).toBeTruthy();
    const wallet = screen.getByRole('link', { name: 'Open in wallet' });
    expect(wallet.getAttribute('href')).toBe('tron:TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA?amount=1250.378412');
    // url_return is offered before paying
    expect(screen.getByRole('link', { name: 'Cancel and return to the store' }).getAttribute('href')).toBe(
      'https://shop.example/cart',
    );
    const qr = await screen.findByRole('img', { name: /QR code to pay 1,250.378412 USDT/ });
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
  });

  test('the QR encodes qr_content, dark modules on a white quiet zone', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    const qr = await screen.findByRole('img', { name: /QR code to pay/ });
    const svg = decodeURIComponent(qr.getAttribute('src')!.split(',')[1]!);
    expect(svg).toContain('fill="#ffffff"');
    expect(svg).toContain('stroke="#000000"');
    const QRCode = (await import('qrcode')).default;
    const expected = await QRCode.toString(invoiceFixture().qr_content!, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 4,
      color: { dark: '#000000', light: '#ffffff' },
    });
    expect(svg).toBe(expected);
  });

  test('no "Open in wallet" without wallet_uri, and no crypto-only fiat line when the order is in the same currency', async () => {
    serve(invoiceFixture({ wallet_uri: null, amount: '10', currency: 'USDT', currency_is_fiat: false, payer_amount: '10' }));
    renderPage('/pay/inv-1');
    await heading('Send the payment');
    expect(screen.queryByRole('link', { name: 'Open in wallet' })).toBeNull();
    expect(screen.queryByText(/^≈/)).toBeNull();
  });

  test('a javascript: wallet_uri or return URL never becomes a link', async () => {
    serve(invoiceFixture({ wallet_uri: 'javascript:alert(1)', url_return: 'javascript:alert(2)' }));
    renderPage('/pay/inv-1');
    await heading('Send the payment');
    expect(screen.queryByRole('link', { name: 'Open in wallet' })).toBeNull();
    expect(screen.queryByRole('link', { name: /return/i })).toBeNull();
  });
});

describe('partly paid', () => {
  test('shows what was paid, what is still due, the same address and a QR for the rest', async () => {
    serve(
      invoiceFixture({
        payment_amount: '1000.000000',
        remaining: '250.378412',
        qr_content: 'tron:TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA?amount=250.378412',
      }),
    );
    renderPage('/pay/inv-1');
    await heading('Partly paid');
    expect(screen.getByText('Paid so far')).toBeTruthy();
    expect(screen.getByText('1,000 USDT')).toBeTruthy(); // trailing zeros of crypto amounts dropped
    expect(screen.getByText('Still due')).toBeTruthy();
    expect(screen.getByText('250.378412 USDT')).toBeTruthy();
    expect(screen.getByText('TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA')).toBeTruthy();
    const qr = await screen.findByRole('img', { name: /QR code to pay 250.378412 USDT/ });
    expect(qr).toBeTruthy();
  });

  test('only when the invoice takes several payments (is_payment_multiple), not inferred from amounts', async () => {
    serve(invoiceFixture({ is_payment_multiple: false, payment_amount: '1000.000000', remaining: '250.378412' }));
    renderPage('/pay/inv-1');
    await heading('Send the payment');
    expect(screen.queryByText('Paid so far')).toBeNull();
  });
});

describe('seen, confirming', () => {
  test('shows the payment was detected and x of y confirmations', async () => {
    serve(invoiceFixture({ status: 'check', payment_amount: '1250.378412', confirmations: { current: 2, required: 19 } }));
    renderPage('/pay/inv-1');
    await heading('Payment detected');
    expect(screen.getByText('Payment seen, 2 of 19 confirmations')).toBeTruthy();
    const bar = screen.getByRole('progressbar');
    expect(bar.getAttribute('value')).toBe('2');
    expect(bar.getAttribute('max')).toBe('19');
  });

  test('before the first confirmation', async () => {
    serve(invoiceFixture({ status: 'check', confirmations: null }));
    renderPage('/pay/inv-1');
    await heading('Payment detected');
    expect(screen.getByText('Payment seen, waiting for the first confirmation')).toBeTruthy();
  });
});

describe('final screens', () => {
  test('paid: success with the amount received and the url_success button', async () => {
    serve(invoiceFixture({ status: 'paid', is_final: true, payment_amount: '1250.378412' }));
    renderPage('/pay/inv-1');
    await heading('Payment received');
    expect(screen.getByText('Thank you! Your payment is confirmed.')).toBeTruthy();
    expect(screen.getByText('Amount received')).toBeTruthy();
    expect(screen.getByText('1,250.378412 USDT')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Continue to the store' }).getAttribute('href')).toBe('https://shop.example/thanks');
    expect(screen.queryByRole('img', { name: /QR/ })).toBeNull();
  });

  test('paid: the transaction, and a "View transaction" link to the explorer in a new tab', async () => {
    const txid = 'a'.repeat(64);
    serve(invoiceFixture({ status: 'paid', is_final: true, payment_amount: '1250.378412', txid, explorer_url: `https://tronscan.org/#/transaction/${txid}` }));
    renderPage('/pay/inv-1');
    await heading('Payment received');
    expect(screen.getByText('Transaction')).toBeTruthy();
    expect(screen.getByText(txid)).toBeTruthy();
    const link = screen.getByRole('link', { name: 'View transaction (opens in a new tab)' });
    expect(link.getAttribute('href')).toBe(`https://tronscan.org/#/transaction/${txid}`);
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
  });

  test('paid on a test network: the transaction without a link; never a javascript: explorer link', async () => {
    serve(invoiceFixture({ status: 'paid_over', is_final: true, payment_amount: '1300', txid: 'tx-1', explorer_url: 'javascript:alert(1)' }));
    renderPage('/pay/inv-1');
    await heading('Payment received');
    expect(screen.getByText('tx-1')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /View transaction/ })).toBeNull();
  });

  test('paid over: success, and what to do about the difference', async () => {
    serve(invoiceFixture({ status: 'paid_over', is_final: true, payment_amount: '1300' }));
    renderPage('/pay/inv-1');
    await heading('Payment received');
    expect(screen.getByText(/You sent more than the amount due.*order A-100/)).toBeTruthy();
    expect(screen.getByText('1,300 USDT')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Continue to the store' })).toBeTruthy();
  });

  const honest: Array<[PayerInvoice['status'], string, RegExp]> = [
    ['wrong_amount', 'Wrong amount received', /Contact the merchant with order A-100/],
    ['cancel', 'This payment has expired', /Do not send anything to this address/],
    ['fail', 'Payment failed', /not confirmed by the network/],
    ['system_fail', 'Something went wrong on our side', /operator will look into it/],
    ['refund_process', 'Refund in progress', /sending your money back/],
    ['refund_paid', 'Refunded', /sent your payment back/],
    ['refund_fail', 'Refund failed', /refund could not be sent/],
    ['locked', 'Payment on hold', /being reviewed/],
  ];
  test.each(honest)('%s: its own screen with what to do next and the way back', async (status, title, body) => {
    serve(invoiceFixture({ status, is_final: true, payment_amount: status === 'wrong_amount' ? '900' : null }));
    renderPage('/pay/inv-1');
    await heading(title);
    expect(screen.getByText(body)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Return to the store' }).getAttribute('href')).toBe('https://shop.example/cart');
    expect(screen.queryByText('TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA')).toBeNull();
  });

  test('a network no longer offered: no address, no QR, and why', async () => {
    // What the payer API answers for an open invoice whose network is not offered any more.
    serve(invoiceFixture({ unavailable: 'network', payer_currency: null, network: null, network_name: null, payer_amount: null, address: null, qr_content: null, wallet_uri: null }));
    renderPage('/pay/inv-1');
    await heading('This payment is no longer available');
    expect(screen.getByText(/is not accepted any more\. Do not send anything to its address\. Ask the merchant for a new payment for order A-100/)).toBeTruthy();
    expect(screen.queryByRole('img', { name: /QR code/ })).toBeNull();
    expect(screen.queryByText(/Time left/)).toBeNull();
  });

  test('wrong amount shows what was received against what was due', async () => {
    serve(invoiceFixture({ status: 'wrong_amount', is_final: true, payment_amount: '900' }));
    renderPage('/pay/inv-1');
    await heading('Wrong amount received');
    expect(screen.getByText('900 USDT')).toBeTruthy();
    expect(screen.getByText('1,250.378412 USDT')).toBeTruthy();
  });

  test('a refund shows what was received, not what was due', async () => {
    serve(invoiceFixture({ status: 'refund_paid', is_final: true, payment_amount: '1250.378412' }));
    renderPage('/pay/inv-1');
    await heading('Refunded');
    expect(screen.getByText('Amount received')).toBeTruthy();
    expect(screen.queryByText('Amount to pay')).toBeNull();
  });
});

describe('choose', () => {
  test('lists currencies with networks, icons and amounts; choosing posts and shows the address', async () => {
    // The last option is a currency the page has no icon for: it gets the generic one.
    const options = [...chooseOptions.slice(0, -1), { currency: 'ZEC', name: 'Zcash', networks: [{ network: 'ZEC', network_name: 'Zcash', amount: '7.1' }] }];
    const chosen = invoiceFixture();
    const calls = fakeServer((call) => {
      if (call.method === 'POST') return ok(chosen, '"2"');
      return ok(
        invoiceFixture({ payer_currency: null, network: null, network_name: null, payer_amount: null, address: null, qr_content: null, wallet_uri: null, options }),
        '"1"',
      );
    });
    renderPage('/pay/inv-1');
    await heading('Choose how to pay');
    const list = screen.getAllByRole('listitem').filter((li) => li.classList.contains('option'));
    expect(list).toHaveLength(5);
    const icons = document.querySelectorAll<HTMLImageElement>('img.coin');
    expect([...icons].map((i) => i.getAttribute('src'))).toEqual([
      '/icons/USDT.svg',
      '/icons/BTC.svg',
      '/icons/ETH.svg',
      '/icons/TRX.svg',
      '/icons/generic.svg',
    ]);
    expect(screen.getByText('0.01284711 BTC')).toBeTruthy();
    expect(screen.getByText('0.3712 ETH')).toBeTruthy(); // from "0.371200000000000000"
    expect(screen.getByText('1,250.00 USD')).toBeTruthy(); // the order total keeps its two decimals
    expect(screen.getByRole('link', { name: 'Cancel and return to the store' })).toBeTruthy();

    const option = screen.getByRole('button', { name: 'TRON (TRC-20) 1,250.378412 USDT' });
    option.focus();
    fireEvent.click(option);
    const title = await heading('Send the payment');
    // the chosen button is gone: focus moves to the new screen's heading, not back to the top
    await waitFor(() => expect(document.activeElement).toBe(title));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.path).toBe('/api/pay/inv-1/choose');
    expect(post?.body).toEqual({ currency: 'USDT', network: 'TRON' });
  });

  test('a refused choice (422) says why and lets the payer pick again', async () => {
    fakeServer((call) =>
      call.method === 'POST'
        ? { status: 422, body: { state: 1, message: 'Network is not available' } }
        : ok(invoiceFixture({ payer_currency: null, network: null, address: null, options: chooseOptions })),
    );
    renderPage('/pay/inv-1');
    await heading('Choose how to pay');
    fireEvent.click(screen.getByRole('button', { name: 'Bitcoin 0.01284711 BTC' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Network is not available');
    expect((screen.getByRole('button', { name: 'Bitcoin 0.01284711 BTC' }) as HTMLButtonElement).disabled).toBe(false);
  });

  test('a refusal with a code is worded by the page, not by the server', async () => {
    fakeServer((call) =>
      call.method === 'POST'
        ? { status: 422, body: { state: 1, message: 'server words', code: 'already_chosen' } }
        : ok(invoiceFixture({ payer_currency: null, network: null, address: null, options: chooseOptions })),
    );
    renderPage('/pay/inv-1');
    await heading('Choose how to pay');
    fireEvent.click(screen.getByRole('button', { name: 'Bitcoin 0.01284711 BTC' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Could not select this option: A currency has already been chosen for this invoice');
  });

  test('a refusal with a code is said in the payer\'s language', async () => {
    fakeServer((call) =>
      call.method === 'POST'
        ? { status: 422, body: { state: 1, message: 'server words', code: 'not_available' } }
        : ok(invoiceFixture({ payer_currency: null, network: null, address: null, options: chooseOptions })),
    );
    renderPage('/pay/inv-1?lang=de');
    const choose = await screen.findByRole('button', { name: /^Bitcoin 0,01284711 BTC/ });
    fireEvent.click(choose);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Diese Option konnte nicht gewählt werden: Diese Währung ist für diese Rechnung nicht verfügbar');
  });
});

describe('static wallet', () => {
  test('shows the address and QR without amount or countdown', async () => {
    const calls = serve(walletFixture());
    renderPage('/pay/wallet/wal-1');
    await heading('Top up');
    expect(calls[0]?.path).toBe('/api/pay/wallet/wal-1');
    expect(screen.getByText('TWalletAddressxxxxxxxxxxxxxxxxxxxx')).toBeTruthy();
    expect(await screen.findByRole('img', { name: /QR code of the address/ })).toBeTruthy();
    expect(screen.queryByRole('timer')).toBeNull();
    expect(screen.queryByText('Amount to pay')).toBeNull();
  });

  test('a wallet whose network is no longer offered shows no address, and why', async () => {
    serve(walletFixture({ unavailable: 'network', address: null, qr_content: null }));
    renderPage('/pay/wallet/wal-1');
    await heading('This payment is no longer available');
    expect(screen.getByText('TRON (TRC-20) is not accepted any more. Do not send anything to this address; ask the merchant for a new one.')).toBeTruthy();
  });

  test('a blocked wallet does not show its address', async () => {
    serve(walletFixture({ status: 'blocked' }));
    renderPage('/pay/wallet/wal-1');
    await heading('This address is closed');
    expect(screen.queryByText('TWalletAddressxxxxxxxxxxxxxxxxxxxx')).toBeNull();
  });
});

describe('errors', () => {
  test('404: payment not found, and polling stops', async () => {
    const calls = fakeServer(() => ({ status: 404, body: { state: 1, message: 'Not found' } }));
    renderPage('/pay/nope');
    await heading('Payment not found');
    expect(calls).toHaveLength(1);
  });

  test('a path that is not a payment link', async () => {
    const calls = fakeServer(() => ok(invoiceFixture()));
    renderPage('/somewhere');
    await heading('Payment not found');
    expect(calls).toHaveLength(0);
  });
});

describe('test mode', () => {
  test('banner and simulated payments through the simulator API, shown by the next poll', async () => {
    let paid = false;
    const calls = fakeServer((call) => {
      if (call.path === '/simulator/pay') {
        paid = true;
        return ok({ txid: 'tx-1' });
      }
      return ok(invoiceFixture({ test_mode: true, ...(paid ? { status: 'paid', is_final: true, payment_amount: '1250.378412' } : {}) }));
    });
    renderPage('/pay/inv-1');
    await heading('Send the payment');
    expect(screen.getByText('TEST MODE')).toBeTruthy();
    const sim = await screen.findByRole('region', { name: 'Simulate a payment' });
    for (const name of ['Full amount', 'Part of it', 'More than due']) {
      expect(within(sim).getByRole('button', { name })).toBeTruthy();
    }
    fireEvent.click(within(sim).getByRole('button', { name: 'Full amount' }));
    await heading('Payment received');
    const post = calls.find((c) => c.path === '/simulator/pay');
    expect(post?.body).toEqual({ invoice: 'inv-1', mode: 'full' });
  });

  test('partial and over modes', async () => {
    const calls = fakeServer((call) => (call.path === '/simulator/pay' ? ok({ txid: 't' }) : ok(invoiceFixture({ test_mode: true }))));
    renderPage('/pay/inv-1');
    const sim = await screen.findByRole('region', { name: 'Simulate a payment' });
    fireEvent.click(within(sim).getByRole('button', { name: 'Part of it' }));
    await within(sim).findByText(/Simulated payment sent/);
    fireEvent.click(within(sim).getByRole('button', { name: 'More than due' }));
    await waitFor(() => expect(calls.filter((c) => c.path === '/simulator/pay')).toHaveLength(2));
    expect(calls.filter((c) => c.path === '/simulator/pay').map((c) => (c.body as { mode: string }).mode)).toEqual([
      'partial',
      'over',
    ]);
  });

  test('wallet top-up with an amount', async () => {
    const calls = fakeServer((call) => (call.path === '/simulator/pay' ? ok({ txid: 'tx-9' }) : ok(walletFixture({ test_mode: true }))));
    renderPage('/pay/wallet/wal-1');
    await screen.findByText('TEST MODE');
    const input = await screen.findByLabelText('Amount');
    fireEvent.input(input, { target: { value: '12.5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await screen.findByText(/txid tx-9/);
    expect(calls.find((c) => c.path === '/simulator/pay')?.body).toEqual({ wallet: 'wal-1', amount: '12.5' });
  });

  test('no banner or simulator outside test mode', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    await heading('Send the payment');
    expect(screen.queryByText('TEST MODE')).toBeNull();
    expect(screen.queryByRole('region', { name: 'Simulate a payment' })).toBeNull();
  });
});
