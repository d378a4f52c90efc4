// Renders the engine's messages — `{code, params}` objects (src/messages, `Message` in
// engine/contract.d.ts) — in the UI language from the `message.*` keys of the tables. Parameters
// that are themselves words (a stage, which side of a gradient check, whether a tile fits) are
// rendered from their own keys first; lists print as `[2, 3]`, as the engine's English does.
import { t } from './index.js';
/** @typedef {import('../engine/contract.js').Message} Message */

/** A parameter as text: lists bracketed, fractional numbers to 6 places. */
function formatParameter(value) {
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
  for (const [name, value] of Object.entries(raw)) params[name] = formatParameter(value);
  if ('registered' in raw) params.what = t(raw.registered ? 'message.gradcheck.sides.registered' : 'message.gradcheck.sides.recorded');
  if ('stage' in raw) params.stage = t(`message.progress.stage.${raw.stage}`);
  if (message.code === 'npu.aligned_sizes' && Array.isArray(raw.nearest)) params.nearest = raw.nearest.join(t('message.or'));
  if (message.code === 'npu.capacity') {
    params.fits = raw.largest_tile ? t('message.npu.capacity.fits', { tile: formatParameter(raw.largest_tile) }) : t('message.npu.capacity.none');
  }
  const key = `message.${message.code}`;
  const text = t(key, params);
  return text === key ? fallback || key : text;
}
