// The doctor's checks of what the gateway talks to over HTTP: its own public URL (the links in
// every invoice) and the merchants' default webhook targets.
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import type { Ctx } from '../context.ts';
import { isPrivateAddress } from '../webhooks/private-address.ts';
import { mapLimit } from '../chain/map-limit.ts';
import type { DoctorDeps, Finding } from './finding.ts';

const TIMEOUT_MS = 5000;

function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

function errorText(e: unknown): string {
  const err = e as { cause?: { code?: string }; code?: string; message?: string };
  return err?.cause?.code ?? err?.code ?? err?.message ?? String(e);
}

/** https (plain http is tolerable only on a loopback address, for a test), and it answers. */
export async function publicUrlChecks(ctx: Ctx, deps: DoctorDeps): Promise<Finding[]> {
  const raw = ctx.config.publicUrl;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [{ status: 'FAIL', name: 'public URL', detail: `${raw} is not a URL`, fix: 'set SATCHEL_PUBLIC_URL to the https address payers reach the gateway at' }];
  }
  const out: Finding[] = [];
  if (url.protocol === 'https:') out.push({ status: 'OK', name: 'public URL', detail: `${raw} is https` });
  else if (isLoopbackHost(url.hostname)) {
    out.push({ status: 'WARN', name: 'public URL', detail: `${raw} is plain http on a loopback address: only this machine can open the payment links`, fix: 'set SATCHEL_PUBLIC_URL to the https address payers reach the gateway at' });
  } else {
    out.push({ status: 'FAIL', name: 'public URL', detail: `${raw} is plain http: payers' links and API keys in transit can be read and changed`, fix: 'serve the gateway over https (a reverse proxy with a certificate) and set SATCHEL_PUBLIC_URL to that address' });
  }
  const health = `${raw}/healthz`;
  try {
    const status = await deps.get(health, TIMEOUT_MS);
    if (status === 200) out.push({ status: 'OK', name: 'public URL reachable', detail: `${health} answers from this host` });
    else out.push({ status: 'FAIL', name: 'public URL reachable', detail: `${health} answers HTTP ${status}`, fix: 'make the public URL lead to this gateway (reverse proxy configuration)' });
  } catch (e) {
    out.push({ status: 'FAIL', name: 'public URL reachable', detail: `${health} does not answer from this host (${errorText(e)})`, fix: 'check that the gateway runs, and the DNS, certificate and reverse proxy of the public URL' });
  }
  return out;
}

/**
 * Each merchant's default callback URL: resolvable, not private while real money flows (the
 * delivery refuses private targets then, so its webhooks would never arrive), and accepting
 * connections.
 */
export async function webhookTargetChecks(ctx: Ctx, live: boolean, deps: DoctorDeps): Promise<Finding[]> {
  const out: Finding[] = [];
  const allowPrivate = ctx.config.allowPrivateCallbacks;
  if (allowPrivate && live) {
    out.push({
      status: 'WARN',
      name: 'private webhook targets',
      detail: 'SATCHEL_ALLOW_PRIVATE_CALLBACKS is on beside real networks: a merchant can make the gateway send requests into this private network',
      fix: 'turn it off unless every merchant on this gateway is yours',
    });
  }
  const merchants = await ctx.storage.db
    .selectFrom('merchants')
    .select(['id', 'name', 'default_url_callback'])
    .where('default_url_callback', 'is not', null)
    .where('default_url_callback', '<>', '')
    .orderBy('name')
    .execute();
  if (merchants.length === 0) return [...out, { status: 'SKIP', name: 'webhook targets', detail: 'no merchant has a default callback URL' }];
  const checked = await mapLimit(merchants, 8, async (m): Promise<Finding> => {
    const name = `webhook target of ${m.name}`;
    const target = m.default_url_callback!;
    let url: URL;
    try {
      url = new URL(target);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      return { status: 'FAIL', name, detail: `${target} is not an http(s) URL`, fix: 'set a valid default callback URL in the merchant\'s settings' };
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await deps.lookup(host);
    } catch (e) {
      return { status: 'FAIL', name, detail: `${url.hostname} does not resolve (${errorText(e)})`, fix: 'ask the merchant for a working callback URL' };
    }
    const priv = addresses.find((a) => isPrivateAddress(a));
    if (priv && live && !allowPrivate) {
      return { status: 'FAIL', name, detail: `${target} resolves to the private address ${priv}: webhooks to it are refused while real networks run`, fix: 'the merchant needs a public callback URL (or, for a gateway that serves only your own shops, SATCHEL_ALLOW_PRIVATE_CALLBACKS)' };
    }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    try {
      await deps.connect(url.hostname, port, TIMEOUT_MS);
      return { status: 'OK', name, detail: `${target} accepts connections` };
    } catch (e) {
      return { status: 'WARN', name, detail: `${target} does not accept connections (${errorText(e)}): webhooks are retried and eventually given up`, fix: 'ask the merchant to check their server' };
    }
  });
  return [...out, ...checked];
}
