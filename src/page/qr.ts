// QR codes as data: URLs (CSP allows img-src data:), with qrcode loaded only when first needed.
const cache = new Map<string, Promise<string>>();

/** An SVG data: URL, dark modules on a white quiet zone regardless of the page theme. */
export function qrDataUrl(content: string): Promise<string> {
  let pending = cache.get(content);
  if (!pending) {
    pending = import('qrcode').then(async ({ default: QRCode }) => {
      const svg = await QRCode.toString(content, {
        type: 'svg',
        errorCorrectionLevel: 'M',
        margin: 4,
        color: { dark: '#000000', light: '#ffffff' },
      });
      return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    });
    pending.catch(() => cache.delete(content));
    cache.set(content, pending);
  }
  return pending;
}
