// The doctor's checks of the live networks: each node is the chain the operator configured, is
// synced, and agrees with this host's clock; confirmations are sensible; custody material and the
// payout float are in place.
import type { Ctx } from '../context.ts';
import type { NodeStatus } from '../chain/contract.ts';
import type { NetworkDef } from '../registry/index.ts';
import { finding, type Finding, type FindingParams } from './finding.ts';
import { floatAccount, type PayoutSource } from '../chain/payout-float.ts';
import { payoutSourceOf } from '../outgoing/float.ts';
/** A head this far ahead of this host's clock means the clock is behind. */
const CLOCK_AHEAD_MS = 5 * 60_000;
/** A node that does not answer within this is reported, not waited for. */
const STATUS_TIMEOUT_MS = 15_000;

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}


export async function nodeChecks(ctx: Ctx, live: string[]): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const code of live) {
    const def = ctx.registry.network(code)!;
    const at = { network: code };
    const driver = ctx.chains.driver(code);
    let st: NodeStatus;
    try {
      st = await withTimeout(driver.status(), STATUS_TIMEOUT_MS);
    } catch (e) {
      out.push(finding('FAIL', 'node', 'node.no_answer', { ...at, error: e instanceof Error ? e.message : String(e) }));
      continue;
    }
    // The network's family says which chain the node must serve, which chains mine only on demand
    // and how old a head may be on its slow blocks.
    const family = ctx.chains.family(code);
    const expected = family?.expectedChain?.(def, ctx.config.networks[def.code] ?? {}) ?? null;
    if (expected !== null && st.chain !== expected) {
      out.push(finding('FAIL', 'node', 'node.wrong_chain', { ...at, ...(st.chain !== null ? { chain: st.chain } : {}), expected, network_name: def.name }));
      continue;
    }
    const now = ctx.now();
    const least = family?.minHeadAgeMinutes;
    const limitMin = least === undefined ? ctx.config.doctorMaxHeadAgeMinutes : Math.max(ctx.config.doctorMaxHeadAgeMinutes, least);
    const age = st.headTime === null ? null : now - st.headTime;
    const dev = st.chain !== null && family?.isDevChain?.(st.chain) === true;
    // The head's age, in ms (never below 0: a head ahead of the clock is the clock check's).
    const aged: FindingParams = age !== null ? { age_ms: Math.max(age, 0) } : {};
    const chain: FindingParams = st.chain !== null ? { chain: st.chain } : {};
    if (dev) {
      out.push(finding('WARN', 'node', 'node.dev_chain', { ...at, ...chain, head: st.head, ...aged, network_name: def.name }));
    } else if (age !== null && age > limitMin * 60_000) {
      out.push(finding('FAIL', 'node', 'node.behind', { ...at, head: st.head, age_ms: age, limit: limitMin }));
    } else {
      out.push(finding('OK', 'node', 'node.ok', { ...at, ...chain, head: st.head, ...aged }));
    }
    if (age !== null && -age > CLOCK_AHEAD_MS) {
      out.push(finding('WARN', 'clock', 'clock.ahead', { ...at, ahead_ms: -age }));
    } else if (age !== null) {
      out.push(finding('OK', 'clock', 'clock.ok', at));
    }
    out.push(confirmationsCheck(ctx, def, dev));
  }
  return out;
}

function confirmationsCheck(ctx: Ctx, def: NetworkDef, dev: boolean): Finding {
  const n = ctx.chains.confirmations(def.code);
  // As text: a broken setting may be no number at all, and is shown as it is.
  const at = { network: def.code, count: `${n}`, recommended: def.confirmations, network_name: def.name };
  if (!Number.isInteger(n) || n < 1) return finding('FAIL', 'confirmations', 'confirmations.none', at);
  if (n < def.confirmations && !dev) return finding('WARN', 'confirmations', 'confirmations.few', at);
  return finding('OK', 'confirmations', 'confirmations.ok', at);
}

/**
 * Whose keys receive each merchant's money on a live network. Watch-only (the default of a real
 * driver): the merchant's own wallet, from the material they supplied, or nothing offered until they
 * do. Hot: the gateway's seed on this server, which can spend what it receives.
 */
export function custodyOf(ctx: Ctx, merchant: { id: string; name: string }, network: string, material: ReadonlyMap<string, string>): Finding {
  if (ctx.chains.custodyMode(network) === 'hot') return finding('WARN', 'custody', 'custody.hot', { network });
  if (merchant.id && material.has(`${merchant.id}|${network}`)) return finding('OK', 'custody', 'custody.watch_only', { network });
  return finding('WARN', 'custody', 'custody.no_material', { network });
}

