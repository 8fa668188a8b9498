// HTTP calls of the payment page. Every response is validated against src/contracts/payer.ts.
import {
  INITIAL_VIEW_ID,
  InitialView,
  PayerAllowanceEnvelope,
  PayerErrorEnvelope,
  PayerInvoiceEnvelope,
  PayerRecurrenceEnvelope,
  PayerWalletEnvelope,
  SimulateResponseEnvelope,
  SubscribeResponseEnvelope,
  payerApiPaths,
  type ChooseRequest,
  type PayerAllowance,
  type PayerInvoice,
  type PayerRecurrence,
  type PayerWallet,
  type SimulateInvoiceRequest,
  type SimulateWalletRequest,
  type SubscribeRequest,
} from '../contracts/payer.ts';
import type { Route } from './route.ts';

import { ApiError } from '../ui-kit/api-error.ts';

export { ApiError };

export type Payable = PayerInvoice | PayerWallet | PayerRecurrence;

export type LoadResult<T> = { changed: true; data: T; etag: string | null } | { changed: false };

// Plain fetch: polling has its own back-off, so nothing retries here; errors are read from the
// envelope; a request that hangs is given up after 15 s (the caller's signal may end it sooner).
function request(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; signal?: AbortSignal | undefined }): Promise<Response> {
  const timeout = AbortSignal.timeout(15_000);
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  return fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    cache: 'no-store',
    signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
  });
}

interface Envelope<T> {
  parse(data: unknown): { result: T };
}

async function readResult<T>(response: Response, envelope: Envelope<T>): Promise<T> {
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return envelope.parse(body).result;
  const error = PayerErrorEnvelope.safeParse(body);
  throw new ApiError(response.status, error.success ? error.data.message : `HTTP ${response.status}`, null, (error.success && error.data.code) || null);
}

/** Reads the invoice or wallet; `etag` makes it a conditional request (304 = unchanged). */
export async function loadPayable(
  route: Route,
  etag: string | null,
  signal?: AbortSignal,
): Promise<LoadResult<Payable>> {
  const path = payerApiPaths[route.kind](route.uuid);
  const headers: Record<string, string> = etag ? { 'if-none-match': etag } : {};
  const response = await request(absolute(path), { headers, signal });
  if (response.status === 304) return { changed: false };
  const data: Payable =
    route.kind === 'wallet'
      ? await readResult(response, PayerWalletEnvelope)
      : route.kind === 'recurrence'
        ? await readResult(response, PayerRecurrenceEnvelope)
        : await readResult(response, PayerInvoiceEnvelope);
  return { changed: true, data, etag: response.headers.get('etag') };
}

export async function chooseCurrency(
  uuid: string,
  choice: ChooseRequest,
): Promise<{ data: PayerInvoice; etag: string | null }> {
  const response = await request(absolute(payerApiPaths.choose(uuid)), { method: 'POST', json: choice });
  return { data: await readResult(response, PayerInvoiceEnvelope), etag: response.headers.get('etag') };
}

/** The payer subscribes to a recurrence: the first period's invoice (the recurrence is read again after). */
export async function subscribeRecurrence(uuid: string, body: SubscribeRequest): Promise<PayerInvoice> {
  const response = await request(absolute(payerApiPaths.subscribe(uuid)), { method: 'POST', json: body });
  return (await readResult(response, SubscribeResponseEnvelope)).invoice;
}

/** The payer cancels the recurrence (after confirming on the page): its view after. */
export async function cancelRecurrence(uuid: string): Promise<PayerRecurrence> {
  const response = await request(absolute(payerApiPaths.cancelRecurrence(uuid)), { method: 'POST', json: {} });
  return readResult(response, PayerRecurrenceEnvelope);
}

/** What an automatic-renewal approval grants (GET), or records the payer's approval (POST). */
export async function allowance(
  uuid: string,
  record?: { address: string; signature: string; tx_hash?: string; permit?: { value: string; deadline: number; signature: string } },
): Promise<PayerAllowance> {
  const path = absolute(payerApiPaths.allowance(uuid));
  return readResult(await request(path, record ? { method: 'POST', json: record } : {}), PayerAllowanceEnvelope);
}

export async function simulatePayment(body: SimulateInvoiceRequest | SimulateWalletRequest): Promise<string> {
  const response = await request(absolute(payerApiPaths.simulate()), { method: 'POST', json: body });
  return (await readResult(response, SimulateResponseEnvelope)).txid;
}

/**
 * The first view the server embedded in the HTML (no round trip before the first render), or null
 * when there is none or it does not validate (the page then asks the API as usual).
 */
export function readInitialView(doc: Document): InitialView | null {
  const text = doc.getElementById(INITIAL_VIEW_ID)?.textContent;
  if (!text) return null;
  try {
    const parsed = InitialView.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

// Absolute, so the same code runs where Request does not resolve relative URLs (tests).
function absolute(path: string): string {
  return new URL(path, location.href).href;
}
