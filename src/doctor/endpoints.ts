// The doctor's checks of what the gateway talks to over HTTP: its own public URL (the links in
// every invoice) and the merchants' default webhook targets.
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import type { Ctx } from '../context.ts';
import { isPrivateAddress } from '../webhooks/private-address.ts';
import { mapLimit } from '../chain/map-limit.ts';
import { finding, type DoctorDeps, type Finding } from './finding.ts';

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
    return [finding('FAIL', 'public_url', 'public_url.invalid', { url: raw })];
  }
  const out: Finding[] = [];
  if (url.protocol === 'https:') out.push(finding('OK', 'public_url', 'public_url.https', { url: raw }));
  else if (isLoopbackHost(url.hostname)) out.push(finding('WARN', 'public_url', 'public_url.loopback', { url: raw }));
  else out.push(finding('FAIL', 'public_url', 'public_url.http', { url: raw }));
  const health = `${raw}/healthz`;
  try {
    const status = await deps.get(health, TIMEOUT_MS);
    if (status === 200) out.push(finding('OK', 'public_url_reachable', 'public_url.answers', { url: health }));
    else out.push(finding('FAIL', 'public_url_reachable', 'public_url.status', { url: health, status }));
  } catch (e) {
    out.push(finding('FAIL', 'public_url_reachable', 'public_url.unreachable', { url: health, error: errorText(e) }));
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
    out.push(finding('WARN', 'private_callbacks', 'private_callbacks.on'));
  }
  const merchants = await ctx.storage.db
    .selectFrom('merchants')
    .select(['id', 'name', 'default_url_callback'])
    .where('default_url_callback', 'is not', null)
    .where('default_url_callback', '<>', '')
    .orderBy('name')
    .execute();
  if (merchants.length === 0) return [...out, finding('SKIP', 'webhook_targets', 'webhook_targets.none')];
  const checked = await mapLimit(merchants, 8, async (m): Promise<Finding> => {
    const merchant = m.name;
    const target = m.default_url_callback!;
    let url: URL;
    try {
      url = new URL(target);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      return finding('FAIL', 'webhook_target', 'webhook_target.invalid', { merchant, url: target });
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await deps.lookup(host);
    } catch (e) {
      return finding('FAIL', 'webhook_target', 'webhook_target.unresolved', { merchant, host: url.hostname, error: errorText(e) });
    }
    const priv = addresses.find((a) => isPrivateAddress(a));
    if (priv && live && !allowPrivate) {
      return finding('FAIL', 'webhook_target', 'webhook_target.private', { merchant, url: target, address: priv });
    }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    try {
      await deps.connect(url.hostname, port, TIMEOUT_MS);
      return finding('OK', 'webhook_target', 'webhook_target.ok', { merchant, url: target });
    } catch (e) {
      return finding('WARN', 'webhook_target', 'webhook_target.unreachable', { merchant, url: target, error: errorText(e) });
    }
  });
  return [...out, ...checked];
}
