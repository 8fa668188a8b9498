// @vitest-environment jsdom
// "Approve automatic renewals" on the subscription page: the terms (cap and periods, amount per
// period, next date, collector, how to revoke) are shown before the wallet is asked anything; the
// button connects the browser wallet, switches its chain, sends approve(collector, cap) on the token,
// waits for the receipt, asks the wallet to sign (personal_sign) the subscription's allowance message
// from the approving address, then posts {address, tx_hash, signature}; a wallet refusal (of the
// approval or of the signature) is said and nothing is posted.
import { afterEach, expect, test, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/preact';
import { fakeServer, ok, renderPage, resetPage, T0 } from './helpers.tsx';
import { PayerRecurrence, type PayerAllowance } from '../../src/contracts/payer.ts';
import { APPROVE_SELECTOR, utf8Hex } from '../../src/page/evm-tx.ts';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';

afterEach(resetPage);

const UUID = '3f1c2b7e-1111-4222-8333-444455556666';
const TOKEN = '0x' + 'ab'.repeat(20);
const COLLECTOR = '0x' + 'cd'.repeat(20);
const PAYER = '0x' + '12'.repeat(20);
const HASH = '0x' + '9f'.repeat(32);
const SIG = '0x' + '5e'.repeat(64) + '1b';
const NEXT = '2030-02-22T12:00:00.000Z';

const rec = PayerRecurrence.parse({
  kind: 'recurrence', uuid: UUID, name: 'Pro plan', status: 'active', amount: '10.00', currency: 'USD', currency_is_fiat: true,
  period: 'weekly', discount_amount: null, discount_days: null, end_of_discount: null, payer_currency: 'USDT', network: 'ETH',
  network_name: 'Ethereum', payer_amount: '10.00', next_payment_at: Date.parse(NEXT) / 1000, pay_before: null, invoice_uuid: 'inv-1',
  options: null, can_cancel: true, auto_renew: true, merchant: { display_name: 'Shop', logo_url: null, accent: null, theme: null, language: null },
  test_mode: false, server_time: T0,
});

const terms: PayerAllowance = {
  network: 'ETH', currency: 'USDT', token: TOKEN, collector: COLLECTOR, period: 'weekly', amount_per_period: '10.00', periods: 12,
  cap: '120', next_pull_at: NEXT, revoke: 'Call approve(...)',
  chain: { chain_id: 1, chain_name: 'Ethereum', rpc_urls: [], explorer_url: null, native: { name: 'Ether', symbol: 'ETH', decimals: 18 }, contract: TOKEN, decimals: 6 },
  recorded: null,
};

/** An injected wallet on chain 5 that switches to 1 when asked; `refuse` makes it reject the transaction (or the signature). */
function wallet(refuse: false | 'approve' | 'sign' = false) {
  let chain = '0x5';
  const asked: { method: string; params?: unknown }[] = [];
  const request = vi.fn(async (args: { method: string; params?: unknown }) => {
    asked.push(args);
    switch (args.method) {
      case 'eth_requestAccounts': return [PAYER];
      case 'eth_chainId': return chain;
      case 'wallet_switchEthereumChain': chain = (args.params as { chainId: string }[])[0]!.chainId; return null;
      case 'eth_sendTransaction': if (refuse === 'approve') throw Object.assign(new Error('User rejected the request.'), { code: 4001 }); return HASH;
      case 'eth_getTransactionReceipt': return { status: '0x1' };
      case 'eth_call': return '0x0'; // allowance(payer, collector): none yet (test/page/recurrence-permit.test.tsx covers a shared one)
      case 'personal_sign': if (refuse === 'sign') throw Object.assign(new Error('User denied message signature.'), { code: 4001 }); return SIG;
      default: throw new Error(`unexpected ${args.method}`);
    }
  });
  vi.stubGlobal('ethereum', { request });
  return asked;
}

function server(answer: PayerAllowance | null) {
  let recorded: PayerAllowance['recorded'] = null;
  return fakeServer((call) => {
    if (call.path === `/api/pay/recurrence/${UUID}/allowance`) {
      if (!answer) return { status: 422, body: { state: 1, message: 'not offered', code: 'not_available' } };
      if (call.method === 'POST') recorded = { address: PAYER, status: 'active', cap: '120' };
      return ok({ ...answer, recorded });
    }
    return ok(rec, '"r1"');
  });
}

test('shows the terms before signing, approves the cap on the token from the wallet, then records it', async () => {
  const asked = wallet();
  const calls = server(terms);
  renderPage(`/pay/recurrence/${UUID}`);
  const section = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  expect(section.textContent).toContain('120 USDT (12 periods)');
  expect(section.textContent).toContain('10.00 USDT every week');
  expect(section.textContent).toContain(new Intl.DateTimeFormat('en-US', { dateStyle: 'long' }).format(Date.parse(NEXT)));
  expect(section.textContent).toContain(COLLECTOR);
  expect(section.textContent).toContain(`To stop, approve ${COLLECTOR} for 0 on the USDT contract ${TOKEN}`);

  const button = await screen.findByRole('button', { name: 'Approve with browser wallet' });
  expect(asked).toEqual([]); // nothing asked of the wallet before the payer presses
  expect(button.getAttribute('aria-describedby')).toBe('allow-revoke');
  fireEvent.click(button);
  await waitFor(() => expect(section.textContent).toContain('Automatic renewals on'));

  const sent = asked.find((a) => a.method === 'eth_sendTransaction')!.params as { from: string; to: string; data: string }[];
  // approve(collector, 120 USDT = 120000000 base units at 6 decimals), on the token contract.
  expect(sent[0]).toEqual({ from: PAYER, to: TOKEN, value: '0x0', data: APPROVE_SELECTOR + COLLECTOR.slice(2).padStart(64, '0') + (120_000_000).toString(16).padStart(64, '0') });
  expect(asked.map((a) => a.method)).toContain('wallet_switchEthereumChain');
  expect(asked.findIndex((a) => a.method === 'eth_getTransactionReceipt')).toBeGreaterThan(asked.findIndex((a) => a.method === 'eth_sendTransaction'));
  // Once mined, the approving address signs the subscription's terms (the server recovers the signer).
  const signIndex = asked.findIndex((a) => a.method === 'personal_sign');
  expect(signIndex).toBeGreaterThan(asked.findIndex((a) => a.method === 'eth_getTransactionReceipt'));
  const message = allowanceMessage({ uuid: UUID, network: 'ETH', currency: 'USDT', token: TOKEN, collector: COLLECTOR, cap: '120' });
  expect(message).toContain(`Subscription: ${UUID}`);
  expect(message).toContain(`Collector: ${COLLECTOR}`);
  expect(message).toContain('Cap: 120 USDT');
  expect(asked[signIndex]!.params).toEqual([utf8Hex(message), PAYER]);
  expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ address: PAYER, tx_hash: HASH, signature: SIG });
  expect(screen.queryByRole('button', { name: 'Approve with browser wallet' })).toBeNull();
});

