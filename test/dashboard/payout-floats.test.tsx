// @vitest-environment jsdom
// The payouts page's card of payout floats: each float's balance, today's total against the day's
// cap, what is left today and the cap per payout; nothing at all on a gateway without a float.
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, render, screen } from '@testing-library/preact';
import { PayoutFloatsCard } from '../../src/dashboard-ui/payouts.tsx';
import type { PayoutFloatLine } from '../../src/contracts/dashboard/money.ts';

afterEach(cleanup);

const line = (over: Partial<PayoutFloatLine>): PayoutFloatLine => ({
  network: 'ETH', currency: 'USDT', address: '0x00000000000000000000000000000000000000f1', balance: '9990',
  spent_today: '2400', max_per_payout: '1000', max_per_day: '2500', left_today: '100', ...over,
});
/** Cell texts with the formatter's thin spaces as plain spaces. */
const cells = (row: HTMLElement) => [...row.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim());

describe('payout floats on the payouts page', () => {
  test('shows each float against its caps', () => {
    render(<PayoutFloatsCard lines={[line({}), line({ currency: 'USDC', balance: null, spent_today: '0', max_per_payout: null, max_per_day: null, left_today: null })]} />);
    const table = screen.getByRole('table');
    const [usdt, usdc] = [...table.querySelectorAll('tbody tr')] as HTMLElement[];
    expect(cells(usdt!)).toEqual(['ETH0x00000000000000000000000000000000000000f1', 'USDT', '9,990 USDT', '2,400 USDT of 2,500', '100 USDT', '1,000 USDT']);
    expect(cells(usdc!)).toEqual(['ETH0x00000000000000000000000000000000000000f1', 'USDC', '—', '0 USDC', 'no cap', 'no cap']);
    expect(screen.getByRole('region', { name: 'Payout floats' }).textContent).toContain('Your balance is what you received and have not paid out');
  });

  test('a gateway without a float shows no card', () => {
    const { container } = render(<PayoutFloatsCard lines={[]} />);
    expect(container.textContent).toBe('');
  });
});
