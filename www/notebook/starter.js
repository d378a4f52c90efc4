// The notebook a first visit opens with, in the UI language of that visit: the whole idea in the
// first screen — a kernel with its registered backward, run on the simulated NPU (its schedule is
// listed under the cell), a gradient check, then the forward and backward graph. Its code uses only
// the pypto API of DESIGN §2 and runs clean.
const CODE = {
  en: "# Softmax of each row as a tile kernel, its registered backward, and a gradient check.\nimport pypto as pt\n\n@pt.kernel\ndef row_softmax(x):\n    pt.set_vec_tile_shapes(4, 16)\n    e = pt.exp(x - pt.amax(x, dim=-1, keepdim=True))\n    p = e / pt.sum(e, dim=-1, keepdim=True)\n    pt.save_for_backward(p)\n    return p\n\n@pt.register_gradient(\"row_softmax\")\ndef row_softmax_backward(grad_output, saved, ctx):\n    x, p = saved\n    return p * (grad_output - pt.sum(grad_output * p, dim=-1, keepdim=True))\n\nx = pt.randn([4, 16], seed=0)\ny = row_softmax(x)\nprint(\"rows sum to 1:\", pt.allclose(y.sum(dim=-1), pt.ones([4])))\npt.autodiff.check_gradient(row_softmax, [x])",
  'zh-CN': "# 每一行的 softmax：写成 tile 内核，注册它的反向，并做梯度检查。\nimport pypto as pt\n\n@pt.kernel\ndef row_softmax(x):\n    pt.set_vec_tile_shapes(4, 16)\n    e = pt.exp(x - pt.amax(x, dim=-1, keepdim=True))\n    p = e / pt.sum(e, dim=-1, keepdim=True)\n    pt.save_for_backward(p)\n    return p\n\n@pt.register_gradient(\"row_softmax\")\ndef row_softmax_backward(grad_output, saved, ctx):\n    x, p = saved\n    return p * (grad_output - pt.sum(grad_output * p, dim=-1, keepdim=True))\n\nx = pt.randn([4, 16], seed=0)\ny = row_softmax(x)\nprint(\"每行之和为 1：\", pt.allclose(y.sum(dim=-1), pt.ones([4])))\npt.autodiff.check_gradient(row_softmax, [x])",
};

const GRAPH = {
  en: "# The forward graph and, after backward(), the backward graph through the registered gradient.\nxg = pt.randn([4, 16], seed=0, requires_grad=True)\nloss = (row_softmax(xg) * pt.arange(0, 16)).sum()\nloss.backward()\npt.graph(loss)",
  'zh-CN': "# 前向计算图；执行 backward() 后还会显示经过注册反向的反向图。\nxg = pt.randn([4, 16], seed=0, requires_grad=True)\nloss = (row_softmax(xg) * pt.arange(0, 16)).sum()\nloss.backward()\npt.graph(loss)",
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
    { kind: 'code', source: GRAPH[locale] ?? GRAPH.en },
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
