// A small static file server for dist/: loopback only, correct MIME types (application/wasm for
// streaming compilation), and the same Content-Security-Policy as the page's meta tag, sent as a
// header because a meta tag does not reach Web Workers.
// Usage: node scripts/serve.mjs [ROOT]   (PORT=8080 by default; PORT=0 picks a free port)
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The policy the page and its worker run under: only same-origin scripts, plus wasm compilation. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.py': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Maps a request target (`/a/b.js?x`) to a file under `root`, or null when it is malformed or
 * would leave `root`. The target is taken as text, not parsed as a URL: `//`, `///` or `//%zz`
 * would parse as a host and throw.
 */
function filePath(root, target) {
  if (typeof target !== 'string' || !target.startsWith('/')) return null;
  let decoded;
  try {
    decoded = decodeURIComponent(target.split('?')[0].split('#')[0]);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const candidate = normalize(join(root, decoded));
  if (candidate !== root && !candidate.startsWith(root + sep)) return null;
  return candidate;
}

function sendError(response, status, text) {
  response.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  });
  response.end(`${status} ${text}\n`);
}

/** Starts serving `root` on 127.0.0.1:`port`; resolves to { server, url } once listening. */
export function startServer({ root, port = 8080 }) {
  const base = resolve(root);
  const server = createServer((request, response) => {
    // Whatever a request holds, it gets an answer and the server keeps running.
    answer(base, request, response).catch((error) => {
      if (!response.headersSent) sendError(response, 500, 'Internal Server Error');
      else response.destroy(error);
    });
  });
  // A malformed request line never reaches the handler: answer 400 instead of dropping silently.
  server.on('clientError', (error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy(error);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolvePromise({ server, url: `http://127.0.0.1:${actual}/` });
    });
  });
}

/** Answers one request: the file, or 400/403/404/405. */
async function answer(base, request, response) {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    sendError(response, 405, 'Method Not Allowed');
    return;
  }
  if (!request.url?.startsWith('/')) {
    sendError(response, 400, 'Bad Request');
    return;
  }
  let path = filePath(base, request.url);
  if (path === null) {
    sendError(response, 403, 'Forbidden');
    return;
  }
  try {
    let info = await stat(path);
    if (info.isDirectory()) {
      path = join(path, 'index.html');
      info = await stat(path);
    }
    response.writeHead(200, {
      'Content-Type': MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    // A file that disappears after stat ends this response, not the server.
    createReadStream(path).on('error', (error) => response.destroy(error)).pipe(response);
  } catch {
    sendError(response, 404, 'Not Found');
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? 'dist';
  const port = Number.parseInt(process.env.PORT ?? '8080', 10);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: PORT must be a number from 0 to 65535, got '${process.env.PORT}'`);
    process.exit(2);
  }
  try {
    await stat(join(root, 'index.html'));
  } catch {
    console.error(`serve: ${root}/index.html is missing; build the page first (make web)`);
    process.exit(1);
  }
  try {
    const { url } = await startServer({ root, port });
    console.log(`TileLab is served at ${url} (Ctrl+C to stop)`);
  } catch (error) {
    console.error(`serve: cannot listen on 127.0.0.1:${port}: ${error.message}`);
    process.exit(1);
  }
}
