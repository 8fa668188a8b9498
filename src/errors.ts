// Domain errors and the spec's messages, letter for letter, in one place.

export const Msg = {
  forbidden: 'You are forbidden',
  networkNotFound: 'The network was not found',
  currencyNotFound: 'The currency was not found',
  toCurrencyNotFound: 'Not found service to_currency',
  convertFailed: 'Error convert to_currency',
  minAmount: (min: string, currency: string) => `Minimum amount ${min} ${currency}`,
  maxAmount: (max: string, currency: string) => `Maximum amount ${max} ${currency}`,
  walletNotFound: 'Wallet not found',
  gatewayError: 'Gateway error',
  terminalNotFound: 'The terminal was not found',
  serverError: 'Server error',
  serviceNotFound: 'The service was not found',
  withdrawalTooSmall: 'The withdrawal amount is too small',
  notEnoughFunds: 'Not enough funds',
  notEnoughForConvert: (from: string, to: string) => `Not enough balance for convert ${from} to ${to}`,
  paymentNotFound: 'Payment not found',
  notificationNotFound: 'Notification not found',
  tooMuchResend: 'Too much resend',
  refundPaymentNotFound: 'Payment was not found',
  undefinedMerchantWallet: 'Undefined merchant wallet',
  refundOnlyCompleted: 'Refunds are made only for completed payments',
  refundTooMuch: 'The refund amount should not be more than the amount paid',
  noUserWallet: 'No found user wallet',
  merchantWalletNotFound: 'Merchant wallet not found',
  notFound: 'Not found',
  withdrawOnlyOnce: 'You can withdraw only once',
  refundInProcess: 'Refund is in process',
  nothingToWithdraw: 'Nothing to withdraw',
  amountTooSmall: 'The amount is too small',
  testPaymentNotFound: 'Not found payment',
  testPayoutNotFound: 'Not found payout',
  testWalletNotFound: 'Not found wallet',
  paymentServiceNotFound: 'Payment service not found',
  payoutServiceNotFound: 'Payout service not found',
  invalidSign: 'Invalid Sign.',
} as const;

/**
 * A business rule refused the request: HTTP 422 {"state":1,"message":...}, plus `"code"` when
 * given (the payer API's refusals, which the payment page words in the payer's language).
 */
export class BusinessError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'BusinessError';
  }
}

/** Parameters failed validation: HTTP 422 {"state":1,"errors":{param:[code]}}. */
export class ValidationError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super('Validation failed');
    this.name = 'ValidationError';
  }
}

/** A public resource (payer API) does not exist: HTTP 404. */
export class NotFoundError extends Error {
  constructor(message = 'Not found') {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** Authentication failed: HTTP 401 {"state":1,"message":"Invalid Sign."}. */
export class AuthError extends Error {
  constructor() {
    super(Msg.invalidSign);
    this.name = 'AuthError';
  }
}

/** The database cannot be reached (restarting, failing over, connection dropped): HTTP 503 with the
 * server failure envelope; workers leave the job for their next round. The transaction in flight did not commit, or (when
 * the connection dropped during COMMIT) its outcome is unknown, which is why every write can be
 * repeated safely. */
export class DatabaseUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('Database unavailable', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}
