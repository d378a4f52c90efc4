// A heatmap of a rows × columns grid as SVG (one titled rect per cell, so hover names the index and
// value), with a diverging colour scale around a centre and a legend bar labelled with the ends.
// Colours are CSS colour-mix() of theme variables, so the map follows the light and dark themes.
import { t } from '../../i18n/index.js';
import { element, svgElement } from '../../ui/dom.js';

/** At most this many cells per side are drawn; larger grids are averaged in blocks. */
export const MAX_CELLS_PER_SIDE = 64;
/** Largest and smallest cell side, in px, and the width the map aims at. */
const MAX_CELL = 22;
const MIN_CELL = 5;
const TARGET_WIDTH = 520;

/**
 * The fill of `value` on a diverging scale: `low` … `centre` … `high` map to the negative colour,
 * the neutral one and the positive one (linear in between, clamped outside). Non-finite → grey.
 */
export function divergingFill(value, low, centre, high, palette = 'signed') {
  if (!Number.isFinite(value)) return 'var(--heat-missing)';
  const [negative, positive] = palette === 'error' ? ['var(--heat-pass)', 'var(--heat-fail)'] : ['var(--heat-negative)', 'var(--heat-positive)'];
  const span = value >= centre ? high - centre : centre - low;
  const share = span > 0 ? Math.min(1, Math.abs(value - centre) / span) : 0;
  const percent = Math.round(share * 100);
  return `color-mix(in oklab, ${value >= centre ? positive : negative} ${percent}%, var(--heat-neutral))`;
}

/**
 * Averages a rows × columns grid (row-major `values`, null/NaN skipped) into at most
 * MAX_CELLS_PER_SIDE per side. Returns { rows, columns, values, blockRows, blockColumns }.
 */
export function downsample(values, rows, columns) {
  const blockRows = Math.ceil(rows / MAX_CELLS_PER_SIDE);
  const blockColumns = Math.ceil(columns / MAX_CELLS_PER_SIDE);
  if (blockRows === 1 && blockColumns === 1) return { rows, columns, values, blockRows, blockColumns };
  const outRows = Math.ceil(rows / blockRows);
  const outColumns = Math.ceil(columns / blockColumns);
  const out = new Array(outRows * outColumns).fill(null);
  for (let row = 0; row < outRows; row += 1) {
    for (let column = 0; column < outColumns; column += 1) {
      let sum = 0;
      let count = 0;
      for (let r = row * blockRows; r < Math.min(rows, (row + 1) * blockRows); r += 1) {
        for (let c = column * blockColumns; c < Math.min(columns, (column + 1) * blockColumns); c += 1) {
          const value = values[r * columns + c];
          if (Number.isFinite(value)) {
            sum += value;
            count += 1;
          }
        }
      }
      out[row * outColumns + column] = count > 0 ? sum / count : null;
    }
  }
  return { rows: outRows, columns: outColumns, values: out, blockRows, blockColumns };
}

/**
 * The heatmap SVG. `grid` = { rows, columns, values } (row-major, already downsampled);
 * `fill(value)` colours a cell; `title(row, column, value)` names it; `label` is the SVG's name.
 */
export function heatmapSvg(grid, fill, title, label) {
  const cell = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(TARGET_WIDTH / Math.max(1, grid.columns))));
  const width = grid.columns * cell;
  const height = grid.rows * cell;
  // Small cells drop their outline, which would otherwise paint a grid over the colours.
  const svg = svgElement('svg', { class: `heatmap-svg${cell < 12 ? ' dense' : ''}`, width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' });
  svg.setAttribute('aria-label', label);
  const caption = svgElement('title');
  caption.textContent = label;
  svg.append(caption);
  for (let row = 0; row < grid.rows; row += 1) {
    for (let column = 0; column < grid.columns; column += 1) {
      const value = grid.values[row * grid.columns + column];
      const rect = svgElement('rect', { x: column * cell, y: row * cell, width: cell, height: cell, class: 'heatmap-cell', 'data-row': row, 'data-column': column });
      rect.style.fill = fill(value);
      const name = svgElement('title');
      name.textContent = title(row, column, value);
      rect.append(name);
      svg.append(rect);
    }
  }
  return svg;
}

/**
 * The legend: a bar running through the colours from `low` to `high` (through `centre` when it
 * lies between), labelled `lowText` and `highText` at its ends and `centreText` at the centre.
 */
export function heatmapLegend({ low, centre, high, fill, lowText, highText, centreText }) {
  const legend = element('div', 'heatmap-legend');
  legend.setAttribute('role', 'group');
  legend.setAttribute('aria-label', t('output.heatmap.legend'));
  const stops = [`${fill(low)} 0%`];
  if (centre > low && centre < high) stops.push(`${fill(centre)} ${(((centre - low) / (high - low)) * 100).toFixed(1)}%`);
  stops.push(`${fill(high)} 100%`);
  const bar = element('span', 'heatmap-legend-bar');
  bar.style.background = `linear-gradient(to right, ${stops.join(', ')})`;
  bar.setAttribute('aria-hidden', 'true');
  legend.append(element('span', 'heatmap-legend-min', lowText), bar, element('span', 'heatmap-legend-max', highText));
  if (centreText && centre > low && centre < high) {
    const mark = element('span', 'heatmap-legend-centre', centreText);
    mark.style.left = `${(((centre - low) / (high - low)) * 100).toFixed(1)}%`;
    bar.append(mark);
  }
  return legend;
}
