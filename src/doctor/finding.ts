// What a doctor check answers (a finding: OK, WARN, FAIL or SKIP, with the fix), and what the checks
// reach outside the process through, so that they can be driven without a real network.
import { ENGLISH_READINESS, fillEnglish, renderFinding, type CheckCode, type FindingCode, type FindingParams } from '../contracts/dashboard/readiness-text.ts';

export type Status = 'OK' | 'WARN' | 'FAIL' | 'SKIP';
export type { CheckCode, FindingCode, FindingParams };

export interface Finding {
  status: Status;
  /** What was checked, as a stable code (`node`, `public_url`): the dashboard names it in the owner's language. */
  check: CheckCode;
  /** What was found, as a stable code (`node.behind`): the dashboard words detail and fix from it. */
  code: FindingCode;
  /** The values inside the sentences (a network code, a URL, a count). */
  params: FindingParams;
  /** What was checked, in English, e.g. `public URL`, `node ETH`. */
  name: string;
  detail: string;
  /** What to do about a WARN or FAIL. */
  fix?: string;
}

/**
 * A finding with its English words rendered from the one table of codes
 * (src/contracts/dashboard/readiness-text.ts), which the dashboard translates.
 */
export function finding(status: Status, check: CheckCode, code: FindingCode, params: FindingParams = {}): Finding {
  const words = renderFinding(ENGLISH_READINESS, fillEnglish, { check, code, params })!;
  return { status, check, code, params, ...words };
}

export interface DoctorDeps {
  /** GET a URL (the public URL's /healthz); resolves with the HTTP status. */
  get(url: string, timeoutMs: number): Promise<number>;
  /** The addresses a host name resolves to. */
  lookup(host: string): Promise<string[]>;
  /** Opens (and closes) a TCP connection; rejects when it cannot. */
  connect(host: string, port: number, timeoutMs: number): Promise<void>;
}
