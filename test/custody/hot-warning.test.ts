// Starting a real network in hot custody logs one warning (docs/custody.md, "The custody setting"):
// a gateway started as `npm start` starts it (src/server.ts), with ETH on anvil, says once at start
// that whoever copies the seed can spend what ETH receives, and not again while it serves; in
// watch-only custody (the default of a real driver) it says nothing of the kind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { backends, type Backend } from '../helpers/backends.ts';
import { STATIC_RATES } from '../helpers/gateway.ts';
import { CHAIN_ID, startAnvil, type Anvil } from '../chain/evm/anvil.ts';
import { GATEWAY_MNEMONIC } from '../chain/gateway-setup.ts';

interface Line {
  level: number;
  msg: string;
  networks?: string[];
}
const WARN = 40;

describe.each(await backends())('the hot-custody warning at start, on $name', (backend: Backend) => {
  let anvil: Anvil;
  let db: Awaited<ReturnType<Backend['create']>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-hot-warning-'));

  beforeAll(async () => {
    anvil = await startAnvil({ automine: true });
    db = await backend.create();
  });
  afterAll(async () => {
    await anvil?.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the gateway with ETH in `custody`, makes a few requests, stops it: the log lines. */
  async function run(custody: 'hot' | 'watch-only'): Promise<Line[]> {
    const lines: Line[] = [];
    const config = loadConfig({
      SATCHEL_DATA_DIR: dataDir,
      SATCHEL_MNEMONIC: GATEWAY_MNEMONIC,
      SATCHEL_PUBLIC_URL: 'https://pay.example.test',
      SATCHEL_ROLE: 'api',
      PORT: '0',
      LOG_LEVEL: 'info',
      SATCHEL_RATES: STATIC_RATES,
      SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'evm', custody, rpc_url: anvil.url, chain_id: CHAIN_ID, confirmations: 2 } }),
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    });
    const gw: Gateway = await startGateway(config, { createDemo: false, logStream: { write: (l) => void lines.push(JSON.parse(l) as Line) } });
    try {
      for (let i = 0; i < 3; i++) expect((await gw.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await gw.close();
    }
    return lines;
  }
  const hotLines = (lines: Line[]) => lines.filter((l) => /hot custody/.test(l.msg));

  it('hot custody on a real network: one warning at start, naming the network and the risk', async () => {
    const hot = hotLines(await run('hot'));
    expect(hot).toHaveLength(1);
    expect(hot[0]).toMatchObject({ level: WARN, networks: ['ETH'] });
    expect(hot[0]!.msg).toContain('hot custody on ETH');
    expect(hot[0]!.msg).toContain('whoever copies it can spend what they receive');
    expect(hot[0]!.msg).toContain('"custody": "watch-only"');
  });

  it('watch-only custody: no such warning', async () => {
    const lines = await run('watch-only');
    expect(lines.length).toBeGreaterThan(0);
    expect(hotLines(lines)).toEqual([]);
  });
});
