// `satchel merchant set --merchant ID [--refund-key payout|either] [--payer-emails on|off]`: merchant
// settings that are not the public profile. The change is written to the dashboard's audit log with the actor `cli`, as
// the dashboard writes its own, so an owner sees who widened the refund key and when.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { openStorage } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { audit } from '../dashboard/audit.ts';
import { isUuid } from '../contracts/rules.ts';
import { findMerchant, parseRefundKeySetting, payerEmailsOn, refundKeySetting, setPayerEmails, setRefundKeySetting } from '../merchants/store.ts';

export const MERCHANT_SET_USAGE = `  merchant set --merchant <uuid> [--refund-key payout|either] [--payer-emails on|off]
                                         which key may sign refunds (either: the payment key too; see docs/api.md);
                                         whether payers get subscription emails (docs/recurring.md)`;

type Out = { log: (s: string) => void; error: (s: string) => void };

export async function merchantSetCli(args: string[], out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: { merchant?: string; 'refund-key'?: string; 'payer-emails'?: string };
  try {
    ({ values } = parseArgs({ args, options: { merchant: { type: 'string' }, 'refund-key': { type: 'string' }, 'payer-emails': { type: 'string' } }, allowPositionals: false }));
  } catch (e) {
    out.error(e instanceof Error ? e.message : String(e));
    return 2;
  }
  if (!values.merchant || !isUuid(values.merchant)) {
    out.error('merchant set needs --merchant <uuid>');
    return 2;
  }
  // Every option given is checked before anything is written: a typo in one of them refuses the
  // whole command, so `--payer-emails on --refund-key eiter` does not turn the emails on and quietly
  // skip the refund key.
  const emails = values['payer-emails'];
  if (emails !== undefined && emails !== 'on' && emails !== 'off') {
    out.error(`--payer-emails takes on or off, not "${emails}"; nothing was changed`);
    return 2;
  }
  const refundKey = values['refund-key'];
  const setting = refundKey === undefined ? null : parseRefundKeySetting(refundKey);
  if (refundKey !== undefined && !setting) {
    out.error(`--refund-key takes payout or either, not "${refundKey}"; nothing was changed`);
    return 2;
  }
  if (!setting && emails === undefined) {
    out.error('merchant set needs --refund-key payout|either or --payer-emails on|off');
    return 2;
  }
  const config = loadConfig(env);
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
  try {
    await migrateToLatest(storage);
    const id = values.merchant.toLowerCase();
    const merchant = await findMerchant(storage.db, id);
    if (!merchant) {
      out.error(`No merchant ${values.merchant}`);
      return 2;
    }
    const cli = { userId: null, email: 'cli', ip: null };
    if (emails !== undefined) {
      const was = payerEmailsOn(merchant) ? 'on' : 'off';
      await setPayerEmails(storage.db, id, emails === 'on');
      await audit(storage.db, cli, { merchantId: id, action: 'payer_emails', target: emails, detail: { from: was, to: emails } }, Date.now());
      out.log(
        emails === 'on'
          ? `Payers of ${id} who give an email when subscribing now get the subscription emails${config.smtp ? '' : ' (once SMTP is configured: smtp_url, smtp_from)'}.`
          : `Payers of ${id} get no subscription emails.`,
      );
    }
    if (!setting) return 0;
    const before = refundKeySetting(merchant);
    await setRefundKeySetting(storage.db, id, setting);
    await audit(storage.db, cli, { merchantId: id, action: 'refund_key', target: setting, detail: { from: before, to: setting } }, Date.now());
    out.log(
      setting === 'either'
        ? `Refunds of ${id} may now be signed with the payout key or the payment key. Whoever holds the payment key can refund paid invoices (up to the amount paid) to any address.`
        : `Refunds of ${id} must be signed with the payout key.`,
    );
    return 0;
  } finally {
    await storage.close();
  }
}
