// What the payer may see of an invoice (the page is public): never additional_data, commission,
// merchant amounts or balances. And the payer's choice of currency and network.
import type { Ctx } from '../context.ts';
import { BusinessError, NotFoundError } from '../errors.ts';
import { Decimal } from '../money/decimal.ts';
import { allocateAddress } from '../chain/allocate.ts';
import { depositParts } from '../chain/watch-paths.ts';
import { explorerOrigin, explorerTxUrl } from '../chain/explorer.ts';
import { currencyNetworkLabel, type CurrencyDef, type NetworkDef } from '../registry/index.ts';
import type { ChooseRefusal, PayerCurrencyOption, PayerEvm, PayerInvoice } from '../contracts/payer.ts';
import { tally } from './lifecycle.ts';
import { money } from '../money/format.ts';
import type { InvoiceRow } from './invoice-object.ts';
import { allowedPairs, type Restriction } from './options.ts';
import { receivingOffer } from '../custody/offer.ts';
import { quoteFor } from './create.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';
import { isUuid } from '../contracts/rules.ts';
import { statement } from '../db/statement.ts';
import { createHash } from 'node:crypto';
import { getPublicProfile, publicProfileOf, type PublicProfile } from '../merchants/profile.ts';

function restriction(inv: InvoiceRow): Restriction {
  try {
    const r = JSON.parse(inv.currencies ?? 'null') as Restriction | null;
    if (r) return r;
  } catch {
    /* an old row without the stored restriction allows everything */
  }
  return { currencies: null, except: null, currency: null, network: null };
}

const invoiceById = statement((db, p: { id: string }) => db.selectFrom('invoices').selectAll().where('id', '=', p.id));
async function loadInvoice(ctx: Ctx, uuid: string): Promise<InvoiceRow> {
  if (!isUuid(uuid)) throw new NotFoundError();
  const { rows: [inv] } = await invoiceById(ctx.storage.db, { id: uuid.toLowerCase() });
  if (!inv) throw new NotFoundError();
  return inv;
}

/** What the payer's view depends on, read in one statement (the poll's whole cost when nothing changed). */
const pollStamp = statement((db, p: { id: string }) =>
  db
    .selectFrom('invoices as i')
    .leftJoin('merchant_profiles as p', 'p.merchant_id', 'i.merchant_id')
    .select((eb) => {
      const transfers = () => eb.selectFrom('chain_transfers as t').where('t.owner_kind', '=', 'invoice').whereRef('t.owner_id', '=', 'i.id');
      return [
        'i.status', 'i.version', 'i.updated_at', 'i.payment_amount', 'i.address', 'i.is_final', 'i.network',
        transfers().select((t) => t.fn.countAll<number>().as('n')).as('transfer_count'),
        transfers().select((t) => t.fn.max('t.updated_at').as('at')).as('transfer_at'),
        transfers().select((t) => t.fn.sum<number>('t.confirmations').as('c')).as('transfer_confirmations'),
        'p.updated_at as profile_at',
      ];
    })
    .where('i.id', '=', p.id),
);

interface Stamp {
  status: string;
  version: number;
  updated_at: number | string;
  payment_amount: string | null;
  address: string | null;
  is_final: number;
  network: string | null;
  transfer_count: number | string | null | undefined;
  transfer_at: number | string | null | undefined;
  transfer_confirmations: number | string | null | undefined;
  profile_at: number | string | null | undefined;
}

function tagOf(ctx: Ctx, s: Stamp): string {
  const choosing = !s.address && s.is_final === 0 ? Math.floor(ctx.now() / 60_000) : 0;
  // Whether its network is offered changes the view too (a node that starts answering).
  const offered = s.network ? ctx.chains.offered(s.network) : null;
  const key = [s.status, s.version, s.updated_at, s.payment_amount, s.address, s.transfer_count, s.transfer_at, s.transfer_confirmations, choosing, s.profile_at, offered].join('|');
  return `"${createHash('sha1').update(key).digest('base64url')}"`;
}

/**
 * A tag that changes whenever the payer's view can: the invoice row, its transfers and the
 * merchant's public profile (a new name or logo reaches an open page on its next poll; and, while
 * the payer still chooses, the minute, since options are priced at current rates). Null when
 * there is no such invoice. One narrow read: a poll whose If-None-Match equals it is answered 304
 * without loading the invoice.
 */
