// Compact player positions (POSITIONS frames): quantised to 1/32 block
// relative to the region's corner, yaw and pitch in a byte each, and coded against what the
// receiver already holds for that player (its *base*, and the position it held before that,
// *prev*): unchanged fields are left out, small moves travel as one signed byte per axis, and
// a player walking on as it walked (the base moved on by the last step, base + (base - prev),
// give or take a quarter block) as one byte for both x and z. A walking player's update is 3
// bytes (5 with one byte per axis) where the old PLAYERS entry (id, name, five float64s) was
// about 90.
//
// An entry starts with a head byte:
// - bit 7 clear: a mask (bits x, y, z, yaw, pitch, DELTA: x/y/z present are i8 offsets from
//   the base, otherwise u16), then the slot gap (LEB128 varint, slots ascending within a
//   bytes block), then the fields the mask names. A field left out keeps the base's value,
//   so an entry with mask 0 says "still there, unchanged".
// - bit 7 set: a step like the last (STEP): the slot gap (0..31) in bits 0-4, yaw and pitch
//   present in bits 5 and 6, then one byte holding x and z as signed nibbles off the base
//   moved on by its last step (y unchanged), then yaw and pitch if present.
// - bits 7 and 6 = 01: a coarse move (COARSE): the slot gap (0..63) in bits 0-5, then one
//   byte holding x and z as signed nibbles of half a block off the base (y and pitch
//   unchanged), then yaw. What a host sends players far from the one it moved (a quarter
//   block off at most: `coarsen`), a few times a second; the receiver holds what was coded.
// Decoding checks everything: a truncated block, a delta, a step or a left-out field with no
// base (or no prev), a value off the u16 range, or a slot past u16 throws PositionCodeError,
// and the caller drops the frame (counted) without touching its state. What the receiver
// holds is the same on both ends: each entry applied makes the old base the slot's prev.
import { samePose, type Pose } from '../world/pose';
import { REGION_BLOCKS, type RegionCoord } from './region-key';
import { VoxelError } from '../core/errors';

/** Steps per block. */
export const POS_SCALE = 32;
/** Blocks west / north of (and below) the region's corner that still code (u16 from there on). */
const OFFSET = 512;
const U16 = 0xffff;
/** Largest slot number. */
export const MAX_SLOT = U16;

const X = 1, Y = 2, Z = 4, YAW = 8, PITCH = 16, DELTA = 32;
/** Head bit of a STEP entry, and its fields. */
const STEP = 128, STEP_YAW = 32, STEP_PITCH = 64;
/** Largest slot gap a STEP entry carries. */
const STEP_GAP = 31;
/** Head bits of a COARSE entry (bit 7 clear), the largest gap it carries, and its unit (half a block). */
const COARSE = 64, COARSE_GAP = 63, COARSE_UNIT = POS_SCALE / 2;

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

export class PositionCodeError extends VoxelError {
  readonly code = 'position-malformed';
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
  return samePose(a, b);
}

/** Bytes an entry takes at most (mask 1, gap 3, three u16, two bytes). */
export const MAX_ENTRY_BYTES = 12;

/** What the receiver holds for a slot before base: its prev (undefined: none; no STEP entry then). */
export type PrevOf = (slot: number) => QPose | undefined;

const noPrev: PrevOf = () => undefined;

/** The STEP entry's x/z nibbles for q, or -1 when q is not a step like the last (within a quarter block). */
function stepNibbles(q: QPose, b: QPose, p: QPose): number {
  if (q.y !== b.y) return -1;
  const dx = q.x - (2 * b.x - p.x), dz = q.z - (2 * b.z - p.z);
  if (dx < -8 || dx > 7 || dz < -8 || dz > 7) return -1;
  return ((dx & 15) << 4) | (dz & 15);
}

/**
 * `q` as a COARSE entry can carry it against `base` (x and z rounded to half a block off the
 * base, within 4 blocks; y and pitch as the base's), or q itself when it cannot: for players
 * far from the receiver, to whom a quarter block is nothing (host/interest-lists.ts).
 */
export function coarsen(q: QPose, base: QPose | undefined): QPose {
  if (!base || q.y !== base.y || q.pitch !== base.pitch) return q;
  const kx = Math.round((q.x - base.x) / COARSE_UNIT), kz = Math.round((q.z - base.z) / COARSE_UNIT);
  if (kx < -8 || kx > 7 || kz < -8 || kz > 7) return q;
  return { ...q, x: base.x + kx * COARSE_UNIT, z: base.z + kz * COARSE_UNIT };
}

/** The COARSE entry's x/z nibbles for q, or -1 when q is not on base's half-block grid within reach. */
function coarseNibbles(q: QPose, b: QPose): number {
  if (q.y !== b.y || q.pitch !== b.pitch) return -1;
  const dx = q.x - b.x, dz = q.z - b.z;
  if (dx % COARSE_UNIT !== 0 || dz % COARSE_UNIT !== 0) return -1;
  const kx = dx / COARSE_UNIT, kz = dz / COARSE_UNIT;
  if (kx < -8 || kx > 7 || kz < -8 || kz > 7) return -1;
  return ((kx & 15) << 4) | (kz & 15);
}

/**
 * Entries (ascending slots) coded against `base` (what the receiver holds; undefined: it
 * holds nothing for that slot, so every field goes absolute) and `prev` (what it held
 * before base).
 */
