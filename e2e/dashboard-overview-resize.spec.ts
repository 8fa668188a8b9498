// The overview's chart follows its box when the window changes width (a phone turned, a window
// resized): at 1280, then 360, then 800 px it is redrawn at the box's width, never wider, and its
// only bar (today's, at the right end) lies whole inside the plot area. It pays invoices on the
// worker's shared gateway, so its name sorts it after dashboard-merchant.spec.ts, which checks that
// merchant's balance to the cent.
import type { Page } from '@playwright/test';
import { acceptLink, expect, heading, test } from './support/dashboard.ts';

interface Fit {
  /** The chart's box (div.chart), CSS px. */
  box: number;
  /** The width uPlot drew the chart at (its `.u-wrap`'s own style width; the canvas fills it), CSS px. */
  drawn: number;
  /** What shows of the chart: its canvas and layers stay inside the box, the box shows all it holds. */
  inside: boolean;
  /** The page does not scroll sideways. */
  pageFits: boolean;
}

/** The chart against its box, as laid out now. */
function fit(page: Page): Promise<Fit> {
  return page.evaluate(() => {
    const box = document.querySelector<HTMLElement>('.chart')!;
    const wrap = box.querySelector<HTMLElement>('.u-wrap')!;
    const b = box.getBoundingClientRect();
    // Its layers (the plot area's over and under) are cut at the edge of .u-wrap: what shows is that.
    const parts = [...box.querySelectorAll('.uplot, .u-wrap, canvas')].map((el) => el.getBoundingClientRect());
    return {
      box: b.width,
      drawn: parseFloat(wrap.style.width),
      inside: box.scrollWidth <= box.clientWidth + 1 && parts.every((r) => r.left >= b.left - 0.5 && r.right <= b.right + 0.5),
      pageFits: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
    };
  });
}

/**
 * The columns of the canvas (CSS px from the plot area's left edge) where the bars' colour is
 * painted, and the plot area's width: uPlot lays its `.u-over` layer exactly over the plot area.
 */
function barColumns(page: Page): Promise<{ plot: number; first: number; last: number; columns: number }> {
  return page.evaluate(() => {
    const box = document.querySelector<HTMLElement>('.chart')!;
    const canvas = box.querySelector('canvas')!;
    const over = box.querySelector<HTMLElement>('.u-over')!.getBoundingClientRect();
    const c = canvas.getBoundingClientRect();
    const ratio = canvas.width / c.width;
    // The bars' outline is the theme's --chart-1 (#rrggbb).
    const hex = getComputedStyle(document.documentElement).getPropertyValue('--chart-1').trim();
    const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    // Read from a copy made for reading, not from the chart's own canvas (Chromium warns about
    // repeated readbacks of a canvas that was not made for them).
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext('2d', { willReadFrequently: true })!;
    ctx.drawImage(canvas, 0, 0);
    const { data, width, height } = ctx.getImageData(0, 0, copy.width, copy.height);
    const hits: number[] = [];
    for (let x = 0; x < width; x++) {
      for (let y = 0; y < height; y++) {
        const i = (y * width + x) * 4;
        if (data[i + 3]! > 200 && want.every((v, k) => Math.abs(data[i + k]! - v) < 24)) {
          hits.push((x / ratio + c.left) - over.left);
          break;
        }
      }
    }
    return { plot: over.width, first: hits.length ? Math.min(...hits) : NaN, last: hits.length ? Math.max(...hits) : NaN, columns: hits.length };
  });
}

test('the overview chart is redrawn at its box width at 1280, 360 and 800 px, never wider, its bar inside the plot', async ({ page, gw }) => {
  // Paid today: the 30 days end with today's bar, the one a too-narrow plot would cut.
  for (const order of ['resize-1', 'resize-2']) {
    const r = await gw.api('/v1/payment', { amount: '40', currency: 'USDT', network: 'TRON', order_id: order });
    expect(r.state, JSON.stringify(r)).toBe(0);
    const paid = await fetch(gw.url + '/simulator/pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ invoice: r.result.uuid }) }).then((x) => x.json());
    expect(paid.state).toBe(0);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await acceptLink(page, await gw.user('resize-owner@e2e.example', 'owner'), 'resize owner password 1');
  await expect(heading(page)).toHaveText('Overview');
  await expect(page.locator('.chart canvas')).toBeVisible();

  const widths: number[] = [];
  for (const width of [1280, 360, 800]) {
    await page.setViewportSize({ width, height: width === 360 ? 780 : 900 });
    // Right after the change, before any redraw: nothing of the chart shows past its box.
    expect(await fit(page), `the chart right after resizing to ${width} px`).toMatchObject({ inside: true, pageFits: true });
    // Then it is redrawn at exactly its box's width.
    await expect.poll(async () => {
      const f = await fit(page);
      return { ...f, drawnAtBox: Math.abs(f.drawn - Math.floor(f.box)) <= 1 };
    }, { message: `the chart is drawn at its box width at ${width} px` }).toMatchObject({ inside: true, pageFits: true, drawnAtBox: true });
    const f = await fit(page);
    widths.push(f.box);
    const bars = await barColumns(page);
    expect(bars.columns, `bar columns at ${width} px`).toBeGreaterThan(0);
    // Whole: clear of both edges of the plot area (a bar cut by the edge ends exactly on it).
    expect(bars.first, `the bar's left edge at ${width} px (plot ${bars.plot} px wide)`).toBeGreaterThan(1);
    expect(bars.last, `the bar's right edge at ${width} px (plot ${bars.plot} px wide)`).toBeLessThan(bars.plot - 1);
  }
  // The box itself followed the window: narrower at 360 than at 800, and at 800 than at 1280 or equal.
  expect(widths[1]!).toBeLessThan(widths[2]!);
  expect(widths[1]!).toBeLessThanOrEqual(360);
});
