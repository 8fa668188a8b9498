// A failure as the owner reads it: a refusal the dashboard API names by its code
// (src/contracts/dashboard/codes.ts DASHBOARD_ERROR_CODES) in the user's language; a refusal
// particular to the request (no code, or one this dashboard does not know) as the server wrote it.
import { INPUT_ERROR_CODES, type DashboardErrorCode, type InputErrorCode } from '../contracts/dashboard/codes.ts';
import { ApiError } from './api.ts';
import { t, type MessageKey } from './i18n/index.ts';

const KEYS: Record<DashboardErrorCode | 'bad_answer', MessageKey> = {
  session_required: 'err_session_required',
  bad_credentials: 'err_bad_credentials',
  csrf: 'err_csrf',
  role_forbidden: 'err_role_forbidden',
  password_missing: 'err_password_missing',
  password_wrong: 'err_password_wrong',
  link_expired: 'err_link_expired',
  key_changed: 'err_key_changed',
  login_throttled: 'err_login_throttled',
  too_large: 'err_too_large',
  validation: 'err_validation',
  not_found: 'err_not_found',
  bad_answer: 'err_bad_answer',
  ...(Object.fromEntries(INPUT_ERROR_CODES.map((c) => [c, `err_${c}`])) as Record<InputErrorCode, `err_${InputErrorCode}`>),
};

/** Whether the failure is said in the user's language (else its text is the server's own). */
export function translatedError(err: ApiError): boolean {
  return (err.code !== null && Object.hasOwn(KEYS, err.code)) || err.code === 'http_status';
}

/** The text of a failure; `fallback` for one that is not the API's (the network failed). */
export function errorText(err: unknown, fallback: MessageKey = 'went_wrong'): string {
  if (!(err instanceof ApiError)) return t(fallback);
  if (err.code === 'http_status') return t('err_http', { status: String(err.status) });
  if (err.code !== null && Object.hasOwn(KEYS, err.code)) return t(KEYS[err.code as keyof typeof KEYS], err.params);
  return err.message;
}