export function encodePositions(entries: readonly PositionEntry[], base: (slot: number) => QPose | undefined, prev: PrevOf = noPrev): Uint8Array {
  const out = new Uint8Array(entries.length * MAX_ENTRY_BYTES);
  let at = 0;
  let last = -1;
  for (const { slot, q } of entries) {
    if (slot <= last || slot > MAX_SLOT) throw new RangeError(`slots must ascend within 0..${MAX_SLOT}`);
    let gap = slot - last - 1;
    last = slot;
    const b = base(slot);
    const p = b && prev(slot);
    const step = p && gap <= STEP_GAP ? stepNibbles(q, b, p) : -1;
    const yaw = !b || b.yaw !== q.yaw, pitch = !b || b.pitch !== q.pitch;
    const moved = b !== undefined && (q.x !== b.x || q.z !== b.z || yaw || pitch);
    if (step >= 0 && (step !== 0 || moved)) {
      // (An unchanged player goes as mask 0: as short, and needs no prev.)
      out[at++] = STEP | gap | (yaw ? STEP_YAW : 0) | (pitch ? STEP_PITCH : 0);
      out[at++] = step;
      if (yaw) out[at++] = q.yaw;
      if (pitch) out[at++] = q.pitch;
      continue;
    }
    const coarse = b && moved && gap <= COARSE_GAP && q.y === b.y && (q.x !== b.x || q.z !== b.z) ? coarseNibbles(q, b) : -1;
    if (coarse >= 0) {
      out[at++] = COARSE | gap;
      out[at++] = coarse;
      out[at++] = q.yaw;
      continue;
    }
    const axes = [q.x, q.y, q.z] as const;
    const from = b ? [b.x, b.y, b.z] : undefined;
    let mask = 0;
    axes.forEach((v, i) => {
      if (!from || from[i] !== v) mask |= 1 << i;
    });
    if (yaw) mask |= YAW;
    if (pitch) mask |= PITCH;
    const delta = from !== undefined && axes.every((v, i) => Math.abs(v - from[i]!) <= 127);
    if (delta && mask & (X | Y | Z)) mask |= DELTA;
    out[at++] = mask;
    do {
      out[at++] = (gap & 0x7f) | (gap > 0x7f ? 0x80 : 0);
      gap >>>= 7;
    } while (gap > 0);
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

/** The entries of a bytes block, against the receiver's bases and prevs; throws PositionCodeError on anything malformed. */
export function decodePositions(b: Uint8Array, base: (slot: number) => QPose | undefined, prev: PrevOf = noPrev): PositionEntry[] {
  const out: PositionEntry[] = [];
  let at = 0;
  let last = -1;
  const byte = () => {
    if (at >= b.length) throw new PositionCodeError('truncated entry');
    return b[at++]!;
  };
  const inRange = (v: number) => {
    if (v < 0 || v > U16) throw new PositionCodeError('delta out of range');
    return v;
  };
  const nibble = (n: number) => (n > 7 ? n - 16 : n);
  while (at < b.length) {
    const head = byte();
    if (head & STEP) {
      const slot = last + 1 + (head & STEP_GAP);
      if (slot > MAX_SLOT) throw new PositionCodeError('slot out of range');
      last = slot;
      const from = base(slot), p = prev(slot);
      if (!from || !p) throw new PositionCodeError('step entry needs a base and prev the receiver lacks');
      const xz = byte();
      out.push({
        slot,
        q: {
          x: inRange(2 * from.x - p.x + nibble(xz >>> 4)),
          y: from.y,
          z: inRange(2 * from.z - p.z + nibble(xz & 15)),
          yaw: head & STEP_YAW ? byte() : from.yaw,
          pitch: head & STEP_PITCH ? byte() : from.pitch,
        },
      });
      continue;
    }
    if (head & COARSE) {
      const slot = last + 1 + (head & COARSE_GAP);
      if (slot > MAX_SLOT) throw new PositionCodeError('slot out of range');
      last = slot;
      const from = base(slot);
      if (!from) throw new PositionCodeError('coarse entry needs a base the receiver lacks');
      const xz = byte();
      const yaw = byte();
      out.push({ slot, q: { x: inRange(from.x + nibble(xz >>> 4) * COARSE_UNIT), y: from.y, z: inRange(from.z + nibble(xz & 15) * COARSE_UNIT), yaw, pitch: from.pitch } });
      continue;
    }
    const mask = head;
    let gap = 0;
    for (let shift = 0; ; shift += 7) {
      if (shift > 14) throw new PositionCodeError('slot gap too long');
      const c = byte();
      gap |= (c & 0x7f) << shift;
      if (!(c & 0x80)) break;
    }
    const slot = last + 1 + gap;
    if (slot > MAX_SLOT) throw new PositionCodeError('slot out of range');
    last = slot;
    const from = base(slot);
    const full = X | Y | Z | YAW | PITCH;
    if (!from && ((mask & full) !== full || mask & DELTA)) throw new PositionCodeError('entry needs a base the receiver lacks');
    const axis = (bit: number, old: number | undefined): number => {
      if (!(mask & bit)) return old!;
      if (mask & DELTA) {
        const d = byte();
        return inRange(old! + (d > 127 ? d - 256 : d));
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
