// Starts a server script in its own process (so the load generator does not share its CPU).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Proc {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

export async function startScript(
  script: string,
  env: Record<string, string>,
  ready: RegExp = /LISTENING (\S+)|listening on (\S+)/,
  nodeFlags: string[] = [],
): Promise<Proc> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve((m[1] ?? m[2])!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${out}`)));
    setTimeout(() => reject(new Error(`${script} did not start:\n${out}`)), 60_000);
  });
  return {
    child,
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
