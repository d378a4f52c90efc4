// Share links on the page: make one from the open notebook, open one from the address. Opening
// validates everything first, keeps the previous notebook as a backup, never runs anything, and
// clears the fragment so a reload does not import it again.
import { ShareError, decodeNotebook, encodeNotebook, sharedPayload } from './share.js';
import { showBanner, dismissBanner } from '../ui/banner.js';
import { openShare } from '../ui/dialogs.js';

/** Builds the link for `cells` and shows it; a notebook too large for a link shows a banner. */
export async function shareNotebook(cells) {
  try {
    const encoded = await encodeNotebook(cells);
    const url = new URL(location.href);
    url.hash = `nb=${encoded}`;
    openShare(url.href);
  } catch (error) {
    if (!(error instanceof ShareError)) throw error;
    showBanner('share', { key: 'banner.shareTooLarge', parameters: { message: error.message } });
  }
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
