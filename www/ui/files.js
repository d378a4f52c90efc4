// Open and save notebook files: `.py` (percent format) and `.ipynb` (nbformat 4.5).
import { fromFile, toIpynb, toPy } from '../notebook/format.js';

/** Offers `text` as a download named `name`. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Downloads the cells as a `.py` notebook. */
export function savePy(cells) {
  download('notebook.py', toPy({ cells }), 'text/x-python');
}

/** Downloads the cells as an `.ipynb` notebook. */
export function saveIpynb(cells) {
  download('notebook.ipynb', toIpynb({ cells }), 'application/x-ipynb+json');
}

/** Reads a chosen file into cells; throws NotebookFormatError. */
export async function readNotebookFile(file) {
  return fromFile(file.name, await file.text()).cells;
}
