// `satchel user ...`: dashboard users from the command line. No password is ever typed here:
// create and reset-password print a one-time link where the user chooses it.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { openStorage } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { UserInputError } from '../dashboard/errors.ts';
import { createUser, disableUser, findUserByEmail, issueSetPasswordLink, listUsers, setPasswordUrl } from '../dashboard/users.ts';
import { audit } from '../dashboard/audit.ts';
import { isUuid } from '../contracts/rules.ts';
import { databaseLabel } from './where.ts';

export const USER_USAGE = `  user create --merchant <uuid> --email E --role owner|viewer   print a one-time set-password link
  user create --email E --role admin       an instance admin (sees every merchant)
  user reset-password --email E            print a new one-time link (the old password keeps working until used)
  user list [--merchant <uuid>] [--json]   dashboard users
  user disable --email E                   refuse sign-in and end the user's sessions`;

type Out = { log: (s: string) => void; error: (s: string) => void };

export async function userCli(action: string | undefined, args: string[], out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { merchant: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: false,
  });
  if (!['create', 'reset-password', 'list', 'disable'].includes(action ?? '')) {
    out.error(`Usage: satchel <command>\n${USER_USAGE}`);
    return 2;
  }
  const config = loadConfig(env);
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
  const cli = { userId: null, email: 'cli', ip: null };
  try {
    await migrateToLatest(storage);
    const now = Date.now();
    if (values.merchant !== undefined && !isUuid(values.merchant)) throw new UserInputError('--merchant needs a merchant uuid.');
    const merchantId = values.merchant?.toLowerCase() ?? null;
    if (action === 'list') {
      const users = await listUsers(storage.db, merchantId ?? undefined);
      if (values.json) {
        out.log(JSON.stringify(users.map((u) => ({ id: u.id, email: u.email, role: u.role, merchant: u.merchant_id, disabled: u.disabled === 1, has_password: u.password_hash !== null }))));
      } else if (users.length === 0) {
        out.log(`No dashboard users${merchantId ? ` of merchant ${merchantId}` : ''} in ${databaseLabel(config)}.`);
      } else {
        for (const u of users) out.log(`${u.email}  ${u.role.padEnd(6)}  ${u.disabled ? 'disabled' : u.password_hash ? 'active  ' : 'invited '}  ${u.merchant_id ?? '(all merchants)'}`);
      }
      return 0;
    }
    if (!values.email) throw new UserInputError(`user ${action} needs --email E`);
    if (action === 'create') {
      const user = await createUser(storage, { merchantId, email: values.email, role: values.role }, now);
      const link = setPasswordUrl(config.publicUrl, await issueSetPasswordLink(storage, user.id, now));
      await audit(storage.db, cli, { merchantId: user.merchant_id, action: 'user_create', target: user.email, detail: { role: user.role } }, now);
      out.log(values.json ? JSON.stringify({ id: user.id, email: user.email, role: user.role, link }) : `${user.email} (${user.role}) created. Set the password within 24 hours at:\n${link}`);
      return 0;
    }
    const user = await findUserByEmail(storage.db, values.email);
    if (!user) throw new UserInputError(`No user ${values.email}.`);
    if (action === 'reset-password') {
      if (user.disabled) throw new UserInputError(`${user.email} is disabled.`);
      const link = setPasswordUrl(config.publicUrl, await issueSetPasswordLink(storage, user.id, now));
      await audit(storage.db, cli, { merchantId: user.merchant_id, action: 'user_reset_link', target: user.email }, now);
      out.log(values.json ? JSON.stringify({ email: user.email, link }) : `Set a new password for ${user.email} within 24 hours at:\n${link}`);
      return 0;
    }
    await disableUser(storage, user.id, now);
    await audit(storage.db, cli, { merchantId: user.merchant_id, action: 'user_remove', target: user.email }, now);
    out.log(`${user.email} disabled`);
    return 0;
  } catch (e) {
    if (e instanceof UserInputError) {
      out.error(e.message);
      return 2;
    }
    throw e;
  } finally {
    await storage.close();
  }
}
