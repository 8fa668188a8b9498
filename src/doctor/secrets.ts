// The doctor's check of files that hold secrets: the HD seed's phrase, node credentials named in
// a network's settings (`*_file`), and the SQLite database (which holds every merchant's API keys).
// Readable by anyone but their owner is a FAIL: on a shared host, another account could take them.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { finding, type CheckCode, type Finding } from './finding.ts';

function modeCheck(check: CheckCode, setting: string, path: string, required: boolean): Finding {
  const at = { setting, path };
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return required ? finding('FAIL', check, 'file.unreadable', at) : finding('SKIP', check, 'file.absent', at);
  }
  const octal = `0${mode.toString(8).padStart(3, '0')}`;
  if ((mode & 0o077) !== 0) return finding('FAIL', check, 'file.open', { ...at, mode: octal });
  return finding('OK', check, 'file.ok', { ...at, mode: octal });
}

export function secretFileChecks(config: Config): Finding[] {
  const out: Finding[] = [];
  const src = config.mnemonicSource;
  if (src.kind === 'env') {
    out.push(finding('WARN', 'hd_seed', 'seed.env'));
  } else {
    out.push(modeCheck('hd_seed', 'SATCHEL_MNEMONIC_FILE', src.path, src.kind === 'file'));
  }
  for (const [code, settings] of Object.entries(config.networks)) {
    for (const [key, value] of Object.entries(settings)) {
      if (key.endsWith('_file') && typeof value === 'string') out.push(modeCheck('secret_file', `networks.${code}.${key}`, value, true));
    }
  }
  if (!config.databaseUrl) out.push(modeCheck('database_file', 'database', join(config.dataDir, 'satchel.sqlite'), false));
  return out;
}
