// /simulator/*: the payment simulator over HTTP (only for simulated networks; see docs/simulator.md).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Ctx } from '../../context.ts';
import { jsonBody } from '../json-body.ts';
import { toBoolean, type Input } from '../../contracts/rules.ts';
import {
  SimulatorError,
  simulateConfirm,
  simulateDrop,
  simulateExpire,
  simulatePay,
  simulatePayAddress,
} from '../../simulator/payments.ts';
import { walletAddress } from '../../wallets/payer.ts';
import { simulateRenew } from '../../recurrences/simulate.ts';

/** A simulator parameter's text, or undefined when it is not a non-empty string. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Registers a simulator route: JSON in, `{state:0,result}` out, SimulatorError as 404/422. */
export function simulatorRoute(app: FastifyInstance, path: string, run: (input: Input) => Promise<unknown>): void {
  app.post(path, async (req, reply: FastifyReply) => {
    const input = jsonBody(req);
    if (input === null) return reply.code(400).send({ state: 1, message: 'Malformed JSON' });
    try {
      return reply.send({ state: 0, result: await run(input) });
    } catch (e) {
      if (e instanceof SimulatorError) return reply.code(e.status).send({ state: 1, message: e.message });
      throw e;
    }
  });
}

export async function simulatorRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  const route = (path: string, run: (input: Input) => Promise<unknown>) => simulatorRoute(app, path, run);
  route('/simulator/pay', async (i) => {
    const mode = str(i.mode);
    if (mode !== undefined && !['full', 'partial', 'over'].includes(mode)) throw new SimulatorError('mode must be full, partial or over');
    if (str(i.invoice)) {
      // The payer's choice, for an invoice that has none yet (as `satchel simulate pay --currency --network`).
      for (const k of ['currency', 'network'] as const) {
        if (i[k] !== undefined && str(i[k]) === undefined) throw new SimulatorError(`${k} must be a code such as USDT or TRON`);
      }
      return simulatePay(ctx, {
        currency: str(i.currency),
        network: str(i.network),
        invoice: str(i.invoice)!,
        amount: str(i.amount),
        mode: mode as 'full' | 'partial' | 'over' | undefined,
        unconfirmed: toBoolean(i.unconfirmed, false),
      });
    }
    if (str(i.wallet)) {
      const w = await walletAddress(ctx, str(i.wallet)!);
      if (!w) throw new SimulatorError('Wallet not found', 404);
      return simulatePayAddress(ctx, { ...w, amount: str(i.amount) ?? '', unconfirmed: toBoolean(i.unconfirmed, false) });
    }
    if (str(i.address) && str(i.network) && str(i.currency) && str(i.amount)) {
      return simulatePayAddress(ctx, {
        address: str(i.address)!,
        network: str(i.network)!,
        currency: str(i.currency)!,
        amount: str(i.amount)!,
        unconfirmed: toBoolean(i.unconfirmed, false),
      });
    }
    throw new SimulatorError('Pass invoice, wallet, or address with network, currency and amount');
  });
  route('/simulator/confirm', async (i) => simulateConfirm(ctx, { invoice: str(i.invoice) ?? '' }));
  route('/simulator/drop', async (i) => simulateDrop(ctx, { invoice: str(i.invoice) ?? '' }));
  route('/simulator/expire', async (i) => simulateExpire(ctx, { invoice: str(i.invoice) ?? '' }));
  route('/simulator/recurrence/renew', async (i) => {
    const recurrence = str(i.recurrence);
    if (recurrence === undefined) throw new SimulatorError('Pass recurrence: the uuid of an active recurrence');
    return simulateRenew(ctx, recurrence);
  });
}
