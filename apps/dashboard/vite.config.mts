import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard's production build (scripts/build-dashboard.js runs it): one ES module
 * (`main.js`, React, the pages and Cytoscape together), the stylesheet and the icon, under
 * fixed names. The service hashes the whole build into the assets' URL itself
 * (apps/api/src/platform/http/dashboard-pages.ts), so names need no hash of their own; the
 * placeholder base becomes `{{ASSETS}}` in index.html, which the service fills in. Nothing is
 * inlined (the CSP allows no inline script or style).
 */
export const ASSETS_PLACEHOLDER = '/__STRATA_ASSETS__/';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: ASSETS_PLACEHOLDER,
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    assetsDir: '',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      output: {
        entryFileNames: 'main.js',
        chunkFileNames: '[name].js',
        assetFileNames: (asset) => (asset.names[0]?.endsWith('.css') ? 'app.css' : '[name][extname]'),
      },
    },
  },
});
