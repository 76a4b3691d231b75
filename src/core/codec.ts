// The binary wire codec: msgpack (@msgpack/msgpack) for encoding, valibot schemas checked on every decode
// (docs/DESIGN.md "Bad input and trust": no other code sees a frame before its schema did).
//
// A frame is the msgpack array [typeCode, body]. Type codes are explicit small integers
// so names can change without breaking the wire. Decoding either returns a typed
// message `{ t: name, ...body }` or throws a CodecError with a stable `reason`.
//
// Why msgpack and not a hand layout: a FIND_NODE reply (20 ids) is 450 bytes either way
// within ~10%, and schema changes stay a one-line edit. @msgpack/msgpack rather than
// msgpackr: msgpackr's optional native addon names platform packages this registry does
// not serve, which breaks `npm ci` from the lock file. Binary fields decode as views into the frame; the `bytes` schema below
// copies them so a kept id or value does not pin the whole frame in memory.
import { decode as unpack, Encoder } from '@msgpack/msgpack';
import * as v from 'valibot';
import { VoxelError } from './errors';

/** Default largest encoded frame a codec accepts (the Link itself allows up to 256 KiB). */
export const DEFAULT_MAX_FRAME = 96 * 1024;

export type CodecErrorReason = 'oversized' | 'malformed' | 'unknown-type' | 'invalid' | 'unencodable';

export class CodecError extends VoxelError {
  override readonly name = 'CodecError';
  readonly code: `codec-${CodecErrorReason}`;
  constructor(
    readonly reason: CodecErrorReason,
    message: string,
  ) {
    super(message);
    this.code = `codec-${reason}`;
  }
}

/** A schema for binary data of at most `max` bytes (exactly `exact` if given); decoded copies. */
export function bytes(max: number, exact?: number) {
  return v.pipe(
    v.instance(Uint8Array),
    v.check((b) => (exact === undefined ? b.length <= max : b.length === exact), `expected ${exact ?? `<= ${max}`} bytes`),
    v.transform((b): Uint8Array => new Uint8Array(b)),
  );
}

/** A schema for an unsigned 32-bit integer (request ids, sequence numbers). */
export const u32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff));

/** A schema for a wall-clock time in whole ms since 1970 (when a player signed words, when a record was written): never negative, never past what a double holds exactly. */
export const epochMs = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySchema = v.GenericSchema<any, any>;

/** name -> [type code, body schema]; the body schema must be an object schema. */
export type CodecSpec = Record<string, readonly [number, AnySchema]>;

/** The decoded (and encodable) message union of a spec. */
export type MessageOf<S extends CodecSpec> = {
  [K in keyof S & string]: { t: K } & v.InferOutput<S[K][1]>;
}[keyof S & string];

export interface Codec<S extends CodecSpec> {
  readonly maxFrame: number;
  encode(msg: MessageOf<S>): Uint8Array;
  /** Throws CodecError on oversized, malformed, unknown-type or schema-invalid frames. */
  decode(frame: Uint8Array): MessageOf<S>;
}

export interface CodecOptions<S extends CodecSpec = CodecSpec> {
  /** Largest frame accepted by decode and produced by encode. Default DEFAULT_MAX_FRAME. */
  maxFrame?: number;
  /**
   * Types whose body travels as an array of its fields' values in the order given (every
   * field of the schema, once), not as a map: no field names on the wire. For frames sent
   * so often that their names were a large share of them (a crowd's POSITIONS: ~1,500 frames
   * a second from one host, ~23 bytes of head each, half of them names). A field left out
   * travels as nil (trailing ones not at all), so list the ones most often present first;
   * decoding reads nil as left out (these schemas take no null) and checks the body as a map.
   */
  positional?: { readonly [K in keyof S & string]?: readonly string[] };
}

