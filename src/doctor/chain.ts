// The doctor's checks of the live networks: each node is the chain the operator configured, is
// synced, and agrees with this host's clock; confirmations are sensible; custody material and the
// payout float are in place.
import type { Ctx } from '../context.ts';
import type { NodeStatus } from '../chain/contract.ts';
import type { NetworkDef } from '../registry/index.ts';
import type { Finding } from './finding.ts';
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


function minutes(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

export async function nodeChecks(ctx: Ctx, live: string[]): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const code of live) {
    const def = ctx.registry.network(code)!;
    const name = `node ${code}`;
    const driver = ctx.chains.driver(code);
    let st: NodeStatus;
    try {
      st = await withTimeout(driver.status(), STATUS_TIMEOUT_MS);
    } catch (e) {
      out.push({ status: 'FAIL', name, detail: `no sane answer from the node (${e instanceof Error ? e.message : String(e)})`, fix: `check networks.${code}.rpc_url and that the node runs` });
      continue;
    }
    // The network's family says which chain the node must serve, which chains mine only on demand
    // and how old a head may be on its slow blocks.
    const family = ctx.chains.family(code);
    const expected = family?.expectedChain?.(def, ctx.config.networks[def.code] ?? {}) ?? null;
    if (expected !== null && st.chain !== expected) {
      out.push({ status: 'FAIL', name, detail: `the node serves chain ${st.chain ?? '(none)'}, the gateway is configured for ${expected}`, fix: `point networks.${code}.rpc_url at a node of chain ${expected} (${def.name}), or correct the network's chain setting` });
      continue;
    }
    const now = ctx.now();
    const least = family?.minHeadAgeMinutes;
    const limitMin = least === undefined ? ctx.config.doctorMaxHeadAgeMinutes : Math.max(ctx.config.doctorMaxHeadAgeMinutes, least);
    const age = st.headTime === null ? null : now - st.headTime;
    const dev = st.chain !== null && family?.isDevChain?.(st.chain) === true;
    if (dev) {
      out.push({
        status: 'WARN',
        name,
        detail: `chain ${st.chain} is a development chain that mines only on demand (head ${st.head}${age !== null ? `, ${minutes(Math.max(age, 0))} old` : ''}): confirmations do not come by themselves and its coins are worth nothing`,
        fix: `point networks.${code}.rpc_url at a node of the real ${def.name} chain`,
      });
    } else if (age !== null && age > limitMin * 60_000) {
      out.push({
        status: 'FAIL',
        name,
        detail: `head ${st.head} is ${minutes(age)} old (limit ${limitMin} min): the node is not synced, so payments are not seen`,
        fix: `let the node sync (or fix its peers); the limit is SATCHEL_DOCTOR_MAX_HEAD_AGE_MINUTES`,
      });
    } else {
      out.push({ status: 'OK', name, detail: `chain ${st.chain ?? '(unnamed)'}, head ${st.head}${age !== null ? `, ${minutes(Math.max(age, 0))} old` : ''}` });
    }
    if (age !== null && -age > CLOCK_AHEAD_MS) {
      out.push({ status: 'WARN', name: `clock ${code}`, detail: `the node's newest block is ${minutes(-age)} ahead of this host's clock`, fix: 'synchronise this host\'s clock (NTP): invoice expiry and webhook times follow it' });
    } else if (age !== null) {
      out.push({ status: 'OK', name: `clock ${code}`, detail: 'this host\'s clock agrees with the node\'s newest block' });
    }
    out.push(confirmationsCheck(ctx, def, dev));
  }
  return out;
}

function confirmationsCheck(ctx: Ctx, def: NetworkDef, dev: boolean): Finding {
  const name = `confirmations ${def.code}`;
  const n = ctx.chains.confirmations(def.code);
  if (!Number.isInteger(n) || n < 1) {
    return { status: 'FAIL', name, detail: `${n}: a payment would be final before it is in a block`, fix: `set networks.${def.code}.confirmations to at least ${def.confirmations}` };
  }
  if (n < def.confirmations && !dev) {
    return { status: 'WARN', name, detail: `${n}, fewer than the ${def.confirmations} this gateway recommends for ${def.name}: a reorganisation could undo a payment already credited`, fix: `raise networks.${def.code}.confirmations, or remove it for the default` };
  }
  return { status: 'OK', name, detail: `${n}` };
}

/**
 * Whose keys receive each merchant's money on a live network. Watch-only (the default of a real
 * driver): the merchant's own wallet, from the material they supplied, or nothing offered until they
 * do. Hot: the gateway's seed on this server, which can spend what it receives.
 */
export function custodyOf(ctx: Ctx, merchant: { id: string; name: string }, network: string, material: ReadonlyMap<string, string>): Finding {
  if (ctx.chains.custodyMode(network) === 'hot') {
    return {
      status: 'WARN',
      name: `custody ${network}`,
      detail: 'hot custody: deposits derive from the seed on this server, which can spend them',
      fix: `set "custody": "watch-only" on ${network} and have each merchant set their receiving material (satchel merchant custody set), or keep the seed backed up apart from the database and this host locked down`,
    };
  }
  if (merchant.id && material.has(`${merchant.id}|${network}`)) {
    return { status: 'OK', name: `custody ${network}`, detail: "watch-only: payments go to the merchant's own wallet" };
  }
  return {
    status: 'WARN',
    name: `custody ${network}`,
    detail: 'watch-only, but no receiving material: the network is not offered to this merchant',
    fix: `satchel merchant custody set --merchant ID --network ${network} (--xpub | --descriptor | --address)`,
  };
}

