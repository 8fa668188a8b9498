// The payment simulator (docs/simulator.md): sends, confirms and drops transfers on simulated
// networks and moves invoices to their expiry. Only for simulated networks; the CLI and
// /simulator/* call this.
import { randomBytes } from 'node:crypto';
import type { Ctx, PayerChoice } from '../context.ts';
import type { InvoicesTable as InvoiceRow } from '../db/schema.ts';
import { AMOUNT_BOUND, Decimal } from '../money/decimal.ts';
import { BusinessError } from '../errors.ts';
import { processNetwork } from '../chain/ingest.ts';
import { nextRev, simTxid } from '../chain/simulated/driver.ts';

export class SimulatorError extends Error {
  constructor(
    message: string,
    readonly status: 404 | 422 = 422,
  ) {
    super(message);
  }
}

/** Paying an invoice whose payer has not chosen a currency needs one of `choices`, as the payer's
 * choose step would (the CLI's --currency/--network, the dashboard's select). */
export class ChoiceNeededError extends SimulatorError {
  constructor(readonly choices: PayerChoice[]) {
    super(
      choices.length > 0
        ? `The payer has not chosen a currency yet; choose one of: ${choices.map((c) => `${c.currency} on ${c.network}`).join(', ')}`
        : 'The payer has not chosen a currency yet, and none can be chosen now (no rate for any of them)',
    );
  }
}

const PAYER_SEED = new Uint8Array(64).fill(7);

/** Simulated money obeys the same bound as any amount entering the gateway. */
export const AMOUNT_REFUSED = `amount must be a positive decimal below 10^${AMOUNT_BOUND.integerDigits} with at most ${AMOUNT_BOUND.places} places`;

async function invoiceFor(ctx: Ctx, id: string): Promise<InvoiceRow> {
  const inv = /^[0-9a-f-]{36}$/i.test(id)
    ? await ctx.storage.db.selectFrom('invoices').selectAll().where('id', '=', id.toLowerCase()).executeTakeFirst()
    : undefined;
  if (!inv) throw new SimulatorError('Invoice not found', 404);
  if (inv.network && !ctx.chains.isSimulated(inv.network)) throw new SimulatorError('Invoice not found', 404);
  return inv;
}

/** The invoice, once its payer has chosen a currency (there is nothing to confirm or drop before). */
async function chosenInvoice(ctx: Ctx, id: string): Promise<InvoiceRow & { network: string }> {
  const inv = await invoiceFor(ctx, id);
  if (!inv.network || !inv.address) throw new SimulatorError('The payer has not chosen a currency yet');
  return inv as InvoiceRow & { network: string };
}

/** Still due on an invoice: payer_amount minus everything seen or confirmed. */
async function due(ctx: Ctx, inv: InvoiceRow): Promise<Decimal> {
  const rows = await ctx.storage.db
    .selectFrom('chain_transfers')
    .select(['amount', 'status'])
    .where('owner_kind', '=', 'invoice')
    .where('owner_id', '=', inv.id)
    .execute();
  const got = rows.filter((r) => r.status !== 'dropped').reduce((s, r) => s.add(r.amount), Decimal.ZERO);
  const rest = Decimal.parse(inv.payer_amount ?? '0').sub(got);
  return rest.isNegative() ? Decimal.ZERO : rest;
}

export interface PayResult {
  txid: string;
  amount: string;
  currency: string;
  network: string;
  address: string;
  confirmed: boolean;
}

