// @vitest-environment jsdom
// Every code the dashboard shows a person has a label and an explanation in each of its 20
// languages, and a label is never the code itself with its underscores turned into spaces. The
// codes come from the contracts (the status enums the API and the dashboard share) and from
// src/contracts/dashboard/codes.ts, whose lists are checked here against the server code that
// writes them. Every audit action the server writes has a sentence in every language, with every
// placeholder filled.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import * as codes from '../../src/contracts/dashboard/codes.ts';
import { CODE_FAMILIES } from '../../src/contracts/dashboard/codes.ts';
import { INVOICE_STATUS, PAYOUT_STATUS } from '../../src/contracts/merchant-api/objects.ts';
import { UnmatchedPayment } from '../../src/contracts/dashboard/unmatched.ts';
import { Finding } from '../../src/contracts/dashboard/readiness.ts';
import { BlockedWallet } from '../../src/contracts/merchant-api/wallets.ts';
import { PAGE_LANGUAGES } from '../../src/contracts/payer.ts';
import { UNMATCHED_REASONS } from '../../src/unmatched/record.ts';
import { RECURRENCE_STATUSES } from '../../src/contracts/merchant-api/recurrences.ts';
import { en, type Messages } from '../../src/dashboard-ui/i18n/en.ts';
import { setLanguage } from '../../src/dashboard-ui/i18n/index.ts';
import { auditSentence } from '../../src/dashboard-ui/audit-sentence.tsx';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.ts';

const read = (path: string) => readFileSync(`${REPO_ROOT}/${path}`, 'utf8');
const enumValues = (schema: { _zod: { def: { entries: Record<string, string> } } }) => Object.values(schema._zod.def.entries);

async function messagesOf(code: string): Promise<Messages> {
  if (code === 'en') return en;
  return ((await import(`../../src/dashboard-ui/i18n/${code}.ts`)) as { default: Messages }).default;
}

/** The parameters a template uses, its plural blocks counted as their parameter. */
function params(text: string): string[] {
  const flat = text.replace(/\{(\w+), plural,((?:\s*=?\w+\s*\{[^{}]*\})+)\s*\}/g, '{$1}');
  return [...new Set([...flat.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))].sort();
}

