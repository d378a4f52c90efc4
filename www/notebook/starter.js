// The notebook a first visit opens with.
export const STARTER = [
  {
    kind: 'markdown',
    source:
      '# Welcome to TileLab\n\nWrite tile kernels in a Python subset with the `pypto` API, differentiate them and run them on a simulated NPU.\n\nPress **Shift+Enter** to run a cell, or **Shortcuts** for the full list.',
  },
  { kind: 'code', source: 'import pypto as pt\n\nx = pt.ones([2, 3])\nx' },
];
