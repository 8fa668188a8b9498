import { chromium } from '@playwright/test';
const url = process.argv[2]!;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
for (let i = 0; i < 4; i++) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as any;
    new MutationObserver((_, o) => { if (w.__r === undefined && document.getElementById('address')) { w.__r = performance.now(); o.disconnect(); } }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => (window as any).__r !== undefined);
  const r = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const res = performance.getEntriesByType('resource').map((e: any) => `${e.name.split('/').pop()} ${e.startTime.toFixed(0)}-${e.responseEnd.toFixed(0)}`);
    return { rendered: (window as any).__r.toFixed(0), htmlStart: nav.responseStart.toFixed(0), htmlEnd: nav.responseEnd.toFixed(0), dcl: nav.domContentLoadedEventStart.toFixed(0), res };
  });
  console.log(JSON.stringify(r));
  await context.close();
}
await browser.close();
