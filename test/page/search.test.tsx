// @vitest-environment jsdom
// Searching the currencies the payer may choose from.
import { afterEach, expect, test } from 'vitest';
import { fireEvent, screen } from '@testing-library/preact';
import { filterOptions } from '../../src/page/choose.tsx';
import { chooseOptions, invoiceFixture, renderPage, resetPage, serve } from './helpers.tsx';

afterEach(resetPage);

const names = (options: typeof chooseOptions) => options.map((o) => o.currency);

test('matches currency codes, names and networks, every word, any case', () => {
  expect(names(filterOptions(chooseOptions, ''))).toEqual(['USDT', 'BTC', 'ETH', 'TRX', 'XMR']);
  expect(names(filterOptions(chooseOptions, 'arbitrum'))).toEqual(['ETH']);
  expect(names(filterOptions(chooseOptions, 'btc'))).toEqual(['BTC']);
  expect(names(filterOptions(chooseOptions, 'Tether'))).toEqual(['USDT']);
  expect(names(filterOptions(chooseOptions, 'tron'))).toEqual(['USDT', 'TRX']);
  expect(names(filterOptions(chooseOptions, 'usdt erc'))).toEqual(['USDT']);
  expect(names(filterOptions(chooseOptions, 'trc-20'))).toEqual(['USDT']); // TRX is the chain's own coin, not a TRC-20 token
  expect(names(filterOptions(chooseOptions, 'dogecoin'))).toEqual([]);
});

test('a currency and a network narrow the option to that network', () => {
  const networks = (query: string) => filterOptions(chooseOptions, query).map((o) => `${o.currency}: ${o.networks.map((n) => n.network).join(',')}`);
  expect(networks('usdt tron')).toEqual(['USDT: TRON']);
  expect(networks('tether erc-20')).toEqual(['USDT: ETH']);
  expect(networks('usdt')).toEqual(['USDT: TRON,ETH']);
  expect(networks('tron')).toEqual(['USDT: TRON', 'TRX: TRON']);
  expect(filterOptions(chooseOptions, 'usdt')[0]).toBe(chooseOptions[0]); // untouched when all match
});

test('typing in the search box narrows the list', async () => {
  serve(
    invoiceFixture({ payer_currency: null, network: null, network_name: null, payer_amount: null, address: null, qr_content: null, options: chooseOptions }),
  );
  renderPage('/pay/inv-1');
  const search = await screen.findByRole('searchbox', { name: 'Search coin or network' });
  const shown = () => [...document.querySelectorAll('.option strong')].map((e) => e.textContent);
  expect(shown()).toEqual(['USDT', 'BTC', 'ETH', 'TRX', 'XMR']);
  fireEvent.input(search, { target: { value: 'tron' } });
  expect(shown()).toEqual(['USDT', 'TRX']);
  fireEvent.input(search, { target: { value: 'monero' } });
  expect(shown()).toEqual(['XMR']);
  fireEvent.input(search, { target: { value: 'zzz' } });
  expect(shown()).toEqual([]);
  expect(screen.getByText('Nothing matches “zzz”.')).toBeTruthy();
});
