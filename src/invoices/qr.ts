import QRCode from 'qrcode';

/** A QR code of `text` as a data:image/png;base64 URI: dark modules on a white quiet zone. */
export async function qrDataUrl(text: string): Promise<string> {
  return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 4, scale: 6, color: { dark: '#000000', light: '#ffffff' } });
}