export async function simulatePay(
  ctx: Ctx,
  opts: { invoice: string; amount?: string; mode?: 'full' | 'partial' | 'over'; unconfirmed?: boolean; currency?: string; network?: string },
): Promise<PayResult> {
  const inv = await choose(ctx, await invoiceFor(ctx, opts.invoice), opts);
  if (!inv.address || !inv.network || !inv.payer_currency) throw new SimulatorError('The payer has not chosen a currency yet');
  const decimals = ctx.registry.currencyOn(inv.network, inv.payer_currency)?.decimals ?? 8;
  let amount: Decimal;
  if (opts.amount !== undefined) {
    const a = Decimal.tryParse(opts.amount);
    if (!a || !a.gt('0') || !a.isBoundedAmount()) throw new SimulatorError(AMOUNT_REFUSED);
    amount = a;
  } else {
    const rest = await due(ctx, inv);
    const base = rest.isZero() ? Decimal.parse(inv.payer_amount!) : rest;
    amount =
      opts.mode === 'partial' ? base.div('2', decimals, 'down') : opts.mode === 'over' ? base.mul('1.1').round(decimals, 'up') : base;
    if (!amount.gt('0')) amount = Decimal.of(1n, decimals);
  }
  return sendTo(ctx, {
    network: inv.network,
    currency: inv.payer_currency,
    address: inv.address,
    amount: amount.round(decimals, 'down').toString(),
    unconfirmed: opts.unconfirmed ?? false,
  });
}

/** Makes the payer's choice (currency and network) first when the invoice has none yet, as the
 * page's choose step does; a choice that differs from one already made is refused. */
async function choose(ctx: Ctx, inv: InvoiceRow, opts: { currency?: string; network?: string }): Promise<InvoiceRow> {
  if (inv.address) {
    const asked = (opts.currency !== undefined && opts.currency.toUpperCase() !== inv.payer_currency) || (opts.network !== undefined && opts.network.toUpperCase() !== inv.network);
    if (asked) throw new SimulatorError(`The payer already chose ${inv.payer_currency} on ${inv.network}`);
    return inv;
  }
  if (!opts.currency || !opts.network) throw new ChoiceNeededError((await ctx.features.invoices.payerChoices(ctx, inv.id)).filter((c) => ctx.chains.isSimulated(c.network) && ctx.chains.offered(c.network)));
  if (!ctx.chains.isSimulated(opts.network) || !ctx.chains.offered(opts.network)) throw new SimulatorError(`${opts.network} is not a simulated network`);
  try {
    return await ctx.features.invoices.choose(ctx, inv.id, opts.currency.toUpperCase(), opts.network.toUpperCase());
  } catch (e) {
    if (e instanceof BusinessError) throw new SimulatorError(e.message);
    throw e;
  }
}

export async function simulatePayAddress(
  ctx: Ctx,
  opts: { address: string; network: string; currency: string; amount: string; unconfirmed?: boolean },
): Promise<PayResult> {
  const network = ctx.registry.network(opts.network);
  if (!network) throw new SimulatorError('Network not found or not simulated', 404);
  const currency = ctx.registry.currencyOn(network.code, opts.currency);
  if (!currency) throw new SimulatorError('Currency not found on this network', 404);
  if (!ctx.chains.families.addresses.isValid(network.address_format, opts.address)) throw new SimulatorError('Invalid address');
  const a = Decimal.tryParse(opts.amount);
  if (!a || !a.gt('0') || !a.isBoundedAmount()) throw new SimulatorError(AMOUNT_REFUSED);
  return sendTo(ctx, {
    network: network.code,
    currency: currency.code,
    address: opts.address,
    amount: a.round(currency.decimals, 'down').toString(),
    unconfirmed: opts.unconfirmed ?? false,
  });
}

