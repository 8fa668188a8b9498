// The output scripts a Bitcoin-family scanner follows, about 150 bytes each at a million: the key is
// the script's bytes as a one-byte string (half the size of its hex), the value the address, and
// the few change scripts of the hot wallet sit in a set of their own instead of an object per entry.
export interface Watched {
  address: string;
  kind: 'deposit' | 'change';
}

function keyOf(scriptHex: string): string {
  return Buffer.from(scriptHex, 'hex').toString('latin1');
}

export class WatchedScripts {
  private readonly addresses = new Map<string, string>();
  private readonly change = new Set<string>();

  /** `scriptHex`: the output script in hex, as the scanner reads it from a transaction. */
  set(scriptHex: string, w: Watched): this {
    const key = keyOf(scriptHex);
    // A copy that owns its characters: an address built by concatenation would keep every piece.
    this.addresses.set(key, Buffer.from(w.address, 'latin1').toString('latin1'));
    if (w.kind === 'change') this.change.add(key);
    else this.change.delete(key);
    return this;
  }

  get(scriptHex: string): Watched | undefined {
    const key = keyOf(scriptHex);
    const address = this.addresses.get(key);
    return address === undefined ? undefined : { address, kind: this.change.has(key) ? 'change' : 'deposit' };
  }

  has(scriptHex: string): boolean {
    return this.addresses.has(keyOf(scriptHex));
  }

  get size(): number {
    return this.addresses.size;
  }
}
