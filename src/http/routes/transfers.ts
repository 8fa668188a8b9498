import type { V1 } from '../merchant-api.ts';
import { transfer } from '../../transfers/transfer.ts';

export function transferRoutes(v1: V1): void {
  const { ctx } = v1;
  v1.post('/v1/transfer/to-business', async ({ input, merchant }) => transfer(ctx, merchant, 'to-business', input));
  v1.post('/v1/transfer/to-personal', async ({ input, merchant }) => transfer(ctx, merchant, 'to-personal', input));
}
