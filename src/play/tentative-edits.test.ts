import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { VirtualClock } from '../core/virtual-clock';
import type { RejectReason } from '../region/subscription-messages';
import { EditRejectedError, type ClientEvents, type RegionClient } from './region-client';
import { columnIndex, regionAt, regionName, type RegionCoord } from '../region/region-key';
import { entryKey, RegionState, type Entry } from '../region/region-state';
import { IdbTentativeStore, MemoryTentativeStore } from '../store/tentative-store';
import { AIR, BRICK, GLASS, PLANKS } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { BlockEditor } from './block-editor';
import { NetworkChunkSource } from './network-chunk-source';
import { TentativeEdits, TentativeFullError } from './tentative-edits';
import { WorldModel } from './world-model';

/**
 * The part of RegionClient the source uses. `answer` decides what a submit gets: a CONFIRM
 * (the edit merges into the region state and comes back as an 'edits' event, as a primary's
 * DELTA would) or a REJECT with that reason ('uncertified': no certified primary to be had).
 */
class FakeClient {
  readonly events = new Emitter<ClientEvents>();
  answer: 'confirm' | RejectReason = 'uncertified';
  submits: { x: number; y: number; z: number; id: number; at: { x: number; y: number; z: number }; r?: number }[] = [];
  private readonly states = new Map<string, RegionState>();
  private seq = 0;

  /** Request ids handed out from `nextReq` (a reloaded tab starts elsewhere). */
  constructor(private nextReq = 100) {}

  newRequest(): number {
    return this.nextReq++;
  }

  subscribe(): Promise<void> {
    return Promise.resolve();
  }
  subscribed(): RegionCoord[] {
    return [];
  }
  unsubscribe(): void {}
  isReady(): boolean {
    return true;
  }
  pendingEntries(): Entry[] {
    return [];
  }
  pendingAt(): Entry | undefined {
    return undefined;
  }
  attachment(): undefined {
    return undefined;
  }
  move(): boolean {
    return true;
  }
  state(r: RegionCoord): RegionState {
    let s = this.states.get(regionName(r));
    if (!s) this.states.set(regionName(r), (s = new RegionState()));
    return s;
  }
  /** Set: a submit is confirmed with this stamp and not ordered again (its first ordering, since superseded). */
  orderedBefore: { e: number; s: number } | undefined;
  /** With `hold`, submits wait here, in arrival order, for `release` (a primary being found): then each is ordered and confirmed. */
  hold = false;
  private held: (() => void)[] = [];
  release(): void {
    this.hold = false;
    for (const go of this.held.splice(0)) go();
  }
  submit(x: number, y: number, z: number, id: number, at: { x: number; y: number; z: number }, r?: number): Promise<{ e: number; s: number }> {
    this.submits.push({ x, y, z, id, at, ...(r !== undefined ? { r } : {}) });
    if (this.hold) return new Promise((resolve) => this.held.push(() => resolve(this.order(x, y, z, id))));
    // A primary that ordered it before answers with that stamp; the region holds a newer edit of the block.
    if (this.orderedBefore) return Promise.resolve(this.orderedBefore);
    if (this.answer !== 'confirm') return Promise.reject(new EditRejectedError(this.answer));
    return Promise.resolve(this.order(x, y, z, id));
  }
  private order(x: number, y: number, z: number, id: number): { e: number; s: number } {
    const region = regionAt(x, z);
    const entry = { key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z)), id, e: 1, s: ++this.seq };
    const changed = this.state(region).merge([entry]);
    this.events.emit('edits', { region, entries: changed });
    return { e: 1, s: this.seq };
  }
}

const dht = { selfId: new Uint8Array(20), get: () => Promise.resolve(undefined) };

function open(client: FakeClient, clock: VirtualClock, store: IdbTentativeStore | MemoryTentativeStore, maxEdits?: number) {
  const source = new NetworkChunkSource({
    seed: 'seed-1', world: 'w', client: client as unknown as RegionClient, dht, clock, tentative: store,
    ...(maxEdits ? { tentativeOptions: { maxEdits } } : {}),
  });
  const world = new WorldModel();
  source.events.on('blocks', ({ changes }) => { for (const c of changes) world.applyBlock(c.x, c.y, c.z, c.id); });
  // The player stands well away from the blocks edited (no "inside the player").
  const editor = new BlockEditor(world, source, () => ({ x: 0.5, y: 250, z: 0.5, vx: 0, vy: 0, vz: 0, onGround: false }));
  return { source, world, editor };
}