export async function pollTag(ctx: Ctx, uuid: string): Promise<string | null> {
  if (!isUuid(uuid)) return null;
  const { rows: [s] } = await pollStamp(ctx.storage.db, { id: uuid.toLowerCase() });
  return s ? tagOf(ctx, s as Stamp) : null;
}

/** The invoice with its tag's other parts and the public profile's columns, in one statement. */
const viewStamp = statement((db, p: { id: string }) =>
  db
    .selectFrom('invoices as i')
    .leftJoin('merchant_profiles as p', 'p.merchant_id', 'i.merchant_id')
    .selectAll('i')
    .select((eb) => {
      const transfers = () => eb.selectFrom('chain_transfers as t').where('t.owner_kind', '=', 'invoice').whereRef('t.owner_id', '=', 'i.id');
      return [
        transfers().select((t) => t.fn.countAll<number>().as('n')).as('transfer_count'),
        transfers().select((t) => t.fn.max('t.updated_at').as('at')).as('transfer_at'),
        transfers().select((t) => t.fn.sum<number>('t.confirmations').as('c')).as('transfer_confirmations'),
        'p.updated_at as profile_at',
        'p.display_name as profile_display_name',
        'p.accent as profile_accent',
        'p.theme as profile_theme',
        'p.language as profile_language',
        'p.logo_type as profile_logo_type',
        'p.logo_sha256 as profile_logo_sha256',
      ];
    })
    .where('i.id', '=', p.id),
);

/**
 * The payer API's answer: the view and its tag, both from one read of the invoice, its transfer
 * totals and the profile (so a tag never stands for another view than the one it goes out with),
 * then the invoice's transfers for the view.
 */
export async function payerAnswer(ctx: Ctx, uuid: string): Promise<{ etag: string; result: PayerInvoice }> {
  if (!isUuid(uuid)) throw new NotFoundError();
  const { rows: [row] } = await viewStamp(ctx.storage.db, { id: uuid.toLowerCase() });
  if (!row) throw new NotFoundError();
  const profile = publicProfileOf(
    row.profile_at === null
      ? undefined
      : { display_name: row.profile_display_name, accent: row.profile_accent, theme: row.profile_theme ?? 'auto', language: row.profile_language, logo_type: row.profile_logo_type, logo_sha256: row.profile_logo_sha256 },
  );
  return { etag: tagOf(ctx, row as Stamp), result: await payerView(ctx, row, profile) };
}

/**
 * Options to choose from, each priced as the payer would pay it; pairs outside their limits, and
 * currencies whose business wallet the operator switched off (`receivable`), are left out.
 */
function options(ctx: Ctx, inv: InvoiceRow): Promise<{ list: PayerCurrencyOption[]; test: boolean }> {
  return pricedOptions(ctx, inv.merchant_id, inv, restriction(inv));
}

/**
 * What the payer of a recurrence may choose from (the invoice chooser's list, priced for one
 * period's `amount` in `currency`); `fixed` keeps the merchant's `to_currency`.
 */
export function payerOptions(ctx: Ctx, merchantId: string, price: { amount: string; currency: string }, fixed: { currency: string | null }): Promise<{ list: PayerCurrencyOption[]; test: boolean }> {
  const priced = { amount: price.amount, currency: price.currency, course_source: null, subtract: 0 };
  return pricedOptions(ctx, merchantId, priced, { currencies: null, except: null, currency: fixed.currency, network: null });
}

async function pricedOptions(
  ctx: Ctx,
  merchantId: string,
  inv: Pick<InvoiceRow, 'amount' | 'currency' | 'course_source' | 'subtract'>,
  r: Restriction,
): Promise<{ list: PayerCurrencyOption[]; test: boolean }> {
  const pairs = allowedPairs(await receivingOffer(ctx, merchantId), r);
  const byCurrency = new Map<string, PayerCurrencyOption>();
  const active = new Map<string, boolean>();
  let test = true;
  for (const { network, currency } of pairs) {
    let on = active.get(currency.code);
    if (on === undefined) active.set(currency.code, (on = await receivable(ctx, merchantId, currency)));
    if (!on) continue;
    let amount: string;
    try {
      const q = await quoteFor(ctx, inv, network, currency, null);
      amount = q.payer_amount!;
    } catch {
      continue;
    }
    if (!ctx.chains.isTestNetwork(network.code)) test = false;
    let o = byCurrency.get(currency.code);
    if (!o) byCurrency.set(currency.code, (o = { currency: currency.code, name: currency.name, networks: [] }));
    o.networks.push({ network: network.code, network_name: currencyNetworkLabel(network, currency), amount: money(amount)! });
  }
  return { list: [...byCurrency.values()], test };
}

