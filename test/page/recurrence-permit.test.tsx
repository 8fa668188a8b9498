// @vitest-environment jsdom
// "Approve automatic renewals", beyond a first plain approve: a token with EIP-2612 permit is
// approved by a signature (eth_signTypedData_v4, no transaction), posted with the allowance
// message's signature, then recorded once the gateway's permit() is mined; an allowance the payer
// already gave the collector (other subscriptions) is added to, not overwritten, and said, with
// approve(0) first on an approve-only token; an approval not mined within the wait is said in words,
// and pressing again waits for that same transaction instead of approving twice.
import { afterEach, expect, test, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/preact';
import { fakeServer, ok, renderPage, resetPage, T0 } from './helpers.tsx';
import { PayerRecurrence, type PayerAllowance } from '../../src/contracts/payer.ts';
import { APPROVE_SELECTOR, MINE_TIMEOUT_MS, WalletError, mined } from '../../src/page/evm-tx.ts';

afterEach(() => {
  resetPage();
  localStorage.clear();
  vi.restoreAllMocks();
});

const UUID = '3f1c2b7e-1111-4222-8333-444455556666';
const TOKEN = '0x' + 'ab'.repeat(20);
const COLLECTOR = '0x' + 'cd'.repeat(20);
const PAYER = '0x' + '12'.repeat(20);
const HASH = '0x' + '9f'.repeat(32);
const PERMIT_TX = '0x' + '7a'.repeat(32);
const SIG = '0x' + '5e'.repeat(64) + '1b';
const PERMIT_SIG = '0x' + '4d'.repeat(64) + '1c';
const NEXT = '2030-02-22T12:00:00.000Z';
const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
const approveCall = (units: number) => APPROVE_SELECTOR + COLLECTOR.slice(2).padStart(64, '0') + units.toString(16).padStart(64, '0');

const rec = PayerRecurrence.parse({
  kind: 'recurrence', uuid: UUID, name: 'Pro plan', status: 'active', amount: '10.00', currency: 'USD', currency_is_fiat: true,
  period: 'weekly', discount_amount: null, discount_days: null, end_of_discount: null, payer_currency: 'USDT', network: 'ETH',
  network_name: 'Ethereum', payer_amount: '10.00', next_payment_at: Date.parse(NEXT) / 1000, pay_before: null, invoice_uuid: 'inv-1',
  options: null, can_cancel: true, auto_renew: true, merchant: { display_name: 'Shop', logo_url: null, accent: null, theme: null, language: null },
  test_mode: false, server_time: T0,
});

const DOMAIN = { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: TOKEN };
const terms = (permit: PayerAllowance['permit']): PayerAllowance => ({
  network: 'ETH', currency: 'USDT', token: TOKEN, collector: COLLECTOR, period: 'weekly', amount_per_period: '10.00', periods: 12,
  cap: '120', next_pull_at: NEXT, revoke: 'Call approve(...)',
  chain: { chain_id: 1, chain_name: 'Ethereum', rpc_urls: [], explorer_url: null, native: { name: 'Ether', symbol: 'ETH', decimals: 18 }, contract: TOKEN, decimals: 6 },
  recorded: null,
  permit,
});

interface WalletOpts {
  /** allowance(payer, collector) now, base units. */
  current?: bigint;
  /** Receipts: null = not mined (yet). */
  receipt?: () => unknown;
  known?: boolean;
  /** Holds the first eth_sendTransaction until released. */
  hold?: Promise<void>;
  /** Successive answers of allowance(payer, collector) (the last one repeats); wins over `current`. */
  currents?: bigint[];
  /** Which eth_sendTransaction calls (0-based) the payer rejects in the wallet. */
  reject?: number[];
}

function wallet(o: WalletOpts = {}) {
  const asked: { method: string; params?: unknown }[] = [];
  let sent = 0;
  const request = vi.fn(async (args: { method: string; params?: unknown }) => {
    asked.push(args);
    const params = args.params as unknown[];
    switch (args.method) {
      case 'eth_requestAccounts': return [PAYER];
      case 'eth_chainId': return '0x1';
      case 'eth_call': {
        const data = (params[0] as { data: string }).data;
        if (data.startsWith('0xdd62ed3e')) return word(o.currents ? (o.currents.length > 1 ? o.currents.shift()! : o.currents[0]!) : (o.current ?? 0n)); // allowance(owner, spender)
        if (data.startsWith('0x7ecebe00')) return word(5n); // nonces(owner)
        throw new Error(`unexpected call ${data}`);
      }
      case 'eth_sendTransaction':
        if (o.reject?.includes(sent)) {
          sent++;
          throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
        }
        if (sent++ === 0 && o.hold) await o.hold;
        return sent === 1 ? '0x' + '01'.repeat(32) : HASH;
      case 'eth_getTransactionReceipt': return o.receipt ? o.receipt() : { status: '0x1' };
      case 'eth_getTransactionByHash': return o.known ? { hash: params[0] } : null;
      case 'eth_signTypedData_v4': return PERMIT_SIG;
      case 'personal_sign': return SIG;
      default: throw new Error(`unexpected ${args.method}`);
    }
  });
  vi.stubGlobal('ethereum', { request });
  return asked;
}

test('a token with permit: the wallet signs a Permit for the cap (no transaction), then the gateway submits it and the allowance is recorded once mined', async () => {
  const asked = wallet();
  let posts = 0;
  const calls = fakeServer((call) => {
    if (call.path.endsWith('/allowance')) {
      if (call.method !== 'POST') return ok(terms(DOMAIN));
      posts++;
      return posts === 1 ? ok({ ...terms(DOMAIN), permit_tx: PERMIT_TX }) : ok({ ...terms(DOMAIN), recorded: { address: PAYER, status: 'active', cap: '120' } });
    }
    return ok(rec, '"r1"');
  });
  renderPage(`/pay/recurrence/${UUID}`);
  fireEvent.click(await screen.findByRole('button', { name: 'Approve with browser wallet' }, { timeout: 5000 }));
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals on'));

  expect(asked.some((a) => a.method === 'eth_sendTransaction')).toBe(false);
  const typed = asked.find((a) => a.method === 'eth_signTypedData_v4')!.params as [string, string];
  expect(typed[0]).toBe(PAYER);
  const data = JSON.parse(typed[1]);
  expect(data.primaryType).toBe('Permit');
  expect(data.domain).toEqual(DOMAIN);
  expect(data.message).toMatchObject({ owner: PAYER, spender: COLLECTOR, value: '120000000', nonce: '5' });
  const posted = calls.filter((c) => c.method === 'POST').map((c) => c.body);
  expect(posted[0]).toEqual({ address: PAYER, signature: SIG, permit: { value: '120', deadline: data.message.deadline, signature: PERMIT_SIG } });
  // Its receipt waited for through the wallet, then the allowance is posted as after an approve.
  expect(asked.some((a) => a.method === 'eth_getTransactionReceipt' && (a.params as string[])[0] === PERMIT_TX)).toBe(true);
  expect(posted[1]).toEqual({ address: PAYER, tx_hash: PERMIT_TX, signature: SIG });
});

test('an allowance already given (another subscription) is added to and said; approve-only: approve(0), then approve(total)', async () => {
  let release!: () => void;
  const asked = wallet({ current: 50_000_000n, hold: new Promise<void>((r) => (release = r)) });
  const calls = fakeServer((call) =>
    call.path.endsWith('/allowance') ? ok({ ...terms(null), recorded: call.method === 'POST' ? { address: PAYER, status: 'active', cap: '170' } : null }) : ok(rec, '"r1"'),
  );
  renderPage(`/pay/recurrence/${UUID}`);
  fireEvent.click(await screen.findByRole('button', { name: 'Approve with browser wallet' }, { timeout: 5000 }));
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('already allows 50 USDT to this address'));
  expect(region.textContent).toContain('you approve 170 USDT in total, 120 USDT more for this subscription');
  expect(region.textContent).toContain('USDT cannot change an allowance that is not zero, so this takes two transactions');
  expect(region.textContent).toContain('Step 1 of 2');
  release();
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals on'));
  const sent = asked.filter((a) => a.method === 'eth_sendTransaction').map((a) => (a.params as { data: string }[])[0]!.data);
  expect(sent).toEqual([approveCall(0), approveCall(170_000_000)]);
  expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ address: PAYER, tx_hash: HASH, signature: SIG });
});

