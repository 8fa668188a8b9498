// The payer's side of automatic renewals (docs/recurring.md): what to approve, shown before the
// payer signs (`GET /api/pay/recurrence/{uuid}/allowance`), and the allowance recorded once the
// chain shows it and the approving address signed for this subscription (`POST` the same path
// `{address, tx_hash, signature}`). The payer approves the network's
// collector for a cap of ALLOWANCE_PERIODS periods; each period the worker pulls exactly one
// (./pulls.ts). Where the token has EIP-2612 permit the payer may sign a permit instead of sending
// approve: the POST then carries `permit`, and the collector submits it (and pays its gas).
import type { Ctx } from '../context.ts';
import { BusinessError, NotFoundError, ValidationError } from '../errors.ts';
import { ChainError, HotWalletShortError, SendRejectedError } from '../chain/errors.ts';
import type { AllowancePuller, PermitDomain } from '../chain/contract.ts';
import { Decimal } from '../money/decimal.ts';
import { money } from '../money/format.ts';
import type { RecurrencesTable } from '../db/schema.ts';
import { periodStart } from './periods.ts';
import type { RecurrencePeriod } from '../contracts/merchant-api/recurrences.ts';
import { pullerOf } from './pulls.ts';
import { explorerOrigin } from '../chain/explorer.ts';
import type { PayerEvm } from '../contracts/payer.ts';
import { allowanceMessage } from '../contracts/allowance-message.ts';

/** The cap the payer is asked to approve: this many periods' amount. */
export const ALLOWANCE_PERIODS = 12;

/** Statuses in which an allowance may be granted: subscribed (or subscribing) and not ended. */
const OPEN: ReadonlySet<string> = new Set(['wait_accept', 'active', 'wait_payment']);

export interface AllowanceTerms {
  network: string;
  currency: string;
  /** The token's contract: the payer calls approve(collector, cap) on it. */
  token: string;
  /** The spender to approve. */
  collector: string;
  period: RecurrencePeriod;
  /** Pulled each period: exactly this, never more. */
  amount_per_period: string;
  periods: number;
  /** amount_per_period x periods: what approve() is given. */
  cap: string;
  /** When the next period starts (ISO 8601, UTC), or null before the first payment. */
  next_pull_at: string | null;
  revoke: string;
  /** The chain as a browser wallet needs it (switching, adding it); null when unknown. */
  chain: PayerEvm | null;
  /** What is recorded now, when an allowance was: its payer address and status. */
  recorded: { address: string; status: string; cap: string } | null;
  /**
   * The token's EIP-712 domain when it has EIP-2612 permit (the page may then ask the wallet for a
   * Permit signature instead of an approve transaction), else null. The nonce is the owner's
   * `nonces(owner)` on the token, read by the page through the wallet.
   */
  permit: PermitDomain | null;
  /** After a POST with a permit not mined yet: the collector's permit() transaction; absent otherwise. */
  permit_tx?: string;
}

async function load(ctx: Ctx, uuid: string): Promise<RecurrencesTable> {
  const rec = /^[0-9a-f-]{36}$/i.test(uuid) ? await ctx.storage.db.selectFrom('recurrences').selectAll().where('id', '=', uuid.toLowerCase()).executeTakeFirst() : undefined;
  if (!rec) throw new NotFoundError('Recurrence not found');
  return rec;
}

/** The terms, or the reason this recurrence cannot renew itself. */
function termsOf(ctx: Ctx, rec: RecurrencesTable): Omit<AllowanceTerms, 'recorded' | 'permit'> {
  if (!OPEN.has(rec.status)) throw new BusinessError('The subscription has ended', 'not_open');
  if (!rec.network || !rec.payer_currency || !rec.payer_amount) throw new BusinessError('Choose a currency and a network first', 'choice_missing');
  const puller = pullerOf(ctx, rec.network);
  const token = puller?.tokenContract(rec.payer_currency) ?? null;
  const collector = puller?.collector() ?? null;
  if (!puller || !token || !collector) throw new BusinessError(`Automatic renewals are not available for ${rec.payer_currency} on ${rec.network}`, 'not_available');
  const per = Decimal.parse(rec.payer_amount);
  const next =
    rec.status === 'active' && rec.next_due_at !== null
      ? Number(rec.next_due_at)
      : rec.anchor_at !== null
        ? periodStart({ anchor_at: Number(rec.anchor_at), anchor_period: rec.anchor_period, period: rec.period as RecurrencePeriod }, rec.period_index + (rec.status === 'active' ? 1 : 0))
        : null;
  return {
    network: rec.network,
    currency: rec.payer_currency,
    token,
    collector,
    period: rec.period as RecurrencePeriod,
    amount_per_period: money(per.toString()),
    periods: ALLOWANCE_PERIODS,
    cap: per.mul(String(ALLOWANCE_PERIODS)).toString(),
    next_pull_at: next === null ? null : new Date(next).toISOString(),
    chain: walletChain(ctx, rec.network, rec.payer_currency),
    revoke: `Call approve(${collector}, 0) on the ${rec.payer_currency} contract ${token} from the approving address (any wallet's "revoke" does this); renewals are then invoiced to pay by hand.`,
  };
}

