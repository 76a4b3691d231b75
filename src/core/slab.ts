// Small byte arrays cut out of shared slabs. V8 backs every `new Uint8Array(n)` above 64
// bytes with its own ArrayBuffer, and making those was a visible share of the simulator's
// time (millions of short-lived frames). A slab is freed once nothing cut from it is
// referenced, so only short-lived bytes belong here: whoever keeps bytes copies them.

export class Slab {
  private slab: Uint8Array;
  private used = 0;

  constructor(
    private readonly slabBytes = 256 * 1024,
    /** Larger requests get an array of their own. */
    private readonly maxBytes = 8 * 1024,
  ) {
    this.slab = new Uint8Array(slabBytes);
  }

  /** A zero-filled array of n bytes (a view into a slab when small). */
  alloc(n: number): Uint8Array {
    if (n > this.maxBytes) return new Uint8Array(n);
    if (this.used + n > this.slabBytes) {
      this.slab = new Uint8Array(this.slabBytes);
      this.used = 0;
    }
    const out = this.slab.subarray(this.used, this.used + n);
    this.used += (n + 7) & ~7;
    return out;
  }

  /** A copy of data. */
  copy(data: Uint8Array): Uint8Array {
    const out = this.alloc(data.length);
    out.set(data);
    return out;
  }
}
