// Every route of the dashboard's JSON API, by group.
export { authApi } from './auth.ts';
export { invoiceApi } from './invoices.ts';
export { moneyApi } from './money.ts';
export { walletApi } from './wallets.ts';
export { readinessApi } from './readiness.ts';
export { custodyApi } from './custody.ts';
export { unmatchedApi } from './unmatched.ts';
