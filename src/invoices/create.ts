// POST /v1/payment: create an invoice, or return (and maybe refresh) the one with this order_id.
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import type { Merchant } from '../merchants/store.ts';
import { Decimal } from '../money/decimal.ts';
import type { CurrencyDef, NetworkDef } from '../registry/index.ts';
import { allocateAddress } from '../chain/allocate.ts';
import { depositParts } from '../chain/watch-paths.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';
import { presentInvoice, presentOptions, type InvoiceRow } from './invoice-object.ts';
import { allowedPairs } from './options.ts';
import { receivingOffer, type ReceivingOffer } from '../custody/offer.ts';
import { CustodyMissingError } from '../chain/errors.ts';
import { price } from '../pricing/invoice-price.ts';
import { qrDataUrl } from '../qr/png.ts';
import { commissionPercent, quoteRate } from '../pricing/rates.ts';
import { claimOrderId } from '../merchants/order-ids.ts';
import type { Invoice } from '../contracts/merchant-api/objects.ts';
import type { Insertable } from 'kysely';
import type { InvoicesTable } from '../db/schema.ts';
import { statement, statementsByColumns } from '../db/statement.ts';
import type { CreateInvoiceParams } from '../contracts/merchant-api/invoices.ts';

/** A watch-only network the merchant has supplied no receiving material for: no wallet there. */
function noMaterial(err: unknown): never {
  throw err instanceof CustodyMissingError ? new BusinessError(Msg.walletNotFound) : err;
}

export interface CreateResult {
  invoice: Invoice;
  created: boolean;
}

/** The recurrence period an invoice pays (src/recurrences/): at most one invoice per period. */
export interface RecurrenceLink {
  recurrenceId: string;
  period: number;
}

