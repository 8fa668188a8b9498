// QR codes as data: URLs (CSP allows img-src data:), with the encoder loaded only when first needed.
const cache = new Map<string, Promise<string>>();

/** An SVG data: URL, dark modules on a white quiet zone regardless of the page theme. */
export function qrDataUrl(content: string): Promise<string> {
  let pending = cache.get(content);
  if (!pending) {
    pending = import('../qr/svg.ts').then(async ({ qrSvg }) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(await qrSvg(content))}`);
    pending.catch(() => cache.delete(content));
    cache.set(content, pending);
  }
  return pending;
}
