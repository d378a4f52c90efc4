// A gradient-check display: a pass/fail badge with the largest errors, where each side ran, and per
// input its tolerance and worst elements (analytic against numerical).
import { t } from '../../i18n/index.js';
import { element, formatError, formatShape, formatValue } from './dom.js';

/** Worst elements listed per input. */
const MAX_WORST = 5;

/** One input's summary line and its worst elements as a table. */
function inputSection(input) {
  const section = element('div', `gradcheck-input ${input.passed ? 'passed' : 'failed'}`);
  section.append(element('div', 'output-caption', t('output.gradCheck.input', {
    input: input.input,
    shape: formatShape(input.shape),
    dtype: input.dtype,
    verdict: t(input.passed ? 'output.gradCheck.pass' : 'output.gradCheck.fail'),
    abs: formatError(input.max_abs_error),
    rel: formatError(input.max_rel_error),
    compared: input.compared,
    rtol: formatError(input.tolerance?.rtol),
    atol: formatError(input.tolerance?.atol),
  })));
  const worst = (input.worst ?? []).slice(0, MAX_WORST);
  if (worst.length > 0) {
    const table = element('table', 'output-table gradcheck-worst');
    const head = element('tr');
    for (const key of ['index', 'output', 'analytic', 'numerical', 'absError']) head.append(element('th', null, t(`output.gradCheck.${key}`)));
    table.append(head);
    for (const entry of worst) {
      const row = element('tr');
      row.append(
        element('td', null, formatShape(entry.input_index)),
        element('td', null, entry.output_index?.length ? formatShape(entry.output_index) : '—'),
        element('td', null, formatValue(entry.analytic)),
        element('td', null, formatValue(entry.numerical)),
        element('td', null, formatError(entry.abs_error)),
      );
      table.append(row);
    }
    section.append(table);
  }
  const kinks = input.non_differentiable?.length ?? 0;
  if (kinks > 0) section.append(element('p', 'output-note', t('output.gradCheck.kinks', { count: kinks })));
  return section;
}

/** The view of a `grad_check` display. */
export function renderGradCheck(display) {
  const box = element('div', `output-gradcheck ${display.passed ? 'passed' : 'failed'}`);
  const headline = element('p', 'gradcheck-headline');
  headline.append(
    element('span', 'badge', t(display.passed ? 'output.gradCheck.pass' : 'output.gradCheck.fail')),
    element('span', 'gradcheck-summary', t(display.passed ? 'output.gradCheck.passed' : 'output.gradCheck.failed', {
      abs: formatError(display.max_abs_err),
      rel: formatError(display.max_rel_err),
    })),
  );
  box.append(headline);
  if (display.sides) box.append(element('p', 'output-note', display.sides));
  for (const input of display.report?.inputs ?? []) box.append(inputSection(input));
  return box;
}