export function defineCodec<S extends CodecSpec>(spec: S, options: CodecOptions<S> = {}): Codec<S> {
  const maxFrame = options.maxFrame ?? DEFAULT_MAX_FRAME;
  const byName = new Map<string, readonly [number, AnySchema]>();
  const byCode = new Map<number, readonly [string, AnySchema]>();
  for (const [name, entry] of Object.entries(spec)) {
    const [code, schema] = entry;
    if (byCode.has(code)) throw new Error(`duplicate type code ${code} (${name}, ${byCode.get(code)![0]})`);
    byName.set(name, entry);
    byCode.set(code, [name, schema]);
  }
  const positional = new Map<string, readonly string[]>();
  for (const [name, order] of Object.entries(options.positional ?? {}) as [string, readonly string[]][]) {
    const fields = Object.keys((byName.get(name)?.[1] as { entries?: object } | undefined)?.entries ?? {});
    if (fields.length === 0 || order.length !== fields.length || new Set(order).size !== order.length || !order.every((k) => fields.includes(k))) {
      throw new Error(`positional ${name}: [${order.join()}] is not the fields of its schema [${fields.join()}]`);
    }
    positional.set(name, order);
  }

  // One encoder per codec: `encode()` builds a new Encoder (and its buffer) per call,
  // which was a visible share of the simulator's time. It is safe to reenter.
  const packer = new Encoder({ ignoreUndefined: true });

  return {
    maxFrame,
    encode(msg) {
      const entry = byName.get(msg.t);
      if (!entry) throw new CodecError('unknown-type', `no such message type: ${String(msg.t)}`);
      const { t: _t, ...body } = msg as { t: string } & Record<string, unknown>;
      // Absent optional fields stay absent (not nil), so the schemas see what was sent.
      const order = positional.get(msg.t);
      const frame = packer.encode([entry[0], order ? toPositional(order, body) : body]);
      if (frame.length > maxFrame) throw new CodecError('oversized', `${msg.t} frame is ${frame.length} bytes (max ${maxFrame})`);
      return frame;
    },
    decode(frame) {
      if (!(frame instanceof Uint8Array)) throw new CodecError('malformed', 'frame is not bytes');
      if (frame.length > maxFrame) throw new CodecError('oversized', `frame is ${frame.length} bytes (max ${maxFrame})`);
      let raw: unknown;
      try {
        raw = unpack(frame);
      } catch (e) {
        throw new CodecError('malformed', `undecodable frame: ${(e as Error).message}`);
      }
      if (!Array.isArray(raw) || raw.length !== 2 || typeof raw[0] !== 'number') {
        throw new CodecError('malformed', 'frame is not [typeCode, body]');
      }
      const entry = byCode.get(raw[0] as number);
      if (!entry) throw new CodecError('unknown-type', `unknown type code ${raw[0]}`);
      const [name, schema] = entry;
      const order = positional.get(name);
      if (order && (!Array.isArray(raw[1]) || raw[1].length > order.length)) throw new CodecError('invalid', `${name}: body is not an array of at most ${order.length} fields`);
      const parsed = v.safeParse(schema, order ? fromPositional(order, raw[1] as unknown[]) : raw[1]);
      if (!parsed.success) {
        const issue = parsed.issues[0];
        const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
        throw new CodecError('invalid', `${name}${path ? `.${path}` : ''}: ${issue.message}`);
      }
      return { t: name, ...(parsed.output as object) } as MessageOf<S>;
    },
  };
}

/** A body as its fields' values in `order`: nil for one left out, trailing ones dropped. */
function toPositional(order: readonly string[], body: Record<string, unknown>): unknown[] {
  const out = order.map((k) => body[k] ?? null);
  while (out.length > 0 && out[out.length - 1] === null) out.pop();
  return out;
}

/** The map a positional body stands for (nil: left out). */
function fromPositional(order: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  values.forEach((x, i) => {
    if (x !== null && x !== undefined) out[order[i]!] = x;
  });
  return out;
}
