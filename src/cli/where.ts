// Which database the CLI works on, in words an operator can act on: the SQLite file's path, or the
// PostgreSQL URL with its password removed (the line may end up in a terminal log or a ticket).
import { join } from 'node:path';
import type { Config } from '../config.ts';

/** A PostgreSQL URL as it may be shown: the password, if any, replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // Not a URL we can parse: show only its scheme, never what could be a secret.
    return `${url.split(':')[0]}://(unparsable URL)`;
  }
}

/** The SQLite file of a data folder (the one place that names it, besides the storage opening it). */
export function sqlitePath(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'satchel.sqlite');
}

/** The configured database, as the CLI names it in its messages. */
export function databaseLabel(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  return config.databaseUrl ? redactUrl(config.databaseUrl) : sqlitePath(config);
}
