// Strings of the read mode, the embed view's query errors and the <tile-lab> frame, in every UI
// language. They live here (merged into the locale tables at import) because the i18n tables are
// edited by another change at the same time; moving them into i18n/en.js and zh-CN.js is mechanical.
import { LOCALES } from '../i18n/index.js';

/** The added strings by locale tag; every tag has every key (checked by the embed test). */
export const EXTRA_STRINGS = {
  en: {
    'read.badge': 'Read only',
    'read.announce': 'Read-only notebook: the cells can be run but not edited.',
    'read.announceNoRun': 'Read-only notebook: the cells cannot be edited or run.',
    'embed.sourceFailed': 'Could not open {source}: {message}',
    'embed.noSuchCell': 'The notebook has no cell {cell} (it has {count}).',
  },
  'zh-CN': {
    'read.badge': '只读',
    'read.announce': '只读笔记本：可以运行单元格，但不能编辑。',
    'read.announceNoRun': '只读笔记本：单元格不能编辑，也不能运行。',
    'embed.sourceFailed': '无法打开 {source}：{message}',
    'embed.noSuchCell': '笔记本中没有第 {cell} 个单元格（共 {count} 个）。',
  },
};

for (const [tag, strings] of Object.entries(EXTRA_STRINGS)) {
  // A table that already defines a key wins: once the strings move into i18n/, this file is inert.
  const table = LOCALES[tag]?.strings;
  if (table) for (const [key, text] of Object.entries(strings)) if (!(key in table)) table[key] = text;
}