test('mined(): gives up after its deadline with a timeout, not forever', async () => {
  const provider = { request: async () => null };
  const err = await mined(provider, HASH, { pollMs: 5, timeoutMs: 30 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WalletError);
  expect((err as WalletError).problem).toBe('timeout');
  expect(MINE_TIMEOUT_MS).toBe(10 * 60_000);
});

test('an approval not mined within 10 minutes is said in words; pressing again waits for the same transaction, not a second approval', async () => {
  const realNow = Date.now.bind(Date);
  let late = false;
  let mine = false;
  const asked = wallet({
    known: true,
    receipt: () => {
      if (mine) return { status: '0x1' };
      late = true; // the first receipt poll: the clock then jumps past the wait's deadline
      return null;
    },
  });
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + (late ? MINE_TIMEOUT_MS + 60_000 : 0));
  const calls = fakeServer((call) =>
    call.path.endsWith('/allowance') ? ok({ ...terms(null), recorded: call.method === 'POST' ? { address: PAYER, status: 'active', cap: '120' } : null }) : ok(rec, '"r1"'),
  );
  renderPage(`/pay/recurrence/${UUID}`);
  fireEvent.click(await screen.findByRole('button', { name: 'Approve with browser wallet' }, { timeout: 5000 }));
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('The approval was not confirmed within 10 minutes. Check your wallet'));
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
  expect(asked.filter((a) => a.method === 'eth_sendTransaction')).toHaveLength(1);

  // It lands later; the payer presses again.
  mine = true;
  late = false;
  fireEvent.click(screen.getByRole('button', { name: 'Approve with browser wallet' }));
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals on'));
  expect(asked.filter((a) => a.method === 'eth_sendTransaction')).toHaveLength(1);
  expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ address: PAYER, tx_hash: '0x' + '01'.repeat(32), signature: SIG });
  expect(localStorage.getItem(`satchel.allowance.${UUID}`)).toBeNull();
});

