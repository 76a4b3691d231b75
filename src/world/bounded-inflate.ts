// deflate-raw through the platform's CompressionStream / DecompressionStream (browsers,
// workers and Node >= 18 have them), so the world layer needs no compression dependency.
// Inflation is bounded: a hostile peer's few-KiB "zip bomb" must not make us allocate
// gigabytes, so input is fed in small slices and reading stops at the size limit.
import { ChunkCodecError } from './chunk-codec-error';

/** Deflate's best ratio is about 1032:1, so one slice inflates to at most ~1 MiB. */
const SLICE = 1024;

async function collect(readable: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = readable.getReader();
  const out = new Uint8Array(limit);
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return n === limit ? out : out.subarray(0, n);
    if (n + value.length > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ChunkCodecError('oversize', `inflates to more than ${limit} bytes`);
    }
    out.set(value, n);
    n += value.length;
  }
}

export async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const cs = new CompressionStream('deflate-raw');
  const writer = cs.writable.getWriter();
  const done = collect(cs.readable, data.length + 1024 + (data.length >> 4));
  await writer.write(data as Uint8Array<ArrayBuffer>);
  await writer.close();
  return done;
}

/** Inflates `data`; throws ChunkCodecError if it is corrupt or inflates past `limit` bytes. */
export async function inflateRawBounded(data: Uint8Array, limit: number): Promise<Uint8Array> {
  const ds = new DecompressionStream('deflate-raw');
  const writer = ds.writable.getWriter();
  const feeding = (async () => {
    for (let i = 0; i < data.length; i += SLICE) {
      // Backpressure: wait until the reader has taken the previous slice's output.
      await writer.ready;
      await writer.write(data.slice(i, i + SLICE));
    }
    await writer.close();
  })();
  // Once the reader gives up, the writer errors too: that rejection is expected, not news.
  feeding.catch(() => undefined);
  try {
    const out = await collect(ds.readable, limit);
    await feeding;
    return out;
  } catch (e) {
    await writer.abort().catch(() => undefined);
    if (e instanceof ChunkCodecError) throw e;
    throw new ChunkCodecError('corrupt', `deflate data is corrupt (${e instanceof Error ? e.message : String(e)})`);
  }
}
