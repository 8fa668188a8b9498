// `satchel flush --network ETH [--token 0xCONTRACT ...]`: flushes every forwarder of a watch-only
// EVM network that holds something confirmed, now, to its merchant's cold address, one transaction
// per forwarder paid by the network's relayer key, and prints each. `--token` adds an ERC-20 the
// registry does not know (the gateway reports those when they reach a forwarder); the configured
// tokens and the native coin are always included. Runs under the network's scanner lock, so that
// it never interleaves with a worker's poll; the worker follows the transactions to their
// confirmations afterwards.
import { parseArgs } from 'node:util';
import { isAddress } from 'viem';
import type { ChainDriver } from '../chain/contract.ts';
import type { CustodyMode } from '../chain/network-settings.ts';
import type { Storage } from '../db/dialect.ts';

export const FLUSH_USAGE = `  flush --network CODE [--token 0xCONTRACT ...] [--json]
                                         move what every forwarder of a watch-only EVM or TRON network holds to its cold address now
                                         (--token: also an ERC-20 the registry does not know)`;

type Out = { log: (s: string) => void; error: (s: string) => void };

/** What a flush reports (a driver whose deposit addresses are forwarders: EvmDriver.flush). */
interface FlushReport {
  sent: Array<{ txid: string; forwarder: string; cold: string; moved: Array<{ currency: string; amount: string }> }>;
  notes: string[];
}

/** A driver that flushes: its deposit addresses are forwarders to the merchants' cold addresses. */
interface Flushing {
  custody: CustodyMode;
  flush(req: { everyForwarder: boolean; tokens?: readonly string[] }): Promise<FlushReport | string[]>;
}

function flushing(d: ChainDriver): d is ChainDriver & Flushing {
  return typeof (d as Partial<Flushing>).flush === 'function' && typeof (d as Partial<Flushing>).custody === 'string';
}

/** What the command needs of the gateway's context (the composition root's createContext). */
export interface FlushContext {
  chains: { driver(code: string): ChainDriver; custodyMode(code: string): CustodyMode; close(): Promise<void> };
  storage: Pick<Storage, 'withLock' | 'close'>;
}

/** How long the command waits for a worker's poll of the network to finish. */
const LOCK_WAIT_MS = 30_000;

export async function flushCli(args: string[], out: Out, open: () => Promise<FlushContext>): Promise<number> {
  let values: { network?: string; token?: string[]; json?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { network: { type: 'string' }, token: { type: 'string', multiple: true }, json: { type: 'boolean', default: false } },
      allowPositionals: false,
    }));
  } catch (e) {
    out.error(`${(e as Error).message}\nUsage:\n${FLUSH_USAGE}`);
    return 2;
  }
  if (!values.network) {
    out.error(`flush needs --network CODE\nUsage:\n${FLUSH_USAGE}`);
    return 2;
  }
  const bad = (values.token ?? []).filter((t) => !isAddress(t, { strict: false }));
  if (bad.length) {
    out.error(`--token takes a token contract address (0x and 40 hex digits): ${bad.join(', ')}`);
    return 2;
  }
  const code = values.network.toUpperCase();
  const ctx = await open();
  try {
    let driver: ChainDriver;
    try {
      driver = ctx.chains.driver(code);
    } catch (e) {
      out.error((e as Error).message);
      return 2;
    }
    if (!flushing(driver)) {
      out.error(`${code} has no forwarders to flush: its driver (${driver.kind}) does not flush (EVM and TRON networks in watch-only custody do)`);
      return 2;
    }
    if (ctx.chains.custodyMode(code) !== 'watch-only' || driver.custody !== 'watch-only') {
      out.error(`${code} is in hot custody: its deposit addresses are swept to the hot wallet, not flushed`);
      return 2;
    }
    const flusher = driver;
    let locked: { value: FlushReport | string[] } | null;
    try {
      locked = await ctx.storage.withLock(`scan:${code}`, LOCK_WAIT_MS, () => flusher.flush({ everyForwarder: true, tokens: values.token }));
    } catch (e) {
      // What stands in the way, in the driver's words (no relayer key, a wrong factory).
      out.error((e as Error).message);
      return 1;
    }
    if (locked === null) {
      out.error(`Another process has been scanning ${code} for ${LOCK_WAIT_MS / 1000} s: try again`);
      return 1;
    }
    // The TRON driver answers the transaction ids it sent.
    const report: FlushReport = Array.isArray(locked.value) ? { sent: locked.value.map((txid) => ({ txid, forwarder: '', cold: '', moved: [] })), notes: [] } : locked.value;
    return print(code, report, values.json === true, out);
  } finally {
    await ctx.chains.close();
    await ctx.storage.close();
  }
}

function print(code: string, report: FlushReport, json: boolean, out: Out): number {
  if (json) {
    out.log(JSON.stringify(report));
  } else {
    for (const s of report.sent) {
      out.log(s.forwarder ? `${s.txid}  ${s.forwarder} -> ${s.cold}  ${s.moved.map((m) => `${m.amount} ${m.currency}`).join(', ')}` : s.txid);
    }
    for (const n of report.notes) out.error(n);
    if (report.sent.length === 0 && report.notes.length === 0) out.log(`No forwarder of ${code} holds anything confirmed to flush.`);
  }
  // Nothing sent because something stands in the way (no relayer, no gas, the factory on its way).
  return report.sent.length === 0 && report.notes.length > 0 ? 1 : 0;
}
