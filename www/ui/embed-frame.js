// The embed's side of the <tile-lab> frame protocol: whenever the page's content changes height it
// posts { type: 'tilelab:size', frame, height } to the embedding page, which checks the sender,
// the shape and the frame id before resizing (see www/tile-lab.js). Only a height is ever sent.

/** The message type of a height report. */
export const SIZE_MESSAGE = 'tilelab:size';

/** The embedding page's origin, so the height goes to it alone; '*' only when it is unknown. */
function parentOrigin() {
  const ancestor = location.ancestorOrigins?.[0];
  if (ancestor && ancestor !== 'null') return ancestor;
  try {
    return new URL(document.referrer).origin;
  } catch {
    return '*';
  }
}

/** Reports the content height to the parent page now and after every change of it. */
export function reportHeight(frame) {
  if (window.parent === window) return;
  const target = parentOrigin();
  let last = -1;
  const send = () => {
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: SIZE_MESSAGE, frame, height }, target);
  };
  new ResizeObserver(send).observe(document.body);
  send();
}
