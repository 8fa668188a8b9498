import type { V1 } from '../merchant-api.ts';
import { resendPaymentWebhook } from '../../webhooks/resend.ts';
import { sendTestWebhook, type TestWebhookKind } from '../../test-webhooks/send.ts';

export function webhookRoutes(v1: V1): void {
  const { ctx } = v1;
  v1.post(
    '/v1/payment/resend',
    async ({ input, merchant }) => {
      await resendPaymentWebhook(ctx, merchant, input);
      return [];
    },
    { forbidIfBlocked: false },
  );
  // The provider's current documentation (and SDKs that follow it) resend through v2, by txid too.
  v1.post(
    '/v2/payment/resend',
    async ({ input, merchant }) => {
      await resendPaymentWebhook(ctx, merchant, input, { byTxid: true });
      return [];
    },
    { forbidIfBlocked: false },
  );
  for (const kind of ['payment', 'payout', 'wallet'] as const satisfies readonly TestWebhookKind[]) {
    v1.post(
      `/v1/test-webhook/${kind}`,
      async ({ input, merchant, req }) => {
        const r = await sendTestWebhook(ctx, merchant, kind, input);
        // The merchant gets [] whatever its receiver did; the outcome is only logged.
        req.log.info({ kind, httpStatus: r.httpStatus, latencyMs: r.latencyMs, error: r.error }, 'test webhook sent');
        return [];
      },
      { forbidIfBlocked: false },
    );
  }
}