/** Loads column (0, 0) into the world; the first air block above the ground at (x, z). */
async function loadColumn(p: ReturnType<typeof open>, clock: VirtualClock, x = 6, z = 7): Promise<number> {
  const loading = p.source.load(0, 0);
  await clock.runUntil(() => false, 0);
  p.world.addChunk(await loading);
  let y = 200;
  while (y > 0 && p.world.blockAt(x, y - 1, z) === AIR) y--;
  return y;
}

/** A player standing by (6, 7) whose BRICK there was placed while no primary could be had: kept. */
async function keptBrick() {
  const clock = new VirtualClock();
  const client = new FakeClient();
  const a = open(client, clock, new MemoryTentativeStore());
  const y = await loadColumn(a, clock);
  a.source.setPosition({ x: 6.5, y, z: 9.5, yaw: 0, pitch: 0 });
  expect(await a.editor.setBlock(6, y, 7, BRICK)).toEqual({ confirmed: false });
  return { clock, client, a, y };
}

describe('tentative edits (no certified primary)', () => {
  it('an uncertified edit stays shown, is stored, comes back after a reload over the region state, is retried and forgotten once confirmed', async () => {
    const clock = new VirtualClock();
    const store = await IdbTentativeStore.open('w', 'tentative-edits-test-1');
    const client = new FakeClient();
    const a = open(client, clock, store);
    const y = await loadColumn(a, clock);
    a.source.setPosition({ x: 6.5, y, z: 9.5, yaw: 0, pitch: 0 });
    expect(await a.editor.setBlock(6, y, 7, BRICK)).toEqual({ confirmed: false });
    expect(a.world.blockAt(6, y, 7)).toBe(BRICK);
    expect(a.editor.unsettled).toBe(0);
    expect(a.source.tentative.list()).toEqual([{ x: 6, y, z: 7, id: BRICK }]);
    expect((await store.loadAll()).map((r) => [r.x, r.y, r.z, r.id])).toEqual([[6, y, 7, BRICK]]);
    // Retried with backoff while no primary can be had: a few attempts in 20 s, not one per pump.
    await clock.advance(20_000);
    const tries = client.submits.length - 1;
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(tries).toBeLessThanOrEqual(5);
    // Every retry under the first submit's request id: a primary that ordered it (its answer
    // lost) answers with its stamp instead of ordering it again.
    expect(new Set(client.submits.map((q) => q.r))).toEqual(new Set([100]));
    expect(a.source.tentative.size).toBe(1);
    a.source.close();
    store.close();

    // A reload: the stored edit is shown over the region state when its column loads.
    const store2 = await IdbTentativeStore.open('w', 'tentative-edits-test-1');
    const client2 = new FakeClient(500);
    const b = open(client2, clock, store2);
    await loadColumn(b, clock);
    expect(b.world.blockAt(6, y, 7)).toBe(BRICK);
    expect(b.source.isTentative(6, y, 7)).toBe(true);
    // Someone else's older edit of that block comes from the region: ours stays shown.
    client2.answer = 'confirm';
    await client2.submit(6, y, 7, GLASS, { x: 6, y, z: 7 });
    expect(b.world.blockAt(6, y, 7)).toBe(BRICK);

    // A primary is attached again: the edit is submitted, confirmed and forgotten.
    b.source.setPosition({ x: 6.5, y, z: 9.5, yaw: 0, pitch: 0 });
    client2.events.emit('attached', { region: regionAt(6, 7), primary: 'p', epoch: 1 });
    await clock.advance(500);
    // Still under its first request id, kept in the store through the reload.
    expect(client2.submits.at(-1)).toMatchObject({ x: 6, y, z: 7, id: BRICK, at: { x: 6.5, z: 9.5 }, r: 100 });
    expect(b.source.tentative.size).toBe(0);
    expect(await store2.loadAll()).toEqual([]);
    expect(client2.state(regionAt(6, 7)).get(entryKey(0, 6, y, 7))?.id).toBe(BRICK);
    expect(b.world.blockAt(6, y, 7)).toBe(BRICK);
    b.source.close();
    store2.close();
  });

  it('a real refusal still rolls back; a kept edit refused on retry is dropped and shows the region\'s block', async () => {
    const clock = new VirtualClock();
    const store = new MemoryTentativeStore();
    const client = new FakeClient();
    const a = open(client, clock, store);
    const y = await loadColumn(a, clock);
    a.source.setPosition({ x: 6.5, y, z: 9.5, yaw: 0, pitch: 0 });
    client.answer = 'bad-block';
    await expect(a.editor.setBlock(6, y, 7, BRICK)).rejects.toThrow(EditRejectedError);
    expect(a.world.blockAt(6, y, 7)).toBe(AIR);
    expect(a.source.tentative.size).toBe(0);

    client.answer = 'uncertified';
    expect(await a.editor.setBlock(6, y, 7, PLANKS)).toEqual({ confirmed: false });
    client.answer = 'bad-block';
    await clock.advance(10_000);
    expect(a.source.tentative.size).toBe(0);
    expect(await store.loadAll()).toEqual([]);
    expect(a.world.blockAt(6, y, 7)).toBe(AIR);
    a.source.close();
  });

  it('a block where another player stands is refused at once and taken back; a kept edit\'s retry refused so stays kept', async () => {
    const clock = new VirtualClock();
    const store = new MemoryTentativeStore();
    const client = new FakeClient();
    const a = open(client, clock, store);
    const y = await loadColumn(a, clock);
    a.source.setPosition({ x: 6.5, y, z: 9.5, yaw: 0, pitch: 0 });
    client.answer = 'occupied';
    await expect(a.editor.setBlock(6, y, 7, BRICK)).rejects.toMatchObject({ code: 'occupied' });
    expect(a.world.blockAt(6, y, 7)).toBe(AIR);
    expect(a.source.tentative.size).toBe(0);

    client.answer = 'uncertified';
    expect(await a.editor.setBlock(6, y, 7, PLANKS)).toEqual({ confirmed: false });
    client.answer = 'occupied';
    const tries = client.submits.length;
    await clock.advance(10_000);
    expect(client.submits.length).toBeGreaterThan(tries);
    expect(a.source.tentative.size).toBe(1);
    expect(a.world.blockAt(6, y, 7)).toBe(PLANKS);
    client.answer = 'confirm';
    await clock.advance(60_000);
    expect(a.source.tentative.size).toBe(0);
    expect(a.world.blockAt(6, y, 7)).toBe(PLANKS);
    a.source.close();
  });

  it('a confirmed edit replaces a kept one of the same block; past maxEdits a new edit is refused and taken back', async () => {
    const clock = new VirtualClock();
    const store = new MemoryTentativeStore();
    const client = new FakeClient();
    const a = open(client, clock, store, 2);
    const y = await loadColumn(a, clock);
    a.source.setPosition({ x: 6.5, y, z: 9.5, yaw: 0, pitch: 0 });
    await a.editor.setBlock(6, y, 7, BRICK);
    await a.editor.setBlock(7, y + 3, 7, BRICK);
    await expect(a.editor.setBlock(8, y + 3, 7, BRICK)).rejects.toThrow(TentativeFullError);
    expect(a.world.blockAt(8, y + 3, 7)).toBe(AIR);
    expect(await a.editor.setBlock(6, y, 7, GLASS)).toEqual({ confirmed: false }); // replaces, within the bound
    expect(a.source.tentative.list()).toContainEqual({ x: 6, y, z: 7, id: GLASS });
    client.answer = 'confirm';
    expect(await a.editor.setBlock(6, y, 7, PLANKS)).toMatchObject({ confirmed: true, stamp: { e: 1 } });
    expect(a.source.tentative.list()).toEqual([{ x: 7, y: y + 3, z: 7, id: BRICK }]);
    expect((await store.loadAll()).length).toBe(1);
    a.source.close();
  });

  it('a kept edit whose retry is confirmed with the stamp of its first ordering, superseded since, shows the block as the region has it', async () => {
    const { clock, client, a, y } = await keptBrick();
    // Its first send was ordered (the answer never came), then someone's newer edit of the
    // block: the region holds GLASS, our kept BRICK still shown over it.
    client.answer = 'confirm';
    await client.submit(6, y, 7, GLASS, { x: 6, y, z: 7 });
    expect(a.world.blockAt(6, y, 7)).toBe(BRICK);
    // The retry (same request id) is confirmed with the first stamp, not ordered again.
    client.orderedBefore = { e: 1, s: 1 };
    client.events.emit('attached', { region: regionAt(6, 7), primary: 'p', epoch: 1 });
    await clock.advance(500);
    expect(a.source.tentative.size).toBe(0);
    expect(a.world.blockAt(6, y, 7)).toBe(GLASS);
    a.source.close();
  });

  it('a kept edit is not retried while a newer edit of its block is on its way: the retry would be ordered after it and bring the old block back', async () => {
    const { clock, client, a, y } = await keptBrick();
    // Taken away again while the region looks for its primary: the edit waits to be sent.
    client.hold = true;
    const removed = a.editor.setBlock(6, y, 7, AIR);
    await clock.advance(0);
    // A primary is found: the region's kept edits are due at once.
    client.events.emit('attached', { region: regionAt(6, 7), primary: 'p', epoch: 1 });
    await clock.advance(1000);
    client.release();
    expect(await removed).toMatchObject({ confirmed: true });
    await clock.advance(10_000);
    expect(client.state(regionAt(6, 7)).get(entryKey(0, 6, y, 7))?.id ?? AIR).toBe(AIR);
    expect(a.world.blockAt(6, y, 7)).toBe(AIR);
    expect(client.submits.map((s) => s.id)).toEqual([BRICK, AIR]);
    expect(a.source.tentative.size).toBe(0);
    a.source.close();
  });

  it('a storage failure takes the edit back (nothing kept that is not stored)', async () => {
    const clock = new VirtualClock();
    const store = new MemoryTentativeStore();
    const a = open(new FakeClient(), clock, store);
    const y = await loadColumn(a, clock);
    store.failWrites = true;
    await expect(a.editor.setBlock(6, y, 7, BRICK)).rejects.toThrow(/storage/);
    expect(a.world.blockAt(6, y, 7)).toBe(AIR);
    expect(a.source.tentative.size).toBe(0);
    a.source.close();
  });
});