test('a refusal in the wallet is said, and nothing is recorded', async () => {
  wallet('approve');
  const calls = server(terms);
  renderPage(`/pay/recurrence/${UUID}`);
  fireEvent.click(await screen.findByRole('button', { name: 'Approve with browser wallet' }));
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals are not on: User rejected the request.'));
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
  expect(screen.getByRole('button', { name: 'Approve with browser wallet' })).toBeTruthy();
});

test('a refused signature after the approval: said, and nothing is recorded', async () => {
  const asked = wallet('sign');
  const calls = server(terms);
  renderPage(`/pay/recurrence/${UUID}`);
  fireEvent.click(await screen.findByRole('button', { name: 'Approve with browser wallet' }));
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals are not on: User denied message signature.'));
  expect(asked.map((a) => a.method)).toContain('eth_sendTransaction');
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
});

test('utf8Hex: the UTF-8 bytes personal_sign is given', () => {
  expect(utf8Hex('Satchel\n€')).toBe('0x' + Buffer.from('Satchel\n€', 'utf8').toString('hex'));
});

test('not offered (a coin, another network): no section', async () => {
  wallet();
  const calls = server(null);
  renderPage(`/pay/recurrence/${UUID}`);
  await screen.findByRole('heading', { level: 1, name: 'Pro plan' });
  await waitFor(() => expect(calls.some((c) => c.path.endsWith('/allowance'))).toBe(true));
  expect(screen.queryByRole('region', { name: 'Approve automatic renewals' })).toBeNull();
});

test('already on: says so without a button', async () => {
  wallet();
  fakeServer((call) => (call.path.endsWith('/allowance') ? ok({ ...terms, recorded: { address: PAYER, status: 'active', cap: '120' } }) : ok(rec, '"r1"')));
  renderPage(`/pay/recurrence/${UUID}`);
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  expect(region.textContent).toContain('Automatic renewals on');
  expect(screen.queryByRole('button', { name: /Approve with/ })).toBeNull();
});
