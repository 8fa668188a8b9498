// The `satchel` command line: operator tasks against the same database as the gateway.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openStorage, type Storage } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { join } from 'node:path';
import { createMerchant, listMerchants, setMerchantBlocked } from '../merchants/store.ts';
import { ProfileError, updateProfile, type MerchantProfile } from '../merchants/profile.ts';
import { readFileSync, statSync } from 'node:fs';
import { BusinessError, NotFoundError } from '../errors.ts';
import { isUuid } from '../contracts/rules.ts';
import { createContext, families } from '../compose.ts';
import {
  ChoiceNeededError,
  SimulatorError,
  simulateConfirm,
  simulateDrop,
  simulateExpire,
  simulatePay,
  simulatePayAddress,
} from '../simulator/payments.ts';
import { webhooksList } from './webhooks.ts';
import { listStuckPayouts } from '../outgoing/stuck.ts';
import { simulateDeposit } from '../simulator/deposit.ts';
import { simulateRenew } from '../recurrences/simulate.ts';
import { simulateConfirmOutgoing, simulateFailOutgoing } from '../simulator/payouts.ts';
import { USER_USAGE, userCli } from './users.ts';
import { API_USAGE, invoiceCli, signCli } from './api.ts';
import { MERCHANT_SHOW_USAGE, merchantShowCli } from './merchant-show.ts';
import { DB_USAGE, dbCli } from './db-copy.ts';
import { databaseLabel } from './where.ts';
import { DOCTOR_USAGE, doctorCli } from './doctor.ts';
import { MERCHANT_SET_USAGE, merchantSetCli } from './merchant-set.ts';
import { MERCHANT_CUSTODY_USAGE, merchantCustodyCli } from './merchant-custody.ts';
import { LEDGER_USAGE, ledgerCli } from './ledger.ts';
import { FLUSH_USAGE, flushCli } from './flush.ts';
import { UNMATCHED_USAGE, unmatchedCli } from './unmatched.ts';
import { PAYOUT_FLOAT_USAGE, payoutFloatCli } from './payout-float.ts';

const USAGE = `Usage: satchel <command>
  merchant create --name NAME [--json]   create a merchant and print its id and API keys
  merchant list [--json]                 list merchants
${MERCHANT_SHOW_USAGE}
  merchant block <uuid>                  block payments and payouts of a merchant
  merchant unblock <uuid>                lift the block
  merchant update <uuid> [--display-name NAME] [--logo FILE | --remove-logo] [--accent '#RRGGBB'] [--theme dark|light|auto] [--language CODE|auto] [--json]
                                         set the public profile payers see (empty text clears a field)
${MERCHANT_SET_USAGE}
${MERCHANT_CUSTODY_USAGE}
  migrate                                apply database migrations
${LEDGER_USAGE}
  simulate pay --invoice <uuid> [--currency <code> --network <code>] [--amount <decimal>] [--unconfirmed] [--json]
                                         (--currency/--network choose for the payer when the invoice has no currency yet)
  simulate pay --address <address> --network <code> --currency <code> --amount <decimal> [--unconfirmed] [--json]
  simulate confirm --invoice <uuid>      confirm the invoice's unconfirmed transfers
  simulate drop --invoice <uuid>         drop (revert) the invoice's unconfirmed transfers
  simulate expire --invoice <uuid>       move the invoice to its expiry now
  simulate renew --recurrence <uuid>     start an active recurrence's next period now (its renewal invoice)
  simulate deposit --merchant <uuid> --currency <code> --amount <decimal>   top up a personal wallet
  simulate payout-confirm --payout <uuid>   confirm a payout's (or refund's) transaction
  simulate payout-fail --payout <uuid>      make a payout's transaction fail on chain
  webhooks list [--invoice <uuid>] [--json]   deliveries and their attempts
  payouts list --stuck [--json]          payouts not sent whose last attempt failed (hot wallet short, node down)
${USER_USAGE}
${API_USAGE}
${DB_USAGE}
${DOCTOR_USAGE}
${FLUSH_USAGE}
${UNMATCHED_USAGE}
${PAYOUT_FLOAT_USAGE}
Reads the same environment as the gateway (DATABASE_URL, SATCHEL_DATA_DIR, ...).`;

export type Out = { log: (s: string) => void; error: (s: string) => void };

