// The part of pngjs (a test-only reader of PNG files) the QR reader uses; the package ships no types.
declare module 'pngjs' {
  export const PNG: {
    sync: {
      /** Decodes a PNG file to 8-bit RGBA pixels, row by row. */
      read(buffer: Buffer): { width: number; height: number; data: Buffer };
    };
  };
}