describe('the code lists the dashboard labels are the server’s', () => {
  test('each status enum of the contracts is a family of labelled codes', () => {
    expect(enumValues(INVOICE_STATUS)).toEqual([...codes.INVOICE_STATUSES]);
    expect(enumValues(PAYOUT_STATUS)).toEqual([...codes.PAYOUT_STATUSES]);
    expect(enumValues(UnmatchedPayment.shape.status)).toEqual([...codes.UNMATCHED_STATUSES]);
    expect(enumValues(Finding.shape.status)).toEqual([...codes.CHECK_RESULTS]);
    expect(enumValues(BlockedWallet.shape.status).sort()).toEqual([...codes.WALLET_STATUSES].sort());
    expect([...codes.UNMATCHED_REASONS]).toEqual([...UNMATCHED_REASONS]);
    expect([...codes.RECURRENCE_STATUSES]).toEqual([...RECURRENCE_STATUSES]);
  });

  test('the lists kept in codes.ts match what the server writes', () => {
    const union = (file: string, type: string) => {
      const m = new RegExp(`type ${type} = ([^;]+);`).exec(read(file));
      return [...m![1]!.matchAll(/'(\w+)'/g)].map((x) => x[1]!);
    };
    const comment = (file: string, pattern: RegExp) => [...pattern.exec(read(file))![1]!.matchAll(/(\w+)/g)].map((x) => x[1]!);
    expect(union('src/webhooks/outbox.ts', 'WebhookKind')).toEqual([...codes.WEBHOOK_KINDS]);
    expect(comment('src/db/tables/webhooks.ts', /\/\*\* (pending \| delivered \| failed) \*\//)).toEqual([...codes.WEBHOOK_STATUSES]);
    expect(comment('src/db/tables/chain.ts', /\/\*\* (seen \| confirmed \| dropped) \*\//)).toEqual([...codes.TRANSFER_STATUSES]);
    expect(comment('src/db/tables/money.ts', /\/\*\* (payout \| refund \| wallet_refund \| force_refund) \*\//)).toEqual([...codes.PAYOUT_KINDS]);
    expect(comment('src/db/tables/dashboard.ts', /\/\*\* (owner \| viewer \| admin) \*\//).sort()).toEqual([...codes.USER_ROLES].sort());
    // A top-up's outcome: every value the wallets feature writes.
    const outcomes = new Set<string>();
    for (const file of sourceFiles('src/wallets')) for (const m of read(file).matchAll(/outcome: '(\w+)'|'outcome', '(?:=|in)', (?:'(\w+)'|\[([^\]]+)\])/g)) {
      for (const v of [m[1], m[2], ...(m[3] ? [...m[3].matchAll(/'(\w+)'/g)].map((x) => x[1]) : [])]) if (v) outcomes.add(v);
    }
    expect(outcomes.size).toBeGreaterThan(0);
    for (const o of outcomes) expect(codes.TOPUP_OUTCOMES).toContain(o);
  });
});

describe.each(PAGE_LANGUAGES.map((code) => ({ code })))('labels in $code', ({ code }) => {
  test('every code of every family: a label that is not the code, and what it means', async () => {
    const m = await messagesOf(code);
    for (const [family, listName] of Object.entries(CODE_FAMILIES)) {
      const list = (codes as unknown as Record<string, readonly string[]>)[listName]!;
      const labels = m.labels[family as keyof Messages['labels']] as Record<string, readonly [string, string]>;
      expect(Object.keys(labels).sort(), `${code} ${family}`).toEqual([...list].sort());
      for (const c of list) {
        const [label, meaning] = labels[c]!;
        const plain = c.replace(/_/g, ' ').toLowerCase();
        expect(label.trim(), `${code} ${family}.${c}`).not.toBe('');
        // "Paid" for `paid` is a label; "Paid over" for `paid_over` is the code in disguise.
        if (c.includes('_')) expect(label.toLowerCase(), `${code} ${family}.${c}`).not.toBe(plain);
        expect(label, `${code} ${family}.${c}`).not.toBe(c);
        expect(meaning.trim().length, `${code} ${family}.${c}`).toBeGreaterThan(3);
        expect(meaning, `${code} ${family}.${c}`).not.toBe(label);
      }
    }
  });

  test('every sentence keeps the English parameters and says something', async () => {
    const m = await messagesOf(code);
    for (const key of Object.keys(en) as Array<keyof Messages>) {
      if (key === 'labels' || key === 'audit' || key === 'readiness') continue;
      const text = m[key] as string;
      expect(text.trim(), `${code} ${key}`).not.toBe('');
      expect(params(text), `${code} ${key}`).toEqual(params(en[key] as string));
    }
    for (const key of Object.keys(en.audit) as Array<keyof Messages['audit']>) {
      expect(params(m.audit[key]), `${code} audit.${key}`).toEqual(params(en.audit[key]));
    }
  });
});

/** An entry for each audit action the server writes, as its writer fills it in. */
const SAMPLES: Record<string, { target?: string | null; detail?: Record<string, unknown> | null }> = {
  payout_create: { target: 'withdraw-1', detail: { amount: '5', currency: 'USDT', network: 'tron', address: 'TAddr' } },
  key_rotate: { target: 'payment', detail: { prefix: 'abcdef' } },
  refund_key: { target: 'either', detail: { from: 'payout', to: 'either' } },
  payer_emails: { target: 'on', detail: null },
  profile_update: { detail: { display_name: 'Newcomer Mugs' } },
  profile_logo: { target: 'upload', detail: { type: 'image/png', sha256: 'aa', bytes: 10 } },
  webhook_resend: { target: 'inv-1' },
  refund: { target: 'inv-1', detail: { address: 'TAddr', amount: null } },
  simulate_payment: { target: 'inv-1', detail: { mode: 'partial', amount: '1' } },
  wallet_block: { target: 'w-1', detail: { is_force_refund: true } },
  wallet_refund: { target: 'w-1', detail: { address: 'TAddr', amount: '3' } },
  webhook_retry: { target: 'hook-1', detail: { due: 1 } },
  settings_update: { detail: { url_callback: 'https://shop.example/cb' } },
  sign_in: {},
  set_password: {},
  sign_out_everywhere: { detail: { sessions: 3 } },
  user_invite: { target: 'bo@shop.example', detail: { role: 'viewer' } },
  user_remove: { target: 'bo@shop.example' },
  user_reset_link: { target: 'bo@shop.example' },
  user_create: { target: 'bo@shop.example', detail: { role: 'owner' } },
  unmatched_assign: { target: 'u-1', detail: { invoice: 'inv-1', network: 'ton', currency: 'TON', amount: '2.5', txid: 'tx' } },
  unmatched_reopened: { target: 'u-1', detail: { error: 'x' } },
  unmatched_refunded: { target: 'u-1', detail: { network: 'ton', currency: 'TON', amount: '2.5', txid: 'tx', note: null } },
  custody_change: { target: 'bitcoin', detail: { network: 'bitcoin', kind: 'xpub', from: null, to: 'xpub…' } },
};

describe('audit sentences', () => {
  afterAll(() => setLanguage('en'));

  test('every action the server writes has a sample here (grep of the audit writers’ calls)', () => {
    const written = new Set<string>();
    for (const file of sourceFiles('src')) {
      if (file.startsWith('src/dashboard-ui/') || file.startsWith('src/page/')) continue;
      const text = read(file);
      if (!/\baudit\(|writeAudit\(/.test(text)) continue;
      for (const m of text.matchAll(/action: '(\w+)'|_ACTION = '(\w+)'/g)) written.add((m[1] ?? m[2])!);
    }
    expect(written.size).toBeGreaterThan(15);
    expect([...written].sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  test.each(PAGE_LANGUAGES.map((code) => ({ code })))('each is a full sentence in $code', async ({ code }) => {
    await setLanguage(code);
    for (const [action, sample] of Object.entries(SAMPLES)) {
      const sentence = auditSentence({ email: 'ana@shop.example', action, target: sample.target ?? null, detail: sample.detail ?? null });
      expect(sentence, `${code} ${action}`).not.toBeNull();
      expect(sentence!, `${code} ${action}`).not.toMatch(/[{}]/);
      if (action !== 'unmatched_reopened') expect(sentence!, `${code} ${action}`).toContain('ana@shop.example');
      if (action.includes('_')) expect(sentence!.toLowerCase(), `${code} ${action}`).not.toContain(action.replace(/_/g, ' '));
    }
  });
});