/** What a browser wallet needs to pay, when the network's family has a wallet and the network is real. */
function walletView(ctx: Ctx, network: NetworkDef, currency: CurrencyDef): PayerEvm | null {
  const family = ctx.chains.family(network.code);
  if (!family?.walletPay || ctx.chains.isSimulated(network.code)) return null;
  return family.walletPay(network, ctx.config.networks[network.code], currency, explorerOrigin(ctx, network.code));
}

function uriOptions(ctx: Ctx, network: NetworkDef, currency: CurrencyDef, address: string, amount: string | null, reference: string | null, label: string | null) {
  // The chain and token the network's driver watches (the operator's settings over the registry's).
  const chain = ctx.chains.family(network.code)?.paymentTarget?.(network, ctx.config.networks[network.code], currency) ?? null;
  return {
    format: network.address_format,
    scheme: network.uri_scheme,
    address,
    amount: amount ?? undefined,
    decimals: currency.decimals,
    contract: chain ? chain.contract : currency.contract,
    native: currency.native === true,
    chainId: chain ? chain.chainId : network.chain_id,
    reference: reference ?? undefined,
    label: label ?? undefined,
  };
}

/** The payer's view of `inv`; `profile` when the caller has read it already. */
export async function payerView(ctx: Ctx, inv: InvoiceRow, profile?: PublicProfile): Promise<PayerInvoice> {
  const network = ctx.registry.network(inv.network);
  const currency = network && inv.payer_currency ? ctx.registry.currencyOn(network.code, inv.payer_currency) : undefined;
  // An open invoice on a network that is no longer offered shows no address: nothing watches it.
  const unavailable = inv.is_final === 0 && !!inv.network && !ctx.chains.offered(inv.network) ? 'network' : null;
  const chosen = !unavailable && !!(network && currency && inv.address && inv.payer_amount);
  let remaining: string | null = null;
  let confirmations: PayerInvoice['confirmations'] = null;
  let qr: string | null = null;
  let uri: string | null = null;
  let opts: PayerCurrencyOption[] | null = null;
  let evm: PayerEvm | null = null;
  let merchant = profile;
  // Nothing can be paid on an unavailable invoice: no test tools either.
  let test = !unavailable && ctx.chains.isTestNetwork(inv.network);
  if (chosen) {
    const t = await tally(ctx.storage.db, inv, ctx.chains.confirmations(network!.code));
    confirmations = t.confirmations;
    const rest = Decimal.parse(inv.payer_amount!).sub(t.confirmed).sub(t.pending);
    const open = inv.is_final === 0;
    if (open && rest.gt('0') && (t.confirmed.gt('0') || t.pending.gt('0'))) remaining = rest.toString();
    const due = remaining ?? inv.payer_amount!;
    merchant ??= await getPublicProfile(ctx.storage.db, inv.merchant_id);
    const u = uriOptions(ctx, network!, currency!, inv.address!, due, inv.payment_comment, merchant.display_name);
    qr = ctx.chains.families.addresses.qrContent(u);
    uri = ctx.chains.families.addresses.paymentUri(u);
    if (open && inv.status === 'process') evm = walletView(ctx, network!, currency!);
  } else if (inv.is_final === 0 && !unavailable) {
    const o = await options(ctx, inv);
    opts = o.list;
    test = o.test;
  }
  return {
    kind: 'invoice',
    uuid: inv.id,
    order_id: inv.order_id,
    status: inv.status as PayerInvoice['status'],
    is_final: inv.is_final === 1,
    amount: money(inv.amount)!,
    currency: inv.currency,
    currency_is_fiat: !ctx.registry.isCrypto(inv.currency),
    payer_currency: chosen ? inv.payer_currency : null,
    network: chosen ? network!.code : null,
    network_name: chosen ? currencyNetworkLabel(network!, currency!) : null,
    payer_amount: chosen ? money(inv.payer_amount) : null,
    payment_amount: money(inv.payment_amount),
    remaining: money(remaining),
    address: chosen ? inv.address : null,
    payment_comment: chosen ? ctx.chains.families.addresses.shownComment(network, inv.payment_comment) : null,
    link_required: chosen && ctx.chains.families.addresses.linkRequired(network, inv.payment_comment),
    qr_content: qr,
    wallet_uri: uri,
    confirmations,
    is_payment_multiple: inv.is_payment_multiple === 1,
    txid: chosen ? inv.txid : null,
    explorer_url: chosen ? explorerTxUrl(ctx, network!.code, inv.txid) : null,
    expired_at: Number(inv.expired_at),
    // The row's last change is its settlement: a paid invoice changes again only by leaving `paid`.
    paid_at: inv.status === 'paid' || inv.status === 'paid_over' ? Math.floor(Number(inv.updated_at) / 1000) : null,
    server_time: ctx.now(),
    url_return: inv.url_return,
    url_success: inv.url_success,
    theme: inv.theme === 'dark' || inv.theme === 'light' ? inv.theme : null,
    merchant: merchant ?? (await getPublicProfile(ctx.storage.db, inv.merchant_id)),
    test_mode: test,
    evm,
    options: opts,
    unavailable,
  };
}