export async function runCli(argv: string[], out: Out = console): Promise<number> {
  const [group, action, ...rest] = argv;
  const config = loadConfig();
  const open = async (): Promise<Storage> => {
    const s = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
    await migrateToLatest(s);
    return s;
  };
  if (group === 'user') return userCli(action, rest, out);
  if (group === 'sign') return signCli(argv.slice(1), config, out);
  if (group === 'invoice') return invoiceCli(action, rest, config, out);
  if (group === 'db') return dbCli(action, rest, config, out);
  if (group === 'doctor') return doctorCli(action === undefined ? rest : [action, ...rest], config, out, () => createContext(config));
  if (group === 'merchant' && action === 'set') return merchantSetCli(rest, out);
  if (group === 'merchant' && action === 'custody') return merchantCustodyCli(rest[0], rest.slice(1), config, out, (c) => createContext(c));
  if (group === 'ledger') return ledgerCli(action, out);
  if (group === 'payout-float') return payoutFloatCli(action, rest, config, out, families);
  if (group === 'unmatched') return unmatchedCli(action, rest, config, out, (c) => createContext(c));
  if (group === 'flush') return flushCli(action === undefined ? rest : [action, ...rest], out, () => createContext(config));
  if (group === 'payouts' && action === 'list') {
    const { values } = parseArgs({ args: rest, options: { stuck: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } } });
    if (!values.stuck) return fail(out, 'Only `payouts list --stuck` is available: payouts are listed through the API (/v1/payout/list).');
    const storage = await open();
    try {
      const rows = await listStuckPayouts(storage.db);
      if (values.json) out.log(JSON.stringify(rows));
      else if (rows.length === 0) out.log(`No stuck payouts in ${databaseLabel(config)}.`);
      else for (const r of rows) out.log(`${r.uuid}  ${r.kind}  ${r.amount} ${r.currency} on ${r.network}  since ${r.created_at}  attempts ${r.attempts}  ${r.last_error}`);
      return 0;
    } finally {
      await storage.close();
    }
  }
  if (group === 'migrate') {
    const s = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
    try {
      const applied = await migrateToLatest(s);
      out.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date');
    } finally {
      await s.close();
    }
    return 0;
  }
  if (group === 'merchant' && action === 'show') return merchantShowCli(rest, config, out);
  if (group === 'merchant') {
    const { values, positionals } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        json: { type: 'boolean', default: false },
        'display-name': { type: 'string' },
        logo: { type: 'string' },
        'remove-logo': { type: 'boolean', default: false },
        accent: { type: 'string' },
        theme: { type: 'string' },
        language: { type: 'string' },
      },
      allowPositionals: true,
    });
    if (action === 'create') {
      if (!values.name) return fail(out, 'merchant create needs --name NAME');
      const s = await open();
      try {
        const m = await createMerchant(s.db, values.name);
        if (values.json) out.log(JSON.stringify({ merchant: m.id, payment_key: m.payment_key, payout_key: m.payout_key }));
        else out.log(`merchant:    ${m.id}\npayment_key: ${m.payment_key}\npayout_key:  ${m.payout_key}`);
      } finally {
        await s.close();
      }
      return 0;
    }
    if (action === 'list') {
      const s = await open();
      try {
        const ms = await listMerchants(s.db);
        if (values.json) out.log(JSON.stringify(ms.map((m) => ({ merchant: m.id, name: m.name, blocked: m.is_blocked === 1 }))));
        else if (ms.length === 0) out.log(`No merchants in ${databaseLabel(config)}.`);
        else for (const m of ms) out.log(`${m.id}  ${m.is_blocked ? 'blocked' : 'active '}  ${m.name}`);
      } finally {
        await s.close();
      }
      return 0;
    }
    if (action === 'update') {
      const id = positionals[0];
      if (!id || !isUuid(id)) return fail(out, 'merchant update needs a merchant uuid');
      if (values.logo !== undefined && values['remove-logo']) return fail(out, 'Use either --logo FILE or --remove-logo');
      let logo: Uint8Array | null | undefined = values['remove-logo'] ? null : undefined;
      if (values.logo !== undefined) {
        try {
          // Refuse a huge file before reading it into memory; the profile checks the exact limit.
          if (statSync(values.logo).size > 1024 * 1024) return fail(out, 'The logo must be at most 256 KB');
          logo = readFileSync(values.logo);
        } catch (e) {
          return fail(out, `Cannot read ${values.logo}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
      }
      const s = await open();
      try {
        const p = await updateProfile(s.db, id.toLowerCase(), {
          display_name: values['display-name'],
          accent: values.accent,
          theme: values.theme,
          language: values.language,
          logo,
        });
        out.log(values.json ? JSON.stringify(p) : describeProfile(p));
      } catch (e) {
        if (e instanceof ProfileError) return fail(out, e.message);
        if (e instanceof NotFoundError) return fail(out, `No merchant ${id}`);
        throw e;
      } finally {
        await s.close();
      }
      return 0;
    }
    if (action === 'block' || action === 'unblock') {
      const id = positionals[0];
      if (!id || !isUuid(id)) return fail(out, `merchant ${action} needs a merchant uuid`);
      const s = await open();
      try {
        if (!(await setMerchantBlocked(s.db, id.toLowerCase(), action === 'block'))) return fail(out, `No merchant ${id}`);
        out.log(`${id} ${action === 'block' ? 'blocked' : 'unblocked'}`);
      } finally {
        await s.close();
      }
      return 0;
    }
  }
  if (group === 'simulate' || group === 'webhooks') {
    const { values } = parseArgs({
      args: rest,
      options: {
        invoice: { type: 'string' },
        amount: { type: 'string' },
        address: { type: 'string' },
        network: { type: 'string' },
        currency: { type: 'string' },
        merchant: { type: 'string' },
        payout: { type: 'string' },
        recurrence: { type: 'string' },
        unconfirmed: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: false,
    });
    if (group === 'simulate' && !config.simulator) {
      return fail(out, 'The simulator is off: a network uses a real driver (or SATCHEL_SIMULATOR=0).');
    }
    const ctx = await createContext(config);
    try {
      if (group === 'webhooks' && action === 'list') {
        await webhooksList(ctx.storage.db, { invoice: values.invoice, json: values.json, where: databaseLabel(config) }, out);
        return 0;
      }
      let result: unknown;
      if (action === 'pay' && values.invoice) {
        result = await simulatePay(ctx, { invoice: values.invoice, amount: values.amount, unconfirmed: values.unconfirmed, currency: values.currency, network: values.network });
      } else if (action === 'pay' && values.address && values.network && values.currency && values.amount) {
        result = await simulatePayAddress(ctx, {
          address: values.address,
          network: values.network,
          currency: values.currency,
          amount: values.amount,
          unconfirmed: values.unconfirmed,
        });
      } else if (action === 'confirm' && values.invoice) result = await simulateConfirm(ctx, { invoice: values.invoice });
      else if (action === 'drop' && values.invoice) result = await simulateDrop(ctx, { invoice: values.invoice });
      else if (action === 'expire' && values.invoice) result = await simulateExpire(ctx, { invoice: values.invoice });
      else if (action === 'renew' && values.recurrence) result = await simulateRenew(ctx, values.recurrence);
      else if (action === 'deposit' && values.merchant && values.currency && values.amount) {
        result = await simulateDeposit(ctx, { merchant: values.merchant, currency: values.currency, amount: values.amount });
      } else if (action === 'payout-confirm' && values.payout) result = await simulateConfirmOutgoing(ctx, values.payout);
      else if (action === 'payout-fail' && values.payout) result = await simulateFailOutgoing(ctx, values.payout);
      else {
        out.error(USAGE);
        return 2;
      }
      out.log(values.json ? JSON.stringify(result) : Object.entries(result as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`).join('\n'));
      return 0;
    } catch (e) {
      if (e instanceof ChoiceNeededError && e.choices.length > 0) {
        return fail(out, `The payer has not chosen a currency yet: pass --currency and --network, one of\n${e.choices.map((c) => `  --currency ${c.currency} --network ${c.network}   (${c.label})`).join('\n')}`);
      }
      if (e instanceof SimulatorError) return fail(out, e.message);
      // A recurrence that is not there or cannot be renewed (src/recurrences/simulate.ts).
      if (action === 'renew' && (e instanceof BusinessError || e instanceof NotFoundError)) return fail(out, e.message);
      throw e;
    } finally {
      await ctx.chains.close();
      await ctx.storage.close();
    }
  }
  out.error(USAGE);
  return group === undefined || group === 'help' || group === '--help' ? 0 : 2;
}

function describeProfile(p: MerchantProfile): string {
  return [
    `merchant:     ${p.merchant_id}`,
    `display name: ${p.display_name ?? '(none)'}`,
    `logo:         ${p.logo ? `${p.logo.type}, ${p.logo.bytes} bytes` : '(none)'}`,
    `accent:       ${p.accent ?? '(default)'}`,
    `theme:        ${p.theme}`,
    `language:     ${p.language ?? 'auto'}`,
  ].join('\n');
}

function fail(out: Out, msg: string): number {
  out.error(msg);
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/main.ts')) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
