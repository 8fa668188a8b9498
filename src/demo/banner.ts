// The first start's demo merchant as the operator sees it: its id, keys and a request to paste.
// Printed once by `npm start`, and again by `satchel merchant show` while the keys are unchanged,
// so a banner scrolled away is not a merchant lost.
import type { Merchant } from '../merchants/store.ts';
import { signBody } from '../webhooks/signature.ts';

export function demoBanner(config: { publicUrl: string }, m: Merchant): string {
  return ['Satchel created a demo merchant (shown once; keep the keys):', ...merchantKeyLines(config.publicUrl, m)].join('\n');
}

/** The merchant's id, both keys and a ready-to-run signed request that creates an invoice. */
export function merchantKeyLines(publicUrl: string, m: Merchant): string[] {
  const body = JSON.stringify({ amount: '15', currency: 'USD', order_id: 'demo-1' });
  const sign = signBody(body, m.payment_key);
  return [
    `  merchant id:  ${m.id}`,
    `  payment key:  ${m.payment_key}`,
    `  payout key:   ${m.payout_key}`,
    'Create an invoice:',
    `  curl -s ${publicUrl}/v1/payment -H 'Content-Type: application/json' \\`,
    `    -H 'merchant: ${m.id}' -H 'sign: ${sign}' \\`,
    `    -d '${body}'`,
  ];
}
