// The secret files a network's settings name (a relayer's key, an API key): read whole and trimmed,
// and refused when other accounts on the host can read them, as the gateway's seed file is. Every
// message names the setting and the file, never what the file holds.
import { readFileSync, statSync } from 'node:fs';

/** The text of the secret file at `file` (setting `where`), trimmed; `what` names the secret in messages. */
export function readSecretFile(file: unknown, where: string, what: string): string {
  if (typeof file !== 'string' || file === '') throw new Error(`${where}: the path of a file holding ${what} is required`);
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode & 0o777;
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`${where}: ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if ((mode & 0o077) !== 0) throw new Error(`${where}: ${file} has mode 0${mode.toString(8).padStart(3, '0')}: other accounts on this host can read ${what}; chmod 600 ${file}`);
  return text;
}