describe('TentativeEdits retries', () => {
  it('claims the player\'s position within reach, waits while the player is in the region but away, claims the edit\'s position from elsewhere', async () => {
    const clock = new VirtualClock();
    const store = new MemoryTentativeStore();
    await store.put({ x: 10, y: 70, z: 10, id: BRICK, at: { x: 10.5, y: 70, z: 12.5 }, made: 1 });
    const sent: { x: number; z: number }[] = [];
    let pos = { x: 11.5, y: 70, z: 11.5 };
    let answer: RejectReason = 'uncertified';
    const t = new TentativeEdits({
      store, clock, position: () => pos, revert: () => {},
      submit: (_x, _y, _z, _id, at) => (sent.push({ x: at.x, z: at.z }), Promise.reject(new EditRejectedError(answer))),
    });
    await t.ready;
    await clock.advance(300);
    expect(sent).toEqual([{ x: 11.5, z: 11.5 }]);
    pos = { x: 40.5, y: 70, z: 40.5 }; // same region (64 blocks), out of reach: waits
    await clock.advance(60_000);
    expect(sent.length).toBe(1);
    pos = { x: 100.5, y: 70, z: 10.5 }; // another region: claims where the edit was made
    answer = 'out-of-reach';
    await clock.advance(30_000);
    expect(sent[1]).toEqual({ x: 10.5, z: 12.5 });
    expect(t.size).toBe(1); // out of reach on a retry: kept for later
    t.close();
  });
});
