// The words of the readiness findings (`satchel doctor`, Settings -> Readiness), by code. A finding
// carries `check` (what was checked), `code` (what was found) and `params` (the values inside its
// sentences: a network code, a URL, a count); its English name, detail and fix are rendered from
// this table, so the CLI's lines and the dashboard's translations (src/dashboard-ui/i18n/readiness/)
// are one list of codes and cannot drift apart. The templates use the dashboard's message syntax:
// {name} for a value, {count, plural, one {...} other {...}} where a count changes the words.

export type FindingParams = Record<string, string | number>;

/** What was checked: the finding's name. */
const checks = {
  start: 'start',
  database: 'database',
  networks: 'networks',
  backups: 'backups',
  smtp: 'smtp',
  public_url: 'public URL',
  public_url_reachable: 'public URL reachable',
  private_callbacks: 'private webhook targets',
  webhook_targets: 'webhook targets',
  webhook_target: 'webhook target of {merchant}',
  node: 'node {network}',
  clock: 'clock {network}',
  confirmations: 'confirmations {network}',
  custody: 'custody {network}',
  seed: 'custody',
  payout_float: 'payout float {network}',
  seed_deposits: 'seed deposits {network}',
  hd_seed: 'HD seed',
  secret_file: '{setting}',
  database_file: 'database file',
} as const;

const https_fix = 'set SATCHEL_PUBLIC_URL to the https address payers reach the gateway at';

