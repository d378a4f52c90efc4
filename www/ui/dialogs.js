// The help (shortcuts), share and example-gallery dialogs: native <dialog> elements, closed by
// Escape or their Close button; focus returns to where it was.
import { t, translate } from '../i18n/index.js';
import { translatedElement } from './dom.js';

const isMac = /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = isMac ? '⌘' : 'Ctrl';

/** Shortcut rows: [keys, description key]. */
const SHORTCUTS = {
  'help.editing': [
    ['Shift+Enter', 'help.runNext'],
    [`${MOD}+Enter`, 'help.run'],
    ['Alt+Enter', 'help.runInsert'],
    ['Esc', 'help.escape'],
    [`${MOD}+Shift+-`, 'help.split'],
    ['Ctrl+Space', 'help.complete'],
    [`${MOD}+F`, 'help.find'],
  ],
  'help.command': [
    ['Enter', 'help.enter'],
    ['↑ / ↓  ·  K / J', 'help.select'],
    ['Alt+↑ / Alt+↓', 'help.move'],
    ['A', 'help.insertAbove'],
    ['B', 'help.insertBelow'],
    ['D D  ·  Delete', 'help.delete'],
    ['Z  ·  ' + MOD + '+Z', 'help.undo'],
    ['Shift+M', 'help.merge'],
    ['C  ·  X', 'help.copy'],
    ['V  ·  Shift+V', 'help.paste'],
    ['M / Y', 'help.kind'],
    ['O', 'help.collapse'],
    ['I I  ·  ' + MOD + '+Shift+.', 'help.stop'],
    ['H  ·  ?', 'help.helpKey'],
  ],
};

/** A dialog shell with a title and a close button; returns { dialog, body }. */
function shell(id, titleKey) {
  const dialog = document.createElement('dialog');
  dialog.id = id;
  dialog.className = 'dialog';
  const head = translatedElement('div', 'dialog-head');
  const title = translatedElement('h2', null, titleKey);
  title.id = `${id}-title`;
  dialog.setAttribute('aria-labelledby', title.id);
  const close = translatedElement('button', 'button dialog-close', 'dialog.close');
  close.type = 'button';
  close.addEventListener('click', () => dialog.close());
  head.append(title, close);
  const body = translatedElement('div', 'dialog-body');
  dialog.append(head, body);
  document.body.append(dialog);
  return { dialog, body };
}

function open(dialog) {
  const before = /** @type {HTMLElement | null} */ (document.activeElement);
  dialog.addEventListener('close', () => before?.focus?.(), { once: true });
  dialog.showModal();
}

let help = null;

/** Opens the shortcut list. */
export function openHelp() {
  if (!help) {
    help = shell('help-dialog', 'help.title');
    // The list is taller than a small window and has nothing focusable: keyboard users scroll it
    // by focusing the body itself, which is named by the dialog's title.
    help.body.tabIndex = 0;
    help.body.setAttribute('role', 'region');
    help.body.setAttribute('aria-labelledby', 'help-dialog-title');
    for (const [sectionKey, rows] of Object.entries(SHORTCUTS)) {
      help.body.append(translatedElement('h3', null, sectionKey));
      const table = translatedElement('table', 'shortcuts');
      for (const [keys, descriptionKey] of rows) {
        const row = document.createElement('tr');
        const keyCell = document.createElement('th');
        keyCell.scope = 'row';
        for (const [index, part] of keys.split('  ·  ').entries()) {
          if (index > 0) keyCell.append(' · ');
          const key = translatedElement('kbd');
          key.textContent = part;
          keyCell.append(key);
        }
        const description = translatedElement('td', null, descriptionKey);
        row.append(keyCell, description);
        table.append(row);
      }
      help.body.append(table);
    }
  }
  translate(help.dialog);
  open(help.dialog);
}

let share = null;

/**
 * Shows a share link with a copy button; with `includeOutputs` (checked → { link, note }) also a
 * checkbox that switches to a link with the outputs, and its note (how many outputs fit).
 */
export function openShare(link, includeOutputs = null) {
  if (!share) {
    share = shell('share-dialog', 'share.title');
    const explain = translatedElement('p', 'muted', 'share.explain');
    const label = translatedElement('label', 'field-label', 'share.link');
    label.htmlFor = 'share-link';
    const input = translatedElement('input', 'share-link');
    input.id = 'share-link';
    input.readOnly = true;
    const copy = translatedElement('button', 'button primary', 'share.copy');
    copy.type = 'button';
    const status = translatedElement('p', 'muted share-status');
    status.setAttribute('role', 'status');
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(input.value);
        status.textContent = t('share.copied');
      } catch {
        input.select();
        status.textContent = t('share.copyFailed');
      }
    });
    const row = translatedElement('div', 'share-row');
    row.append(input, copy);
    const outputs = translatedElement('label', 'share-outputs');
    const checkbox = translatedElement('input', null);
    checkbox.type = 'checkbox';
    checkbox.id = 'share-outputs';
    outputs.append(checkbox, ' ', translatedElement('span', null, 'share.includeOutputs'));
    const note = translatedElement('p', 'muted share-outputs-note');
    note.setAttribute('role', 'status');
    checkbox.addEventListener('change', async () => {
      const answer = await share.includeOutputs?.(checkbox.checked);
      if (!answer) return;
      input.value = answer.link;
      note.textContent = answer.note;
      status.textContent = '';
    });
    share.body.append(explain, outputs, note, label, row, status);
    share.input = input;
    share.status = status;
    share.outputs = outputs;
    share.checkbox = checkbox;
    share.note = note;
  }
  translate(share.dialog);
  share.input.value = link;
  share.status.textContent = '';
  share.includeOutputs = includeOutputs;
  share.outputs.hidden = !includeOutputs;
  share.checkbox.checked = false;
  share.note.textContent = '';
  open(share.dialog);
  share.input.select();
}

let gallery = null;

/**
 * Lists `examples` ([{ name, title, load }]); `onOpen(example)` opens one. `backup` ({ time,
 * restore }) adds an entry that reopens the notebook an example (or a link) replaced.
 */
export function openGallery(examples, onOpen, backup = null) {
  if (!gallery) gallery = shell('gallery-dialog', 'gallery.title');
  const explain = translatedElement('p', 'muted', 'gallery.explain');
  const extra = [];
  if (backup) {
    const restore = translatedElement('button', 'button gallery-restore');
    restore.type = 'button';
    restore.textContent = t('gallery.restore', { time: backup.time });
    restore.addEventListener('click', () => {
      gallery.dialog.close();
      backup.restore();
    });
    extra.push(restore);
  }
  const list = translatedElement('ul', 'gallery');
  for (const example of examples) {
    const item = document.createElement('li');
    const button = translatedElement('button', 'gallery-item');
    button.type = 'button';
    button.dataset.example = example.name;
    button.append(translatedElement('span', 'gallery-title'), translatedElement('span', 'gallery-file'));
    button.firstChild.textContent = example.title;
    button.lastChild.textContent = example.name;
    // Named by its visible title and file name (no aria-label): a spoken name that differs from the
    // visible text is what voice-control users cannot say.
    button.addEventListener('click', () => {
      gallery.dialog.close();
      onOpen(example);
    });
    item.append(button);
    list.append(item);
  }
  gallery.body.replaceChildren(explain, ...extra, examples.length > 0 ? list : translatedElement('p', 'muted', 'gallery.empty'));
  translate(gallery.dialog);
  open(gallery.dialog);
}
