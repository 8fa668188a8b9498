// An audit-log entry as a sentence in the user's language ("ana@shop.example changed the public name
// to Newcomer Mugs"), with the raw data one click away. Every action the server writes
// (src/custody/audit.ts writeAudit, called by the dashboard's routes, the CLI and the features) has
// its sentence; an action this dashboard does not know gets a neutral one, and the data still shows.
import type { AuditEntry } from '../contracts/dashboard/auth.ts';
import { amount } from './format.ts';
import { LANGUAGES, t, tAudit, type AuditKey } from './i18n/index.ts';
import { labelText } from './status-label.tsx';

type Detail = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const money = (d: Detail): string => amount(text(d.amount) || null, text(d.currency) || null);

/** One sentence per field of a profile change, in the order the form has them. */
function profileSentences(who: string, d: Detail): string[] {
  const out: string[] = [];
  if ('display_name' in d) out.push(d.display_name ? tAudit('profile_name', { who, value: text(d.display_name) }) : tAudit('profile_name_cleared', { who }));
  if ('accent' in d) out.push(d.accent ? tAudit('profile_accent', { who, value: text(d.accent) }) : tAudit('profile_accent_cleared', { who }));
  if ('theme' in d && d.theme) out.push(tAudit('profile_theme', { who, value: text(d.theme) }));
  if ('language' in d) {
    const name = LANGUAGES.find(([code]) => code === d.language)?.[1];
    out.push(name ? tAudit('profile_language', { who, value: name }) : tAudit('profile_language_cleared', { who }));
  }
  return out.length ? out : [tAudit('profile_update', { who })];
}

/** The sentence of an entry, or null for an action this dashboard has no sentence for. */
export function auditSentence(e: Pick<AuditEntry, 'email' | 'action' | 'target' | 'detail'>): string | null {
  const who = e.email === 'cli' ? t('audit_cli') : e.email;
  const target = e.target ?? '';
  const d: Detail = e.detail && typeof e.detail === 'object' && !Array.isArray(e.detail) ? (e.detail as Detail) : {};
  const say = (key: AuditKey, more: Record<string, string | number> = {}) => tAudit(key, { who, target, ...more });
  switch (e.action) {
    case 'sign_in':
    case 'set_password':
    case 'user_remove':
    case 'user_reset_link':
    case 'webhook_resend':
    case 'webhook_retry':
    case 'settings_update':
    case 'custody_change':
      return say(e.action);
    case 'sign_out_everywhere':
      return say('sign_out_everywhere', { count: typeof d.sessions === 'number' ? d.sessions : 0 });
    case 'user_invite':
    case 'user_create':
      return say(e.action, { role: labelText('role', text(d.role)) });
    case 'payout_create':
      return say('payout_create', { amount: money(d), address: text(d.address) });
    case 'key_rotate':
      return target === 'payment' || target === 'payout' ? say(`key_rotate_${target}`) : null;
    case 'refund_key':
      return target === 'payout' || target === 'either' ? say(`refund_key_${target}`) : null;
    case 'payer_emails':
      return target === 'on' || target === 'off' ? t(`pe_audit_${target}`, { who }) : null;
    case 'profile_update':
      return profileSentences(who, d).join('. ');
    case 'profile_logo':
      return target === 'remove' ? say('profile_logo_remove') : say('profile_logo_upload');
    case 'refund':
      return say('refund', { amount: d.amount ? amount(text(d.amount)) : t('audit_everything'), address: text(d.address) });
    case 'simulate_payment':
      return d.mode === 'partial' || d.mode === 'over' || d.mode === 'full' ? say(`simulate_payment_${d.mode}`) : null;
    case 'wallet_block':
      return say(d.is_force_refund ? 'wallet_block_refund' : 'wallet_block');
    case 'wallet_refund':
      return say('wallet_refund', { address: text(d.address) });
    case 'unmatched_assign':
      return say('unmatched_assign', { amount: money(d), invoice: text(d.invoice) });
    case 'unmatched_reopened':
      return say('unmatched_reopened');
    case 'unmatched_refunded':
      return say('unmatched_refunded', { amount: money(d) });
    default:
      return null;
  }
}

/** The "What" of an audit row: the sentence (or a neutral one), the raw data behind a disclosure. */
export function AuditWhat({ entry }: { entry: AuditEntry }) {
  const who = entry.email === 'cli' ? t('audit_cli') : entry.email;
  return <span>{auditSentence(entry) ?? t('audit_unknown', { who, action: entry.action })}</span>;
}

/** The raw entry, as the server keeps it: action code, target and data. */
export function AuditRaw({ entry }: { entry: AuditEntry }) {
  return (
    <details>
      <summary>{t('audit_details')}</summary>
      <pre class="mono small break">{JSON.stringify({ action: entry.action, target: entry.target, detail: entry.detail, ip: entry.ip }, null, 2)}</pre>
    </details>
  );
}
