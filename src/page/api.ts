// HTTP calls of the payment page. Every response is validated against payer-api.ts.
import ky from 'ky';
import {
  PayerErrorEnvelope,
  PayerInvoiceEnvelope,
  PayerWalletEnvelope,
  SimulateResponseEnvelope,
  payerApiPaths,
  type ChooseRequest,
  type PayerInvoice,
  type PayerWallet,
  type SimulateInvoiceRequest,
  type SimulateWalletRequest,
} from './payer-api.ts';
import type { Route } from './route.ts';

/** The server answered with an error envelope or an unexpected status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Payable = PayerInvoice | PayerWallet;

export type LoadResult<T> = { changed: true; data: T; etag: string | null } | { changed: false };

// Polling has its own back-off, so ky must not retry on its own; errors are read from the envelope.
const http = ky.create({
  retry: 0,
  timeout: 15_000,
  throwHttpErrors: false,
  cache: 'no-store',
  headers: { accept: 'application/json' },
});

interface Envelope<T> {
  parse(data: unknown): { result: T };
}

async function readResult<T>(response: Response, envelope: Envelope<T>): Promise<T> {
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return envelope.parse(body).result;
  const error = PayerErrorEnvelope.safeParse(body);
  throw new ApiError(response.status, error.success ? error.data.message : `HTTP ${response.status}`);
}

/** Reads the invoice or wallet; `etag` makes it a conditional request (304 = unchanged). */
export async function loadPayable(
  route: Route,
  etag: string | null,
  signal?: AbortSignal,
): Promise<LoadResult<Payable>> {
  const path = route.kind === 'wallet' ? payerApiPaths.wallet(route.uuid) : payerApiPaths.invoice(route.uuid);
  const headers: Record<string, string> = etag ? { 'if-none-match': etag } : {};
  const response = await http.get(absolute(path), { headers, signal });
  if (response.status === 304) return { changed: false };
  const data: Payable =
    route.kind === 'wallet'
      ? await readResult(response, PayerWalletEnvelope)
      : await readResult(response, PayerInvoiceEnvelope);
  return { changed: true, data, etag: response.headers.get('etag') };
}

export async function chooseCurrency(
  uuid: string,
  choice: ChooseRequest,
): Promise<{ data: PayerInvoice; etag: string | null }> {
  const response = await http.post(absolute(payerApiPaths.choose(uuid)), { json: choice });
  return { data: await readResult(response, PayerInvoiceEnvelope), etag: response.headers.get('etag') };
}

export async function simulatePayment(body: SimulateInvoiceRequest | SimulateWalletRequest): Promise<string> {
  const response = await http.post(absolute(payerApiPaths.simulate()), { json: body });
  return (await readResult(response, SimulateResponseEnvelope)).txid;
}

// Absolute, so the same code runs where Request does not resolve relative URLs (tests).
function absolute(path: string): string {
  return new URL(path, location.href).href;
}
