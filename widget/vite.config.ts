// The widget loader: one small classic script, dist/widget/widget.js (an IIFE, no chunks, no CSS
// file), plus its typings as dist/widget/widget.d.ts. The gateway serves both at its root.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: here('../dist/widget'),
    emptyOutDir: true,
    target: 'es2020',
    minify: true,
    sourcemap: false,
    copyPublicDir: false,
    lib: {
      entry: here('./src/main.ts'),
      formats: ['iife'],
      name: 'SatchelWidget',
      fileName: () => 'widget.js',
    },
  },
  plugins: [
    {
      name: 'satchel-widget-typings',
      generateBundle() {
        this.emitFile({ type: 'asset', fileName: 'widget.d.ts', source: readFileSync(here('./satchel.d.ts'), 'utf8') });
      },
    },
  ],
});
