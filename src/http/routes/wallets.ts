import type { V1 } from '../merchant-api.ts';
import { blockWallet, createStaticWallet, walletQr } from '../../wallets/create.ts';
import { blockedAddressRefund } from '../../wallets/blocked-refund.ts';

export function walletRoutes(v1: V1): void {
  const { ctx } = v1;
  v1.post('/v1/wallet', async ({ input, merchant }) => createStaticWallet(ctx, merchant, input));
  v1.post('/v1/wallet/qr', async ({ input, merchant }) => walletQr(ctx, merchant.id, input), { forbidIfBlocked: false });
  v1.post('/v1/wallet/block-address', async ({ input, merchant }) => blockWallet(ctx, merchant.id, input), { forbidIfBlocked: false });
  v1.post('/v1/wallet/blocked-address-refund', async ({ input, merchant }) => blockedAddressRefund(ctx, merchant.id, input));
}