/** What was found: the finding's detail, and what to do about a WARN or FAIL. */
const findings = {
  'start.config': { detail: '{error}' },
  'database.down': { detail: '{database} does not answer', fix: 'start the database, or correct DATABASE_URL' },
  'networks.simulated': {
    detail: 'every network runs on the simulated chain (test mode): no real payment can arrive',
    fix: 'configure a real driver for each network you accept (SATCHEL_NETWORKS, docs/networks.md)',
  },
  'backups.described': { detail: '{backup}' },
  'backups.postgres': {
    detail: 'nothing says how the PostgreSQL database (pg_dump, or continuous archiving) is backed up',
    fix: 'back it up regularly, with the HD seed stored apart, then describe how in SATCHEL_BACKUP (config file: "backup")',
  },
  'backups.sqlite': {
    detail: 'nothing says how {file} (sqlite3 satchel.sqlite ".backup FILE" works while the gateway runs) is backed up',
    fix: 'back it up regularly, with the HD seed stored apart, then describe how in SATCHEL_BACKUP (config file: "backup")',
  },
  'smtp.off': { detail: 'no smtp_url is set: the gateway sends no email (invitations are links to pass on yourself)' },
  'smtp.ok': { detail: '{host}:{port} accepts connections' },
  'smtp.unreachable': {
    detail: '{host}:{port} does not accept connections ({error}): invitations and other emails are not sent',
    fix: 'check smtp_url (SATCHEL_SMTP_URL), that the mail server runs and that this host may connect to it',
  },
  'public_url.invalid': { detail: '{url} is not a URL', fix: https_fix },
  'public_url.https': { detail: '{url} is https' },
  'public_url.loopback': { detail: '{url} is plain http on a loopback address: only this machine can open the payment links', fix: https_fix },
  'public_url.http': {
    detail: "{url} is plain http: payers' links and API keys in transit can be read and changed",
    fix: 'serve the gateway over https (a reverse proxy with a certificate) and set SATCHEL_PUBLIC_URL to that address',
  },
  'public_url.answers': { detail: '{url} answers from this host' },
  'public_url.status': { detail: '{url} answers HTTP {status}', fix: 'make the public URL lead to this gateway (reverse proxy configuration)' },
  'public_url.unreachable': {
    detail: '{url} does not answer from this host ({error})',
    fix: 'check that the gateway runs, and the DNS, certificate and reverse proxy of the public URL',
  },
  'private_callbacks.on': {
    detail: 'SATCHEL_ALLOW_PRIVATE_CALLBACKS is on beside real networks: a merchant can make the gateway send requests into this private network',
    fix: 'turn it off unless every merchant on this gateway is yours',
  },
  'webhook_targets.none': { detail: 'no merchant has a default callback URL' },
  'webhook_target.invalid': { detail: '{url} is not an http(s) URL', fix: "set a valid default callback URL in the merchant's settings" },
  'webhook_target.unresolved': { detail: '{host} does not resolve ({error})', fix: 'ask the merchant for a working callback URL' },
  'webhook_target.private': {
    detail: '{url} resolves to the private address {address}: webhooks to it are refused while real networks run',
    fix: 'the merchant needs a public callback URL (or, for a gateway that serves only your own shops, SATCHEL_ALLOW_PRIVATE_CALLBACKS)',
  },
  'webhook_target.ok': { detail: '{url} accepts connections' },
  'webhook_target.unreachable': {
    detail: '{url} does not accept connections ({error}): webhooks are retried and eventually given up',
    fix: 'ask the merchant to check their server',
  },
  'node.no_answer': { detail: 'no sane answer from the node ({error})', fix: 'check networks.{network}.rpc_url and that the node runs' },
  'node.wrong_chain': {
    detail: 'the node serves chain {chain}, the gateway is configured for {expected}',
    fix: "point networks.{network}.rpc_url at a node of chain {expected} ({network_name}), or correct the network's chain setting",
  },
  'node.dev_chain': {
    detail: 'chain {chain} is a development chain that mines only on demand (head {head}{aged}): confirmations do not come by themselves and its coins are worth nothing',
    fix: 'point networks.{network}.rpc_url at a node of the real {network_name} chain',
  },
  'node.behind': {
    detail: 'head {head} is {age} old (limit {limit} min): the node is not synced, so payments are not seen',
    fix: 'let the node sync (or fix its peers); the limit is SATCHEL_DOCTOR_MAX_HEAD_AGE_MINUTES',
  },
  'node.ok': { detail: 'chain {chain}, head {head}{aged}' },
  'clock.ahead': {
    detail: "the node's newest block is {ahead} ahead of this host's clock",
    fix: "synchronise this host's clock (NTP): invoice expiry and webhook times follow it",
  },
  'clock.ok': { detail: "this host's clock agrees with the node's newest block" },
  'confirmations.none': { detail: '{count}: a payment would be final before it is in a block', fix: 'set networks.{network}.confirmations to at least {recommended}' },
  'confirmations.few': {
    detail: '{count}, fewer than the {recommended} this gateway recommends for {network_name}: a reorganisation could undo a payment already credited',
    fix: 'raise networks.{network}.confirmations, or remove it for the default',
  },
  'confirmations.ok': { detail: '{count}' },
  'custody.hot': {
    detail: 'hot custody: deposits derive from the seed on this server, which can spend them',
    fix: 'set "custody": "watch-only" on {network} and have each merchant set their receiving material (satchel merchant custody set), or keep the seed backed up apart from the database and this host locked down',
  },
  'custody.watch_only': { detail: "watch-only: payments go to the merchant's own wallet" },
  'custody.no_material': {
    detail: 'watch-only, but no receiving material: the network is not offered to this merchant',
    fix: 'satchel merchant custody set --merchant ID --network {network} (--xpub | --descriptor | --address)',
  },
  'seed.unreadable': { detail: 'the HD seed cannot be read ({error})', fix: 'set SATCHEL_MNEMONIC_FILE to the file of the phrase this gateway was set up with' },
  'payout_float.invalid': { detail: '{error}', fix: 'correct networks.{network}.payout_float (docs/networks.md, "The payout float")' },
  'payout_float.missing_wallet': {
    detail: 'watch-only without a payout float ({why}): payouts and refunds on {network} are refused',
    fix: 'run a full wallet for the float (a full wallet of its own, never a view-only one), name its URL in networks.{network}.{setting}, set its caps in networks.{network}.payout_float, and fund it',
  },
  'payout_float.missing_key': {
    detail: 'watch-only without a payout float ({why}): payouts and refunds on {network} are refused',
    fix: "put the float's key ({accepts}) in a file of mode 0600, name it in networks.{network}.payout_float.key_file (or SATCHEL_PAYOUT_KEY_FILE), set its caps, and fund it",
  },
  'payout_float.unsupported': {
    detail: 'watch-only without a payout float ({why}): payouts and refunds on {network} are refused',
    fix: "{network_name} takes no float yet: send payouts of {network} from the merchants' own wallets",
  },
  'payout_float.bad_key': { detail: '{error}', fix: 'chmod 600 the key file and check what it holds ({accepts})' },
  'payout_float.wallet_down': {
    detail: 'the payout wallet at {wallet} does not answer ({error})',
    fix: "start the float wallet's RPC with its wallet open, or correct networks.{network}.{setting}",
  },
  'payout_float.ok': { detail: '{held}, account {account}{caps}{holds}' },
  'payout_float.uncapped': {
    detail: '{held}, account {account}{caps}{holds}; no cap on {uncapped}: a stolen merchant API key could empty the float of it in a day',
    fix: 'set networks.{network}.payout_float.max_per_payout and max_per_day for {uncapped}',
  },
  'seed_deposits.unknown': {
    detail:
      '{count} deposit {count, plural, one {address} other {addresses}} derived from the seed received payments while {network} ran in hot custody; any coins still on them can be spent only with the seed, and watch-only payouts never spend them',
    fix: 'spend them from a wallet restored from the seed (their HD paths are in the addresses table), or {back}',
  },
  'seed_deposits.swept': { detail: '{count} deposit {count, plural, one {address} other {addresses}} from hot custody, every payment to them swept' },
  'seed_deposits.unswept': {
    detail: '{count} deposit {count, plural, one {address} other {addresses}} derived from the seed hold payments never swept ({totals}); watch-only custody never sweeps them',
    fix: '{back}',
  },
  'seed.env': {
    detail: 'the mnemonic comes from SATCHEL_MNEMONIC: environments leak (process listings of the same account, unit files, shell history)',
    fix: 'put the phrase in a file of mode 0600 and name it in SATCHEL_MNEMONIC_FILE',
  },
  'file.unreadable': { detail: '{path} cannot be read', fix: 'correct the path in the configuration' },
  'file.absent': { detail: '{path} does not exist yet' },
  'file.open': { detail: '{path} has mode {mode}: other accounts on this host can read it', fix: 'chmod 600 {path}' },
  'file.ok': { detail: '{path} has mode {mode}' },
} as const;

