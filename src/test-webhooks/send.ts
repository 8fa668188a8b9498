// POST /v1/test-webhook/{payment,payout,wallet}: one signed webhook sent right away so a merchant
// can check its receiver. Nothing is saved and nothing is retried.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import type { Merchant } from '../merchants/store.ts';
import { Decimal } from '../money/decimal.ts';
import type { CurrencyDef, NetworkDef } from '../registry/index.ts';
import { paymentWebhookFields, payoutWebhookFields, signedBody, type PayoutWebhookSource, type WebhookInvoice } from '../webhooks/payload.ts';
import { sendWebhook, type SendResult } from '../webhooks/send.ts';

import { findPayoutWebhookSourceForTest, PAYOUT_FINAL } from '../outgoing/payout-record.ts';
import { FINAL_STATUSES, type PaymentWebhook, type PayoutWebhook, type TestWebhookParams } from '../contracts/merchant-api/webhooks.ts';

export type TestWebhookKind = 'payment' | 'payout' | 'wallet';

/** uuid or order_id of the record the test webhook is about; uuid wins when both are given. */
export interface TestTarget {
  uuid: string | null;
  order_id: string | null;
}

/** The payout a test webhook names (uuid first, then order_id), as its webhook source, or null. */
export async function findPayoutForTest(ctx: Ctx, merchantId: string, target: TestTarget): Promise<PayoutWebhookSource | null> {
  return findPayoutWebhookSourceForTest(ctx, merchantId, target);
}

/** The static wallet a test webhook names, as the fields of a top-up webhook (without `sign`), or null. */
export async function findWalletForTest(ctx: Ctx, merchantId: string, target: TestTarget): Promise<PaymentWebhook | null> {
  return ctx.features.wallets.testWebhookFields(ctx, merchantId, target);
}

export interface TestWebhookOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * Builds the webhook (from the merchant's record when uuid or order_id is
 * given, from made-up data otherwise), signs it with the payment key (for payouts too, as the spec
 * says) and POSTs it once. Whatever the receiver answers is returned for logging only: the API
 * answers `[]` either way.
 */
export async function sendTestWebhook(ctx: Ctx, merchant: Merchant, kind: TestWebhookKind, params: TestWebhookParams, opts: TestWebhookOptions = {}): Promise<SendResult> {
  const { status } = params;
  const network = ctx.registry.network(params.network);
  const currency = network && ctx.registry.currencyOn(network.code, params.currency);
  if (!network || !currency) throw new BusinessError(kind === 'payout' ? Msg.payoutServiceNotFound : Msg.paymentServiceNotFound);
  const target: TestTarget = { uuid: params.uuid, order_id: params.order_id };
  const named = target.uuid !== null || target.order_id !== null;

  let fields: PaymentWebhook | PayoutWebhook;
  if (kind === 'payment') {
    const inv = named ? await findInvoiceForTest(ctx, merchant.id, target) : await madeUpInvoice(ctx, network, currency);
    if (!inv) throw new BusinessError(Msg.testPaymentNotFound);
    fields = paymentWebhookFields(
      {
        ...inv,
        status,
        is_final: FINAL_STATUSES.has(status) ? 1 : 0,
        // An invoice still waiting for the payer's choice takes the requested pair.
        network: inv.network ?? network.code,
        payer_currency: inv.payer_currency ?? currency.code,
      },
      'payment',
    );
  } else if (kind === 'payout') {
    const p = named ? await findPayoutForTest(ctx, merchant.id, target) : await madeUpPayout(ctx, network, currency);
    if (!p) throw new BusinessError(Msg.testPayoutNotFound);
    fields = payoutWebhookFields({ ...p, status, is_final: PAYOUT_FINAL.has(status) });
  } else {
    const w = await findWalletForTest(ctx, merchant.id, target);
    if (!w) throw new BusinessError(Msg.testWalletNotFound);
    fields = { ...w, status, is_final: FINAL_STATUSES.has(status) };
  }
  return sendWebhook(params.url_callback, signedBody(fields, merchant.payment_key), {
    deliveryId: randomUUID(),
    // The rule of real webhooks: private targets in test mode (a merchant developing locally), or
    // where the operator allows them.
    allowPrivate: ctx.config.allowPrivateCallbacks || ctx.chains.isTestNetwork(network.code),
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
  });
}

async function findInvoiceForTest(ctx: Ctx, merchantId: string, target: TestTarget): Promise<WebhookInvoice | undefined> {
  let q = ctx.storage.db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId);
  q = target.uuid !== null ? q.where('id', '=', target.uuid) : q.where('order_id', '=', target.order_id!);
  return q.executeTakeFirst();
}

const TEST_USD = '15';

/** About 15 USD in the currency (at the configured rates), else ten times its minimum. */
async function plausibleAmount(ctx: Ctx, currency: CurrencyDef): Promise<{ amount: Decimal; usd: string | null }> {
  const places = Math.min(currency.decimals, 8);
  try {
    const { rate } = await ctx.rates.quote('USD', currency.code);
    const amount = Decimal.parse(TEST_USD).mul(rate).round(places, 'up');
    if (amount.gt('0')) return { amount, usd: TEST_USD };
  } catch {
    /* no rate for it: fall through */
  }
  return { amount: Decimal.parse(currency.min).mul('10').round(places, 'up'), usd: null };
}

function randomOrderId(): string {
  return `test_${randomBytes(8).toString('hex')}`;
}

function randomTxid(ctx: Ctx, network: NetworkDef): string {
  return ctx.chains.families.txid(network, randomBytes(32).toString('hex'));
}

async function madeUpInvoice(ctx: Ctx, network: NetworkDef, currency: CurrencyDef): Promise<WebhookInvoice> {
  const { amount, usd } = await plausibleAmount(ctx, currency);
  const commission = amount.percent(currency.commission_percent).round(currency.decimals, 'up');
  const text = amount.toString();
  return {
    id: randomUUID(),
    order_id: randomOrderId(),
    amount: text,
    payment_amount: text,
    payment_amount_usd: usd,
    merchant_amount: amount.sub(commission).toString(),
    commission: commission.toString(),
    credited: '0',
    is_final: 0,
    status: 'paid',
    from_address: null,
    network: network.code,
    currency: currency.code,
    payer_currency: currency.code,
    payer_amount: text,
    exchange_rate: '1',
    additional_data: null,
    txid: randomTxid(ctx, network),
  };
}

async function madeUpPayout(ctx: Ctx, network: NetworkDef, currency: CurrencyDef): Promise<PayoutWebhookSource> {
  const { amount } = await plausibleAmount(ctx, currency);
  const fee = Decimal.parse(currency.fees?.recommended ?? network.fees.recommended ?? '0');
  return {
    uuid: randomUUID(),
    order_id: randomOrderId(),
    amount: amount.toString(),
    merchant_amount: amount.add(fee).toString(),
    commission: fee.toString(),
    is_final: true,
    status: 'paid',
    txid: randomTxid(ctx, network),
    currency: currency.code,
    network: network.code,
    payer_currency: currency.code,
    payer_amount: amount.toString(),
  };
}
