// Each merchant's receiving material per watch-only network (`merchant_custody`): what the current
// one is, its history, and the checked write of a new one. Changing it redirects every payment
// made to an address handed out afterwards, so the write refuses anything doubtful (src/custody/change.ts
// adds the audit row and the merchant's webhook around it); addresses handed out before keep the
// material they were made from, named in their path.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB, MerchantCustodyTable } from '../db/schema.ts';
import type { Ctx } from '../context.ts';
import type { NetworkDef } from '../registry/index.ts';
import type { CustodyInput, ParsedCustody, WatchOnlyCustody, WatchOnlyWarning } from '../chain/family.ts';
import { CustodyInputError } from '../chain/errors.ts';
import { custodySource } from '../chain/allocate.ts';

export type CustodyRow = MerchantCustodyTable;

/** A change of receiving material cannot be made; the message is for the merchant or the operator. */
export class CustodyError extends Error {
  constructor(
    readonly problem: string,
    message: string,
  ) {
    super(message);
    this.name = 'CustodyError';
  }
}

export async function currentCustody(db: Kysely<DB> | Transaction<DB>, merchantId: string, network: string): Promise<CustodyRow | undefined> {
  return db
    .selectFrom('merchant_custody')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('network', '=', network)
    .where('replaced_at', 'is', null)
    .executeTakeFirst();
}

/** Every current material of the merchant, by network. */
export async function merchantCustody(db: Kysely<DB> | Transaction<DB>, merchantId: string): Promise<CustodyRow[]> {
  return db.selectFrom('merchant_custody').selectAll().where('merchant_id', '=', merchantId).where('replaced_at', 'is', null).orderBy('network').execute();
}

/** The networks the merchant has current material for. */
export async function custodiedNetworks(db: Kysely<DB> | Transaction<DB>, merchantId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('merchant_custody').select('network').where('merchant_id', '=', merchantId).where('replaced_at', 'is', null).execute();
  return new Set(rows.map((r) => r.network));
}

/** The merchant's materials of a network, newest first (the current one and those it replaced). */
export async function custodyHistory(db: Kysely<DB>, merchantId: string, network?: string): Promise<CustodyRow[]> {
  let q = db.selectFrom('merchant_custody').selectAll().where('merchant_id', '=', merchantId);
  if (network) q = q.where('network', '=', network);
  return q.orderBy('created_at', 'desc').orderBy('id').limit(200).execute();
}

export interface CustodyRequest {
  merchantId: string;
  network: string;
  input: CustodyInput;
  /** `cli`, or `dashboard:<user id>`. */
  actor: string;
  /** The caller confirmed replacing material that exists (`--yes`, the dashboard's password). */
  replace: boolean;
}

/** What a request would set, checked: the network, the parsed material, the one it replaces. */
export interface CheckedCustody {
  network: NetworkDef;
  parsed: ParsedCustody;
  old: CustodyRow | null;
  /** Valid input the merchant should look at again (a cold address that is a contract). */
  /** Valid input worth a second look (a cold address that is a contract), said by the network's family. */
  warnings: WatchOnlyWarning[];
}

function watchOnlyOf(ctx: Ctx, code: string): { network: NetworkDef; watchOnly: WatchOnlyCustody } {
  const network = ctx.registry.network(code);
  if (!network) throw new CustodyError('unknown_network', `Unknown network ${code}`);
  const watchOnly = ctx.chains.family(network.code)?.watchOnly;
  if (!watchOnly) throw new CustodyError('not_watch_only', `${network.code} cannot receive into a merchant's own wallet yet: the gateway's seed receives there`);
  return { network, watchOnly };
}

/** What a network takes from a merchant, in words (CLI help, the dashboard). */
export function custodyAccepts(ctx: Ctx, code: string): { inputs: readonly (keyof CustodyInput)[]; accepts: string } | null {
  const network = ctx.registry.network(code);
  const w = network ? ctx.chains.family(network.code)?.watchOnly : undefined;
  return w ? { inputs: w.inputs, accepts: w.accepts } : null;
}

/**
 * Checks a request without writing: the input parses for the network (a private key, a wrong
 * network, a bad checksum, the zero address: refused, the secret never repeated), it is not one of
 * the gateway's own deposit addresses, and replacing needs the caller's confirmation.
 */
export async function checkCustody(ctx: Ctx, req: CustodyRequest): Promise<CheckedCustody> {
  const { network, watchOnly } = watchOnlyOf(ctx, req.network);
  let parsed: ParsedCustody;
  try {
    parsed = watchOnly.parse(network, req.input);
  } catch (err) {
    if (err instanceof CustodyInputError) throw new CustodyError(err.problem, err.message);
    throw err;
  }
  const db = ctx.storage.db;
  if (parsed.kind === 'address') {
    // A cold address that is one of our deposit addresses would forward to itself: funds stuck.
    const own = await db.selectFrom('addresses').select('address').where('address', 'in', [parsed.material, parsed.material.toLowerCase()]).executeTakeFirst();
    if (own) throw new CustodyError('deposit_address', `${parsed.material} is a deposit address of this gateway, not a wallet of yours: give the address of a wallet you hold the keys of`);
  }
  const old = (await currentCustody(db, req.merchantId, network.code)) ?? null;
  if (watchOnly.settle) parsed = await watchOnly.settle(network, ctx.config.networks[network.code], parsed, old?.material ?? null);
  if (old && old.material !== parsed.material && !req.replace) {
    throw new CustodyError('confirm_replace', `The merchant already receives on ${network.code} into ${old.summary}; replacing it sends every later payment elsewhere: confirm to replace`);
  }
  const warnings: WatchOnlyWarning[] = [];
  if (watchOnly.warn) {
    try {
      const warning = await watchOnly.warn(network, ctx.config.networks[network.code], parsed);
      if (warning) warnings.push(warning);
    } catch {
      // the node could not tell: no warning
    }
  }
  return { network, parsed, old, warnings };
}

/**
 * Writes checked material in `trx`: the old row marked replaced, the new row inserted. Returns
 * null when the material is the current one already (nothing changes, nothing to announce).
 */
export async function writeCustody(trx: Transaction<DB>, req: CustodyRequest, checked: CheckedCustody, now: number): Promise<CustodyRow | null> {
  const cur = (await currentCustody(trx, req.merchantId, checked.network.code)) ?? null;
  if (cur && cur.material === checked.parsed.material) return null;
  // Another change landed between the check and this write: the caller confirmed replacing what it saw.
  if ((cur?.id ?? null) !== (checked.old?.id ?? null)) {
    throw new CustodyError('changed_meanwhile', `The receiving material of ${checked.network.code} was changed meanwhile: look at it again`);
  }
  if (cur) {
    await trx.updateTable('merchant_custody').set({ replaced_at: now }).where('id', '=', cur.id).execute();
    // Addresses drawn ahead from the old material are never handed out now.
    await trx.deleteFrom('address_pool').where('network', '=', checked.network.code).where('source', '=', custodySource(cur.id)).execute();
  }
  const row: CustodyRow = {
    id: randomUUID(),
    merchant_id: req.merchantId,
    network: checked.network.code,
    kind: checked.parsed.kind,
    material: checked.parsed.material,
    summary: checked.parsed.summary,
    actor: req.actor,
    created_at: now,
    replaced_at: null,
  };
  await trx.insertInto('merchant_custody').values(row).execute();
  return row;
}
