// How a merchant checks a webhook, written independently of Satchel's encoder.
import { createHash } from 'node:crypto';

/** Re-encodes the body without `sign` the way PHP does (JSON.stringify differs only in `/`, U+2028
 * and U+2029) and compares md5(base64(J) + key) with `sign`. Takes the raw body or a delivery. */
export function merchantVerifies(webhook: string | { body: string }, key: string): boolean {
  const raw = typeof webhook === 'string' ? webhook : webhook.body;
  const data = JSON.parse(raw) as Record<string, unknown>;
  const sign = data.sign;
  delete data.sign;
  const j = JSON.stringify(data).replace(/\//g, '\\/').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  const md5 = createHash('md5').update(Buffer.from(j, 'utf8').toString('base64') + key).digest('hex');
  // The signed text is also exactly the delivered body minus its last key.
  const stripped = raw.replace(/,"sign":"[0-9a-f]{32}"\}$/, '}');
  return typeof sign === 'string' && md5 === sign && stripped === j;
}
