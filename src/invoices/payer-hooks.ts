import type { Ctx } from '../context.ts';

/** Filled by the static-wallets capability: the payer's view of a wallet, or null. */
export const payerHooks: {
  walletView?: (ctx: Ctx, uuid: string) => Promise<Record<string, unknown> | null>;
} = {};
