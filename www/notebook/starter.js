// The notebook a first visit opens with, in the UI language of that visit. Its code uses only the
// pypto API of DESIGN §2 and runs clean: it prints the shape and shows a tensor display.
const CODE = {
  en: '# Softmax of each row: exp(x) divided by the row\'s sum of exp(x).\nimport pypto as pt\n\nx = pt.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 2.0]])\np = pt.softmax(x, dim=-1)\nprint("shape", p.shape)\np',
  'zh-CN': '# 每一行的 softmax：exp(x) 除以该行 exp(x) 之和。\nimport pypto as pt\n\nx = pt.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 2.0]])\np = pt.softmax(x, dim=-1)\nprint("shape", p.shape)\np',
};

const WELCOME = {
  en: '# Welcome to TileLab\n\nWrite tile kernels in a Python subset with the `pypto` API, differentiate them and run them on a simulated NPU.\n\nPress **Shift+Enter** to run a cell, or **Shortcuts** for the full list.',
  'zh-CN': '# 欢迎使用 TileLab\n\n用 Python 子集和 `pypto` API 编写 tile 内核，对它们求梯度，并在模拟 NPU 上运行。\n\n按 **Shift+Enter** 运行单元格，或点击 **快捷键** 查看完整列表。',
};

/** The starter cells for a locale tag. */
export function starterCells(locale) {
  return [
    { kind: 'markdown', source: WELCOME[locale] ?? WELCOME.en },
    { kind: 'code', source: CODE[locale] ?? CODE.en },
  ];
}

/**
 * The locale whose untouched starter `cells` ([{kind, source}]) is, or null when the reader has
 * changed anything (text, kinds, cells added or removed): only an untouched starter may be replaced.
 */
export function starterLocale(cells) {
  for (const tag of Object.keys(CODE)) {
    const starter = starterCells(tag);
    const same = cells.length === starter.length && starter.every((cell, index) => cells[index].kind === cell.kind && cells[index].source === cell.source);
    if (same) return tag;
  }
  return null;
}