test('approve(0) mined, then the approval of the total rejected: pressing again approves the whole total, not only this cap', async () => {
  // 50 USDT allowed for another subscription; approve(0) goes through, the payer rejects the second step.
  const asked = wallet({ currents: [50_000_000n, 0n], reject: [1] });
  fakeServer((call) =>
    call.path.endsWith('/allowance') ? ok({ ...terms(null), recorded: call.method === 'POST' ? { address: PAYER, status: 'active', cap: '170' } : null }) : ok(rec, '"r1"'),
  );
  renderPage(`/pay/recurrence/${UUID}`);
  const button = await screen.findByRole('button', { name: 'Approve with browser wallet' }, { timeout: 5000 });
  fireEvent.click(button);
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals are not on'));
  // The retry reads an allowance of 0 (the reset was mined) and still approves 50 + 120.
  fireEvent.click(screen.getByRole('button', { name: 'Approve with browser wallet' }));
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals on'));
  const sent = asked.filter((a) => a.method === 'eth_sendTransaction').map((a) => (a.params as { data: string }[])[0]!.data);
  expect(sent).toEqual([approveCall(0), approveCall(170_000_000), approveCall(170_000_000)]);
  expect(localStorage.getItem(`satchel.allowance-total.${UUID}`)).toBeNull();
});

test('a permit the gateway cannot use (a contract wallet, no gas for it, the day\'s permits used): the payer approves with a transaction instead', async () => {
  const asked = wallet();
  const calls = fakeServer((call) => {
    if (!call.path.endsWith('/allowance')) return ok(rec, '"r1"');
    if (call.method !== 'POST') return ok(terms(DOMAIN));
    const body = call.body as { permit?: unknown };
    if (body.permit) return { status: 422, body: { state: 1, code: 'permit_limit', message: 'This subscription has had 3 permits submitted in the last 24 hours' } };
    return ok({ ...terms(DOMAIN), recorded: { address: PAYER, status: 'active', cap: '120' } });
  });
  renderPage(`/pay/recurrence/${UUID}`);
  fireEvent.click(await screen.findByRole('button', { name: 'Approve with browser wallet' }, { timeout: 5000 }));
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals are not on'));
  expect(asked.some((a) => a.method === 'eth_sendTransaction')).toBe(false);
  fireEvent.click(screen.getByRole('button', { name: 'Approve with a transaction instead (you pay the network fee)' }));
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals on'));
  const sent = asked.filter((a) => a.method === 'eth_sendTransaction').map((a) => (a.params as { data: string }[])[0]!.data);
  expect(sent).toEqual([approveCall(120_000_000)]);
  expect(calls.filter((c) => c.method === 'POST').at(-1)?.body).toEqual({ address: PAYER, tx_hash: '0x' + '01'.repeat(32), signature: SIG });
  expect(screen.queryByRole('button', { name: /transaction instead/ })).toBeNull();
});

test('a kept approval that failed on chain is not waited for again: the next press approves afresh', async () => {
  const FAILED = '0x' + 'ee'.repeat(32);
  localStorage.setItem(`satchel.allowance.${UUID}`, JSON.stringify({ address: PAYER, hash: FAILED }));
  let receipts = 0;
  // The kept transaction is known to the chain and reverted; later ones succeed.
  const asked = wallet({ known: true, receipt: () => (receipts++ === 0 ? { status: '0x0' } : { status: '0x1' }) });
  fakeServer((call) =>
    call.path.endsWith('/allowance') ? ok({ ...terms(null), recorded: call.method === 'POST' ? { address: PAYER, status: 'active', cap: '120' } : null }) : ok(rec, '"r1"'),
  );
  renderPage(`/pay/recurrence/${UUID}`);
  fireEvent.click(await screen.findByRole('button', { name: 'Approve with browser wallet' }, { timeout: 5000 }));
  const region = await screen.findByRole('region', { name: 'Approve automatic renewals' });
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals are not on'));
  expect(asked.some((a) => a.method === 'eth_sendTransaction')).toBe(false);
  expect(localStorage.getItem(`satchel.allowance.${UUID}`)).toBeNull();
  fireEvent.click(screen.getByRole('button', { name: 'Approve with browser wallet' }));
  await waitFor(() => expect(region.textContent).toContain('Automatic renewals on'));
  expect(asked.filter((a) => a.method === 'eth_sendTransaction')).toHaveLength(1);
});