export async function custodyChecks(ctx: Ctx, live: string[]): Promise<Finding[]> {
  if (live.length === 0) return [];
  // The seed matters for receiving only where a network is in hot custody.
  if (live.some((n) => ctx.chains.custodyMode(n) === 'hot')) try {
    ctx.config.mnemonic();
  } catch (e) {
    return [{ status: 'FAIL', name: 'custody', detail: `the HD seed cannot be read (${e instanceof Error ? e.message : String(e)})`, fix: 'set SATCHEL_MNEMONIC_FILE to the file of the phrase this gateway was set up with' }];
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
      const key = `${f.status}|${f.detail}`;
      const g = groups.get(key);
      if (g) g.n++;
      else groups.set(key, { f, n: 1 });
    }
    if (merchants.length === 0) out.push({ ...custodyOf(ctx, { id: '', name: '' }, network, material) });
    for (const { f, n } of groups.values()) out.push({ ...f, detail: `${f.detail} (${n} merchant${n === 1 ? '' : 's'})` });
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
    const name = `payout float ${code}`;
    let source: PayoutSource;
    try {
      source = payoutSourceOf(ctx, code);
    } catch (e) {
      out.push({ status: 'FAIL', name, detail: e instanceof Error ? e.message : String(e), fix: `correct networks.${code}.payout_float (docs/networks.md, "The payout float")` });
      continue;
    }
    if (source.kind === 'seed') continue;
    if (source.kind === 'none') {
      const can = ctx.chains.family(code)?.payoutFloat;
      out.push({
        status: 'WARN',
        name,
        detail: `watch-only without a payout float (${source.why}): payouts and refunds on ${code} are refused`,
        fix: can?.wallet
          ? `run a full wallet for the float (a full wallet of its own, never a view-only one), name its URL in networks.${code}.${can.wallet.setting}, set its caps in networks.${code}.payout_float, and fund it`
          : can
          ? `put the float's key (${can.accepts}) in a file of mode 0600, name it in networks.${code}.payout_float.key_file (or SATCHEL_PAYOUT_KEY_FILE), set its caps, and fund it`
          : `${network.name} takes no float yet: send payouts of ${code} from the merchants' own wallets`,
      });
      continue;
    }
    let address: string;
    try {
      address = source.settings.keyFile === null ? '' : floatAccount(network, source).address;
    } catch (e) {
      out.push({ status: 'FAIL', name, detail: e instanceof Error ? e.message : String(e), fix: `chmod 600 the key file and check what it holds (${source.form.accepts})` });
      continue;
    }
    const { maxPerPayout, maxPerDay } = source.settings;
    const uncapped = network.currencies.map((c) => c.code).filter((c) => maxPerPayout[c.toUpperCase()] === undefined || maxPerDay[c.toUpperCase()] === undefined);
    const caps = network.currencies
      .map((c) => c.code)
      .filter((c) => maxPerPayout[c.toUpperCase()] !== undefined || maxPerDay[c.toUpperCase()] !== undefined)
      .map((c) => `${c} ${maxPerPayout[c.toUpperCase()] ?? 'any'} a payout, ${maxPerDay[c.toUpperCase()] ?? 'any'} a day`);
    let holds = '';
    try {
      const wallet = await withTimeout(ctx.chains.driver(code).payoutWallet?.() ?? Promise.resolve(null), STATUS_TIMEOUT_MS);
      if (wallet) holds = `; holds ${Object.entries(wallet.balances).map(([c, a]) => `${a} ${c}`).join(', ')}`;
      if (wallet && source.settings.keyFile === null) address = wallet.address;
    } catch (e) {
      // A float that is a wallet the operator runs: not reaching it is the finding.
      if (source.settings.keyFile === null) {
        out.push({ status: 'FAIL', name, detail: `the payout wallet at ${source.settings.wallet ?? '?'} does not answer (${e instanceof Error ? e.message : String(e)})`, fix: `start the float wallet's RPC with its wallet open, or correct networks.${code}.${source.form.wallet?.setting ?? 'payout_wallet_rpc_url'}` });
        continue;
      }
      holds = `; its balance could not be read (${e instanceof Error ? e.message : String(e)})`;
    }
    const held = source.settings.keyFile === null ? `wallet ${source.settings.wallet ?? ''}` : `key file ${source.settings.keyFile} (mode 0600)`;
    const detail = `${held}, account ${address || 'unknown'}${caps.length ? `; caps: ${caps.join('; ')}` : ''}${holds}`;
    if (uncapped.length > 0) {
      out.push({
        status: 'WARN',
        name,
        detail: `${detail}; no cap on ${uncapped.join(', ')}: a stolen merchant API key could empty the float of it in a day`,
        fix: `set networks.${code}.payout_float.max_per_payout and max_per_day for ${uncapped.join(', ')}`,
      });
    } else {
      out.push({ status: 'OK', name, detail });
    }
  }
  return out;
}
