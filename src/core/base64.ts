// Standard base64 of bytes (keys, signatures and nonces inside JSON frames: the link
// handshake, the relay's id proof).
export function toB64(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return btoa(s);
}

/** Throws a RangeError on a string atob refuses (bad length or padding, other characters). */
export function fromB64(s: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(s);
  } catch {
    throw new RangeError('bad base64');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
