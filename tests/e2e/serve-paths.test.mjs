// The dev server (scripts/serve.mjs) answers every request target, however odd, and keeps running:
// `//`, `///` and `//%zz` used to throw in `new URL(...)` and end the process (any page open in
// the browser can send them to the loopback port).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { startServer } from '../../scripts/serve.mjs';

/** Sends a raw request line and returns the status code of the answer (or null if none came). */
function rawRequest(port, target, method = 'GET') {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', () => resolve(null));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0) || null));
  });
}

test('odd request paths get an answer and the server keeps serving', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tilelab-serve-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
  const { server, url } = await startServer({ root, port: 0 });
  const { port } = server.address();
  try {
    // `//` and `///` name the root (the page); the rest are malformed, outside the root or missing.
    for (const target of ['//', '///', '/?#']) assert.equal(await rawRequest(port, target), 200, target);
    const refused = ['//%zz', '/%zz', '/%00', '//example.com/x', '/..%2f..%2fetc/passwd', '/a/../../x', 'http://127.0.0.1/', '*', `/${'a'.repeat(4000)}`];
    for (const target of refused) {
      const status = await rawRequest(port, target);
      assert.ok([400, 403, 404].includes(status), `${target} → ${status}`);
    }
    assert.equal(await rawRequest(port, '/', 'DELETE'), 405);
    assert.equal(await rawRequest(port, 'not a target at all'), 400);
    // Still alive and still serving the page.
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.match(await response.text(), /<title>t<\/title>/);
  } finally {
    server.close();
  }
});