/** Pieces some details are made of: filled in by `renderFinding` from the finding's params. */
const parts = {
  /** How old a block is, under two minutes. */
  seconds: '{n} s',
  minutes: '{n} min',
  /** After a head: its age. */
  aged: ', {age} old',
  /** A node that names no chain. */
  chain_none: '(none)',
  chain_unnamed: '(unnamed)',
  /** Where the float's key is. */
  held_wallet: 'wallet {wallet}',
  held_key: 'key file {file} (mode 0600)',
  account_unknown: 'unknown',
  caps: '; caps: {caps}',
  cap: '{currency} {per_payout} a payout, {per_day} a day',
  cap_any: 'any',
  holds: '; holds {balances}',
  balance_unread: '; its balance could not be read ({error})',
  /** Custody findings: how many merchants a line is about. */
  merchants: ' ({merchants} {merchants, plural, one {merchant} other {merchants}})',
  /** How to go back to sweeping seed deposits (seed_deposits). */
  back: 'set "custody": "hot" on {network} (with "sweep" on an account network) until they are moved, then "watch-only" again; meanwhile new invoices derive from the seed (docs/custody.md, "Gateways set up in hot custody before")',
} as const;

export type CheckCode = keyof typeof checks;
export type FindingCode = keyof typeof findings;
type PartCode = keyof typeof parts;

/** One language's words of every finding: a language has them all, with a fix where English has one. */
export interface ReadinessText {
  checks: Record<CheckCode, string>;
  findings: { [C in FindingCode]: (typeof findings)[C] extends { fix: string } ? { detail: string; fix: string } : { detail: string } };
  parts: Record<PartCode, string>;
}

export const ENGLISH_READINESS: ReadinessText = { checks, findings, parts };