/** What a browser wallet needs to approve on the network's chain (as the invoice page's `evm`), or null. */
function walletChain(ctx: Ctx, networkCode: string, currencyCode: string): PayerEvm | null {
  const network = ctx.registry.network(networkCode);
  const currency = network ? ctx.registry.currencyOn(network.code, currencyCode) : undefined;
  const family = ctx.chains.family(networkCode);
  if (!network || !currency || !family?.walletPay || ctx.chains.isSimulated(networkCode)) return null;
  return family.walletPay(network, ctx.config.networks[network.code], currency, explorerOrigin(ctx, network.code));
}

/**
 * Whether this recurrence can renew itself (its chosen currency is a token with a collector on an
 * EVM network): the payer view says so, so the page asks for the terms only where they exist.
 */
export function autoRenewOffered(ctx: Ctx, rec: RecurrencesTable): boolean {
  try {
    termsOf(ctx, rec);
    return true;
  } catch (err) {
    if (err instanceof BusinessError) return false;
    throw err;
  }
}

/**
 * The token's permit domain, or null: no permit, a driver without it, or a node that cannot be
 * asked now (the page then offers approve, which works for every token).
 */
async function permitOf(puller: AllowancePuller | null, currency: string): Promise<PermitDomain | null> {
  if (!puller?.permitDomain) return null;
  try {
    return await puller.permitDomain(currency);
  } catch (err) {
    if (err instanceof ChainError) return null;
    throw err;
  }
}

/** `GET /api/pay/recurrence/{uuid}/allowance`: what the payer is asked to approve. */
export async function allowanceTerms(ctx: Ctx, uuid: string): Promise<AllowanceTerms> {
  const rec = await load(ctx, uuid);
  const terms = termsOf(ctx, rec);
  const permit = await permitOf(pullerOf(ctx, terms.network), terms.currency);
  const row = await ctx.storage.db.selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', rec.id).executeTakeFirst();
  return { ...terms, permit, recorded: row ? { address: row.payer_address, status: row.status, cap: row.cap } : null };
}

/**
 * A smart-contract wallet's signature (EIP-1271): the address has code and its isValidSignature
 * accepts the signature for the message. Asked only when the signature does not recover to the
 * address, so an ordinary account costs no extra call.
 */
async function contractSigned(network: string, puller: AllowancePuller, address: string, message: string, signature: string): Promise<boolean> {
  if (!puller.contractSigned) return false;
  try {
    return await puller.contractSigned(address, message, signature);
  } catch (err) {
    if (err instanceof ChainError) throw new BusinessError(`The ${network} node could not be asked; try again`, 'node_unavailable');
    throw err;
  }
}

/** A permit as posted: `{value, deadline, signature}`. */
interface PermitBody {
  value: string;
  deadline: bigint;
  signature: string;
}

/** Validates the POST's optional `permit`, adding to `errors`; null when absent. */
function permitBody(permit: unknown, errors: Record<string, string[]>): PermitBody | null {
  if (permit === undefined || permit === null) return null;
  if (typeof permit !== 'object' || Array.isArray(permit)) {
    errors.permit = ['validation.array'];
    return null;
  }
  const p = permit as Record<string, unknown>;
  // At most a uint256 of whole units and 36 decimals: a longer text is no amount any token holds.
  const value = typeof p.value === 'string' && /^\d{1,78}(\.\d{1,36})?$/.test(p.value) ? p.value : null;
  const deadline = (typeof p.deadline === 'number' && Number.isSafeInteger(p.deadline) && p.deadline > 0) || (typeof p.deadline === 'string' && /^[1-9]\d{0,18}$/.test(p.deadline)) ? BigInt(p.deadline as number | string) : null;
  const signature = typeof p.signature === 'string' && SIGNATURE.test(p.signature) ? p.signature : null;
  if (value === null) errors['permit.value'] = ['validation.numeric'];
  if (deadline === null) errors['permit.deadline'] = ['validation.integer'];
  if (signature === null) errors['permit.signature'] = ['validation.regex'];
  return value !== null && deadline !== null && signature !== null ? { value, deadline, signature } : null;
}

