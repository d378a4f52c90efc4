// The Chrome trace of a schedule read as lanes: pid = core, tid = pipe, ts/dur in µs, args with
// tile, bytes, start/end cycles and the script line the event came from. Pure data, no DOM.
import { t } from '../../i18n/index.js';

/**
 * The trace as lanes: names of cores and pipes from the metadata events, and the complete ('X')
 * events grouped by (core, pipe), cores and pipes in ascending id order, events in start order.
 */
export function traceLanes(traceJson) {
  const parsed = JSON.parse(traceJson);
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents ?? [];
  const coreNames = new Map();
  const pipeNames = new Map();
  const lanes = new Map();
  let end = 0;
  for (const event of events) {
    if (event.ph === 'M' && event.name === 'process_name') coreNames.set(event.pid, event.args?.name);
    if (event.ph === 'M' && event.name === 'thread_name') pipeNames.set(`${event.pid}/${event.tid}`, event.args?.name);
    if (event.ph !== 'X') continue;
    const key = `${event.pid}/${event.tid}`;
    if (!lanes.has(key)) lanes.set(key, { core: event.pid, pipe: event.tid, events: [] });
    lanes.get(key).events.push(event);
    end = Math.max(end, event.ts + event.dur);
  }
  const ordered = [...lanes.values()].sort((a, b) => a.core - b.core || a.pipe - b.pipe);
  for (const lane of ordered) {
    lane.coreName = coreNames.get(lane.core) ?? t('output.schedule.core', { core: lane.core });
    lane.pipeName = pipeNames.get(`${lane.core}/${lane.pipe}`) ?? String(lane.pipe);
    lane.events.sort((a, b) => a.ts - b.ts);
  }
  return { lanes: ordered, end };
}

/** The lanes grouped by core: [{ core, coreName, lanes, events }] with `events` of every pipe in start order. */
export function coreGroups(lanes) {
  const groups = [];
  for (const lane of lanes) {
    let group = groups[groups.length - 1];
    if (!group || group.core !== lane.core) {
      group = { core: lane.core, coreName: lane.coreName, lanes: [], events: [] };
      groups.push(group);
    }
    group.lanes.push(lane);
    group.events.push(...lane.events.map((event) => ({ event, lane })));
  }
  for (const group of groups) group.events.sort((a, b) => a.event.ts - b.event.ts || a.lane.pipe - b.lane.pipe);
  return groups;
}

/**
 * Where an event came from in the script: `{ line, cell }` (1-based line; `cell` is the execution
 * number of the cell holding it when the trace says so, else null), or null when the trace has no
 * line for it.
 */
export function eventSource(event) {
  const args = event.args ?? {};
  const line = Number(args.source_line ?? args.line);
  if (!Number.isInteger(line) || line < 1) return null;
  const cell = Number(args.cell);
  return { line, cell: Number.isInteger(cell) && cell > 0 ? cell : null };
}

/** The cycles an event took (end − start, rounded), or null when the trace lacks them. */
export function eventCycles(event) {
  const args = event.args ?? {};
  const cycles = args.end_cycle - args.start_cycle;
  return Number.isFinite(cycles) ? Math.round(cycles) : null;
}

/** The hover text of one event: op, where it ran, tile, bytes, cycles and the source line. */
export function eventText(event, lane) {
  const args = event.args ?? {};
  const source = eventSource(event);
  const cycles = eventCycles(event);
  return t('output.schedule.eventTitle', {
    op: event.name,
    pipe: lane.pipeName,
    core: lane.coreName,
    tile: args.tile ?? '',
    bytes: args.bytes ?? 0,
    cycles: cycles ?? '?',
    start: Math.round(args.start_cycle ?? 0),
    end: Math.round(args.end_cycle ?? 0),
  }) + '\n' + (source ? t('output.schedule.sourceLine', { line: source.line }) : t('output.schedule.noSourceLine'));
}
