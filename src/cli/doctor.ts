// `satchel doctor [--json]`: prints the findings of src/doctor/ one a line (`OK   name: detail`),
// or as JSON, and exits 1 when any is FAIL so a deployment pipeline can stop on it.
import { parseArgs } from 'node:util';
import { ConfigError, type Config } from '../config.ts';
import type { Ctx } from '../context.ts';
import { DatabaseUnavailableError } from '../errors.ts';
import { exitCode, finding, formatFinding, runDoctor, type DoctorDeps, type Finding } from '../doctor/index.ts';
import { realDeps } from '../doctor/deps.ts';
import { databaseLabel } from './where.ts';

export const DOCTOR_USAGE = `  doctor [--json]                        is this gateway ready for real money? OK/WARN/FAIL per check, exit 1 on a FAIL`;

type Out = { log: (s: string) => void; error: (s: string) => void };


/** `open` builds the gateway's context (the composition root's createContext), `deps` the outside world. */
export async function doctorCli(args: string[], config: Config, out: Out, open: () => Promise<Ctx>, deps: DoctorDeps = realDeps): Promise<number> {
  let json: boolean | undefined;
  try {
    ({ values: { json } } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } }));
  } catch (e) {
    out.error(`${(e as Error).message}\nUsage:\n${DOCTOR_USAGE}`);
    return 2;
  }
  let findings: Finding[];
  try {
    const ctx = await open();
    try {
      findings = await runDoctor(ctx, deps);
    } finally {
      await ctx.chains.close();
      await ctx.storage.close();
    }
  } catch (e) {
    // A gateway that cannot start is the first thing to fix: said in the same form.
    if (e instanceof ConfigError) findings = [finding('FAIL', 'start', 'start.config', { error: e.message })];
    else if (e instanceof DatabaseUnavailableError) findings = [finding('FAIL', 'database', 'database.down', { database: databaseLabel(config) })];
    else throw e;
  }
  if (json) out.log(JSON.stringify(findings));
  else for (const f of findings) out.log(formatFinding(f));
  return exitCode(findings);
}