export const FINDING_CODES = Object.keys(findings) as FindingCode[];
export const CHECK_CODES = Object.keys(checks) as CheckCode[];

/** Fills a template: {name} from params, {n, plural, ...} by `plural` (English: one for 1). */
export type Fill = (template: string, params: FindingParams) => string;

export const fillEnglish: Fill = (template, params) =>
  template
    .replace(/\{(\w+), plural,((?:\s*=?\w+\s*\{[^{}]*\})+)\s*\}/g, (all, name: string, body: string) => {
      const value = params[name];
      if (typeof value !== 'number') return all;
      const branches = new Map([...body.matchAll(/\s*(=?\w+)\s*\{([^{}]*)\}/g)].map((m) => [m[1]!, m[2]!]));
      return branches.get(`=${value}`) ?? branches.get(value === 1 ? 'one' : 'other') ?? all;
    })
    .replace(/\{(\w+)\}/g, (all, name: string) => (name in params ? String(params[name]) : all));

/** A duration as the node checks say it: seconds under two minutes, else minutes. */
function duration(text: ReadinessText, fill: Fill, ms: number): string {
  return ms < 120_000 ? fill(text.parts.seconds, { n: Math.round(ms / 1000) }) : fill(text.parts.minutes, { n: Math.round(ms / 60_000) });
}

/**
 * The values a template shows that are made of pieces in the finding's language: a block's age
 * (`age_ms`, `ahead_ms`), a chain the node does not name, the float's key and caps (`caps`: JSON of
 * [currency, per payout or null, per day or null]), what it holds, how to go back to hot custody.
 */
function derived(text: ReadinessText, fill: Fill, code: string, p: FindingParams): FindingParams {
  const out: FindingParams = { ...p };
  if (typeof p.age_ms === 'number') {
    out.age = duration(text, fill, p.age_ms);
    out.aged = fill(text.parts.aged, { age: out.age });
  } else out.aged = '';
  if (typeof p.ahead_ms === 'number') out.ahead = duration(text, fill, p.ahead_ms);
  if (code.startsWith('node.') && p.chain === undefined) out.chain = code === 'node.wrong_chain' ? text.parts.chain_none : text.parts.chain_unnamed;
  if (code === 'payout_float.ok' || code === 'payout_float.uncapped') {
    out.held = p.file !== undefined ? fill(text.parts.held_key, { file: p.file }) : fill(text.parts.held_wallet, { wallet: p.wallet ?? '' });
    if (!p.account) out.account = text.parts.account_unknown;
    const caps = typeof p.caps === 'string' ? (JSON.parse(p.caps) as Array<[string, string | null, string | null]>) : [];
    const any = text.parts.cap_any;
    out.caps = caps.length
      ? fill(text.parts.caps, { caps: caps.map(([currency, perPayout, perDay]) => fill(text.parts.cap, { currency, per_payout: perPayout ?? any, per_day: perDay ?? any })).join('; ') })
      : '';
    out.holds = p.balances !== undefined ? fill(text.parts.holds, { balances: p.balances }) : p.balance_error !== undefined ? fill(text.parts.balance_unread, { error: p.balance_error }) : '';
  }
  if (code.startsWith('seed_deposits.')) out.back = fill(text.parts.back, { network: p.network ?? '' });
  return out;
}

export interface FindingWords {
  name: string;
  detail: string;
  fix?: string;
}

/** A finding's name, detail and fix in `text`'s language; null for a check or code it does not know. */
export function renderFinding(text: ReadinessText, fill: Fill, f: { check: string; code: string; params: FindingParams }): FindingWords | null {
  if (!Object.hasOwn(text.checks, f.check) || !Object.hasOwn(text.findings, f.code)) return null;
  const words = text.findings[f.code as FindingCode] as { detail: string; fix?: string };
  const p = derived(text, fill, f.code, f.params);
  let detail = fill(words.detail, p);
  if (typeof f.params.merchants === 'number') detail += fill(text.parts.merchants, { merchants: f.params.merchants });
  const name = fill(text.checks[f.check as CheckCode], p);
  return words.fix === undefined ? { name, detail } : { name, detail, fix: fill(words.fix, p) };
}
