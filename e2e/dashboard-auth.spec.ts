// Signing in to the dashboard in Chromium: the one-time link, sign-out and sign-in, throttling,
// CSRF refusal, the never-framable page, a viewer's settings.
import { DASHBOARD_CSP } from '../src/http/dashboard/index.ts';
import { acceptLink, expect, heading, shoot, signIn, test } from './support/dashboard.ts';

test.use({ viewport: { width: 1280, height: 860 } });

test('a new owner chooses a password through the link, signs out and signs in again', async ({ page, gw }) => {
  const link = await gw.user('owner@e2e.example', 'owner');
  await page.goto(link);
  await expect(heading(page)).toHaveText('Choose a password');
  await expect(page.getByText('owner@e2e.example')).toBeVisible();
  expect(page.url()).not.toContain('#'); // the token left the address bar
  await shoot(page, 'set-password');
  await page.getByLabel('New password').fill('short');
  await page.getByLabel('Repeat the password').fill('short');
  await page.getByRole('button', { name: 'Save and sign in' }).click();
  await expect(page.getByText('The password needs at least 10 characters.')).toBeVisible();
  await acceptLink(page, link, 'owner password 1');
  await expect(page.getByText('E2E shop')).toBeVisible();
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'satchel_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(heading(page)).toHaveText('Sign in');
  await shoot(page, 'sign-in');
  await page.goto(link);
  await expect(page.getByText('This link has expired or was already used.')).toBeVisible();
  await signIn(page, gw.url, 'owner@e2e.example', 'owner password 1');
});

test('the page is never framable and has a strict CSP', async ({ request, gw }) => {
  const res = await request.get(gw.url + '/dashboard/invoices');
  expect(res.status()).toBe(200);
  expect(res.headers()['content-security-policy']).toBe(DASHBOARD_CSP);
  expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
  expect(DASHBOARD_CSP).not.toContain('unsafe');
  expect(res.headers()['x-frame-options']).toBe('DENY');
  const api = await request.get(gw.url + '/api/dashboard/invoices');
  expect(api.status()).toBe(401);
});

test('failed sign-ins are throttled', async ({ page, gw }) => {
  const link = await gw.user('throttled@e2e.example', 'owner');
  await acceptLink(page, link, 'the real password');
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  for (let i = 0; i < 5; i++) {
    await page.getByLabel('Email').fill('throttled@e2e.example');
    await page.getByLabel('Password').fill(`guess number ${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('The email or password is not right.');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  }
  await page.getByLabel('Password').fill('the real password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Too many failed sign-ins. Try again later.');
  await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toHaveCount(0);
});

test('a request without the CSRF token or from another origin is refused', async ({ page, gw }) => {
  await acceptLink(page, await gw.user('csrf@e2e.example', 'owner'), 'csrf password 1');
  const refused = await page.evaluate(async () => {
    const noToken = await fetch('/api/dashboard/logout-all', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    return { status: noToken.status, body: await noToken.json() };
  });
  expect(refused.status).toBe(403);
  expect(refused.body.message).toContain('cross-site request check failed');
  // A page on another origin posting with the browser's cookie (a classic CSRF) is refused too.
  const cookie = (await page.context().cookies()).find((c) => c.name === 'satchel_session')!;
  const forged = await fetch(gw.url + '/api/dashboard/logout-all', {
    method: 'POST',
    headers: { origin: 'http://evil.example', cookie: `satchel_session=${cookie.value}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(forged.status).toBe(403);
  await page.reload();
  await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible(); // still signed in
});

test('a viewer sees the users but none of the owner controls', async ({ page, gw }) => {
  await acceptLink(page, await gw.user('viewer@e2e.example', 'viewer'), 'viewer password 1');
  await page.goto(gw.url + '/dashboard/settings');
  await expect(page.getByRole('cell', { name: 'viewer@e2e.example' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create an invite link' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Remove/ })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Audit log' })).toHaveCount(0);
  const status = await page.evaluate(async () => {
    const me = await (await fetch('/api/dashboard/me')).json();
    const res = await fetch('/api/dashboard/users', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.result.csrf }, body: JSON.stringify({ email: 'x@e2e.example', role: 'owner' }) });
    return res.status;
  });
  expect(status).toBe(403);
  await shoot(page, 'settings-viewer');
});
