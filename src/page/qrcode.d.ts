// The part of the qrcode package the page calls. The package's own typings bring in Node's types
// (streams, files), which have no place in browser code; tsconfig.browser.json maps `qrcode` here.
interface QRCodeSvgOptions {
  type: 'svg';
  errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H';
  margin?: number;
  color?: { dark?: string; light?: string };
}

declare const QRCode: {
  toString(text: string, options: QRCodeSvgOptions): Promise<string>;
};

export default QRCode;
