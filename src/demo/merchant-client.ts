// What a merchant's server does to call the gateway: sign the exact JSON bytes it sends with the
// payment key (sign = md5(base64(body) + key), docs/api.md) and POST them with its merchant id.
// The key stays on the server; the browser only ever sees the invoice it gets back.
import { signBody } from '../webhooks/signature.ts';

export interface Envelope {
  state: number;
  result?: any;
  message?: string;
  errors?: Record<string, string[]>;
}

/** Sends one signed POST; the shop's own server uses fetch, the gateway-hosted demo stays in-process. */
export type Transport = (path: string, request: { body: string; headers: Record<string, string> }) => Promise<Envelope>;

export interface MerchantClient {
  call(path: string, params: Record<string, unknown>): Promise<Envelope>;
}

export function merchantClient(merchantId: string, paymentKey: string, transport: Transport): MerchantClient {
  return {
    call(path, params) {
      const body = JSON.stringify(params);
      const headers = { 'content-type': 'application/json', merchant: merchantId, sign: signBody(body, paymentKey) };
      return transport(path, { body, headers });
    },
  };
}

export function fetchTransport(gatewayUrl: string, timeoutMs = 15_000): Transport {
  const base = gatewayUrl.replace(/\/+$/, '');
  return async (path, { body, headers }) => {
    const response = await fetch(base + path, { method: 'POST', body, headers, signal: AbortSignal.timeout(timeoutMs) });
    return (await response.json()) as Envelope;
  };
}
