// Configuration rules a user meets at start-up.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { ROOT } from './helpers/spawn.ts';
import { TEST_MNEMONIC } from './helpers/gateway.ts';

const REAL_ETH = JSON.stringify({ ETH: { driver: 'evm', rpc_url: 'http://127.0.0.1:9', chain_id: 1 } });

describe('test mode beside a real network', () => {
  it('start-up refuses SATCHEL_SIMULATOR=1 with a real network, naming the setting', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'satchel-config-'));
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, SATCHEL_DATA_DIR: dataDir, SATCHEL_SIMULATOR: '1', SATCHEL_NETWORKS: REAL_ETH, PORT: '0', DATABASE_URL: '' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('SATCHEL_SIMULATOR');
      expect(r.stderr).toContain('ETH');
      expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
      expect(r.stdout).not.toContain('listening');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the config file setting is refused the same way; without it a real network switches test mode off', () => {
    expect(() => loadConfig({ SATCHEL_SIMULATOR: 'true', SATCHEL_NETWORKS: REAL_ETH, SATCHEL_CONFIG: '' })).toThrow(ConfigError);
    expect(loadConfig({ SATCHEL_NETWORKS: REAL_ETH, SATCHEL_CONFIG: '' }).simulator).toBe(false);
    expect(loadConfig({ SATCHEL_SIMULATOR: '0', SATCHEL_NETWORKS: REAL_ETH, SATCHEL_CONFIG: '' }).simulator).toBe(false);
    expect(loadConfig({ SATCHEL_CONFIG: '' }).simulator).toBe(true);
    expect(loadConfig({ SATCHEL_SIMULATOR: '1', SATCHEL_CONFIG: '', SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'simulated' } }) }).simulator).toBe(true);
  });
});

describe('simulated money beside a real network', () => {
  it('a database that holds simulator payments is not started with a real network', async () => {
    const { startGateway } = await import('../src/server.ts');
    const dataDir = mkdtempSync(join(tmpdir(), 'satchel-config-'));
    const env = { SATCHEL_DATA_DIR: dataDir, SATCHEL_MNEMONIC: TEST_MNEMONIC, PORT: '0', DATABASE_URL: '', SATCHEL_CONFIG: '', LOG_LEVEL: 'warn' };
    try {
      // A test-mode run: the simulator pays an address of the gateway.
      const test = await startGateway(loadConfig(env), { logger: false });
      const paid = await test.app.inject({
        method: 'POST',
        url: '/simulator/pay',
        payload: { address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', network: 'TRON', currency: 'USDT', amount: '5' },
      });
      expect(paid.statusCode).toBe(200);
      await test.close();
      // The same database with a real network: refused, naming what to do.
      const live = startGateway(loadConfig({ ...env, SATCHEL_NETWORKS: REAL_ETH }), { logger: false });
      await expect(live).rejects.toThrow(ConfigError);
      await expect(live).rejects.toThrow(/simulator.*fresh database/);
      // A fresh database with the same real network starts.
      const fresh = mkdtempSync(join(tmpdir(), 'satchel-config-'));
      try {
        const gw = await startGateway(loadConfig({ ...env, SATCHEL_DATA_DIR: fresh, SATCHEL_NETWORKS: REAL_ETH }), { logger: false, createDemo: false });
        await gw.close();
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a network switched off', () => {
  it('enabled must be true or false; anything else is refused, naming the setting', () => {
    expect(() => loadConfig({ SATCHEL_NETWORKS: '{"BTC":{"enabled":"no"}}', SATCHEL_CONFIG: '' })).toThrow('networks.BTC.enabled must be true or false');
    expect(loadConfig({ SATCHEL_NETWORKS: '{"BTC":{"enabled":false}}', SATCHEL_CONFIG: '' }).networks.BTC?.enabled).toBe(false);
  });
});
