// Webhook resends and test webhooks.
import { signedRoute, type SignedRouteGroup } from '../signed-api.ts';
import { resendWebhookOp, resendWebhookV2Op, testPaymentWebhookOp, testPayoutWebhookOp, testWalletWebhookOp } from '../../contracts/merchant-api/webhooks.ts';
import { resendPaymentWebhook } from '../../webhooks/resend.ts';
import { sendTestWebhook } from '../../test-webhooks/send.ts';

export const webhookRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, resendWebhookOp, async ({ params, merchant }) => {
    await resendPaymentWebhook(ctx, merchant, params);
    return [];
  });
  // The provider's current documentation (and SDKs that follow it) resend through v2, by txid too.
  signedRoute(app, resendWebhookV2Op, async ({ params, merchant }) => {
    await resendPaymentWebhook(ctx, merchant, params);
    return [];
  });
  for (const [kind, op] of [['payment', testPaymentWebhookOp], ['payout', testPayoutWebhookOp], ['wallet', testWalletWebhookOp]] as const) {
    signedRoute(app, op, async ({ params, merchant, req }) => {
      const r = await sendTestWebhook(ctx, merchant, kind, params);
      // The merchant gets [] whatever its receiver did; the outcome is only logged.
      req.log.info({ kind, httpStatus: r.httpStatus, latencyMs: r.latencyMs, error: r.error }, 'test webhook sent');
      return [];
    });
  }
};
