// A lying node cannot hurt the gateway: for each family, a gateway whose only real network runs
// against a fake node on 127.0.0.1 that reports impossible heads (past 2^53, 2^63, negative, hex
// with junk, floats, strings) or a head that flaps far ahead for a few polls. The gateway keeps
// answering, shows the network faulty in /readyz and /metrics while it lies, saves no cursor from
// a lie, and once the node is sane again resumes where it really was and finds a payment made
// meanwhile.
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startGateway, type Gateway } from './gateway-setup.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { Decimal } from '../../src/money/decimal.ts';
import { FakeChain, Raw, startFakeNode, type Family, type FakeNode } from './fake-nodes.ts';

interface Case {
  family: Family;
  network: string;
  currency: string;
  decimals: number;
  start: number;
  settings: (url: string) => Record<string, unknown>;
  /** Impossible heads, as the node's JSON carries them. */
  lies: unknown[];
}

const cases: Case[] = [
  {
    family: 'evm',
    network: 'ETH',
    currency: 'ETH',
    decimals: 18,
    start: 1000,
    settings: (url) => ({ driver: 'evm', rpc_url: url, chain_id: 31337, confirmations: 1 }),
    lies: ['0x20000000000040', '0x1fffffffffffff', '0x8000000000000000', '-0x1', '0x3e8zz', '1000', new Raw(1000), 1000.5, '0x', null, { n: 1 }],
  },
  {
    family: 'bitcoin',
    network: 'BTC',
    currency: 'BTC',
    decimals: 8,
    start: 1000,
    settings: (url) => ({ driver: 'bitcoin-core', rpc_url: url, chain: 'regtest', confirmations: 1 }),
    lies: [9007199254741000, 2 ** 53 - 1, 2n ** 63n, -1, 1000.5, '1000', '0x3e8', null],
  },
  {
    family: 'tron',
    network: 'TRON',
    currency: 'TRX',
    decimals: 6,
    start: 5000,
    settings: (url) => ({ driver: 'tron', api_url: url, confirmations: 1, custody: 'hot' }),
    lies: [9007199254741000, 2 ** 53 - 1, 2n ** 63n, -1, 5000.5, '5000', null],
  },
];

const [backend] = await backends();

