// A start that finds the database away (restarting at the same moment, or not up yet) waits for it
// instead of exiting, for SATCHEL_DB_START_WAIT_MS; any other failure still ends the start at once.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DatabaseUnavailableError } from '../../src/errors.ts';
import { startGatewayWhenDatabaseAnswers, type Gateway } from '../../src/server.ts';

const config = loadConfig({ SATCHEL_DATA_DIR: '/nonexistent-not-used', LOG_LEVEL: 'silent' });
const gateway = { url: 'http://127.0.0.1:1' } as Gateway;

describe('starting while the database is away', () => {
  it('tries again while the database does not answer, saying so, then starts', async () => {
    const said: string[] = [];
    let calls = 0;
    const gw = await startGatewayWhenDatabaseAnswers(config, {
      waitMs: 10_000,
      retryMs: 5,
      say: (line) => said.push(line),
      start: async () => {
        if (++calls < 3) throw new DatabaseUnavailableError(new Error('terminating connection due to administrator command'));
        return gateway;
      },
    });
    expect(gw).toBe(gateway);
    expect(calls).toBe(3);
    expect(said).toEqual([
      'satchel: the database does not answer yet (terminating connection due to administrator command); trying again',
      'satchel: the database does not answer yet (terminating connection due to administrator command); trying again',
    ]);
  });

  it('gives up when the wait is over, with the database error', async () => {
    let calls = 0;
    const started = startGatewayWhenDatabaseAnswers(config, {
      waitMs: 60,
      retryMs: 10,
      start: async () => {
        calls++;
        throw new DatabaseUnavailableError(new Error('connect ECONNREFUSED'));
      },
    });
    await expect(started).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(calls).toBeGreaterThan(1);
  });

  it('does not try again after any other failure', async () => {
    let calls = 0;
    const started = startGatewayWhenDatabaseAnswers(config, {
      waitMs: 10_000,
      retryMs: 5,
      start: async () => {
        calls++;
        throw new Error('EADDRINUSE');
      },
    });
    await expect(started).rejects.toThrow('EADDRINUSE');
    expect(calls).toBe(1);
  });

  it('reads the wait from SATCHEL_DB_START_WAIT_MS, 60 s by default', () => {
    expect(config.dbStartWaitMs).toBe(60_000);
    expect(loadConfig({ SATCHEL_DATA_DIR: '/nonexistent-not-used', SATCHEL_DB_START_WAIT_MS: '5000' }).dbStartWaitMs).toBe(5000);
  });
});