async function sendTo(
  ctx: Ctx,
  p: { network: string; currency: string; address: string; amount: string; unconfirmed: boolean },
): Promise<PayResult> {
  const network = ctx.registry.network(p.network)!;
  // Every new simulated payment passes here: a network switched off (or a real one) is not the
  // simulator's to pay on, even to an address handed out before it was switched off.
  if (!ctx.chains.isSimulated(network.code) || !ctx.chains.offered(network.code)) throw new SimulatorError('Network not found or not simulated', 404);
  const confirmations = p.unconfirmed ? 0 : ctx.chains.confirmations(network.code);
  const txid = simTxid(network, randomBytes(16).toString('hex'), (hex) => ctx.chains.families.txid(network, hex));
  const from = ctx.chains.families.addresses.derive(network.address_format, PAYER_SEED, network.coin_type, randomBytes(3).readUIntBE(0, 3)).address;
  await ctx.storage.write(async (trx) => {
    await trx
      .insertInto('sim_transactions')
      .values({
        network: network.code,
        txid,
        idx: 0,
        from_address: from,
        to_address: p.address,
        currency: p.currency,
        amount: p.amount,
        block_height: p.unconfirmed ? null : 1,
        confirmations,
        status: p.unconfirmed ? 'pending' : 'mined',
        direction: 'in',
        rev: await nextRev(trx),
        created_at: ctx.now(),
      })
      .execute();
  });
  await processNetwork(ctx, network.code);
  return { txid, amount: p.amount, currency: p.currency, network: network.code, address: p.address, confirmed: !p.unconfirmed };
}

/** Confirms every pending transfer to the invoice's addresses. */
export async function simulateConfirm(ctx: Ctx, opts: { invoice: string }): Promise<{ confirmed: number }> {
  const inv = await chosenInvoice(ctx, opts.invoice);
  const confirmations = ctx.chains.confirmations(inv.network);
  return { confirmed: await settlePending(ctx, inv, { status: 'mined', confirmations, block_height: 1 }) };
}

/** Drops (or reverts) the invoice's transfers that are not confirmed yet. */
export async function simulateDrop(ctx: Ctx, opts: { invoice: string }): Promise<{ dropped: number }> {
  const inv = await chosenInvoice(ctx, opts.invoice);
  return { dropped: await settlePending(ctx, inv, { status: 'dropped' }) };
}

/** Gives every pending transfer to the invoice's addresses a new state (a new revision each), then
 * lets the driver follow the change. Returns how many there were. */
async function settlePending(
  ctx: Ctx,
  inv: InvoiceRow & { network: string },
  change: { status: 'mined' | 'dropped'; confirmations?: number; block_height?: number },
): Promise<number> {
  const addresses = await invoiceAddresses(ctx, inv);
  const n = await ctx.storage.write(async (trx) => {
    const rows = await trx
      .selectFrom('sim_transactions')
      .select(['txid', 'idx'])
      .where('network', '=', inv.network)
      .where('direction', '=', 'in')
      .where('status', '=', 'pending')
      .where('to_address', 'in', addresses)
      .execute();
    for (const r of rows) {
      await trx
        .updateTable('sim_transactions')
        .set({ ...change, rev: await nextRev(trx) })
        .where('network', '=', inv.network)
        .where('txid', '=', r.txid)
        .where('idx', '=', r.idx)
        .execute();
    }
    return rows.length;
  });
  await processNetwork(ctx, inv.network);
  return n;
}

/** Moves the invoice to its expiry now. */
export async function simulateExpire(ctx: Ctx, opts: { invoice: string }): Promise<{ status: string }> {
  const inv = await invoiceFor(ctx, opts.invoice);
  const updated = await ctx.storage.write(async (trx) => {
    const nowS = Math.floor(ctx.now() / 1000);
    if (Number(inv.expired_at) > nowS) {
      await trx.updateTable('invoices').set({ expired_at: nowS }).where('id', '=', inv.id).execute();
    }
    return ctx.features.invoices.reconcile(ctx, trx, inv.id);
  });
  return { status: updated?.status ?? inv.status };
}

/** Every address the invoice ever had (is_refresh gives it new ones). */
async function invoiceAddresses(ctx: Ctx, inv: InvoiceRow): Promise<string[]> {
  const rows = await ctx.storage.db.selectFrom('addresses').select('address').where('owner_kind', '=', 'invoice').where('owner_id', '=', inv.id).execute();
  const list = rows.map((r) => r.address);
  return list.length ? list : [inv.address ?? ''];
}
