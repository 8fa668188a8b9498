// What the gateway's log shows per request: one line at info for each merchant API call, and
// payer polls, health probes and metrics scrapes only at debug.
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

interface Line {
  level: number;
  msg: string;
  url?: string;
  method?: string;
  statusCode?: number;
}

async function gatewayLogging(level: string): Promise<{ gw: TestGateway; lines: Line[] }> {
  const lines: Line[] = [];
  // Logging does not depend on the storage: SQLite (always the first backend) is enough.
  const gw = await startTestGateway((await backends())[0]!, {
    env: { LOG_LEVEL: level },
    app: { logger: true, logStream: { write: (l: string) => void lines.push(JSON.parse(l) as Line) } },
  });
  return { gw, lines };
}

describe('request logs', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('at info: one line per merchant API call, nothing for polls, health, readiness or metrics', async () => {
    const t = await gatewayLogging('info');
    gw = t.gw;
    const created = await gw.api('/v1/payment', { amount: '10', currency: 'USD', order_id: 'log-1' });
    expect(created.status).toBe(200);
    const uuid = created.body.result.uuid as string;
    for (const url of [`/api/pay/${uuid}`, `/api/pay/${uuid}`, '/healthz', '/readyz', '/metrics']) {
      expect((await gw.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    }
    const requests = t.lines.filter((l) => l.msg === 'request' || /incoming request|request completed/.test(l.msg));
    expect(requests).toEqual([expect.objectContaining({ level: 30, msg: 'request', method: 'POST', url: '/v1/payment', statusCode: 200 })]);
  });

  it('at debug: the other requests show too, one line each', async () => {
    const t = await gatewayLogging('debug');
    gw = t.gw;
    expect((await gw.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const requests = t.lines.filter((l) => l.msg === 'request');
    expect(requests).toEqual([expect.objectContaining({ level: 20, url: '/healthz', statusCode: 200 })]);
  });
});
