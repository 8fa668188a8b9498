// The composition root: the one place that knows every part of the gateway and connects them.
// Everything below receives what it needs from here instead of reaching for it.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { Config } from './config.ts';
import type { Ctx, Features, Rates } from './context.ts';
import { openStorage, type Storage } from './db/dialect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { DatabaseUnavailableError } from './errors.ts';
import { Registry } from './registry/index.ts';
import { createRateService } from './rates/from-config.ts';
import { MerchantCache } from './merchants/store.ts';
import type { DriverFactories } from './chain/contract.ts';
import type { GatewayLog } from './ops/log.ts';
import { Chains } from './chain/networks.ts';
import { checkSeedRecord } from './chain/seed-record.ts';
import { Families } from './chain/family.ts';
import { withPayoutFloats } from './chain/payout-float.ts';
import { simulatedFamily } from './chain/simulated/index.ts';
import { evmFamily } from './chain/evm/index.ts';
import { bitcoinFamily } from './chain/bitcoin/index.ts';
import { tronFamily } from './chain/tron/index.ts';
import { tonFamily } from './chain/ton/index.ts';
import { solanaFamily } from './chain/solana/index.ts';
import { moneroFamily } from './chain/monero/index.ts';
import { enqueueInvoiceWebhook, expireDue, reconcileInvoice } from './invoices/lifecycle.ts';
import { chooseCurrency, payerChoices, payerOptions } from './invoices/payer.ts';
import { onWalletTransfer } from './wallets/topups.ts';
import { walletTestWebhookFields } from './wallets/payer.ts';
import { forceRefundOutcome, walletRefundOutcome } from './wallets/refund-outcome.ts';
import { refundOutcome } from './refunds/outcome.ts';
import { onOutgoingEvent, onOutgoingReplaced, payoutOutcome } from './outgoing/lifecycle.ts';
import { payoutJob } from './outgoing/sender.ts';
import { recordUnmatched } from './unmatched/record.ts';
import { createMailer } from './mail/index.ts';
import { createInvoice } from './invoices/create.ts';
import { advanceRecurrences } from './recurrences/lifecycle.ts';
import { queuePullFallbackEmail, sendRecurrenceEmails } from './recurrences/emails.ts';
import { pullRenewals } from './recurrences/pulls.ts';

/** How long one step of the `recurrences` job (the pulls, the emails) takes new work each round. */
export const RECURRENCE_STEP_MS = 20_000;

/** Aborts at the step's deadline, or when the round's own signal does (shutdown). */
function stepSignal(round: AbortSignal): AbortSignal {
  return AbortSignal.any([round, AbortSignal.timeout(RECURRENCE_STEP_MS)]);
}

/** The chain families this gateway knows: one line each (src/chain/<family>/index.ts). */
export const families = new Families([
  simulatedFamily,
  evmFamily,
  bitcoinFamily,
  tronFamily,
  tonFamily,
  solanaFamily,
  moneroFamily,
]);

/** Every family's drivers, by the name a network's `driver` setting gives. */
export const driverFactories: DriverFactories = families.drivers();

/** The features as the layers below call them (who owns an address, what finishing an outgoing
 * payment means for each kind, the periodic jobs) and as they call each other. */
