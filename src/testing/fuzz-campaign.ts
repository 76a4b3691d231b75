// The fuzz campaign: feeds seeded fast-check frames (fuzz-frames.ts) to each target, a
// decoder or a frame handler wired as in the product, and checks what the project asks of
// every one: no throw escapes, no unhandled rejection, no state change from a rejected
// frame, each rejection counted by reason (by the target's own counters, which the target
// reads back). `npm test` runs it with a fixed seed and a small budget (fuzz-*.test.ts);
// `npm run bench -- fuzz` runs the long campaign (bench/fuzz-bench.ts).
import fc from 'fast-check';

/** What one frame did: accepted, or rejected for a reason the target counted. */
export type FuzzVerdict = { rejected: string } | 'accepted';

export interface FuzzTarget<F = Uint8Array> {
  readonly name: string;
  readonly frames: fc.Arbitrary<F>;
  /**
   * Feeds one frame to the code under test. A throw out of the code under test is a
   * failure; so is a FuzzFailure, which the target throws when an invariant broke (a
   * rejected frame changed state, or was not counted).
   */
  feed(frame: F): FuzzVerdict | Promise<FuzzVerdict>;
  /** Frees what the target holds (timers, links). */
  close?(): void;
}

export class FuzzFailure extends Error {
  override readonly name = 'FuzzFailure';
}

export interface TargetReport {
  frames: number;
  accepted: number;
  /** Rejections by reason. */
  rejected: Record<string, number>;
  failures: number;
  /** The first few failures: what broke, on which frame (hex, cut at 256 bytes). */
  examples: { error: string; frame: string }[];
}

export interface CampaignReport {
  frames: number;
  failures: number;
  /** Unhandled promise rejections seen while the campaign ran (each also a failure). */
  unhandledRejections: number;
  targets: Record<string, TargetReport>;
}

export interface CampaignOptions {
  seed: number;
  /** Frames fed to each target. */
  framesPerTarget: number | ((name: string) => number);
  /** Frames drawn from fast-check at a time. Default 2000. */
  batch?: number;
}

function show(frame: unknown): string {
  if (frame instanceof Uint8Array) {
    let s = '';
    for (const b of frame.subarray(0, 256)) s += b.toString(16).padStart(2, '0');
    return frame.length > 256 ? `${s}... (${frame.length} bytes)` : s;
  }
  const s = typeof frame === 'string' ? frame : JSON.stringify(frame, (_k, v: unknown) => (v instanceof Uint8Array ? show(v) : v));
  return s.length > 512 ? `${s.slice(0, 512)}...` : s;
}

/** Runs every target over its budget; never throws for a target's failure (it is reported). */
export async function runCampaign(targets: readonly FuzzTarget<unknown>[], o: CampaignOptions): Promise<CampaignReport> {
  const report: CampaignReport = { frames: 0, failures: 0, unhandledRejections: 0, targets: {} };
  const onUnhandled = () => {
    report.unhandledRejections++;
    report.failures++;
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    for (const [ti, t] of targets.entries()) {
      const r: TargetReport = { frames: 0, accepted: 0, rejected: {}, failures: 0, examples: [] };
      report.targets[t.name] = r;
      const budget = typeof o.framesPerTarget === 'function' ? o.framesPerTarget(t.name) : o.framesPerTarget;
      const batch = o.batch ?? 2000;
      for (let done = 0, b = 0; done < budget; b++) {
        const n = Math.min(batch, budget - done);
        // One seed per target and batch: a target's frames do not depend on the others' budgets.
        const frames = fc.sample(t.frames, { seed: (o.seed * 1000 + ti) * 100_000 + b, numRuns: n });
        for (const f of frames) {
          r.frames++;
          try {
            const v = await t.feed(f);
            if (v === 'accepted') r.accepted++;
            else r.rejected[v.rejected] = (r.rejected[v.rejected] ?? 0) + 1;
          } catch (e) {
            r.failures++;
            if (r.examples.length < 5) r.examples.push({ error: `${(e as Error).name}: ${(e as Error).message}`, frame: show(f) });
          }
        }
        done += n;
      }
      t.close?.();
      // Let a rejection that was left unhandled by this target's last frames show up here.
      await new Promise((resolve) => setTimeout(resolve, 0));
      report.frames += r.frames;
      report.failures += r.failures;
    }
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  return report;
}

/** Settles pending promise chains and immediate callbacks (WebCrypto answers on a later turn). */
export async function settle(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The sum of a counters object's numbers (nested objects included). */
export function counterSum(x: unknown): number {
  if (typeof x === 'number') return x;
  if (typeof x !== 'object' || x === null) return 0;
  let n = 0;
  for (const v of Object.values(x)) n += counterSum(v);
  return n;
}

/** Which counters of `after` grew since `before` (dotted paths), e.g. ['dropped.malformed']. */
export function grewCounters(before: unknown, after: unknown, prefix = ''): string[] {
  if (typeof after === 'number') return typeof before === 'number' && after > before ? [prefix] : typeof before !== 'number' && after > 0 ? [prefix] : [];
  if (typeof after !== 'object' || after === null) return [];
  const out: string[] = [];
  const b = (typeof before === 'object' && before !== null ? before : {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(after)) out.push(...grewCounters(b[k], v, prefix ? `${prefix}.${k}` : k));
  return out;
}
