// Vite builds the page (index.html), the embed view (embed.html), the <tile-lab> element
// (dist/tile-lab.js, under a fixed name so tutorial pages can include it) and the engine worker
// into dist/. Relative asset paths let dist/ be served from any folder; the worker is an ES module
// so it can import the wasm package.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Copies tutorial-demo.html into dist/ untouched: it stands for a tutorial written outside TileLab,
 * which includes dist/tile-lab.js by its plain name rather than through Vite.
 */
function tutorialDemo() {
  return {
    name: 'tilelab-tutorial-demo',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'tutorial-demo.html', source: readFileSync(here('./tutorial-demo.html'), 'utf8') });
    },
  };
}

export default defineConfig({
  base: './',
  publicDir: false,
  plugins: [tutorialDemo()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Inline assets would become data: URLs, which the Content-Security-Policy does not allow for scripts.
    assetsInlineLimit: 0,
    // CodeMirror and markdown-it make one ~550 kB chunk (~180 kB gzip); splitting it gains nothing
    // for a single-page tool.
    chunkSizeWarningLimit: 800,
    // Two pages (the notebook and the embed view) and the <tile-lab> script for tutorial pages.
    rollupOptions: {
      input: {
        main: here('./index.html'),
        embed: here('./embed.html'),
        'tile-lab': here('./www/tile-lab.js'),
      },
      // Every entry keeps its export (the element class) rather than being tree-shaken to nothing.
      preserveEntrySignatures: 'exports-only',
      output: {
        entryFileNames: (chunk) => (chunk.name === 'tile-lab' ? 'tile-lab.js' : 'assets/[name]-[hash].js'),
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
