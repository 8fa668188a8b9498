// Layout checks of a screen as a phone shows it, measured in the browser:
// - nothing sticks out of the viewport sideways, and nothing hides part of its content behind a
//   sideways scroll or a clip (the "10 US" of an amount cut at the edge of its column);
// - the form controls that sit on one row start at the same height (a hint under one field must
//   not push its neighbours' controls up or down);
// - no word is broken across two lines ("10 US" / "DT", "subscri" / "ption"): a word that would fit
//   on a line of the screen stays on one line. A break after a hyphen, slash or other punctuation
//   is a break between words; a word wider than most of the screen may break (it could not fit
//   anyway), and so may text set to `word-break: break-all` on purpose (a token to copy).
import type { Page } from '@playwright/test';

export interface LayoutProblem {
  kind: 'overflow' | 'clipped' | 'misaligned' | 'broken-word';
  what: string;
  detail: string;
}

/** Every layout problem of the current screen (empty when it is fine). */
export async function layoutProblems(page: Page): Promise<LayoutProblem[]> {
  return page.evaluate(() => {
    const problems: Array<{ kind: 'overflow' | 'clipped' | 'misaligned' | 'broken-word'; what: string; detail: string }> = [];
    const width = document.documentElement.clientWidth;
    const describe = (el: Element): string => {
      const id = el.id ? `#${el.id}` : '';
      const cls = typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/).join('.') : '';
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return `${el.tagName.toLowerCase()}${id}${cls}${text ? ` "${text}"` : ''}`;
    };
    const shown = (el: Element): boolean => {
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return false; // visually hidden (sr-only) or empty
      const s = getComputedStyle(el);
      return s.visibility !== 'hidden' && s.display !== 'none';
    };
    // Inside a box that shows none of it (visually hidden, like a card table's headings) or that
    // ends its one line with an ellipsis and holds the whole text in its title.
    const concealed = (el: Element): boolean => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        const r = a.getBoundingClientRect();
        if (s.overflowX !== 'visible' && (r.width <= 1 || r.height <= 1)) return true;
        if (s.textOverflow === 'ellipsis' && s.overflowX !== 'visible' && a.hasAttribute('title')) return true;
      }
      return false;
    };
    if (document.documentElement.scrollWidth > width) problems.push({ kind: 'overflow', what: 'the page', detail: `scrolls sideways: ${document.documentElement.scrollWidth} > ${width}` });
    for (const el of document.body.querySelectorAll('*')) {
      if (!shown(el) || el.closest('.sr-only, script, style, noscript') || concealed(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.left < -0.5 || r.right > width + 0.5) {
        problems.push({ kind: 'overflow', what: describe(el), detail: `spans ${Math.round(r.left)}..${Math.round(r.right)} of ${width}` });
        continue;
      }
      const s = getComputedStyle(el);
      // A box that cuts or scrolls its content sideways hides part of it; a code block may
      // scroll (it is read, not scanned), and a one-line ellipsis is fine when a title holds the whole text.
      if (s.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'PRE' && el.tagName !== 'CANVAS') {
        if (s.textOverflow === 'ellipsis' && el.hasAttribute('title')) continue;
        if (el.closest('.u-wrap')) continue; // uPlot's own layers, sized to its canvas
        problems.push({ kind: 'clipped', what: describe(el), detail: `shows ${el.clientWidth} of ${el.scrollWidth} px` });
      }
    }
    // Form controls: those next to each other on one row start at the same height.
    const controls = (form: Element) =>
      [...form.querySelectorAll('input, select, textarea, button')].filter((c) => {
        const type = (c as HTMLInputElement).type;
        return shown(c) && type !== 'hidden' && type !== 'checkbox' && type !== 'radio';
      });
    for (const form of document.querySelectorAll('form')) {
      const list = controls(form);
      for (let i = 1; i < list.length; i++) {
        const a = list[i - 1]!.getBoundingClientRect();
        const b = list[i]!.getBoundingClientRect();
        // Beside each other (either way round, for right-to-left too) and overlapping vertically.
        const sameRow = a.top < b.bottom && b.top < a.bottom && (b.left >= a.right - 1 || b.right <= a.left + 1);
        if (sameRow && Math.abs(a.top - b.top) > 2)
          problems.push({ kind: 'misaligned', what: `${describe(list[i - 1]!)} | ${describe(list[i]!)}`, detail: `tops ${Math.round(a.top)} and ${Math.round(b.top)}` });
      }
    }
    // Words broken across lines. Only text nodes that take more than one line are looked at word
    // by word: the rest cannot break a word, and skipping them keeps the check fast.
    const lines = (rects: DOMRectList | DOMRect[]): number => {
      const tops: number[] = [];
      for (const r of rects) {
        if (r.width < 0.5 || r.height < 0.5) continue;
        if (!tops.some((t) => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
      }
      return tops.length;
    };
    // Scripts written without spaces between words break between any two characters: not counted.
    const noSpaces = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
    const maxWord = width * 0.75;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent ?? '';
      const host = n.parentElement;
      if (!host || !/[\p{L}\p{N}]{2}/u.test(text) || !shown(host) || host.closest('.sr-only, script, style, noscript, pre, textarea, option') || concealed(host)) continue;
      range.selectNodeContents(n);
      if (lines(range.getClientRects()) < 2) continue;
      if (getComputedStyle(host).wordBreak === 'break-all') continue;
      for (const m of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
        if (m[0].length < 2 || noSpaces.test(m[0])) continue;
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const rects = [...range.getClientRects()];
        if (lines(rects) < 2) continue;
        const wide = rects.reduce((sum, r) => sum + r.width, 0);
        if (wide > maxWord) continue;
        problems.push({ kind: 'broken-word', what: describe(host), detail: `"${m[0]}" is broken across lines (${Math.round(wide)} px wide)` });
      }
    }
    return problems;
  });
}