/**
 * Has the collector submit the payer's permit (it pays the gas). Answers the permit() transaction;
 * a permit that cannot work (expired, not by `owner` for this collector and nonce, refused by the
 * token) is `permit_invalid`, and nothing is stored.
 */
/**
 * Permits the collector submitted (and paid gas for) per subscription in this process, in the last
 * PERMIT_WINDOW_MS: whoever holds a subscription's link, and any key, can sign permits, so without
 * a limit one link could make the collector pay for permit after permit (each mined one moves the
 * nonce on, so the one-per-nonce rule alone does not stop that). The limit is per process: a
 * gateway scaled out to N processes allows N times as many.
 */
const PERMITS_PER_WINDOW = 3;
const PERMIT_WINDOW_MS = 24 * 3600_000;
const permitsSent = new Map<string, { at: number; txid: string }[]>();

function permitAllowed(now: number, recurrenceId: string): boolean {
  for (const [id, times] of permitsSent) {
    const kept = times.filter((t) => now - t.at < PERMIT_WINDOW_MS);
    if (kept.length === 0) permitsSent.delete(id);
    else permitsSent.set(id, kept);
  }
  return (permitsSent.get(recurrenceId)?.length ?? 0) < PERMITS_PER_WINDOW;
}

/** Refuses a permit for a token without EIP-2612 (or a network that cannot submit one). */
async function requirePermit(puller: AllowancePuller, terms: Omit<AllowanceTerms, 'recorded' | 'permit'>): Promise<NonNullable<AllowancePuller['submitPermit']>> {
  const domain = await permitOf(puller, terms.currency);
  if (!domain || !puller.submitPermit) throw new BusinessError(`${terms.currency} on ${terms.network} has no permit: send approve(${terms.collector}, ${terms.cap}) instead`, 'permit_unsupported');
  return puller.submitPermit.bind(puller);
}

/** Whether the chain already shows `owner` allowing the collector at least `value`. */
async function allowanceCovers(puller: AllowancePuller, terms: Omit<AllowanceTerms, 'recorded' | 'permit'>, owner: string, value: string): Promise<boolean> {
  try {
    return !Decimal.parse((await puller.allowanceOf(terms.currency, owner)).allowance).lt(value);
  } catch (err) {
    if (err instanceof ChainError) throw new BusinessError(`The ${terms.network} node could not be asked; try again`, 'node_unavailable');
    throw err;
  }
}

async function submitPermit(ctx: Ctx, puller: AllowancePuller, terms: Omit<AllowanceTerms, 'recorded' | 'permit'>, recurrenceId: string, owner: string, p: PermitBody): Promise<string> {
  const submit = await requirePermit(puller, terms);
  if (p.deadline * 1000n <= BigInt(ctx.now())) throw new BusinessError('The permit has expired: sign a new one', 'permit_invalid');
  if (Decimal.parse(p.value).lt(terms.amount_per_period)) {
    throw new BusinessError(`The permit's value ${p.value} ${terms.currency} is less than one period (${terms.amount_per_period})`, 'allowance_short');
  }
  if (!permitAllowed(ctx.now(), recurrenceId)) {
    throw new BusinessError(`This subscription has had ${PERMITS_PER_WINDOW} permits submitted in the last 24 hours: send approve(${terms.collector}, ${terms.cap}) from your wallet instead`, 'permit_limit');
  }
  try {
    const { txid } = await submit({ currency: terms.currency, owner, value: p.value, deadline: p.deadline, signature: p.signature });
    // A retried POST answered with the transaction already stored is not counted again.
    const sent = permitsSent.get(recurrenceId) ?? [];
    if (!sent.some((x) => x.txid === txid)) permitsSent.set(recurrenceId, [...sent, { at: ctx.now(), txid }]);
    return txid;
  } catch (err) {
    if (err instanceof SendRejectedError) throw new BusinessError(`The permit cannot be used: ${err.message}`, 'permit_invalid');
    if (err instanceof HotWalletShortError) throw new BusinessError(`The collector cannot pay the permit's gas now: send approve(${terms.collector}, ${terms.cap}) instead`, 'permit_unavailable');
    if (err instanceof ChainError) throw new BusinessError(`The ${terms.network} node could not be asked; try again`, 'node_unavailable');
    throw err;
  }
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** An EIP-191 personal_sign signature: r, s and v, 65 bytes. */
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
/** The allowance message's signature: 65 bytes from an account, up to 2 KB from a smart-contract wallet (EIP-1271, e.g. several owners'). */
const MESSAGE_SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){65,2048}$/;

