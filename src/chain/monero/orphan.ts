// The view-only wallet RPC left behind by a gateway that was killed (SIGKILL leaves its children
// running): ./wallets.ts keeps its child's pid and its own (the owner's) in a file of the wallet
// folder, "walletPid ownerPid", and before starting a new child stops the process that file names,
// but only when its owner is no longer alive (another gateway process sharing the data directory, or
// the old one of a rolling restart, still uses it) and /proc shows it is the monero-wallet-rpc binary
// serving this very wallet folder (a pid is reused by unrelated processes). A file of the older
// format (the wallet's pid alone) names no owner and is read as before. Without /proc (not Linux)
// nothing can be proven and nothing is stopped.
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

/** The pid file's text for the wallet RPC `walletPid` started by this process. */
export function pidFileText(walletPid: number): string {
  return `${walletPid} ${process.pid}\n`;
}

/** The wallet's pid and its owner's (null in the older one-number format); null when unreadable. */
export function parsePidFile(text: string): { pid: number; owner: number | null } | null {
  const m = /^\s*(\d+)(?:\s+(\d+))?\s*$/.exec(text);
  if (!m) return null;
  const pid = Number(m[1]);
  const owner = m[2] === undefined ? null : Number(m[2]);
  if (!Number.isSafeInteger(pid) || pid <= 1 || (owner !== null && (!Number.isSafeInteger(owner) || owner <= 0))) return null;
  return { pid, owner };
}

/** Whether process `pid` exists (one of another user counts: kill answers EPERM, not ESRCH). */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Stops the orphaned wallet RPC that `pidFile` names, if it is one of `dir` and its owner is gone;
 * removes the file then. A wallet RPC whose owner is alive is left running, and its file too.
 */
export async function reapOrphan(pidFile: string, dir: string, binary: string, log: Log): Promise<void> {
  if (!existsSync(pidFile)) return;
  const named = parsePidFile(readFileSync(pidFile, 'utf8'));
  if (named && named.owner !== null && isAlive(named.owner)) {
    log('info', 'monero: the view-only wallet RPC of another running gateway process uses this wallet folder: it is left running', { pid: named.pid, owner: named.owner, dir });
    return;
  }
  rmSync(pidFile, { force: true });
  if (!named || named.pid === process.pid) return;
  const pid = named.pid;
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
