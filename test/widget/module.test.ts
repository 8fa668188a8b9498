// @vitest-environment jsdom
// `satchel/widget`, the loader as an ES module: the gateway comes from the invoice url (or the
// `gateway` option for a bare uuid); nothing is set on window; the package exports it with types.
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mount, open } from '../../widget/src/module.ts';
import type * as Published from 'satchel/widget';
import type { SatchelHandle } from '../../widget/satchel.d.ts';

const MJS = join(process.cwd(), 'dist', 'widget', 'widget.mjs');
const UUID = '3f0c2a1e-8b7d-4c55-9e1a-0f6d2b9c7a10';
const frame = () => document.querySelector('satchel-modal')?.shadowRoot?.querySelector('iframe') ?? document.querySelector('iframe');

afterEach(() => {
  document.querySelector('satchel-modal')?.remove();
  document.body.innerHTML = '';
});

describe('satchel/widget', () => {
  test('opens an invoice url on its own gateway, setting nothing on window', () => {
    const handle = open(`https://pay.example/pay/${UUID}`, { theme: 'dark' });
    const src = new URL(frame()!.src);
    expect(`${src.origin}${src.pathname}`).toBe(`https://pay.example/pay/${UUID}`);
    expect(src.searchParams.get('embed')).toBe('modal');
    expect('Satchel' in window).toBe(false);
    handle.close();
  });

  test('a bare uuid needs the gateway; a gateway with a path prefix works', () => {
    expect(() => open(UUID)).toThrow(TypeError);
    const host = document.createElement('div');
    document.body.append(host);
    const handle = mount(host, UUID, { gateway: 'https://gw.example/satchel' });
    const src = new URL(host.querySelector('iframe')!.src);
    expect(`${src.origin}${src.pathname}`).toBe(`https://gw.example/satchel/pay/${UUID}`);
    handle.unmount();
    expect(host.querySelector('iframe')).toBeNull();
  });

  test('the package exports it, typed (`import { open } from "satchel/widget"`)', () => {
    expectTypeOf<typeof Published.open>().parameters.toEqualTypeOf<[string, Published.ModuleOptions?]>();
    expectTypeOf<ReturnType<typeof Published.mount>>().toEqualTypeOf<SatchelHandle>();
    const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
    expect(pkg.exports['./widget']).toEqual({ types: './widget/module.d.ts', import: './dist/widget/widget.mjs' });
  });

  test.skipIf(!existsSync(MJS))('the build is an ES module exporting open and mount', () => {
    const code = readFileSync(MJS, 'utf8');
    expect(code).toMatch(/export\s*\{[^}]*\bas open\b|export\s*\{[^}]*\bopen\b/);
    expect(code).toMatch(/\bmount\b/);
    expect(code).not.toMatch(/\.Satchel\s*=/);
  });
});
