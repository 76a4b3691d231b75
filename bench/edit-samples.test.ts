import { describe, expect, it } from 'vitest';
import { attribute, BotTimeline, missKind, neverDetails, type EditWatch } from './edit-samples';
import { UNLOADED } from '../src/play/world-model';

// Region 0,0 holds blocks 0..63 (4 x 4 columns of 16); trace times are the page's performance.now().
const ORIGIN = 1_000_000;
const watch = (over: Partial<EditWatch> = {}): EditWatch => ({ editor: 0, watcher: 1, x: 5, y: 40, z: 5, e: 3, s: 7, at: ORIGIN + 1000, settledAt: ORIGIN + 1020, visibleAt: ORIGIN + 1030, confirmed: true, ...over });

function timelines(primaryLines: string[], watcherLines: string[] = [], watcherTasks: [number, number][] = []): BotTimeline[] {
  const editor = new BotTimeline(0), watcher = new BotTimeline(1), primary = new BotTimeline(2);
  editor.add({ origin: ORIGIN, trace: [], longTasks: [] });
  watcher.add({ origin: ORIGIN, trace: watcherLines, longTasks: watcherTasks });
  primary.add({ origin: ORIGIN, trace: primaryLines, longTasks: [] });
  return [editor, watcher, primary];
}