export async function createInvoice(ctx: Ctx, merchant: Merchant, params: CreateInvoiceParams, link: RecurrenceLink | null = null): Promise<CreateResult> {
  const { registry } = ctx;
  const orderId = params.order_id;

  const existing = await findByOrder(ctx, merchant.id, orderId);
  if (existing) return { invoice: await present(ctx, await maybeRefresh(ctx, existing, params.is_refresh)), created: false };

  const amount = Decimal.parse(params.amount);
  const currency = params.currency;
  if (!registry.isKnownCurrency(currency)) throw new BusinessError(Msg.currencyNotFound);
  const toCurrency = params.to_currency;
  // Only what the gateway offers (Chains.offered): a network nothing watches is "not found", and so
  // is a cryptocurrency to be paid in that only such networks carry.
  const networkCode = params.network;
  if (networkCode && !ctx.chains.offered(networkCode)) throw new BusinessError(Msg.networkNotFound);
  if (!toCurrency && registry.isCrypto(currency) && ctx.chains.offeredNetworksOf(currency).length === 0) throw new BusinessError(Msg.currencyNotFound);
  if (toCurrency && (!registry.isCrypto(toCurrency) || ctx.chains.offeredNetworksOf(toCurrency).length === 0)) throw new BusinessError(Msg.toCurrencyNotFound);
  // What this merchant can receive on: a watch-only network needs the merchant's own receiving
  // material (src/custody/); without it the merchant has no wallet there. Asked only when the
  // allocation does not settle it: with a network given, allocating on a watch-only network the
  // merchant has no material for fails (Wallet not found), which saves a query per invoice.
  let offered: ReceivingOffer | undefined;
  const offer = async () => (offered ??= await receivingOffer(ctx, merchant.id));

  const currencies = params.currencies;
  const except = params.except_currencies;
  for (const f of [...(currencies ?? []), ...(except ?? [])]) {
    if (!registry.isCrypto(f.currency)) throw new BusinessError(Msg.currencyNotFound);
    if (f.network && !registry.network(f.network)) throw new BusinessError(Msg.networkNotFound);
  }

  // The invoice gets a specific cryptocurrency (and an address) at creation only when the
  // cryptocurrency is known and so is its network (given, or the only one it has).
  const crypto = toCurrency ?? (registry.isCrypto(currency) ? currency : null);
  let fixed: { network: NetworkDef; currency: CurrencyDef } | null = null;
  if (crypto) {
    const nets = networkCode ? [] : (await offer()).offeredNetworksOf(crypto);
    const net = networkCode ? registry.network(networkCode) : nets.length === 1 ? nets[0] : undefined;
    if (net) {
      const def = registry.currencyOn(net.code, crypto);
      if (!def) throw new BusinessError(Msg.walletNotFound);
      fixed = { network: net, currency: def };
    }
    // The merchant's business wallet in that currency must be on (an operator can switch it off).
    if (!(await isWalletActive(ctx, ctx.storage.db, merchant.id, 'business', crypto))) throw new BusinessError(Msg.walletNotFound);
  }
  if (!fixed && allowedPairs(await offer(), { currencies, except, currency: crypto, network: networkCode }).length === 0) {
    throw new BusinessError(Msg.walletNotFound);
  }

  const discountPercent = params.discount_percent;
  const now = ctx.now();
  const lifetime = params.lifetime;
  const id = randomUUID();

  const row: InvoiceRow = {
    id,
    merchant_id: merchant.id,
    order_id: orderId,
    amount: amount.toString(),
    currency,
    network: fixed?.network.code ?? networkCode,
    payer_currency: null,
    payer_amount: null,
    exchange_rate: null,
    rate_source: null,
    rate_quotes: null,
    discount_percent: discountPercent,
    discount: null,
    commission: null,
    commission_percent: null,
    merchant_amount: null,
    payment_amount: null,
    payment_amount_usd: null,
    address: null,
    address_path: null,
    payment_comment: null,
    from_address: null,
    txid: null,
    status: 'process',
    is_final: 0,
    // The merchant's defaults (dashboard Settings) stand in for URLs the request leaves out.
    url_return: params.url_return ?? merchant.default_url_return ?? null,
    url_success: params.url_success ?? merchant.default_url_success ?? null,
    url_callback: params.url_callback ?? merchant.default_url_callback ?? null,
    is_payment_multiple: params.is_payment_multiple ? 1 : 0,
    lifetime,
    to_currency: toCurrency,
    subtract: params.subtract,
    accuracy_payment_percent: params.accuracy_payment_percent,
    additional_data: params.additional_data,
    currencies: JSON.stringify({ currencies, except, currency: crypto, network: networkCode }),
    except_currencies: except ? JSON.stringify(except) : null,
    course_source: params.course_source,
    from_referral_code: params.from_referral_code,
    payer_email: params.payer_email,
    theme: params.theme,
    comments: null,
    expired_at: Math.floor(now / 1000) + lifetime,
    created_at: now,
    updated_at: now,
    version: 1,
    credited: '0',
    resend_count: 0,
    recurrence_id: link?.recurrenceId ?? null,
    recurrence_period: link?.period ?? null,
  };

  if (fixed) {
    Object.assign(row, await quoteFor(ctx, row, fixed.network, fixed.currency, discountPercent));
  } else if (!amount.gt('0')) {
    const decimals = registry.fiatCurrency(currency)?.decimals ?? registry.decimalsOf(currency);
    throw new BusinessError(Msg.minAmount(Decimal.of(1n, decimals).toString(), currency));
  }

  let qr: string | null = null;
  const inserted = await ctx.storage.write(async (trx) => {
    // order_id is unique across the merchant's invoices and static wallets (the spec).
    if ((await claimOrderId(trx, merchant.id, orderId, 'invoice')) !== 'invoice') throw new ValidationError({ order_id: ['validation.unique'] });
    if (fixed) {
      const a = await allocateAddress(trx, ctx, fixed.network, { kind: 'invoice', id, merchantId: merchant.id }, now).catch(noMaterial);
      const parts = depositParts(a.address);
      row.address = parts.address;
      row.payment_comment = parts.reference;
      row.address_path = a.path;
      qr = a.qr;
    }
    const values = row as unknown as Record<string, unknown>;
    const r = await insertInvoice(trx, Object.keys(values).filter((c) => values[c] !== undefined), values);
    if (Number(r.numAffectedRows ?? 0n) === 0) throw new OrderIdTaken();
    return true;
  }).catch((e: unknown) => {
    if (e instanceof OrderIdTaken || ctx.storage.isUniqueViolation(e)) return false;
    throw e;
  });
  if (!inserted) {
    // A concurrent request with the same order_id won the race: answer with its invoice.
    const winner = await findByOrder(ctx, merchant.id, orderId);
    if (!winner) throw new Error('order_id conflict without an invoice');
    return { invoice: await present(ctx, winner), created: false };
  }
  return { invoice: await present(ctx, row, qr), created: true };
}

class OrderIdTaken extends Error {}

/** What the QR of an invoice's address encodes: the address, or with a payment comment the payment URI that carries it. */
export function addressQrContent(ctx: Ctx, row: Pick<InvoiceRow, 'network' | 'address' | 'payment_comment'>): string {
  const network = row.network ? ctx.registry.network(row.network) : undefined;
  if (!row.address || !network || row.payment_comment === null) return row.address ?? '';
  return ctx.chains.families.addresses.depositQrContent(network, row.address, row.payment_comment);
}

