// widget/satchel.d.ts is what a TypeScript shop imports; it must describe exactly what the page
// sends. These checks run in `npm run typecheck` (a mismatch is a compile error) and in vitest.
import { describe, expectTypeOf, test } from 'vitest';
import type { PayerInvoice, PayerWallet } from '../../src/contracts/payer.ts';
import type { SatchelEvent, SatchelInvoice, SatchelWallet } from '../../widget/satchel.d.ts';

describe('widget typings', () => {
  test('the invoice and wallet in events are the payer API objects, field for field', () => {
    expectTypeOf<SatchelInvoice>().toEqualTypeOf<PayerInvoice>();
    expectTypeOf<SatchelWallet>().toEqualTypeOf<PayerWallet>();
  });

  test('events are narrowed by type', () => {
    expectTypeOf<Extract<SatchelEvent, { type: 'paid' }>['payload']>().toEqualTypeOf<SatchelInvoice>();
    expectTypeOf<Extract<SatchelEvent, { type: 'closed' }>['payload']>().toEqualTypeOf<{ reason: 'user' | 'api' }>();
  });
});
