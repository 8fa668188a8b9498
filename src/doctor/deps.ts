// The outside world as \`satchel doctor\` and the dashboard's readiness card reach it: HTTP, DNS and
// TCP for real (tests hand the checks a DoctorDeps of their own).
import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
import type { DoctorDeps } from './finding.ts';

/** What the checks reach outside the process, for real. */
export const realDeps: DoctorDeps = {
  async get(url, timeoutMs) {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.body?.cancel();
    return res.status;
  },
  async lookup(host) {
    return (await lookup(host, { all: true })).map((a) => a.address);
  },
  connect(host, port, timeoutMs) {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, timeout: timeoutMs });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('timeout', () => {
        socket.destroy();
        reject(new Error('timed out'));
      });
      socket.once('error', reject);
    });
  },
};
