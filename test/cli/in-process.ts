// Runs a `satchel` command in the test's process, on a test gateway's database (the environment
// it reads is the gateway's), and keeps what it printed. Faster than a process per command.
import { runCli } from '../../src/cli/main.ts';
import type { TestGateway } from '../helpers/gateway.ts';

export async function satchel(gw: TestGateway, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  process.env.SATCHEL_DATA_DIR = gw.config.dataDir;
  process.env.SATCHEL_MNEMONIC = gw.config.mnemonic();
  process.env.SATCHEL_PUBLIC_URL = gw.config.publicUrl;
  process.env.DATABASE_URL = gw.config.databaseUrl ?? '';
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { log: (s) => out.push(s), error: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
