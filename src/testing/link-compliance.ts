// The one compliance suite every Link implementation passes (docs/STYLE.md, js-libp2p):
//   linkComplianceSuite('webrtc', makePair)   in webrtc-link.test.ts
//   linkComplianceSuite('memory', makePair)   in the in-memory network's test
// makePair returns two open, connected ends [a, b] (a.remoteId is b's id and back).
// Only test files import this module.
import { afterEach, describe, expect, it } from 'vitest';
import { isNodeId } from '../core/node-id';
import { LinkClosedError, MAX_LINK_MESSAGE, type Link } from '../net/link';

const WAIT_MS = 10_000;

function collect(link: Link, n: number, ms = WAIT_MS): Promise<Uint8Array[]> {
  return new Promise((resolve, reject) => {
    const got: Uint8Array[] = [];
    if (n === 0) return resolve(got);
    const timer = setTimeout(() => { off(); reject(new Error(`got ${got.length} of ${n} messages`)); }, ms);
    const off = link.events.on('message', (m) => {
      got.push(m);
      if (got.length === n) {
        clearTimeout(timer);
        off();
        resolve(got);
      }
    });
  });
}

function closed(link: Link, ms = WAIT_MS): Promise<{ reason: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no close event')), ms);
    link.events.once('close', (e) => {
      clearTimeout(timer);
      resolve(e);
    });
  });
}

function pattern(size: number, seed: number): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

const u32 = (i: number) => new Uint8Array(new Uint32Array([i]).buffer);
const readU32 = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0, true);

export function linkComplianceSuite(name: string, makePair: () => Promise<[Link, Link]>, opts: { retry?: number } = {}): void {
  describe(`Link compliance: ${name}`, opts, () => {
    const open: Link[] = [];
    const pair = async () => {
      const p = await makePair();
      open.push(...p);
      return p;
    };
    afterEach(() => {
      for (const l of open.splice(0)) l.close('test end');
    });

    it('both ends start open with node ids', async () => {
      const [a, b] = await pair();
      expect(a.open && b.open).toBe(true);
      expect(isNodeId(a.remoteId) && isNodeId(b.remoteId)).toBe(true);
      expect(a.bufferedAmount).toBeGreaterThanOrEqual(0);
    });

    it('preserves order, both directions', async () => {
      const [a, b] = await pair();
      const atB = collect(b, 300);
      const atA = collect(a, 300);
      for (let i = 0; i < 300; i++) {
        a.send(u32(i));
        b.send(u32(i + 1000));
      }
      expect((await atB).map(readU32)).toEqual(Array.from({ length: 300 }, (_, i) => i));
      expect((await atA).map(readU32)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1000));
    });

    it('a 200 KiB message arrives whole, between small ones', async () => {
      const [a, b] = await pair();
      const big = pattern(200 * 1024, 7);
      const got = collect(b, 3);
      a.send(u32(1));
      a.send(big);
      a.send(u32(2));
      const [m1, m2, m3] = await got;
      expect(readU32(m1!)).toBe(1);
      expect(m2!.length).toBe(big.length);
      expect(m2!).toEqual(big);
      expect(readU32(m3!)).toBe(2);
    });

    it('a message of exactly MAX_LINK_MESSAGE arrives; a larger one throws', async () => {
      const [a, b] = await pair();
      const max = pattern(MAX_LINK_MESSAGE, 3);
      const got = collect(b, 1);
      a.send(max);
      expect((await got)[0]!).toEqual(max);
      expect(() => a.send(new Uint8Array(MAX_LINK_MESSAGE + 1))).toThrow();
      expect(a.open).toBe(true);
    });

    it('an empty message arrives as an empty message', async () => {
      const [a, b] = await pair();
      const got = collect(b, 2);
      a.send(new Uint8Array(0));
      a.send(u32(5));
      const [m0, m1] = await got;
      expect(m0!.length).toBe(0);
      expect(readU32(m1!)).toBe(5);
    });

    it('many messages (3000 x 1 KiB) all arrive, and bufferedAmount drains', async () => {
      const [a, b] = await pair();
      const n = 3000;
      const got = collect(b, n, 30_000);
      for (let i = 0; i < n; i++) {
        const m = pattern(1024, i);
        m.set(u32(i));
        a.send(m);
      }
      const msgs = await got;
      expect(msgs.map(readU32)).toEqual(Array.from({ length: n }, (_, i) => i));
      expect(msgs.every((m) => m.length === 1024)).toBe(true);
      for (let t = 0; t < 100 && a.bufferedAmount > 0; t++) await new Promise((r) => setTimeout(r, 10));
      expect(a.bufferedAmount).toBe(0);
    });

    it('the sender may reuse its buffer right after send()', async () => {
      const [a, b] = await pair();
      const buf = pattern(64, 1);
      const got = collect(b, 1);
      a.send(buf);
      buf.fill(0);
      expect((await got)[0]!).toEqual(pattern(64, 1));
    });

    it('close propagates to the other side, once, on both ends', async () => {
      const [a, b] = await pair();
      let aCloses = 0;
      let bCloses = 0;
      a.events.on('close', () => aCloses++);
      b.events.on('close', () => bCloses++);
      const bClosed = closed(b);
      a.close('done here');
      a.close('again');
      const ev = await bClosed;
      expect(typeof ev.reason).toBe('string');
      expect(a.open).toBe(false);
      expect(b.open).toBe(false);
      await new Promise((r) => setTimeout(r, 50));
      expect(aCloses).toBe(1);
      expect(bCloses).toBe(1);
    });

    it('send after close throws LinkClosedError, on both ends', async () => {
      const [a, b] = await pair();
      const bClosed = closed(b);
      a.close();
      expect(() => a.send(u32(1))).toThrow(LinkClosedError);
      await bClosed;
      expect(() => b.send(u32(1))).toThrow(LinkClosedError);
    });

    it('no message events after a local close', async () => {
      const [a, b] = await pair();
      let isClosed = false;
      let afterClose = 0;
      b.events.on('message', () => { if (isClosed) afterClose++; });
      const aClosed = closed(a);
      for (let i = 0; i < 50; i++) a.send(pattern(1024, i));
      b.close();
      isClosed = true;
      await aClosed;
      await new Promise((r) => setTimeout(r, 50));
      expect(afterClose).toBe(0);
    });
  });
}
