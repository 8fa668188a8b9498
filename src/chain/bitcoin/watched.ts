// The output scripts a Bitcoin-family scanner follows, about 150 bytes each at a million: the key is
// the script's bytes as a one-byte string (half the size of its hex), the value the address, and
// the few change scripts of the hot wallet sit in a set of their own instead of an object per entry.
// Watch-only deposit addresses (a merchant's extended public key: the gateway holds no key for
// them) are kept in a map of their own rather than flagged in a set: on a watch-only network they
// are nearly all of the million, and a second entry for each would double the memory.
export interface Watched {
  address: string;
  /**
   * deposit: an address of the gateway's seed (its outputs are the gateway's coins);
   * watch: a watch-only deposit address (reported the same, but the merchant's coins, never spent here);
   * change: the hot wallet's change (never reported).
   */
  kind: 'deposit' | 'watch' | 'change';
}

function keyOf(scriptHex: string): string {
  return Buffer.from(scriptHex, 'hex').toString('latin1');
}

export class WatchedScripts {
  private readonly addresses = new Map<string, string>();
  private readonly watchOnly = new Map<string, string>();
  private readonly change = new Set<string>();

  /** `scriptHex`: the output script in hex, as the scanner reads it from a transaction. */
  set(scriptHex: string, w: Watched): this {
    const key = keyOf(scriptHex);
    // A copy that owns its characters: an address built by concatenation would keep every piece.
    const address = Buffer.from(w.address, 'latin1').toString('latin1');
    if (w.kind === 'watch') {
      this.addresses.delete(key);
      this.change.delete(key);
      this.watchOnly.set(key, address);
      return this;
    }
    this.watchOnly.delete(key);
    this.addresses.set(key, address);
    if (w.kind === 'change') this.change.add(key);
    else this.change.delete(key);
    return this;
  }

  get(scriptHex: string): Watched | undefined {
    const key = keyOf(scriptHex);
    const address = this.addresses.get(key);
    if (address !== undefined) return { address, kind: this.change.has(key) ? 'change' : 'deposit' };
    const watched = this.watchOnly.get(key);
    return watched === undefined ? undefined : { address: watched, kind: 'watch' };
  }

  has(scriptHex: string): boolean {
    const key = keyOf(scriptHex);
    return this.addresses.has(key) || this.watchOnly.has(key);
  }

  get size(): number {
    return this.addresses.size + this.watchOnly.size;
  }
}
