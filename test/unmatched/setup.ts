// What the unmatched-payment tests share: a simulated gateway whose merchant has a default callback
// URL and receiving material on TRON (rows as src/custody/ writes them: the matching reads only
// them), and a way to report a payment to that account that names no invoice.
import { randomUUID } from 'node:crypto';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { Backend } from '../helpers/backends.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { createSink } from '../../src/chain/ingest.ts';
import type { UnmatchedTransfer } from '../../src/chain/contract.ts';
import { balanceOf } from '../../src/ledger/index.ts';

/** The merchant's own wallet (the material a watch-only network's custody stores). */
export const ACCOUNT = 'TMerchantOwnWallet0000000000000001';

export interface UnmatchedGateway extends TestGateway {
  rx: Receiver;
  /** Reports a payment to ACCOUNT (or `to`) naming no invoice, as a driver does. */
  report(over?: Partial<UnmatchedTransfer>): Promise<UnmatchedTransfer>;
  invoice(amount?: string, over?: Record<string, unknown>): Promise<{ uuid: string; payer_amount: string }>;
  balance(currency?: string): Promise<string>;
  setMaterial(merchantId: string, material: string, at: number, replacedAt?: number | null): Promise<void>;
}

let n = 0;

export async function startUnmatchedGateway(backend: Backend): Promise<UnmatchedGateway> {
  const gw = await startTestGateway(backend);
  const rx = await startReceiver();
  await gw.ctx.storage.db.updateTable('merchants').set({ default_url_callback: rx.url }).where('id', '=', gw.merchant.id).execute();
  const setMaterial = async (merchantId: string, material: string, at: number, replacedAt: number | null = null) => {
    await gw.ctx.storage.db
      .insertInto('merchant_custody')
      .values({ id: randomUUID(), merchant_id: merchantId, network: 'TRON', kind: 'address', material, summary: material, actor: 'cli', created_at: at, replaced_at: replacedAt })
      .execute();
  };
  await setMaterial(gw.merchant.id, ACCOUNT, gw.clock.now - 1000);
  return {
    ...gw,
    rx,
    setMaterial,
    async report(over = {}) {
      const t: UnmatchedTransfer = {
        network: 'TRON',
        currency: 'USDT',
        txid: randomUUID().replaceAll('-', '').padEnd(64, '0'),
        index: 0,
        from: 'TPayerWallet00000000000000000000001',
        to: ACCOUNT,
        amount: '100',
        memo: 'order 1042?',
        reason: 'unknown_reference',
        blockHeight: 1000,
        confirmations: 25,
        ...over,
      };
      await createSink(gw.ctx).unmatched!(t);
      return t;
    },
    async invoice(amount = '100', over = {}) {
      const r = await gw.api('/v1/payment', { amount, currency: 'USDT', network: 'TRON', order_id: `um-${++n}-${randomUUID().slice(0, 8)}`, ...over });
      if (r.status !== 200) throw new Error(`invoice: ${r.raw}`);
      return r.body.result as { uuid: string; payer_amount: string };
    },
    balance: (currency = 'USDT') => balanceOf(gw.ctx.storage.db, gw.merchant.id, 'business', currency),
    async close() {
      await rx.close();
      await gw.close();
    },
  };
}
