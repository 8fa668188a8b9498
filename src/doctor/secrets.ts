// The doctor's check of files that hold secrets: the HD seed's phrase, node credentials named in
// a network's settings (`*_file`), and the SQLite database (which holds every merchant's API keys).
// Readable by anyone but their owner is a FAIL: on a shared host, another account could take them.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Finding } from './finding.ts';

function modeCheck(name: string, path: string, required: boolean): Finding {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return required
      ? { status: 'FAIL', name, detail: `${path} cannot be read`, fix: 'correct the path in the configuration' }
      : { status: 'SKIP', name, detail: `${path} does not exist yet` };
  }
  const octal = `0${mode.toString(8).padStart(3, '0')}`;
  if ((mode & 0o077) !== 0) return { status: 'FAIL', name, detail: `${path} has mode ${octal}: other accounts on this host can read it`, fix: `chmod 600 ${path}` };
  return { status: 'OK', name, detail: `${path} has mode ${octal}` };
}

export function secretFileChecks(config: Config): Finding[] {
  const out: Finding[] = [];
  const src = config.mnemonicSource;
  if (src.kind === 'env') {
    out.push({
      status: 'WARN',
      name: 'HD seed',
      detail: 'the mnemonic comes from SATCHEL_MNEMONIC: environments leak (process listings of the same account, unit files, shell history)',
      fix: 'put the phrase in a file of mode 0600 and name it in SATCHEL_MNEMONIC_FILE',
    });
  } else {
    out.push(modeCheck('HD seed', src.path, src.kind === 'file'));
  }
  for (const [code, settings] of Object.entries(config.networks)) {
    for (const [key, value] of Object.entries(settings)) {
      if (key.endsWith('_file') && typeof value === 'string') out.push(modeCheck(`networks.${code}.${key}`, value, true));
    }
  }
  if (!config.databaseUrl) out.push(modeCheck('database file', join(config.dataDir, 'satchel.sqlite'), false));
  return out;
}
