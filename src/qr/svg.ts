// The QR encoder, loaded with its first use. qrcode is CommonJS: importing it statically here keeps
// the interop helpers the bundler adds for it in this lazy chunk, out of the initial script (which
// would otherwise import them from a separate runtime chunk: one more request before the first render).
import QRCode from 'qrcode';

/** The SVG markup, dark modules on a white quiet zone regardless of the page theme. */
export function qrSvg(content: string): Promise<string> {
  return QRCode.toString(content, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 4,
    color: { dark: '#000000', light: '#ffffff' },
  });
}
