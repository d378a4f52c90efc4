// The page's side of the engine worker: requests with ids and promises, one worker at a time.
// Stop terminates the worker (the only way to interrupt wasm) and starts a fresh one; a trap in the
// worker (a Rust panic) is handled the same way. Events: 'status' (detail: starting | ready | busy |
// restarting | failed), 'crash' (detail: { message }), 'restart' (the session's state is gone).

/** A request that ended because the worker was stopped or crashed. */
export class EngineStopped extends Error {
  constructor(reason, message) {
    super(message);
    this.name = 'EngineStopped';
    this.reason = reason;
  }
}

/** A request the engine answered with a (non-fatal) error. */
export class EngineError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
  }
}

export class Engine extends EventTarget {
  /** `createWorker()` returns a new module worker (Vite finds the worker through that call). */
  constructor(createWorker) {
    super();
    this.createWorker = createWorker;
    this.worker = null;
    this.pending = new Map();
    this.nextId = 1;
    this.version = null;
    this.features = {};
    this.status = 'starting';
    this.generation = 0;
    /** How many cells were sent to run (questions asked while typing are not counted). */
    this.runRequests = 0;
  }

  setStatus(status) {
    this.status = status;
    this.dispatchEvent(new CustomEvent('status', { detail: status }));
  }

  /** Starts a worker; resolves when it is ready (or has failed). */
  start() {
    this.generation += 1;
    const generation = this.generation;
    const worker = this.createWorker();
    this.worker = worker;
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    worker.addEventListener('message', (event) => {
      if (generation === this.generation) this.receive(event.data);
    });
    worker.addEventListener('error', (event) => {
      if (generation !== this.generation) return;
      event.preventDefault();
      this.fail(`the engine worker failed: ${event.message || 'it could not load'}`);
    });
    return this.ready;
  }

  receive(message) {
    switch (message.type) {
      case 'ready':
        this.version = message.version;
        this.features = message.features ?? {};
        this.setStatus('ready');
        this.resolveReady(true);
        break;
      case 'progress':
        // Long work inside a request: handed to the request's listener, never settles it.
        this.pending.get(message.id)?.onProgress?.({ label: message.label, done: message.done, total: message.total, message: message.message ?? null });
        break;
      case 'result':
      case 'smoke':
        this.settle(message.id, (request) => request.resolve(message.type === 'result' ? message.result : message.report));
        break;
      case 'answer':
        this.settle(message.id, (request) => request.resolve(message.value));
        break;
      case 'error':
        if (message.code === 'start') {
          this.fail(message.message);
        } else if (message.fatal) {
          this.crash(message.id, message.message);
        } else {
          this.settle(message.id, (request) => request.reject(new EngineError(message.code, message.message)));
        }
        break;
      default:
        console.warn('TileLab: unexpected engine message', message.type);
    }
  }

  settle(id, action) {
    const request = this.pending.get(id);
    if (!request) return;
    this.pending.delete(id);
    action(request);
    if (this.pending.size === 0 && this.status === 'busy') this.setStatus('ready');
  }

  /** Waits for the worker; throws when it could not start. */
  async whenReady() {
    if (!(await this.ready)) throw new EngineError('start', this.failure);
  }

  /** Sends a request; `quiet` ones (questions asked while typing) leave the status badge alone. */
  request(message, onProgress = null, quiet = false) {
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      if (!quiet) this.setStatus('busy');
      this.worker.postMessage({ ...message, id });
    });
  }

  /** Asks the session a question that runs nothing: 'check' (code), 'variables', 'api', 'language' (tag), 'trace' (key). */
  async ask(question, fields = {}) {
    await this.whenReady();
    return this.request({ type: 'ask', question, ...fields }, null, true);
  }

  /** The parser's diagnostics of `code` (no run). */
  checkSyntax(code) {
    return this.ask('check', { code });
  }

  /** The session's variables: [{ name, kind, shape, dtype, requires_grad, preview, cell }]. */
  variables() {
    return this.ask('variables');
  }

  /** The API table (the entries the interpreter resolves `pypto.*` through). */
  apiTable() {
    return this.ask('api');
  }

  /** The trace JSON of a kernel schedule by its `trace_key`, or null once the session no longer keeps it. */
  kernelTrace(key) {
    return this.ask('trace', { key });
  }

  /** Sets the language of `help()` texts. */
  setLanguage(tag) {
    return this.ask('language', { tag });
  }

  /** Starts a fresh session on purpose: every variable is gone. */
  restartSession() {
    return this.restart(new EngineStopped('restarted', 'restarted'));
  }

  /**
   * Runs one cell; resolves to its CellResult, rejects with EngineError or EngineStopped.
   * `onProgress({ label, done, total, message })` is called for the progress messages of long work
   * (`message`: what it is doing as a `{code, params}` message, or null).
   */
  async run(code, onProgress = null) {
    await this.whenReady();
    this.runRequests += 1;
    return this.request({ type: 'run', code }, onProgress);
  }

  /** The tensor-core self check (the smoke report). */
  async smoke() {
    await this.whenReady();
    return this.request({ type: 'smoke' });
  }

  /** Ends every pending request with `error` and replaces the worker by a fresh one. */
  restart(error) {
    this.worker?.terminate();
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const request of pending) request.reject(error);
    this.setStatus('restarting');
    this.dispatchEvent(new CustomEvent('restart', { detail: { reason: error.reason } }));
    return this.start();
  }

  /** Interrupts whatever runs by terminating the worker. */
  stop() {
    return this.restart(new EngineStopped('stopped', 'stopped'));
  }

  crash(id, message) {
    this.dispatchEvent(new CustomEvent('crash', { detail: { message } }));
    return this.restart(new EngineStopped('crashed', message));
  }

  /** The worker could not start at all: no restart loop, requests fail with the reason. */
  fail(message) {
    this.worker?.terminate();
    for (const request of this.pending.values()) request.reject(new EngineError('start', message));
    this.pending.clear();
    this.setStatus('failed');
    this.failure = message;
    this.resolveReady(false);
  }
}
