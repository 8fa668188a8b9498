// What a doctor check answers (a finding: OK, WARN, FAIL or SKIP, with the fix), and what the checks
// reach outside the process through, so that they can be driven without a real network.
export type Status = 'OK' | 'WARN' | 'FAIL' | 'SKIP';

export interface Finding {
  status: Status;
  /** What was checked, e.g. `public URL`, `node ETH`. */
  name: string;
  detail: string;
  /** What to do about a WARN or FAIL. */
  fix?: string;
}

export interface DoctorDeps {
  /** GET a URL (the public URL's /healthz); resolves with the HTTP status. */
  get(url: string, timeoutMs: number): Promise<number>;
  /** The addresses a host name resolves to. */
  lookup(host: string): Promise<string[]>;
  /** Opens (and closes) a TCP connection; rejects when it cannot. */
  connect(host: string, port: number, timeoutMs: number): Promise<void>;
}
