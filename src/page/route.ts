// Which payable this page shows, read from the URL: /pay/{uuid}, /pay/wallet/{uuid} or
// /pay/recurrence/{uuid}.
export interface Route {
  kind: 'invoice' | 'wallet' | 'recurrence';
  uuid: string;
}

export function readRoute(pathname: string): Route | null {
  const parts = pathname.split('/').filter(Boolean);
  if (parts[0] !== 'pay') return null;
  if (parts[1] === 'wallet' && parts.length === 3 && parts[2]) return { kind: 'wallet', uuid: decode(parts[2]) };
  if (parts[1] === 'recurrence' && parts.length === 3 && parts[2]) return { kind: 'recurrence', uuid: decode(parts[2]) };
  if (parts.length === 2 && parts[1]) return { kind: 'invoice', uuid: decode(parts[1]) };
  return null;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export type EmbedMode = 'modal' | 'inline';

/** Set when the widget shows this page in its iframe. */
export interface EmbedConfig {
  mode: EmbedMode;
  instance: string;
  /** The embedding page's exact origin: the only target and the only accepted sender of messages. */
  origin: string;
}

const INSTANCE = /^[\w-]{1,64}$/;

/** Reads the embed parameters; null when absent or malformed (the page then runs standalone). */
export function readEmbedConfig(search: string): EmbedConfig | null {
  const params = new URLSearchParams(search);
  const mode = params.get('embed');
  const instance = params.get('instance');
  const origin = params.get('origin');
  if ((mode !== 'modal' && mode !== 'inline') || !instance || !INSTANCE.test(instance) || !origin) return null;
  const exact = exactOrigin(origin);
  return exact ? { mode, instance, origin: exact } : null;
}

function exactOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    // Only a bare origin is accepted: anything with a path, query or credentials is not one.
    return url.origin === value.replace(/\/$/, '') ? url.origin : null;
  } catch {
    return null;
  }
}
