// Local HTTP servers standing in for exchange APIs (loopback only).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  body: string;
}

export type Handler = (req: Seen, res: ServerResponse) => void;

export interface FakeExchange {
  url: string;
  /** Every request received, in order. */
  seen: Seen[];
  close(): Promise<void>;
}

export async function fakeExchange(handler: Handler): Promise<FakeExchange> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', body };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections(); // drop requests a "hanging" server never answered
        server.close(() => ok());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Binance spot: 200 {symbol, price} for listed symbols, 400 {-1121} otherwise, as api.binance.com does. */
export function binanceHandler(prices: Record<string, string>): Handler {
  return (req, res) => {
    const u = new URL(req.url, 'http://x');
    const symbol = u.searchParams.get('symbol') ?? '';
    if (u.pathname !== '/api/v3/ticker/price') return json(res, 404, '');
    const price = prices[symbol];
    if (price === undefined) return json(res, 400, { code: -1121, msg: 'Invalid symbol.' });
    json(res, 200, { symbol, price });
  };
}

/** KuCoin level1: {"code":"200000","data":{...}} and data null for unknown symbols. */
export function kucoinHandler(prices: Record<string, string>): Handler {
  return (req, res) => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname !== '/api/v1/market/orderbook/level1') return json(res, 404, { code: '404', msg: 'Not Found' });
    const price = prices[u.searchParams.get('symbol') ?? ''];
    const data =
      price === undefined
        ? null
        : { time: 1729172965609, sequence: '14609309753', price, size: '0.00001', bestBid: price, bestBidSize: '1', bestAsk: price, bestAskSize: '1' };
    json(res, 200, { code: '200000', data });
  };
}

/** Exmo: all tickers in one object keyed BASE_QUOTE. */
export function exmoHandler(lastTrades: Record<string, string>): Handler {
  const body: Record<string, unknown> = {};
  for (const [pair, last] of Object.entries(lastTrades)) {
    body[pair] = { buy_price: last, sell_price: last, last_trade: last, high: last, low: last, avg: last, vol: '1', vol_curr: last, updated: 1729172965 };
  }
  return (req, res) => (req.url === '/v1.1/ticker' ? json(res, 200, body) : json(res, 404, { result: false, error: 'not found' }));
}

/** Binance P2P search: ad prices per fiat for asset USDT; an unknown fiat gets an empty list. */
export function p2pHandler(adsByFiat: Record<string, string[]>): Handler {
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== '/bapi/c2c/v2/friendly/c2c/adv/search') return json(res, 404, '');
    const q = JSON.parse(req.body) as { asset: string; fiat: string; rows: number };
    const prices = q.asset === 'USDT' ? (adsByFiat[q.fiat] ?? []) : [];
    const data = prices.slice(0, q.rows).map((price, i) => ({
      adv: { advNo: String(i), tradeType: 'SELL', asset: 'USDT', fiatUnit: q.fiat, price, surplusAmount: '100' },
      advertiser: { nickName: `ad${i}` },
    }));
    json(res, 200, { code: '000000', message: null, messageDetail: null, data, total: data.length, success: true });
  };
}

/** Accepts the connection and never answers. */
export const hang: Handler = () => {};
