// @vitest-environment jsdom
// A webhook the gateway refused to send to a private address: the dashboard says why and how to fix it.
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, render, screen } from '@testing-library/preact';
import { Attempts } from '../../src/dashboard-ui/attempts.tsx';
import type { Attempt } from '../../src/contracts/dashboard/webhooks.ts';

afterEach(cleanup);

const attempt = (over: Partial<Attempt>): Attempt => ({ at: Date.UTC(2026, 10, 27, 10), http_status: null, latency_ms: 3, error: null, answer: null, ...over });

describe('webhook attempts', () => {
  test('a target refused as private says why and names allow_private_callbacks', () => {
    render(<Attempts attempts={[attempt({ error: 'blocked: private address' })]} />);
    const note = screen.getByRole('note');
    expect(note.textContent).toContain('private, loopback or link-local address');
    expect(note.textContent).toContain('allow_private_callbacks');
    expect(note.textContent).toContain('SATCHEL_ALLOW_PRIVATE_CALLBACKS=1');
    expect(screen.getByRole('table').textContent).toContain('blocked: private address');
  });

  test('ordinary failures carry no such note', () => {
    render(<Attempts attempts={[attempt({ http_status: 500, answer: 'oops' })]} />);
    expect(screen.queryByRole('note')).toBeNull();
    expect(screen.getByRole('table').textContent).toContain('oops');
  });
});
