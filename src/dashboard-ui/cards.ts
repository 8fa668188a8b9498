// On a phone every table row is shown as a card (styles.css, "Tables as cards"): each cell then
// carries its column's heading, which CSS prints before the value from the cell's data-label. The
// headings are read from the table's own <thead>, so a view writes its table once, as a table, and
// the cells of rows added later (a page loaded, a row's own re-render) are labelled as they appear.
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

/** The visible heading of a column; '' for one whose heading is only for screen readers (Actions). */
function headingText(th: Element): string {
  const clone = th.cloneNode(true) as Element;
  for (const hidden of clone.querySelectorAll('.sr-only')) hidden.remove();
  return (clone.textContent ?? '').trim();
}

/** Sets data-label on every body cell of the tables inside `root` from the heading of its column. */
export function labelCells(root: Element): void {
  for (const table of root.querySelectorAll('table')) {
    const head = table.tHead?.rows[0];
    if (!head) continue;
    const headings: string[] = [];
    for (const th of head.cells) for (let i = 0; i < th.colSpan; i++) headings.push(headingText(th));
    for (const body of table.tBodies) {
      for (const row of body.rows) {
        let col = 0;
        for (const cell of row.cells) {
          const label = headings[col] ?? '';
          if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
          col += cell.colSpan;
        }
      }
    }
  }
}

/** Keeps the cells under `ref` labelled while the component is mounted. */
export function useCardLabels(ref: RefObject<HTMLElement>): void {
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    labelCells(root);
    // Rows and cells coming and going, and headings changing words (another language); the
    // attribute writes above are not watched, so they do not retrigger it.
    const watch = new MutationObserver(() => labelCells(root));
    watch.observe(root, { childList: true, characterData: true, subtree: true });
    return () => watch.disconnect();
  }, []);
}