describe.each(cases)('a lying $family node ($network)', (c) => {
  let g: Gateway | null = null;
  let node: FakeNode | null = null;
  afterEach(async () => {
    await g?.close();
    await node?.close();
    g = node = null;
  });

  async function start(chain: FakeChain): Promise<Gateway> {
    node = await startFakeNode(c.family, chain);
    g = await startGateway(backend!, { env: { SATCHEL_NETWORKS: JSON.stringify({ [c.network]: c.settings(node.url) }) } });
    return g;
  }

  /** One worker round; what it logged as errors (a faulty node's round fails, the gateway does not). */
  async function tick(gw: Gateway): Promise<string[]> {
    const errors: string[] = [];
    const started = Date.now();
    await createWorkers(gw.ctx, { error: (o: { err?: Error }) => errors.push(String(o.err?.message ?? JSON.stringify(o))) }).tick();
    // Bounded: the old scan never came back (a loop stuck past 2^53). Loose, for a loaded machine.
    expect(Date.now() - started).toBeLessThan(20_000);
    return errors;
  }

  async function health(gw: Gateway) {
    const healthz = await gw.app.inject('/healthz');
    const readyz = await gw.app.inject('/readyz');
    const metrics = (await gw.app.inject('/metrics')).body;
    const faulty = new RegExp(`^satchel_chain_node_faulty\\{network="${c.network}"\\} (\\d)$`, 'm').exec(metrics)?.[1];
    return { healthz: healthz.statusCode, ready: readyz.statusCode, faults: readyz.json().faulty_nodes as Record<string, { reason: string }>, faulty };
  }

  async function cursor(gw: Gateway): Promise<number | null> {
    const row = await gw.ctx.storage.db.selectFrom('scan_cursors').select('block_number').where('network', '=', c.network).executeTakeFirst();
    return row ? Number(row.block_number) : null;
  }

  it('refuses every impossible head, from the first scan on, and saves no cursor from it', async () => {
    const chain = new FakeChain(c.start);
    const gw = await start(chain);
    for (const lie of c.lies) {
      chain.says = lie;
      const errors = await tick(gw);
      expect(errors.join('\n'), `head ${String(lie)}`).toMatch(/the node answered/);
      expect(await cursor(gw), `head ${String(lie)}`).toBeNull();
      const h = await health(gw);
      expect(h).toMatchObject({ healthz: 200, ready: 503, faulty: '1' });
      expect(h.faults[c.network]!.reason).toMatch(/the node answered/);
    }
    chain.says = undefined;
    expect(await tick(gw)).toEqual([]);
    expect(await health(gw)).toMatchObject({ healthz: 200, ready: 200, faults: {}, faulty: '0' });
    expect(await cursor(gw)).toBeLessThanOrEqual(c.start);
  });

  it('a head that jumps far ahead for a few polls, then back: faulty meanwhile, then resumes and finds the payment made meanwhile', async () => {
    const chain = new FakeChain(c.start);
    const gw = await start(chain);
    expect(await tick(gw)).toEqual([]);
    const created = await gw.api('/v1/payment', { amount: '1', currency: c.currency, network: c.network, order_id: `lie-${c.family}` });
    expect(created.status).toBe(200);
    const { uuid, address, payer_amount } = created.body.result as { uuid: string; address: string; payer_amount: string };

    chain.says = 1_000_000;
    for (let i = 0; i < 3; i++) {
      const errors = await tick(gw);
      expect(errors.join('\n')).toMatch(/head jumped/);
      expect(await health(gw)).toMatchObject({ healthz: 200, ready: 503, faulty: '1' });
      if (i === 0) chain.pay(address, Decimal.parse(payer_amount).toBaseUnits(c.decimals)); // paid while the node lies
    }
    expect(await cursor(gw)).toBeLessThan(chain.real);

    chain.says = undefined;
    chain.real += 1;
    expect(await tick(gw)).toEqual([]);
    expect(await health(gw)).toMatchObject({ healthz: 200, ready: 200, faults: {}, faulty: '0' });
    expect(await cursor(gw)).toBe(chain.real);
    const info = await gw.api('/v1/payment/info', { uuid });
    expect(info.body.result.payment_status).toBe('paid');
  });

  it('a block with a malformed amount is refused as a faulty answer, and the payment is found once the node serves it sanely', async () => {
    const chain = new FakeChain(c.start);
    const gw = await start(chain);
    expect(await tick(gw)).toEqual([]);
    const created = await gw.api('/v1/payment', { amount: '1', currency: c.currency, network: c.network, order_id: `junk-${c.family}` });
    const { uuid, address, payer_amount } = created.body.result as { uuid: string; address: string; payer_amount: string };
    chain.junk = true;
    chain.pay(address, Decimal.parse(payer_amount).toBaseUnits(c.decimals));
    expect((await tick(gw)).join('\n')).toMatch(/the node answered/);
    expect(await health(gw)).toMatchObject({ healthz: 200, ready: 503, faulty: '1' });
    expect(await cursor(gw)).toBe(c.start);
    chain.junk = false;
    expect(await tick(gw)).toEqual([]);
    expect(await health(gw)).toMatchObject({ ready: 200, faulty: '0' });
    expect((await gw.api('/v1/payment/info', { uuid })).body.result.payment_status).toBe('paid');
  });

  it('a head that falls back deeper than a reorganisation is faulty until the node catches up again', async () => {
    const chain = new FakeChain(c.start);
    const gw = await start(chain);
    expect(await tick(gw)).toEqual([]);
    chain.says = c.start - 400;
    expect((await tick(gw)).join('\n')).toMatch(/head went back/);
    expect(await health(gw)).toMatchObject({ ready: 503, faulty: '1' });
    expect(await cursor(gw)).toBe(c.start);
    chain.says = undefined;
    expect(await tick(gw)).toEqual([]);
    expect(await health(gw)).toMatchObject({ ready: 200, faulty: '0' });
  });
});
