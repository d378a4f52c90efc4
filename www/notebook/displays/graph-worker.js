// The layout worker of the graph view: elkjs's own worker script, which answers ELK's messages
// (`layout`, `algorithms` …) on `self`, bundled by Vite as a module worker from our own origin
// (the Content-Security-Policy allows neither blob: workers nor eval).
import 'elkjs/lib/elk-worker.min.js';
