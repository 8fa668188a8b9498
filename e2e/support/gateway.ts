// A real gateway process for browser tests: its own SQLite folder, a free port, a merchant, and a
// signed client for the merchant API.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/compose.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { startScript, type Proc } from '../../test/helpers/spawn.ts';

export const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface E2EGateway {
  url: string;
  merchant: Merchant;
  dataDir: string;
  /** POST to the signed merchant API; resolves to the parsed JSON envelope. */
  api(path: string, body: unknown, key?: 'payment' | 'payout'): Promise<any>;
  stop(): Promise<void>;
}

export async function startGatewayProcess(opts: { host?: string; env?: Record<string, string> } = {}): Promise<E2EGateway> {
  const host = opts.host ?? '127.0.0.1';
  const port = await freePort(host);
  const url = `http://${host}:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-e2e-'));
  const env = {
    HOST: host,
    PORT: String(port),
    SATCHEL_DATA_DIR: dataDir,
    SATCHEL_PUBLIC_URL: url,
    SATCHEL_MNEMONIC: MNEMONIC,
    SATCHEL_WORKER_INTERVAL_MS: '100',
    SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1',
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const setup = await createContext(loadConfig(env));
  const merchant = await createMerchant(setup.storage.db, 'E2E shop');
  await setup.storage.close();
  const proc: Proc = await startScript('src/main.ts', env);
  return {
    url,
    merchant,
    dataDir,
    async api(path, body, key = 'payment') {
      const raw = JSON.stringify(body);
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', merchant: merchant.id, sign: signBody(raw, key === 'payout' ? merchant.payout_key : merchant.payment_key) },
        body: raw,
      });
      return res.json();
    },
    async stop() {
      await proc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