export async function custodyChecks(ctx: Ctx, live: string[]): Promise<Finding[]> {
  if (live.length === 0) return [];
  // The seed matters for receiving only where a network is in hot custody.
  if (live.some((n) => ctx.chains.custodyMode(n) === 'hot')) try {
    ctx.config.mnemonic();
  } catch (e) {
    return [finding('FAIL', 'seed', 'seed.unreadable', { error: e instanceof Error ? e.message : String(e) })];
  }
  const merchants = await ctx.storage.db.selectFrom('merchants').select(['id', 'name']).where('is_blocked', '=', 0).orderBy('name').execute();
  const rows = await ctx.storage.db.selectFrom('merchant_custody').select(['merchant_id', 'network', 'summary']).where('replaced_at', 'is', null).execute();
  const material = new Map(rows.map((r) => [`${r.merchant_id}|${r.network}`, r.summary]));
  const out: Finding[] = [];
  for (const network of live) {
    // One line per network and outcome, naming how many merchants share it.
    const groups = new Map<string, { f: Finding; n: number }>();
    for (const m of merchants) {
      const f = custodyOf(ctx, m, network, material);
      const key = f.code;
      const g = groups.get(key);
      if (g) g.n++;
      else groups.set(key, { f, n: 1 });
    }
    if (merchants.length === 0) out.push({ ...custodyOf(ctx, { id: '', name: '' }, network, material) });
    for (const { f, n } of groups.values()) out.push(finding(f.status, f.check, f.code, { ...f.params, merchants: n }));
  }
  return out;
}

/**
 * Each live watch-only network's payout float (docs/networks.md, "The payout float"): configured
 * at all, its key file readable only by its owner and holding a key, its caps, and what it holds
 * now against them.
 * Hot networks pay from the seed and have no float.
 */
export async function floatChecks(ctx: Ctx, live: string[]): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const code of live) {
    const network = ctx.registry.network(code);
    if (!network) continue;
    const at = { network: code };
    let source: PayoutSource;
    try {
      source = payoutSourceOf(ctx, code);
    } catch (e) {
      out.push(finding('FAIL', 'payout_float', 'payout_float.invalid', { ...at, error: e instanceof Error ? e.message : String(e) }));
      continue;
    }
    if (source.kind === 'seed') continue;
    if (source.kind === 'none') {
      const can = ctx.chains.family(code)?.payoutFloat;
      const why = { ...at, why: source.why };
      out.push(
        can?.wallet
          ? finding('WARN', 'payout_float', 'payout_float.missing_wallet', { ...why, setting: can.wallet.setting })
          : can
            ? finding('WARN', 'payout_float', 'payout_float.missing_key', { ...why, accepts: can.accepts })
            : finding('WARN', 'payout_float', 'payout_float.unsupported', { ...why, network_name: network.name }),
      );
      continue;
    }
    let address: string;
    try {
      address = source.settings.keyFile === null ? '' : floatAccount(network, source).address;
    } catch (e) {
      out.push(finding('FAIL', 'payout_float', 'payout_float.bad_key', { ...at, error: e instanceof Error ? e.message : String(e), accepts: source.form.accepts }));
      continue;
    }
    const { maxPerPayout, maxPerDay } = source.settings;
    const uncapped = network.currencies.map((c) => c.code).filter((c) => maxPerPayout[c.toUpperCase()] === undefined || maxPerDay[c.toUpperCase()] === undefined);
    // [currency, per payout, per day], null where there is no cap: worded where it is shown.
    const caps = network.currencies
      .map((c) => c.code)
      .filter((c) => maxPerPayout[c.toUpperCase()] !== undefined || maxPerDay[c.toUpperCase()] !== undefined)
      .map((c) => [c, maxPerPayout[c.toUpperCase()] ?? null, maxPerDay[c.toUpperCase()] ?? null]);
    let holds: { balances: string } | { balance_error: string } | Record<string, never> = {};
    try {
      const wallet = await withTimeout(ctx.chains.driver(code).payoutWallet?.() ?? Promise.resolve(null), STATUS_TIMEOUT_MS);
      if (wallet) holds = { balances: Object.entries(wallet.balances).map(([c, a]) => `${a} ${c}`).join(', ') };
      if (wallet && source.settings.keyFile === null) address = wallet.address;
    } catch (e) {
      // A float that is a wallet the operator runs: not reaching it is the finding.
      if (source.settings.keyFile === null) {
        out.push(finding('FAIL', 'payout_float', 'payout_float.wallet_down', { ...at, wallet: source.settings.wallet ?? '?', error: e instanceof Error ? e.message : String(e), setting: source.form.wallet?.setting ?? 'payout_wallet_rpc_url' }));
        continue;
      }
      holds = { balance_error: e instanceof Error ? e.message : String(e) };
    }
    const params = {
      ...at,
      ...(source.settings.keyFile === null ? { wallet: source.settings.wallet ?? '' } : { file: source.settings.keyFile }),
      account: address,
      ...(caps.length ? { caps: JSON.stringify(caps) } : {}),
      ...holds,
    };
    if (uncapped.length > 0) out.push(finding('WARN', 'payout_float', 'payout_float.uncapped', { ...params, uncapped: uncapped.join(', ') }));
    else out.push(finding('OK', 'payout_float', 'payout_float.ok', params));
  }
  return out;
}
