// The one signature formula of the merchant API, the same for a request and a webhook
// (docs/api.md, docs/webhooks.md): md5_hex(base64(the signed bytes) + key).
import { hash } from 'node:crypto';

/** md5_hex(base64(bytes) + key); a string is signed as its UTF-8 bytes. */
export function signBytes(bytes: Buffer | string, key: string): string {
  const raw = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  // One-shot hashing: no Hash object per request.
  return hash('md5', raw.toString('base64') + key, 'hex');
}
