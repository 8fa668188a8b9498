// `satchel/widget`: the loader as an ES module (dist/widget/widget.mjs) for shops that bundle
// their own code; built after widget.js into the same folder (kept, not emptied).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: here('../dist/widget'),
    emptyOutDir: false,
    target: 'es2020',
    minify: true,
    sourcemap: false,
    copyPublicDir: false,
    lib: { entry: here('./src/module.ts'), formats: ['es'], fileName: () => 'widget.mjs' },
  },
});
