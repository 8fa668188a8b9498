import { expect, test } from '@playwright/test';
import { startGatewayProcess, type E2EGateway } from './support/gateway.ts';

let gw: E2EGateway;
test.beforeAll(async () => {
  gw = await startGatewayProcess();
});
test.afterAll(async () => {
  await gw?.stop();
});

test('the invoice url opens the payment page with the amount to pay', async ({ page }) => {
  const created = await gw.api('/v1/payment', { amount: '15', currency: 'USDT', network: 'TRON', order_id: 'smoke-1' });
  expect(created.state).toBe(0);
  await page.goto(created.result.url);
  await expect(page.getByText(created.result.address).first()).toBeVisible();
});
