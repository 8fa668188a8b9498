// The gateway's logger as the layers below the server see it: pino's shape (an object of fields,
// then the message), so the server hands them Fastify's logger and every line goes through the
// same output, level and redaction. Processes without one (the CLI) get JSON lines on stderr, so
// that a command's own output on stdout stays clean.

export interface GatewayLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** JSON lines on stderr at `level` and above (pino's level names; `silent` writes nothing). */
export function stderrLog(level: string): GatewayLog {
  const min = Math.max(0, LEVELS.indexOf(level));
  const at = (name: string) => (obj: object, msg: string) => {
    if (LEVELS.indexOf(name) < min) return;
    const fields = Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, v instanceof Error ? { type: v.name, message: v.message } : v]));
    process.stderr.write(`${JSON.stringify({ level: name, time: Date.now(), ...fields, msg })}\n`);
  };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
