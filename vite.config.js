// Vite builds the page (index.html) and the engine worker into dist/. Relative asset paths let
// dist/ be served from any folder; the worker is an ES module so it can import the wasm package.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Inline assets would become data: URLs, which the Content-Security-Policy does not allow for scripts.
    assetsInlineLimit: 0,
    // CodeMirror and markdown-it make one ~550 kB chunk (~180 kB gzip); splitting it gains nothing
    // for a single-page tool.
    chunkSizeWarningLimit: 800,
    // Two pages: the notebook and the embed view for tutorial pages.
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        embed: fileURLToPath(new URL('./embed.html', import.meta.url)),
      },
    },
  },
  worker: {
    format: 'es',
  },
  server: {
    host: '127.0.0.1',
  },
  preview: {
    host: '127.0.0.1',
  },
});
