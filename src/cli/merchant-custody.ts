// `satchel merchant custody set|show`: what a merchant's payments are received into on each
// watch-only network (docs/custody.md). A set is the same change as the dashboard's (src/custody/
// change.ts): audited with the actor `cli` and announced by the merchant's `custody_changed`
// webhook. Replacing material that exists needs --yes, since every later payment goes elsewhere.
// Whatever the merchant pasted is never printed back when it is refused: it may be a private key.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import type { Ctx } from '../context.ts';
import { isUuid } from '../contracts/rules.ts';
import { CLI_ACTOR } from '../custody/audit.ts';
import { changeCustody } from '../custody/change.ts';
import { receivingOverview } from '../custody/overview.ts';
import { CustodyError } from '../custody/store.ts';
import type { CustodyInput } from '../chain/family.ts';
import { CliInputError, merchantArg, type Out } from './api.ts';

export const MERCHANT_CUSTODY_USAGE = `  merchant custody set [--merchant <uuid>] --network N (--xpub X | --descriptor D | --address A [--view-key K]) [--yes]
                                         what the merchant receives into on a watch-only network (--yes: replace what is set;
                                         --view-key: the wallet's private view key beside its primary address, where the network takes one, e.g. XMR)
  merchant custody show [--merchant <uuid>]  each network's custody, the merchant's material, who set it, addresses derived`;

/** A readable UTC time for the operator's terminal. */
function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export async function merchantCustodyCli(action: string | undefined, args: string[], config: Config, out: Out, open: (config: Config) => Promise<Ctx>): Promise<number> {
  if (action !== 'set' && action !== 'show') {
    out.error(`Usage:\n${MERCHANT_CUSTODY_USAGE}`);
    return 2;
  }
  let values: { merchant?: string; network?: string; xpub?: string; descriptor?: string; address?: string; 'view-key'?: string; yes?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: {
        merchant: { type: 'string' },
        network: { type: 'string' },
        xpub: { type: 'string' },
        descriptor: { type: 'string' },
        address: { type: 'string' },
        'view-key': { type: 'string' },
        yes: { type: 'boolean', default: false },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    // Node's message quotes the argument it could not place, which may be the pasted key: say
    // what is wrong without it.
    const msg = e instanceof Error ? e.message : '';
    const option = /Unknown option '(--?[a-z-]+)'/.exec(msg)?.[1];
    out.error(option ? `merchant custody ${action}: unknown option ${option}` : `merchant custody ${action}: an option is missing its value (--xpub, --descriptor, --address and --view-key each take one)`);
    return 2;
  }
  if (positionals.length > 0) {
    out.error(`merchant custody ${action} takes no bare arguments: give the material after --xpub, --descriptor or --address`);
    return 2;
  }
  if (values.merchant !== undefined && !isUuid(values.merchant)) {
    out.error(`merchant custody ${action} needs --merchant <uuid>`);
    return 2;
  }
  if (action === 'set') {
    if (!values.network) {
      out.error('merchant custody set needs --network N (the network code, e.g. ETH or LTC)');
      return 2;
    }
    const input: CustodyInput = {};
    if (values.xpub !== undefined) input.xpub = values.xpub;
    if (values.descriptor !== undefined) input.descriptor = values.descriptor;
    if (values.address !== undefined) input.address = values.address;
    if (values['view-key'] !== undefined && values.address === undefined) {
      out.error('merchant custody set: --view-key goes with --address (the primary address of the same wallet)');
      return 2;
    }
    if (Object.keys(input).length !== 1) {
      out.error('merchant custody set needs exactly one of --xpub, --descriptor or --address');
      return 2;
    }
  }
  const ctx = await open(config);
  try {
    let merchantId: string;
    try {
      // Without --merchant: the only merchant there is (the first start's demo), as other commands.
      merchantId = (await merchantArg(ctx.storage.db, values.merchant)).id;
    } catch (e) {
      if (!(e instanceof CliInputError)) throw e;
      out.error(e.message);
      return 2;
    }
    if (action === 'show') {
      out.log(await describeCustody(ctx, merchantId));
      return 0;
    }
    const network = values.network!.trim().toUpperCase();
    const { xpub, descriptor, address } = values;
    const viewKey = values['view-key'];
    const input: CustodyInput = xpub !== undefined ? { xpub } : descriptor !== undefined ? { descriptor } : viewKey !== undefined ? { address: address!, viewKey } : { address: address! };
    try {
      const r = await changeCustody(ctx, { merchantId, network, input, actor: 'cli', by: CLI_ACTOR, replace: values.yes === true });
      if (r.warning) out.error(`Warning: ${r.warning}`);
      if (r.outcome === 'unchanged') {
        out.log(`${r.network} of ${merchantId}: unchanged (already receives into ${r.current.summary}); nothing was written or sent.`);
        return 0;
      }
      out.log(
        r.outcome === 'set'
          ? `${r.network} of ${merchantId} now receives into ${r.current.summary}.`
          : `${r.network} of ${merchantId} now receives into ${r.current.summary} (was ${r.old!.summary}). Invoices made before keep their addresses.`,
      );
      out.log(
        r.webhookUrl
          ? `The custody_changed webhook is queued for ${r.webhookUrl}.`
          : 'No custody_changed webhook was queued: the merchant has no default callback URL (dashboard Settings, Default URLs).',
      );
      return 0;
    } catch (e) {
      if (!(e instanceof CustodyError)) throw e;
      out.error(e.problem === 'confirm_replace' ? `${e.message}: run again with --yes. Nothing was changed.` : `${e.message}. Nothing was stored.`);
      return 2;
    }
  } finally {
    await ctx.chains.close();
    await ctx.storage.close();
  }
}

/** The text of `merchant custody show`. */
export async function describeCustody(ctx: Ctx, merchantId: string): Promise<string> {
  const rows = await receivingOverview(ctx, merchantId);
  if (rows.length === 0) return `merchant: ${merchantId}\nNo real network is configured: every network is simulated and receives into the gateway's seed.`;
  const lines = [`merchant: ${merchantId}`];
  for (const r of rows) {
    lines.push(`${r.network}  ${r.mode}`);
    if (r.mode === 'hot') lines.push('  receives into addresses of the gateway\'s own seed (hot custody)');
    if (r.current) {
      lines.push(`  receives into: ${r.current.summary}`);
      lines.push(`  set ${when(r.current.set_at)} by ${r.current.set_by}; ${r.current.derived} deposit address${r.current.derived === 1 ? '' : 'es'} derived from it`);
    } else if (r.mode === 'watch-only') {
      lines.push(`  no material: not offered to payers; it takes ${r.accepts ?? 'material this gateway cannot read yet'}`);
    }
  }
  return lines.join('\n');
}
