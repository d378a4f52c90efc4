// Renders the engine's messages — `{code, params}` objects (src/messages, `Message` in
// engine/contract.d.ts) — in the UI language from the `message.*` keys of the tables. Parameters
// that are themselves words (a stage, which side of a gradient check, whether a tile fits) are
// rendered from their own keys first; a parameter that is itself a message (a token, a fallback's
// reason) is rendered by the same rules; an optional part of a sentence (`message.<code>.<param>`)
// shows only when its parameter is given. Lists print as `[2, 3]`, as the engine's English does.
import { t } from './index.js';
/** @typedef {import('../engine/contract.js').Message} Message */

/** Whether `value` is a nested message (`{code, params?}`). */
function isMessage(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.code === 'string';
}

/** A parameter as text: nested messages rendered, lists bracketed, fractional numbers to 6 places. */
function formatParameter(value) {
  if (isMessage(value)) return renderMessage(value);
  // A list of messages (the lines of a note) prints one per line.
  if (Array.isArray(value) && value.length > 0 && value.every(isMessage)) return value.map((item) => renderMessage(item)).join('\n');
  if (Array.isArray(value)) return `[${value.map(formatParameter).join(', ')}]`;
  if (typeof value === 'number' && !Number.isInteger(value)) return value.toFixed(6);
  return value == null ? '' : String(value);
}

/**
 * `message` in the UI language; `fallback` (the engine's English) when there is no message or its
 * code is unknown to both tables (a newer engine).
 * @param {Message | null | undefined} message
 * @param {string} [fallback]
 */
export function renderMessage(message, fallback = '') {
  if (!message || typeof message.code !== 'string') return fallback;
  const raw = /** @type {Record<string, unknown>} */ ('params' in message ? message.params : {});
  if (message.code === 'text') return String(raw.text ?? fallback);
  /** @type {Record<string, string>} */
  const params = {};
  for (const [name, value] of Object.entries(raw)) {
    const part = `message.${message.code}.${name}`;
    // A word parameter phrased by the sentence it sits in (`for` → "the for header").
    const phrased = `${part}.${value}`;
    const text = typeof value === 'string' && t(phrased) !== phrased ? t(phrased) : formatParameter(value);
    // An optional part: its own sentence fragment when given, nothing when absent.
    params[name] = t(part) === part ? text : value == null ? '' : t(part, { value: text });
  }
  if ('registered' in raw) params.what = t(raw.registered ? 'message.gradcheck.sides.registered' : 'message.gradcheck.sides.recorded');
  if ('stage' in raw) params.stage = t(`message.progress.stage.${raw.stage}`);
  if ((message.code === 'npu.aligned_sizes' || message.code === 'npu.padded_tile_rows') && Array.isArray(raw.nearest)) params.nearest = raw.nearest.join(t('message.or'));
  if (message.code === 'npu.capacity') {
    params.fits = raw.largest_tile ? t('message.npu.capacity.fits', { tile: formatParameter(raw.largest_tile) }) : t('message.npu.capacity.none');
  }
  const key = `message.${message.code}`;
  const text = t(key, params);
  return text === key ? fallback || key : text;
}