/**
 * `POST /api/pay/recurrence/{uuid}/allowance {address, tx_hash, signature}`: records the payer's
 * allowance once `address` signed this subscription's allowance message (../contracts/
 * allowance-message.ts: every approval of the shared collector is public, so the address alone
 * proves nothing) and the chain shows allowance(address, collector) covers at least one period;
 * recording again (a new approval, another address) replaces it. Nothing is written on a refusal.
 */
export async function recordAllowance(ctx: Ctx, uuid: string, address: unknown, txHash: unknown, signature: unknown, permit?: unknown): Promise<AllowanceTerms> {
  const errors: Record<string, string[]> = {};
  if (typeof address !== 'string' || !ADDRESS.test(address)) errors.address = ['validation.regex'];
  if (txHash !== undefined && txHash !== null && (typeof txHash !== 'string' || !TX_HASH.test(txHash))) errors.tx_hash = ['validation.regex'];
  if (signature === undefined || signature === null || signature === '') errors.signature = ['validation.required'];
  else if (typeof signature !== 'string' || !MESSAGE_SIGNATURE.test(signature)) errors.signature = ['validation.regex'];
  const permitted = permitBody(permit, errors);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const rec = await load(ctx, uuid);
  const terms = termsOf(ctx, rec);
  const puller = pullerOf(ctx, terms.network)!;
  const message = allowanceMessage({ uuid: rec.id, network: terms.network, currency: terms.currency, token: terms.token, collector: terms.collector, cap: terms.cap });
  const signer = await puller.messageSigner(message, signature as string);
  if (signer !== (address as string).toLowerCase() && !(await contractSigned(terms.network, puller, address as string, message, signature as string))) {
    throw new BusinessError(`The signature is not by ${address as string}: sign this subscription's allowance message with the approving address`, 'signature_mismatch');
  }
  // A permit: the collector submits it. Until the chain shows the allowance, nothing is recorded:
  // the answer names the transaction, and the page posts again once it is mined (as after approve).
  // A permit the chain already covers (mined, then the POST retried) costs the collector nothing:
  // it is not submitted again, and the allowance is recorded below.
  if (permitted) await requirePermit(puller, terms);
  const covered = permitted ? await allowanceCovers(puller, terms, address as string, permitted.value) : false;
  const permitTx = permitted && !covered ? await submitPermit(ctx, puller, terms, rec.id, address as string, permitted) : null;
  const permitDomain = await permitOf(puller, terms.currency);
  let seen: { allowance: string; balance: string };
  try {
    seen = await puller.allowanceOf(terms.currency, address as string);
  } catch (err) {
    if (err instanceof ChainError) throw new BusinessError(`The ${terms.network} node could not be asked; try again`, 'node_unavailable');
    throw err;
  }
  // Until the permit is mined the chain shows less than it grants (another subscription's allowance
  // may already cover a period): the answer names the transaction and nothing is recorded yet.
  if (permitTx !== null && permitted !== null && Decimal.parse(seen.allowance).lt(permitted.value)) {
    const cur = await ctx.storage.db.selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', rec.id).executeTakeFirst();
    return { ...terms, permit: permitDomain, recorded: cur ? { address: cur.payer_address, status: cur.status, cap: cur.cap } : null, permit_tx: permitTx };
  }
  if (Decimal.parse(seen.allowance).lt(terms.amount_per_period)) {
    throw new BusinessError(`The allowance of ${address as string} for ${terms.collector} is ${seen.allowance} ${terms.currency}, less than one period (${terms.amount_per_period})`, 'allowance_short');
  }
  const now = ctx.now();
  const row = {
    recurrence_id: rec.id,
    network: terms.network,
    currency: terms.currency,
    token: terms.token,
    collector: terms.collector,
    payer_address: (address as string).toLowerCase(),
    cap: seen.allowance,
    // What the payer was shown and approved per period: no pull takes more (./pulls.ts).
    amount_per_period: Decimal.parse(terms.amount_per_period).toString(),
    approve_txid: typeof txHash === 'string' ? txHash.toLowerCase() : null,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  // Granted by the permit just submitted (already mined): its transaction stands for the approval.
  if (row.approve_txid === null && permitTx !== null) row.approve_txid = permitTx;
  await ctx.storage.write(async (trx) => {
    const cur = await ctx.storage.forUpdate(trx.selectFrom('recurrences').select('status').where('id', '=', rec.id)).executeTakeFirstOrThrow();
    if (!OPEN.has(cur.status)) throw new BusinessError('The subscription has ended', 'not_open');
    const { recurrence_id: _id, created_at: _c, ...patch } = row;
    await trx.insertInto('recurrence_allowances').values(row).onConflict((oc) => oc.column('recurrence_id').doUpdateSet(patch)).execute();
  });
  return { ...terms, permit: permitDomain, recorded: { address: row.payer_address, status: row.status, cap: row.cap } };
}