/** The invoice insert, compiled once per set of columns (db/statement.ts). */
const insertInvoice = statementsByColumns((db, p: Record<string, unknown>, columns) =>
  db
    .insertInto('invoices')
    .values(Object.fromEntries(columns.map((c) => [c, p[c]])) as Insertable<InvoicesTable>)
    .onConflict((oc) => oc.columns(['merchant_id', 'order_id']).doNothing()),
);

/** Price an invoice in one cryptocurrency on one network (at creation, or when the payer chooses). */
export async function quoteFor(
  ctx: Ctx,
  inv: Pick<InvoiceRow, 'amount' | 'currency' | 'course_source' | 'subtract'>,
  network: NetworkDef,
  currency: CurrencyDef,
  discountPercent: number | null,
): Promise<Partial<InvoiceRow>> {
  const rate = await quoteRate(ctx, inv.currency, currency.code, inv.course_source);
  const pct = commissionPercent(ctx, currency.code, network.code, currency.commission_percent);
  const p = price({
    amount: inv.amount,
    rate: rate.rate,
    decimals: priceDecimals(currency),
    discountPercent,
    commissionPercent: pct,
    subtract: inv.subtract,
  });
  const payer = Decimal.parse(p.payerAmount);
  if (payer.lt(currency.min)) throw new BusinessError(Msg.minAmount(currency.min, currency.code));
  if (payer.gt(currency.max)) throw new BusinessError(Msg.maxAmount(currency.max, currency.code));
  return {
    network: network.code,
    payer_currency: currency.code,
    payer_amount: p.payerAmount,
    exchange_rate: rate.rate,
    rate_source: rate.source,
    rate_quotes: JSON.stringify(rate.quotes),
    discount: p.discount,
    commission: p.commission,
    commission_percent: pct,
    merchant_amount: p.merchantAmount,
    payment_amount_usd: '0',
  };
}

/** Places a payer is asked to pay in: the chain's own decimals, but at most `amount_decimals`
 * (default 8), so that nobody is asked for 0.004999999999999995 ETH. Rounded up, never short. */
export function priceDecimals(currency: CurrencyDef): number {
  return Math.min(currency.decimals, currency.amount_decimals ?? 8);
}

const byOrder = statement((db, p: { merchantId: string; orderId: string }) =>
  db.selectFrom('invoices').selectAll().where('merchant_id', '=', p.merchantId).where('order_id', '=', p.orderId),
);

export async function findByOrder(ctx: Ctx, merchantId: string, orderId: string): Promise<InvoiceRow | undefined> {
  return (await byOrder(ctx.storage.db, { merchantId, orderId })).rows[0];
}

/** is_refresh on an expired invoice that received nothing: new address and lifetime, status process. */
async function maybeRefresh(ctx: Ctx, inv: InvoiceRow, isRefresh: boolean): Promise<InvoiceRow> {
  const now = ctx.now();
  const expired = Number(inv.expired_at) * 1000 <= now;
  const untouched = inv.payment_amount === null && (inv.status === 'process' || inv.status === 'cancel');
  if (!isRefresh || !expired || !untouched) return inv;
  const network = ctx.registry.network(inv.network);
  // No new address on a network the gateway no longer offers (nothing would watch it).
  if (inv.network && !(await receivingOffer(ctx, inv.merchant_id)).offered(inv.network)) return inv;
  return ctx.storage.write(async (trx) => {
    const current = await ctx.storage
      .forUpdate(trx.selectFrom('invoices').selectAll().where('id', '=', inv.id))
      .executeTakeFirstOrThrow();
    if (current.version !== inv.version) return current;
    const patch: Partial<InvoiceRow> = {
      status: 'process',
      is_final: 0,
      expired_at: Math.floor(now / 1000) + Number(inv.lifetime),
      updated_at: now,
      version: inv.version + 1,
    };
    if (inv.address && network) {
      const a = await allocateAddress(trx, ctx, network, { kind: 'invoice', id: inv.id, merchantId: inv.merchant_id }, now);
      const parts = depositParts(a.address);
      patch.address = parts.address;
      patch.payment_comment = parts.reference;
      patch.address_path = a.path;
    }
    await trx.updateTable('invoices').set(patch).where('id', '=', inv.id).execute();
    return { ...current, ...patch };
  });
}

/** `qr`: the address's QR code when already drawn (an address from the pool). */
export async function present(ctx: Ctx, row: InvoiceRow, qr: string | null = null): Promise<Invoice> {
  return presentInvoice(row, {
    ...presentOptions(ctx),
    creation: { qr: row.address ? (qr ?? (await qrDataUrl(addressQrContent(ctx, row)))) : null },
  });
}
