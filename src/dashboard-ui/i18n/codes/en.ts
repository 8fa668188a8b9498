// What the server sends as a code with params, worded in the browser: refusals of user input
// (src/contracts/dashboard/codes.ts INPUT_ERROR_CODES, as err_<code>), a custody change's warnings
// (custody.ts CUSTODY_WARNINGS, as rc_warn_<code>), and every other language's words of the
// readiness findings (src/contracts/dashboard/readiness-text.ts). English needs no findings table:
// the server's own text is the English one. Every other language has its own codes/<code>.ts,
// bundled into that language's chunk.
import type { ReadinessText } from '../../../contracts/dashboard/readiness-text.ts';

export const enCodes = {
  err_bad_date: '{field} must be a date written as YYYY-MM-DD.',
  err_bad_cursor: 'This page of the list is no longer valid: go back to the first page.',
  err_unknown_status: 'Unknown status: {status}.',
  err_unknown_currency: 'Unknown currency: {currency}.',
  err_unknown_network: 'Unknown network: {network}.',
  err_search_too_long: 'The search is too long.',
  err_logo_missing: 'Choose a PNG, JPEG or WebP file.',
  err_logo_too_large: 'The logo must be at most 256 KB.',
  err_logo_not_base64: 'The logo could not be read: choose the file again.',
  err_bad_email: 'Enter a valid email address.',
  err_email_taken: 'A user with the email {email} already exists.',
  err_bad_role: 'Choose a role: owner, viewer or admin.',
  err_admin_has_merchant: 'An instance admin belongs to no shop.',
  err_merchant_required: 'An owner or viewer needs a shop.',
  err_unknown_merchant: 'There is no shop {merchant}.',
  err_password_empty: 'Enter a password.',
  err_password_short: 'The password needs at least {min} characters.',
  err_password_long: 'The password can have at most {max} characters.',
  err_bad_language: 'Choose one of the languages offered.',
  err_bad_delivery_filter: 'Show all, failed, pending or delivered webhooks.',
  err_webhook_delivered: 'This webhook was delivered; resend it from its invoice instead.',
  err_webhook_superseded: 'A newer webhook about the same thing was delivered already; resend it from there instead.',
  err_webhook_in_flight: 'This webhook is being delivered right now.',
  rc_warn_contract_address: 'The cold address {address} is a contract on {network}, not a plain account: make sure it can receive the native coin and every token you accept.',
  rc_warn_hot_custody: '{network} runs in hot custody on this gateway: payments go to addresses of the gateway’s own seed, and this material is used only once the operator sets the network to watch-only.',
} as const;

export type CodeMessages = Record<keyof typeof enCodes, string>;

/** A language's words of what the server sends as codes. */
export interface LanguageCodes {
  messages: CodeMessages;
  readiness: ReadinessText;
}