export const features: Features = {
  owners: {
    invoice: async (ctx, trx, invoiceId) => {
      await reconcileInvoice(ctx, trx, invoiceId);
    },
    wallet: onWalletTransfer,
    payout: onOutgoingEvent,
    payoutReplaced: onOutgoingReplaced,
    unmatched: async (ctx, t) => {
      await recordUnmatched(ctx, t);
    },
  },
  outcomes: {
    payout: payoutOutcome,
    refund: refundOutcome,
    wallet_refund: walletRefundOutcome,
    force_refund: forceRefundOutcome,
  },
  jobs: {
    expiry: (ctx) => expireDue(ctx),
    payouts: payoutJob,
    // Renewals first, then the automatic ones among them pulled from their allowances, then the
    // payer emails of those changes (and of cancels made through the API) queued. The pulls wait on
    // chain nodes and the emails on an SMTP server: each step takes new work for RECURRENCE_STEP_MS
    // at most (what is left is taken next round, the other jobs and networks never wait for it), and
    // none once the worker shuts down.
    recurrences: async (ctx, signal) => {
      let moved = await advanceRecurrences(ctx);
      if (!signal.aborted) moved += await pullRenewals(ctx, console, { fallback: queuePullFallbackEmail }, 100, stepSignal(signal));
      if (!signal.aborted) await sendRecurrenceEmails(ctx, 50, stepSignal(signal));
      return moved;
    },
  },
  invoices: {
    reconcile: reconcileInvoice,
    enqueueWebhook: enqueueInvoiceWebhook,
    payerChoices,
    payerOptions,
    choose: chooseCurrency,
    create: createInvoice,
  },
  wallets: {
    testWebhookFields: walletTestWebhookFields,
  },
};

export const DEFAULT_RATES_FILE = fileURLToPath(new URL('./rates/static-rates.json', import.meta.url));

/** Reports lost database connections, at most one line a second (an outage drops them all at once). */
function connectionLog(): (msg: string, err: unknown) => void {
  let last = 0;
  return (msg, err) => {
    if (Date.now() - last < 1000) return;
    last = Date.now();
    console.warn(`${msg}: ${err instanceof Error ? err.message : String(err)}`);
  };
}

/** A process starting while its database restarts (a supervisor restarting everything at once)
 * waits for it, up to a minute, instead of exiting. */
async function migrateWhenReachable(storage: Storage, waitMs: number): Promise<void> {
  const deadline = Date.now() + (Number.isFinite(waitMs) && waitMs > 0 ? waitMs : 0);
  for (let waited = false; ; waited = true) {
    try {
      await migrateToLatest(storage);
      return;
    } catch (err) {
      if (!(err instanceof DatabaseUnavailableError) || Date.now() > deadline) throw err;
      if (!waited) console.warn('database unavailable; waiting for it');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export async function createContext(
  given: Config,
  opts: { now?: () => number; rates?: Rates; drivers?: DriverFactories; log?: GatewayLog } = {},
): Promise<Ctx> {
  let config = given;
  const storage = openStorage({
    databaseUrl: config.databaseUrl,
    sqlitePath: join(config.dataDir, 'satchel.sqlite'),
    log: connectionLog(),
  });
  await migrateWhenReachable(storage, config.dbStartWaitMs);
  // Networks as their drivers' settings make them (a test chain's address prefixes and coin type).
  const registry = Registry.load(config.registryFile).withNetworks((n) => families.configuredNetwork(n, config.networks[n.code]));
  const now = opts.now ?? Date.now;
  // The engine reads the gateway's clock: a quote's age is measured as the invoice's times are.
  const rates: Rates = opts.rates ?? createRateService(config.rates, { defaultFile: DEFAULT_RATES_FILE, now });
  let seedBytes: Uint8Array | undefined;
  const seed = () => (seedBytes ??= mnemonicToSeedSync(config.mnemonic()));
  try {
    // Each watch-only network's payout float (its caps, its key file) is checked before anything
    // runs, and SATCHEL_PAYOUT_KEY_FILE written into the settings of those that take it.
    config = withPayoutFloats(config, registry, families);
    // A database bound to another seed is refused before anything derives from this one.
    await checkSeedRecord(storage, seed, registry, families.addresses);
  } catch (err) {
    await storage.close();
    throw err;
  }
  const chains = new Chains({ config, registry, storage, now, seed, families, factories: opts.drivers ?? driverFactories, log: opts.log });
  return { config, storage, registry, rates, merchants: new MerchantCache(storage.db), chains, features, now, seed, mail: createMailer(config.smtp) };
}
