import type { Ctx } from '../../context.ts';

/** Hooks later capabilities fill in (static wallets know their address). */
export const simulatorHooks: {
  walletAddress?: (ctx: Ctx, walletId: string) => Promise<{ address: string; network: string; currency: string } | null>;
} = {};
