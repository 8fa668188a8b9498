// `satchel doctor`: whether this gateway is ready for real money, as a list of findings each with
// its fix. The checks live here, below the CLI, so that the dashboard's settings page can show the
// same lines; the CLI only prints them. Everything outside the process (the network, DNS, the
// clock) is reached through DoctorDeps, so the checks can be driven without a real network.
import type { Ctx } from '../context.ts';
import { nodeChecks, custodyChecks, floatChecks } from './chain.ts';
import { seedLeftoverChecks } from './leftovers.ts';
import { publicUrlChecks, webhookTargetChecks } from './endpoints.ts';
import { secretFileChecks } from './secrets.ts';
import type { DoctorDeps, Finding } from './finding.ts';

export type { DoctorDeps, Finding, Status } from './finding.ts';

export async function runDoctor(ctx: Ctx, deps: DoctorDeps): Promise<Finding[]> {
  const live = liveNetworks(ctx);
  const findings: Finding[] = [];
  findings.push(...(await publicUrlChecks(ctx, deps)));
  if (live.length === 0) {
    findings.push({
      status: 'FAIL',
      name: 'networks',
      detail: 'every network runs on the simulated chain (test mode): no real payment can arrive',
      fix: 'configure a real driver for each network you accept (SATCHEL_NETWORKS, docs/networks.md)',
    });
  }
  findings.push(...(await nodeChecks(ctx, live)));
  findings.push(...(await custodyChecks(ctx, live)));
  findings.push(...(await floatChecks(ctx, live)));
  findings.push(...(await seedLeftoverChecks(ctx, live)));
  findings.push(...secretFileChecks(ctx.config));
  findings.push(backupCheck(ctx));
  findings.push(...(await webhookTargetChecks(ctx, live.length > 0, deps)));
  findings.push({ status: 'SKIP', name: 'smtp', detail: 'the gateway sends no email' });
  return findings;
}

/** The networks configured with a real driver. */
export function liveNetworks(ctx: Ctx): string[] {
  return Object.keys(ctx.config.networks)
    .map((c) => c.toUpperCase())
    .filter((c) => ctx.registry.network(c) && !ctx.chains.isSimulated(c))
    .sort();
}

function backupCheck(ctx: Ctx): Finding {
  if (ctx.config.backup) return { status: 'OK', name: 'backups', detail: ctx.config.backup };
  const what = ctx.config.databaseUrl
    ? 'the PostgreSQL database (pg_dump, or continuous archiving)'
    : `${ctx.config.dataDir}/satchel.sqlite (sqlite3 satchel.sqlite ".backup FILE" works while the gateway runs)`;
  return {
    status: 'WARN',
    name: 'backups',
    detail: `nothing says how ${what} is backed up`,
    fix: 'back it up regularly, with the HD seed stored apart, then describe how in SATCHEL_BACKUP (config file: "backup")',
  };
}

/** 1 when any finding is FAIL, else 0 (for CI/CD). */
export function exitCode(findings: readonly Finding[]): number {
  return findings.some((f) => f.status === 'FAIL') ? 1 : 0;
}

/** `OK   name: detail`, with the fix after a WARN or FAIL. */
export function formatFinding(f: Finding): string {
  return `${f.status.padEnd(5)}${f.name}: ${f.detail}${f.fix ? `. Fix: ${f.fix}` : ''}`;
}
