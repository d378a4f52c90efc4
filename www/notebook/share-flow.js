// Share links on the page: make one from the open notebook, open one from the address. Opening
// validates everything first, keeps the previous notebook as a backup, never runs anything, and
// clears the fragment so a reload does not import it again.
import { ShareError, decodeNotebook, encodeNotebook, encodeNotebookWithOutputs, sharedPayload } from './share.js';
import { showBanner, dismissBanner } from '../ui/banner.js';
import { openShare } from '../ui/dialogs.js';
import { t } from '../i18n/index.js';

function linkOf(encoded) {
  const url = new URL(location.href);
  url.hash = `nb=${encoded}`;
  return url.href;
}

/**
 * Builds the link for `cells` ({kind, source, output?}) and shows it, with a checkbox that puts
 * the kept outputs in the link (as many as fit, saying how many were dropped); a notebook too
 * large for a link shows a banner.
 */
export async function shareNotebook(cells) {
  let encoded;
  try {
    encoded = await encodeNotebook(cells);
  } catch (error) {
    if (!(error instanceof ShareError)) throw error;
    showBanner('share', { key: 'banner.shareTooLarge', parameters: { message: error.message } });
    return;
  }
  const outputs = cells.filter((cell) => cell.kind === 'code' && cell.output).length;
  const includeOutputs = async (include) => {
    if (!include) return { link: linkOf(encoded), note: '' };
    const result = await encodeNotebookWithOutputs(cells);
    const note = result.dropped > 0 ? t('share.outputsDropped', { dropped: result.dropped, total: result.included + result.dropped }) : t('share.outputsIncluded', { count: result.included });
    return { link: linkOf(result.encoded), note };
  };
  openShare(linkOf(encoded), outputs > 0 ? includeOutputs : null);
}

/** Opens the notebook in `hash` if it holds one; a damaged link shows a banner and changes nothing. */
export async function openSharedLink(hash, { autosave, replaceNotebook }) {
  const payload = sharedPayload(hash);
  if (payload === null) return;
  history.replaceState(null, '', location.pathname + location.search);
  let cells;
  try {
    cells = await decodeNotebook(payload);
  } catch (error) {
    const key = error instanceof ShareError && error.code === 'too-large' ? 'banner.shareTooLarge' : 'banner.shareMalformed';
    showBanner('share', { key, parameters: { message: error.message } });
    return;
  }
  dismissBanner('share');
  try {
    await autosave.backupCurrent();
  } catch {
    // Without a backup the shared notebook still opens; the autosave banner reports storage trouble.
  }
  replaceNotebook(cells);
  // Saved at once and marked, so the next link does not push the reader's notebook out of the backups.
  await autosave.flush({ origin: 'link' });
  const restore = async () => {
    dismissBanner('share');
    const previous = await autosave.loadBackup().catch(() => null);
    if (previous) replaceNotebook(previous);
  };
  showBanner('share', { key: 'banner.shareLoaded', tone: 'info', actions: [{ label: 'banner.restore', run: restore }] });
}