describe('edit samples', () => {
  it('finds the primary that ordered the edit and splits the latency at its order', () => {
    const r = attribute([watch()], timelines(['1010 [0,0] abcdef e3 order s6-8 to 123456']), 3000);
    expect(r.list[0]).toMatchObject({ region: '0,0', ms: 30, primary: 2, toOrderMs: 10, toWatcherMs: 20 });
    expect(r.slow).toBe(0);
    expect(r.list[0]!.cause).toBeUndefined();
  });

  it('names a slow sample by the first cause that holds', () => {
    const order = '1010 [0,0] abcdef e3 order s7-7 to 123456';
    const slow = watch({ visibleAt: ORIGIN + 1600 });
    expect(attribute([slow], timelines([order, '1200 [0,0] cdef primary abcdef silent 700 ms (allowed 600)']), 3000).list[0]!.cause).toBe('host_change');
    expect(attribute([slow], timelines([order], ['1100 [0,0] client: looks for a primary (silence)']), 3000).list[0]).toMatchObject({ cause: 'reattach', leg: 'to_watcher' });
    // Another bot's client looking for the primary delays neither the editor nor this watcher.
    expect(attribute([slow], timelines([order, '1100 [0,0] client: looks for a primary (silence)']), 3000).list[0]!.cause).toBe('unexplained');
    // The primary waited for its lease before it ordered the edit.
    const late = '1500 [0,0] abcdef e3 order s7-7 to 123456';
    expect(attribute([slow], timelines(['990 [0,0] abcdef e3 edits wait for the lease', late], ['1100 [0,0] client: looks for a primary (silence)']), 3000).list[0]).toMatchObject({ cause: 'lease_wait', leg: 'to_primary' });
    expect(attribute([slow], timelines([order], [], [[ORIGIN + 1100, 300]]), 3000).list[0]!.cause).toBe('long_task_watcher');
    expect(attribute([slow], timelines([order]), 3000).list[0]!.cause).toBe('unexplained');
    expect(attribute([slow], timelines([]), 3000).list[0]!.cause).toBe('unordered');
    // Kept tentative at its editor: shown elsewhere only once a retry was confirmed.
    expect(attribute([{ ...slow, e: undefined, s: undefined, confirmed: false, visibleAt: ORIGIN + 3700 }], timelines([], [], [[ORIGIN + 1100, 300]]), 3000).list[0]!.cause).toBe('kept_tentative');
  });

  it('ignores events of other regions and the routine lines of every edit', () => {
    const slow = watch({ visibleAt: ORIGIN + 1600 });
    const r = attribute([slow], timelines(['1010 [0,0] abcdef e3 order s7-7 to 1', '1100 [0,0] abcdef e3 commit s7-7 acks 1:2', '1100 [1,0] cdef step down e4']), 3000);
    expect(r.list[0]!.events).toEqual([]);
    expect(r.byCause.unexplained).toBe(1);
  });

  it('counts a miss as slow, over the bench wait', () => {
    const r = attribute([watch({ visibleAt: NaN, miss: 'never' })], timelines([]), 3000);
    expect(r.list[0]!.ms).toBe(3000);
    expect(r.slow).toBe(1);
  });

  it('reads each trace line once over repeated reads', () => {
    const t = new BotTimeline(0);
    t.add({ origin: ORIGIN, trace: ['1 [0,0] a', '2 [0,0] b'], longTasks: [[5, 120]] });
    t.add({ origin: ORIGIN, trace: ['2 [0,0] b', '3 [0,0] c'], longTasks: [[5, 120], [9, 60]] });
    expect(t.events.map((e) => e.what)).toEqual(['a', 'b', 'c']);
    expect(t.longTasks).toHaveLength(2);
  });

  it('details a never-shown edit: the primary that ordered it, the watcher\'s attach before it, the other watchers', () => {
    const never = watch({ visibleAt: NaN, miss: 'never' });
    const shown = watch({ watcher: 3 });
    const ts = timelines(
      ['1010 [0,0] abcdef e3 order s6-8 to 123456', '1020 [0,0] abcdef e3 commit s6-8 acks 1:2', '1100 [1,0] abcdef e9 order s1-1 to 1'],
      ['-30000 [0,0] client: attached to 111111 e1', '400 [0,0] client: attached to 999999 e2', '900 [0,0] client: snapshot from 999999 e2', '1500 [0,0] client: looks for a primary (silence)'],
    );
    ts[2]!.id = 'abcdef0123';
    const views = new Map([[never, { atDeadline: { block: 0, live: true, arrivals: [], client: { primary: '99999900', epoch: 2, ready: true, entries: 4, version: 'e2s3' } } }]]);
    const [d, ...rest] = neverDetails([never, shown], ts, 3000, views);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ kind: 'never', region: '0,0', editor: 0, watcher: 1, e: 3, s: 7, primary: { bot: 2, id: 'abcdef', orderedMs: 10 }, attachedBefore: { id: '999999', e: 2, ms: -600 }, watchers: 2, shownBy: 1 });
    expect(d!.atDeadline?.client?.epoch).toBe(2);
    // The watcher's own lines from 20 s before the edit on; every bot's lines of the region around it, routine ones too.
    expect(d!.watcherLines).toEqual(['-600 client: attached to 999999 e2', '-100 client: snapshot from 999999 e2', '500 client: looks for a primary (silence)']);
    expect(d!.regionLines).toEqual(['-600 bot1 client: attached to 999999 e2', '-100 bot1 client: snapshot from 999999 e2', '10 bot2 abcdef e3 order s6-8 to 123456', '20 bot2 abcdef e3 commit s6-8 acks 1:2', '500 bot1 client: looks for a primary (silence)']);
  });

  it('tells a confirmed edit lost from one its watcher left, or caught up on only after its removal', () => {
    const BRICK = 45, removal = { e: 3, s: 9 };
    const miss = { id: BRICK, confirmed: true, arrivedLate: false, stamp: { e: 3, s: 7 }, removal, atDeadline: { block: 0, live: true, arrivals: [] } };
    expect(missKind({ ...miss, arrivedLate: true })).toBe('late');
    expect(missKind({ ...miss, atDeadline: { ...miss.atDeadline, block: BRICK } })).toBe('shown_unstamped');
    expect(missKind({ ...miss, confirmed: false })).toBe('unconfirmed');
    expect(missKind({ ...miss, atDeadline: { ...miss.atDeadline, block: UNLOADED } })).toBe('left');
    expect(missKind({ ...miss, atDeadline: { ...miss.atDeadline, live: false } })).toBe('left');
    // At the end the watcher's subscription holds the removal (or a later edit of the block): it caught up after the removal.
    expect(missKind({ ...miss, atEnd: { block: 0, live: true, arrivals: [], held: { id: 0, e: 3, s: 9 } } })).toBe('superseded');
    expect(missKind({ ...miss, atEnd: { block: 0, live: true, arrivals: [], held: { id: 0, e: 4, s: 1 } } })).toBe('superseded');
    // Holding nothing newer than the edit, or not attached at all: lost.
    expect(missKind({ ...miss, atEnd: { block: 0, live: true, arrivals: [], held: { id: 12, e: 3, s: 2 } } })).toBe('never');
    expect(missKind({ ...miss, atEnd: { block: 0, live: true, arrivals: [] } })).toBe('never');
    expect(missKind(miss)).toBe('never');
    // Its subscription held the edit at the deadline and its world did not show it: lost in the world, whatever came after.
    expect(missKind({ ...miss, atDeadline: { ...miss.atDeadline, held: { id: BRICK, e: 3, s: 7 } }, atEnd: { block: 0, live: true, arrivals: [], held: { id: 0, e: 3, s: 9 } } })).toBe('never');
    // No removal stamp (kept tentative): nothing to tell it by.
    expect(missKind({ ...miss, removal: undefined, atEnd: { block: 0, live: true, arrivals: [], held: { id: 0, e: 9, s: 9 } } })).toBe('never');
  });
});
