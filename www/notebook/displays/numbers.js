// How the display views write numbers, errors and shapes.

/** An error measure in short scientific notation (1.50e-7). */
export function formatError(value) {
  return Number.isFinite(value) ? value.toExponential(2) : String(value);
}

/**
 * A tensor value for a table cell: integers as they are, other values with 4 significant digits
 * (scientific outside 1e-3 … 1e5 so tiny and huge values stay readable), NaN and ±Infinity by name.
 */
export function formatValue(value) {
  if (value === null || value === undefined) return '';
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e6) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e5) return String(Number(value.toPrecision(4)));
  return value.toExponential(3);
}

/** `[2, 3]` for a shape or an index. */
export function formatShape(dims) {
  return `[${(dims ?? []).join(', ')}]`;
}
