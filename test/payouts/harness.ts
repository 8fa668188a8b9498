// Shared by the money-out tests: a test gateway with payouts, wallets and transfers installed, and
// the few things those tests do over and over.
import { randomUUID } from 'node:crypto';
import type { Backend } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { balanceOf, entriesSum, post, type Wallet } from '../../src/ledger/index.ts';
import { createWorkers } from '../../src/worker/index.ts';
import type { Merchant } from '../../src/merchants/store.ts';

export async function startMoneyGateway(backend: Backend, env: Record<string, string> = {}): Promise<TestGateway> {
  return startTestGateway(backend, { env });
}

/** Credits a balance directly, as a paid invoice would have. */
export async function fund(gw: TestGateway, currency: string, amount: string, wallet: Wallet = 'business', merchant: Merchant = gw.merchant): Promise<void> {
  await gw.ctx.storage.write((trx) =>
    post(trx, {
      merchantId: merchant.id,
      wallet,
      currency,
      amount,
      reason: 'test_funding',
      ref: { kind: 'test', id: 'funding' },
      key: `test:${randomUUID()}`,
      now: gw.ctx.now(),
    }),
  );
}

export function balance(gw: TestGateway, currency: string, wallet: Wallet = 'business', merchant: Merchant = gw.merchant): Promise<string> {
  return balanceOf(gw.ctx.storage.db, merchant.id, wallet, currency);
}

/** The balance equals the sum of its ledger entries. */
export async function ledgerAgrees(gw: TestGateway, currency: string, wallet: Wallet = 'business', merchant: Merchant = gw.merchant): Promise<boolean> {
  const [b, s] = [await balance(gw, currency, wallet, merchant), await entriesSum(gw.ctx.storage.db, merchant.id, wallet, currency)];
  return b === s;
}

/** One round of the background workers (chains, expiry, webhooks, payouts). */
export async function tick(gw: TestGateway): Promise<void> {
  await createWorkers(gw.ctx, { error: () => {} }).tick();
}


/** Valid addresses on each format (derived from the test seed or well known). */
export const ADDR = {
  TRON: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  BTC: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  EVM: '0x52908400098527886E0F7030069857D2E4169EE7',
  TON: 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2',
} as const;
