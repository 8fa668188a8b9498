// The dashboard's static wallets (list, detail, block, refund of blocked funds), its webhooks view
// with "retry now", and the merchant's default URLs.
import * as z from 'zod/mini';
import { decimal, get, keysetPage, NoBody, post, text } from './route.ts';
import { Delivery, DeliveryList } from './webhooks.ts';

const maybeText = z.nullable(z.string());

export const ListedWallet = z.object({
  id: z.string(),
  order_id: z.string(),
  currency: z.string(),
  network: z.string(),
  address: z.string(),
  status: z.string(),
  refund_status: maybeText,
  created_at: z.number(),
});
export type ListedWallet = z.infer<typeof ListedWallet>;

export const WalletDetail = z.object({
  wallet: z.object({
    uuid: z.string(),
    wallet_uuid: z.string(),
    order_id: z.string(),
    address: z.string(),
    network: z.string(),
    currency: z.string(),
    url: z.string(),
    status: z.string(),
    is_force_refund: z.boolean(),
    url_callback: maybeText,
    refund_status: maybeText,
    blocked_at: z.nullable(z.number()),
    created_at: z.number(),
  }),
  topups: z.array(
    z.object({
      txid: z.string(),
      idx: z.number(),
      network: z.string(),
      currency: z.string(),
      amount: decimal,
      confirmations: z.number(),
      confirmations_needed: z.nullable(z.number()),
      status: z.string(),
      seen_at: z.number(),
      explorer: maybeText,
      outcome: maybeText,
      merchant_amount: z.nullable(decimal),
      commission: z.nullable(decimal),
    }),
  ),
  refund: z.nullable(
    z.object({
      id: z.string(),
      amount: decimal,
      payer_amount: z.nullable(decimal),
      currency: z.string(),
      address: z.string(),
      status: z.string(),
      txid: maybeText,
      created_at: z.number(),
    }),
  ),
  webhooks: z.array(Delivery),
  can: z.object({ block: z.boolean(), refund: z.boolean() }),
});
export type WalletDetail = z.infer<typeof WalletDetail>;

export const DefaultUrls = z.object({ url_callback: maybeText, url_return: maybeText, url_success: maybeText });
export type DefaultUrls = z.infer<typeof DefaultUrls>;

export const walletApi = {
  wallets: get('/wallets', keysetPage(ListedWallet), { query: ['q', 'status', 'currency', 'network', 'after'] }),
  wallet: get('/wallets/:id', WalletDetail),
  block: post('/wallets/:id/block', 'manage', z.object({ is_force_refund: z.optional(z.boolean()) }), z.object({ uuid: z.string(), status: z.literal('blocked') })),
  refund: post('/wallets/:id/refund', 'manage', z.object({ address: text }), z.object({ commission: decimal, amount: decimal })),
  webhooks: get('/webhooks', DeliveryList, { query: ['show', 'after'] }),
  retry: post('/webhooks/:id/retry', 'manage', NoBody, z.object({ due: z.number() })),
  settings: get('/settings', DefaultUrls),
  saveSettings: post('/settings', 'manage', z.object({ url_callback: text, url_return: text, url_success: text }), DefaultUrls),
} as const;