/** A currency and network the payer may still choose, as the page's choose step lists them. */
export interface PayerChoice {
  currency: string;
  network: string;
  /** "USDT on TRON (TRC-20)". */
  label: string;
}

/** What the payer of `uuid` may choose from: empty once a currency is chosen (or for no invoice). */
export async function payerChoices(ctx: Ctx, uuid: string): Promise<PayerChoice[]> {
  const inv = await loadInvoice(ctx, uuid);
  if (inv.address) return [];
  return (await options(ctx, inv)).list.flatMap((o) => o.networks.map((n) => ({ currency: o.currency, network: n.network, label: `${o.currency} on ${n.network_name}` })));
}

/** The rule invoice creation applies to a fixed currency: the merchant's business wallet in it is on. */
function receivable(ctx: Ctx, merchantId: string, currency: CurrencyDef): Promise<boolean> {
  return isWalletActive(ctx, ctx.storage.db, merchantId, 'business', currency.code);
}

/** A refused choice: its code for the page, its English words for other clients (the CLI, the simulator). */
const REFUSED: Record<ChooseRefusal, string> = {
  choice_missing: 'Choose a currency and a network',
  not_available: 'This currency is not available for this invoice',
  already_chosen: 'A currency has already been chosen for this invoice',
  expired: 'The invoice has expired',
};
function refused(code: ChooseRefusal): BusinessError {
  return new BusinessError(REFUSED[code], code);
}

/** The payer picks currency and network: fixes the address, payer_amount and rate. */
export async function chooseCurrency(ctx: Ctx, uuid: string, currencyCode: unknown, networkCode: unknown): Promise<InvoiceRow> {
  if (typeof currencyCode !== 'string' || typeof networkCode !== 'string') throw refused('choice_missing');
  const inv = await loadInvoice(ctx, uuid);
  const network = ctx.registry.network(networkCode);
  const currency = network ? ctx.registry.currencyOn(network.code, currencyCode) : undefined;
  if (!network || !currency) throw refused('not_available');
  const allowed = allowedPairs(await receivingOffer(ctx, inv.merchant_id), restriction(inv)).some((p) => p.network.code === network.code && p.currency.code === currency.code);
  if (!allowed) throw refused('not_available');
  // As at creation: a currency whose business wallet the operator switched off is not received.
  if (!(await receivable(ctx, inv.merchant_id, currency))) throw refused('not_available');
  const priced = await quoteFor(ctx, inv, network, currency, null);
  return ctx.storage.write(async (trx) => {
    const cur = await ctx.storage.forUpdate(trx.selectFrom('invoices').selectAll().where('id', '=', inv.id)).executeTakeFirstOrThrow();
    if (cur.address) {
      if (cur.payer_currency === currency.code && cur.network === network.code) return cur;
      throw refused('already_chosen');
    }
    if (cur.is_final === 1 || Number(cur.expired_at) * 1000 <= ctx.now()) throw refused('expired');
    const now = ctx.now();
    const a = await allocateAddress(trx, ctx, network, { kind: 'invoice', id: cur.id, merchantId: cur.merchant_id }, now);
    // A deposit key (a network that tells payments apart by a comment): the account and the comment.
    const { address, reference } = depositParts(a.address);
    const patch: Partial<InvoiceRow> = { ...priced, address, payment_comment: reference, address_path: a.path, updated_at: now, version: cur.version + 1 };
    await trx.updateTable('invoices').set(patch).where('id', '=', cur.id).execute();
    return { ...cur, ...patch };
  });
}
