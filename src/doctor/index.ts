// `satchel doctor`: whether this gateway is ready for real money, as a list of findings each with
// its fix. The checks live here, below the CLI, so that the dashboard's settings page can show the
// same lines; the CLI only prints them. Everything outside the process (the network, DNS, the
// clock) is reached through DoctorDeps, so the checks can be driven without a real network.
import type { Ctx } from '../context.ts';
import { nodeChecks, custodyChecks, floatChecks } from './chain.ts';
import { seedLeftoverChecks } from './leftovers.ts';
import { publicUrlChecks, webhookTargetChecks } from './endpoints.ts';
import { secretFileChecks } from './secrets.ts';
import { finding, type DoctorDeps, type Finding } from './finding.ts';

export type { DoctorDeps, Finding, Status } from './finding.ts';
export { finding } from './finding.ts';

export async function runDoctor(ctx: Ctx, deps: DoctorDeps): Promise<Finding[]> {
  const live = liveNetworks(ctx);
  const findings: Finding[] = [];
  findings.push(...(await publicUrlChecks(ctx, deps)));
  if (live.length === 0) {
    findings.push(finding('FAIL', 'networks', 'networks.simulated'));
  }
  findings.push(...(await nodeChecks(ctx, live)));
  findings.push(...(await custodyChecks(ctx, live)));
  findings.push(...(await floatChecks(ctx, live)));
  findings.push(...(await seedLeftoverChecks(ctx, live)));
  findings.push(...secretFileChecks(ctx.config));
  findings.push(backupCheck(ctx));
  findings.push(...(await webhookTargetChecks(ctx, live.length > 0, deps)));
  findings.push(await smtpCheck(ctx, deps));
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
  if (ctx.config.backup) return finding('OK', 'backups', 'backups.described', { backup: ctx.config.backup });
  if (ctx.config.databaseUrl) return finding('WARN', 'backups', 'backups.postgres');
  return finding('WARN', 'backups', 'backups.sqlite', { file: `${ctx.config.dataDir}/satchel.sqlite` });
}

/**
 * The mail server of `smtp_url` (src/mail): whether it accepts a connection from this host. Only
 * host and port are named, never the URL, whose user and password must not reach a screen.
 */
async function smtpCheck(ctx: Ctx, deps: DoctorDeps): Promise<Finding> {
  const smtp = ctx.config.smtp;
  if (!smtp) return finding('SKIP', 'smtp', 'smtp.off');
  const url = new URL(smtp.url); // checked when the configuration was read
  const host = url.hostname;
  const port = url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587;
  try {
    await deps.connect(host.startsWith('[') ? host.slice(1, -1) : host, port, SMTP_TIMEOUT_MS);
    return finding('OK', 'smtp', 'smtp.ok', { host, port });
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return finding('WARN', 'smtp', 'smtp.unreachable', { host, port, error: err?.code ?? err?.message ?? String(e) });
  }
}

const SMTP_TIMEOUT_MS = 5000;

/** 1 when any finding is FAIL, else 0 (for CI/CD). */
export function exitCode(findings: readonly Finding[]): number {
  return findings.some((f) => f.status === 'FAIL') ? 1 : 0;
}

/** `OK   name: detail`, with the fix after a WARN or FAIL. */
export function formatFinding(f: Finding): string {
  return `${f.status.padEnd(5)}${f.name}: ${f.detail}${f.fix ? `. Fix: ${f.fix}` : ''}`;
}
