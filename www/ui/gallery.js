// The example notebooks of examples/ (the same files the CLI and the tests use), bundled as text
// by Vite; each one's title is the first markdown heading, or its file name.
import { t } from '../i18n/index.js';
import { fromPy } from '../notebook/format.js';

const files = import.meta.glob('../../examples/*.py', { query: '?raw', import: 'default' });

function localTitle(name, english) {
  const key = `gallery.title.${name.replace(/\.py$/, '')}`;
  const title = t(key);
  return title === key ? english : title;
}

function titleOf(name, text) {
  const heading = /^# %% \[markdown\]\s*\n# #+\s+(.+)$/m.exec(text);
  return heading ? heading[1].replaceAll('`', '').trim() : name.replace(/\.py$/, '').replace(/^\d+_/, '').replaceAll('_', ' ');
}

/** The examples: [{ name, title, cells() }], sorted by file name. */
export async function listExamples() {
  const entries = await Promise.all(
    Object.entries(files).map(async ([path, load]) => {
      const name = path.split('/').pop();
      const text = await load();
      const english = titleOf(name, text);
      // The title in the UI language when the tables have one (`gallery.title.<file name>`).
      return { name, get title() { return localTitle(name, english); }, cells: () => fromPy(text).cells };
    }),
  );
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}
