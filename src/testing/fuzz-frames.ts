// Frame generators for the fuzz campaign (fuzz-campaign.ts), built on fast-check: random
// bytes, valid frames mutated byte-wise (bit flips, overwrites, cuts, insertions, splices
// of two valid frames), and structure-aware mutants (a valid msgpack frame decoded, one
// field swapped for any value or its type code changed, encoded again), which get past
// the msgpack layer and probe the schemas and handlers behind it.
import { decode as unpack, encode as pack } from '@msgpack/msgpack';
import fc from 'fast-check';
import { concatBytes } from '../core/concat-bytes';

type Mutation =
  | { op: 'flip'; at: number; bit: number }
  | { op: 'set'; at: number; value: number }
  | { op: 'cut'; at: number; len: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'truncate'; at: number }
  | { op: 'dup'; at: number; len: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: fc.constantFrom(0, 0x7f, 0x80, 0xc0, 0xc1, 0xcc, 0xd9, 0xdc, 0xff, 1, 2) }),
  fc.record({ op: fc.constant('cut' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 32 }) }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('dup' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 64 }) }),
);

/** Applies byte-level mutations to a copy of `frame`. */
export function mutate(frame: Uint8Array, muts: readonly Mutation[]): Uint8Array {
  let b: Uint8Array = frame.slice();
  for (const m of muts) {
    const at = b.length === 0 ? 0 : m.at % b.length;
    switch (m.op) {
      case 'flip':
        if (b.length) b[at]! ^= 1 << m.bit;
        break;
      case 'set':
        if (b.length) b[at] = m.value;
        break;
      case 'cut':
        b = concatBytes(b.subarray(0, at), b.subarray(at + m.len));
        break;
      case 'insert':
        b = concatBytes(b.subarray(0, at), m.bytes, b.subarray(at));
        break;
      case 'truncate':
        b = b.slice(0, at);
        break;
      case 'dup':
        b = concatBytes(b.subarray(0, at + m.len), b.subarray(at));
        break;
    }
  }
  return b;
}

/** Any msgpack-encodable value a hostile peer might put in a field (ids, numbers at the edges, nested junk). */
export const fieldValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 0xffffffff, 2 ** 32, 2 ** 53, -(2 ** 31), 1.5, Number.NaN, Infinity, ''),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 80 }),
  fc.uint8Array({ maxLength: 40 }),
  fc.uint8Array({ minLength: 20, maxLength: 20 }),
  fc.array(fc.uint8Array({ minLength: 20, maxLength: 20 }), { maxLength: 70 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)), { maxKeys: 4 }),
  fc.array(fc.integer(), { maxLength: 8 }),
);

/**
 * A structure-aware mutant of a msgpack `[typeCode, body]` frame: one field of the body
 * replaced, added or removed, or the type code changed. Frames that are not of that shape
 * come back byte-mutated instead.
 */
function structuralMutant(frame: Uint8Array, pick: number, value: unknown, newCode: number, mode: number): Uint8Array {
  let raw: unknown;
  try {
    raw = unpack(frame);
  } catch {
    return frame;
  }
  if (!Array.isArray(raw) || raw.length !== 2 || typeof raw[1] !== 'object' || raw[1] === null) return frame;
  const body = { ...(raw[1] as Record<string, unknown>) };
  const keys = Object.keys(body);
  const key = keys.length ? keys[pick % keys.length]! : 'x';
  if (mode === 0) body[key] = value;
  else if (mode === 1) delete body[key];
  else if (mode === 2) body[`k${pick % 5}`] = value;
  else return pack([newCode, body]);
  return pack([raw[0], body]);
}

export interface FrameArbOptions {
  /** Valid frames of the target, the seeds of mutation. */
  valid: readonly Uint8Array[];
  /** Largest random frame. Default 512. */
  maxRandom?: number;
  /** Mutate as msgpack [code, body] as well (codec frames). Default true. */
  structured?: boolean;
  /** Type codes a structural mutant may switch to. Default 0..20. */
  codes?: readonly number[];
}

/** Random, mutated and structure-mutated frames around a target's valid ones (valid ones too, now and then). */
export function frameArb(o: FrameArbOptions): fc.Arbitrary<Uint8Array> {
  const valid = fc.constantFrom(...o.valid);
  const codes = o.codes ?? Array.from({ length: 21 }, (_, i) => i);
  const arbs: fc.WeightedArbitrary<Uint8Array>[] = [
    { weight: 1, arbitrary: valid },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: o.maxRandom ?? 512 }) },
    { weight: 5, arbitrary: fc.tuple(valid, fc.array(mutationArb, { minLength: 1, maxLength: 4 })).map(([f, m]) => mutate(f, m)) },
    { weight: 1, arbitrary: fc.tuple(valid, valid, fc.nat(), fc.nat()).map(([a, b, i, j]) => concatBytes(a.subarray(0, i % (a.length + 1)), b.subarray(j % (b.length + 1)))) },
  ];
  if (o.structured !== false) {
    arbs.push({
      weight: 5,
      arbitrary: fc
        .tuple(valid, fc.nat(), fieldValueArb, fc.constantFrom(...codes), fc.nat(3))
        .map(([f, pick, value, code, mode]) => structuralMutant(f, pick, value, code, mode)),
    });
  }
  return fc.oneof(...arbs);
}

/** Text frames (JSON protocols): random strings, mutated valid ones, and valid JSON with one field swapped. */
export function textFrameArb(valid: readonly string[]): fc.Arbitrary<string> {
  const te = new TextEncoder();
  const td = new TextDecoder();
  const v = fc.constantFrom(...valid);
  return fc.oneof(
    { weight: 1, arbitrary: v },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 3, arbitrary: fc.tuple(v, fc.array(mutationArb, { minLength: 1, maxLength: 4 })).map(([s, m]) => td.decode(mutate(te.encode(s), m))) },
    {
      weight: 4,
      arbitrary: fc.tuple(v, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.nat(2)).map(([s, pick, value, mode]) => {
        const o = JSON.parse(s) as Record<string, unknown>;
        const keys = Object.keys(o);
        const key = keys[pick % keys.length]!;
        if (mode === 0) o[key] = value;
        else if (mode === 1) delete o[key];
        else o[`k${pick % 3}`] = value;
        return JSON.stringify(o);
      }),
    },
  );
}
