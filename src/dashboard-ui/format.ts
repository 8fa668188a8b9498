// Display of amounts, times and outside links. Amounts arrive as decimal strings and stay strings.
const BLOCKED = /^(javascript|data|vbscript|file|blob):/i;

/** http(s) only: a javascript: URL a merchant or payer typed never becomes a link. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url || BLOCKED.test(url.trim())) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** `withSeconds` where seconds matter (a rate quote's freshness). */
export function time(ms: number | null | undefined, withSeconds = false): string {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  const hm = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return withSeconds ? `${hm}:${pad(d.getSeconds())}` : hm;
}

/** Groups the integer part of a decimal string with thin spaces; never goes through a number. */
export function amount(value: string | null | undefined, currency?: string | null): string {
  if (value === null || value === undefined || value === '') return '—';
  const neg = value.startsWith('-');
  const [int = '0', frac] = (neg ? value.slice(1) : value).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return `${neg ? '−' : ''}${grouped}${frac ? '.' + frac : ''}${currency ? ' ' + currency : ''}`;
}

export function short(id: string, keep = 8): string {
  return id.length > keep * 2 + 1 ? `${id.slice(0, keep)}…${id.slice(-keep)}` : id;
}
