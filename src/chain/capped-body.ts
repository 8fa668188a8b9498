// Reads a node's HTTP answer with a size cap. A node (or whatever answers at its URL) can send a
// body of any size; buffered whole with res.text(), one huge block takes the process's memory.
// The body is streamed and the connection dropped as soon as the cap is passed, so at most about
// the cap is ever held. Every family's client reads through this one function.
import { FaultyNodeError } from './errors.ts';

/** The answer's body as text, or a FaultyNodeError once it passes `cap` bytes (nothing more is read). */
export async function readCapped(res: Response, cap: number, method: string): Promise<string> {
  const tooLarge = () => new FaultyNodeError(method, `the answer is larger than max_response_bytes (${cap} bytes)`);
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > cap) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
