// The view-only wallet RPC left behind by a gateway that was killed (SIGKILL leaves its children
// running): ./wallets.ts keeps its child's pid in a file of the wallet folder, and before starting a
// new child stops the process that file names, but only when /proc shows it is the
// monero-wallet-rpc binary serving this very wallet folder (a pid is reused by unrelated processes).
// Without /proc (not Linux) nothing can be proven and nothing is stopped.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename } from 'node:path';

type Log = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;

/** The command line of process `pid`, or null when it is gone (or a zombie, or unreadable). */
function commandLine(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (/\)\s+[ZX]\s/.test(stat)) return null;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    return argv.length > 0 ? argv : null;
  } catch {
    return null;
  }
}

/** Whether `argv` is `binary` (by name) started with --wallet-dir=`dir`. */
export function isWalletRpcOf(argv: readonly string[], binary: string, dir: string): boolean {
  const name = basename(binary);
  return argv.length > 0 && basename(argv[0]!) === name && argv.includes(`--wallet-dir=${dir}`);
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (commandLine(pid) === null) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return commandLine(pid) === null;
}

/** Stops the orphaned wallet RPC that `pidFile` names, if it is one of `dir`; removes the file. */
export async function reapOrphan(pidFile: string, dir: string, binary: string, log: Log): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) return;
  const argv = commandLine(pid);
  if (!argv || !isWalletRpcOf(argv, binary, dir)) return;
  log('warn', 'monero: a view-only wallet RPC left by a gateway that did not stop cleanly is stopped', { pid, dir });
  try {
    process.kill(pid, 'SIGTERM');
    if (await gone(pid, 15_000)) return;
    process.kill(pid, 'SIGKILL');
    await gone(pid, 5_000);
  } catch {
    /* it went away by itself */
  }
}
