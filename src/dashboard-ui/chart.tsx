// The 30-day chart (uPlot, loaded lazily with this module): paid volume in USD as bars and the
// number of paid invoices as a line. Screen readers get the same numbers as a table.
import { useLayoutEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { DayPoint } from '../contracts/dashboard/invoices.ts';
import { locale, t } from './i18n/index.ts';

export type { DayPoint };

const HALF_DAY = 12 * 3600;

function css(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

export function VolumeChart({ days }: { days: DayPoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  // Read here so a change of language draws the chart again with its words and dates.
  const lang = locale.value;
  // A layout effect: the chart is made, at its box's width, before the browser paints the box, so
  // no frame shows it at another width.
  useLayoutEffect(() => {
    // The days are UTC calendar days: each tick reads as that day in the user's language ("27 nov.").
    const dayFormat = new Intl.DateTimeFormat(lang, { month: 'short', day: 'numeric', timeZone: 'UTC' });
    const el = box.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(d.day + 'T00:00:00Z') / 1000);
    // Always the box's own width, read when the chart is made and at every change of the box's
    // size (a phone turned, a window resized, a card reflowed): never wider than the box, which
    // would clip the chart's right end (and a phone's card is narrower than any fixed minimum).
    const width = () => Math.floor(el.clientWidth);
    // Display only: the exact amounts are in the table below and in the invoices.
    const volume = days.map((d) => Number(d.paid_usd));
    const counts = days.map((d) => d.paid);
    // uPlot paints colours into a canvas once: whenever the theme changes (the toggle, or anything
    // else that sets data-theme) the chart is drawn again with the new theme's colours.
    const draw = () => {
      const text = css('--text');
      const grid = css('--border');
      const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
      return new uPlot(
        {
          width: width(),
          height: 240,
          series: [
            {},
            { label: t('chart_paid_usd'), stroke: css('--chart-1'), fill: css('--chart-1') + '55', paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false }, scale: 'usd' },
            { label: t('chart_paid_invoices'), stroke: css('--chart-2'), width: 2, scale: 'n' },
          ],
          // Each day's bar is centred on its day: half a day of room before the first and after the
          // last keeps the end bars whole (with one day shown, its only bar too).
          scales: { x: { time: true, range: (_u, min, max) => [min - HALF_DAY, max + HALF_DAY] }, usd: { range: (_u, _min, max) => [0, Math.max(1, max)] }, n: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
          axes: [
            { ...axis, values: (_u, ticks) => ticks.map((s) => dayFormat.format(s * 1000)) },
            { ...axis, scale: 'usd', size: 60 },
            // A count of invoices: whole steps only (no 0.2 of an invoice).
            { ...axis, scale: 'n', side: 1, grid: { show: false }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] },
          ],
          legend: { show: false },
          cursor: { drag: { x: false, y: false } },
        },
        [xs, volume, counts],
        el,
      );
    };
    let drawnFor = document.documentElement.dataset.theme;
    let plot = draw();
    el.dataset.drawn = drawnFor ?? '';
    const redraw = () => {
      if (document.documentElement.dataset.theme === drawnFor) return;
      drawnFor = document.documentElement.dataset.theme;
      plot.destroy();
      plot = draw();
      el.dataset.drawn = drawnFor ?? '';
    };
    const themes = new MutationObserver(redraw);
    themes.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const fit = () => {
      const w = width();
      if (w !== plot.width) plot.setSize({ width: w, height: 240 });
    };
    // The box may have changed between the render and now (a late style, a scrollbar): fitted at
    // once, then at every change of its size. The observer's callback runs after layout and before
    // paint, so a resized chart is never painted at its old width.
    fit();
    const resize = new ResizeObserver(fit);
    resize.observe(el);
    return () => {
      themes.disconnect();
      resize.disconnect();
      plot.destroy();
    };
  }, [days, lang]);
  return (
    <div>
      <div ref={box} class="chart" aria-hidden="true" />
      <ul class="chart-legend" aria-hidden="true">
        <li>
          <span class="key key-1" /> {t('chart_legend_usd')}
        </li>
        <li>
          <span class="key key-2" /> {t('chart_legend_invoices')}
        </li>
      </ul>
    </div>
  );
}
