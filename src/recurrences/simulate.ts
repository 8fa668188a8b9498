// Test mode (docs/simulator.md): `satchel simulate renew --recurrence <uuid>` and
// POST /simulator/recurrence/renew make an active recurrence's next period start now, so that its
// renewal invoice is made at once (the recurrence goes to `wait_payment`) without waiting a month.
import type { Ctx } from '../context.ts';
import { BusinessError, NotFoundError } from '../errors.ts';
import { renew } from './lifecycle.ts';

export async function simulateRenew(ctx: Ctx, uuid: string): Promise<{ recurrence: string; status: string; invoice: string }> {
  const id = uuid.toLowerCase();
  const rec = /^[0-9a-f-]{36}$/.test(id) ? await ctx.storage.db.selectFrom('recurrences').select(['id', 'status', 'network']).where('id', '=', id).executeTakeFirst() : undefined;
  if (!rec) throw new NotFoundError('Recurrence not found');
  if (rec.network && !ctx.chains.isTestNetwork(rec.network)) throw new BusinessError('The recurrence is paid on a network that is not simulated');
  if (rec.status !== 'active') throw new BusinessError(`Only an active recurrence can be renewed (this one is ${rec.status})`);
  // Only the next period moves: the ones after it keep their dates (they are counted from the anchor).
  await ctx.storage.write(async (trx) => {
    await trx.updateTable('recurrences').set({ next_due_at: ctx.now() }).where('id', '=', id).where('status', '=', 'active').execute();
  });
  const invoice = await renew(ctx, id);
  if (invoice === null) throw new BusinessError('The recurrence changed meanwhile; try again');
  return { recurrence: id, status: 'wait_payment', invoice };
}
