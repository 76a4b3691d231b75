// Compact player positions (POSITIONS frames, issue 12 "Crowds"): quantised to 1/32 block
// relative to the region's corner, yaw and pitch in a byte each, and coded against what the
// receiver already holds for that player (its *base*): unchanged fields are left out, small
// moves travel as one signed byte per axis. A walking player's update is 5 bytes where the
// old PLAYERS entry (id, name, five float64s) was about 90.
//
// An entry: slot gap (LEB128 varint, slots ascending within a bytes block), a mask byte,
// then the fields the mask names. Mask bits: x, y, z, yaw, pitch; DELTA: x/y/z present are
// i8 offsets from the base, otherwise u16. A field left out keeps the base's value, so an
// entry with mask 0 says "still there, unchanged". Decoding checks everything: a truncated
// block, a delta or a left-out field with no base, or a slot past u16 throws
// PositionCodeError, and the caller drops the frame (counted) without touching its state.
import type { Pose } from '../world/pose';
import { REGION_BLOCKS, type RegionCoord } from './region-key';

/** Steps per block. */
export const POS_SCALE = 32;
/** Blocks west / north of (and below) the region's corner that still code (u16 from there on). */
const OFFSET = 512;
const U16 = 0xffff;
/** Largest slot number. */
export const MAX_SLOT = U16;

const X = 1, Y = 2, Z = 4, YAW = 8, PITCH = 16, DELTA = 128;

/**
 * A pose as it travels: integers (x, y, z in 1/POS_SCALE block from OFFSET before the
 * corner; yaw a byte of a turn; pitch 0..254, 127 level, so a level look codes exactly).
 */
export interface QPose {
  x: number;
  y: number;
  z: number;
  yaw: number;
  pitch: number;
}

export interface PositionEntry {
  slot: number;
  q: QPose;
}

export class PositionCodeError extends Error {
  override readonly name = 'PositionCodeError';
}

const clampU16 = (v: number) => Math.min(U16, Math.max(0, Math.round(v)));
const TAU = Math.PI * 2;

export function quantise(r: RegionCoord, p: Pose): QPose {
  const yaw = p.yaw - TAU * Math.floor(p.yaw / TAU);
  const pitch = Math.min(Math.PI / 2, Math.max(-Math.PI / 2, p.pitch));
  return {
    x: clampU16((p.x - r.rx * REGION_BLOCKS + OFFSET) * POS_SCALE),
    y: clampU16((p.y + OFFSET) * POS_SCALE),
    z: clampU16((p.z - r.rz * REGION_BLOCKS + OFFSET) * POS_SCALE),
    yaw: Math.round((yaw / TAU) * 256) & 255,
    pitch: Math.round(((pitch + Math.PI / 2) / Math.PI) * 254),
  };
}

export function dequantise(r: RegionCoord, q: QPose): Pose {
  const yaw = (q.yaw / 256) * TAU;
  return {
    x: q.x / POS_SCALE - OFFSET + r.rx * REGION_BLOCKS,
    y: q.y / POS_SCALE - OFFSET,
    z: q.z / POS_SCALE - OFFSET + r.rz * REGION_BLOCKS,
    yaw: yaw > Math.PI ? yaw - TAU : yaw,
    pitch: (Math.min(q.pitch, 254) / 254) * Math.PI - Math.PI / 2,
  };
}

export function sameQPose(a: QPose, b: QPose): boolean {
  return a.x === b.x && a.y === b.y && a.z === b.z && a.yaw === b.yaw && a.pitch === b.pitch;
}

/** Bytes an entry takes at most (gap 3, mask 1, three u16, two bytes). */
export const MAX_ENTRY_BYTES = 12;

/**
 * Entries (ascending slots) coded against `base` (what the receiver holds; undefined: it
 * holds nothing for that slot, so every field goes absolute).
 */
export function encodePositions(entries: readonly PositionEntry[], base: (slot: number) => QPose | undefined): Uint8Array {
  const out = new Uint8Array(entries.length * MAX_ENTRY_BYTES);
  let at = 0;
  let prev = -1;
  for (const { slot, q } of entries) {
    if (slot <= prev || slot > MAX_SLOT) throw new RangeError(`slots must ascend within 0..${MAX_SLOT}`);
    let gap = slot - prev - 1;
    prev = slot;
    do {
      out[at++] = (gap & 0x7f) | (gap > 0x7f ? 0x80 : 0);
      gap >>>= 7;
    } while (gap > 0);
    const b = base(slot);
    const axes = [q.x, q.y, q.z] as const;
    const from = b ? [b.x, b.y, b.z] : undefined;
    let mask = 0;
    axes.forEach((v, i) => {
      if (!from || from[i] !== v) mask |= 1 << i;
    });
    if (!b || b.yaw !== q.yaw) mask |= YAW;
    if (!b || b.pitch !== q.pitch) mask |= PITCH;
    const delta = from !== undefined && axes.every((v, i) => Math.abs(v - from[i]!) <= 127);
    if (delta && mask & (X | Y | Z)) mask |= DELTA;
    out[at++] = mask;
    axes.forEach((v, i) => {
      if (!(mask & (1 << i))) return;
      if (mask & DELTA) out[at++] = (v - from![i]!) & 0xff;
      else {
        out[at++] = v & 0xff;
        out[at++] = v >>> 8;
      }
    });
    if (mask & YAW) out[at++] = q.yaw;
    if (mask & PITCH) out[at++] = q.pitch;
  }
  return out.slice(0, at);
}

/** The entries of a bytes block, against the receiver's bases; throws PositionCodeError on anything malformed. */
export function decodePositions(b: Uint8Array, base: (slot: number) => QPose | undefined): PositionEntry[] {
  const out: PositionEntry[] = [];
  let at = 0;
  let prev = -1;
  const byte = () => {
    if (at >= b.length) throw new PositionCodeError('truncated entry');
    return b[at++]!;
  };
  while (at < b.length) {
    let gap = 0;
    for (let shift = 0; ; shift += 7) {
      if (shift > 14) throw new PositionCodeError('slot gap too long');
      const c = byte();
      gap |= (c & 0x7f) << shift;
      if (!(c & 0x80)) break;
    }
    const slot = prev + 1 + gap;
    if (slot > MAX_SLOT) throw new PositionCodeError('slot out of range');
    prev = slot;
    const mask = byte();
    if (mask & 0x60) throw new PositionCodeError('unknown mask bits');
    const from = base(slot);
    const full = X | Y | Z | YAW | PITCH;
    if (!from && ((mask & full) !== full || mask & DELTA)) throw new PositionCodeError('entry needs a base the receiver lacks');
    const axis = (bit: number, old: number | undefined): number => {
      if (!(mask & bit)) return old!;
      if (mask & DELTA) {
        const d = byte();
        const v = old! + (d > 127 ? d - 256 : d);
        if (v < 0 || v > U16) throw new PositionCodeError('delta out of range');
        return v;
      }
      const lo = byte();
      return lo | (byte() << 8);
    };
    const q: QPose = {
      x: axis(X, from?.x),
      y: axis(Y, from?.y),
      z: axis(Z, from?.z),
      yaw: mask & YAW ? byte() : from!.yaw,
      pitch: mask & PITCH ? byte() : from!.pitch,
    };
    out.push({ slot, q });
  }
  return out;
}
