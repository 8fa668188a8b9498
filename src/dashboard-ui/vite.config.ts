// The merchant dashboard (/dashboard): its own entry, built to dist/dashboard. The chart library
// (uPlot) sits in a lazy chunk of its own, so the first load stays small.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { sharedHead } from '../ui-kit/head.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const api = process.env.SATCHEL_API_URL;

export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  publicDir: false,
  logLevel: 'warn',
  plugins: [preact(), sharedHead()],
  server: api ? { proxy: { '/api': api } } : {},
  build: {
    outDir: here('../../dist/dashboard'),
    emptyOutDir: true,
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rolldownOptions: {
      preserveEntrySignatures: false,
      output: { codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] } },
    },
  },
});
