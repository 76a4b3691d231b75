// The request log on its own: a re-sent edit is answered from it, and a request a merge
// finds ordered twice keeps its later ordering (the one the merged state holds).
import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { RequestLog, requestTag } from './request-log';

describe('RequestLog', () => {
  const editor = randomId();
  const tag = requestTag(idToHex(editor), 7, 1234, 5);

  it('keeps the higher stamp of a request ordered twice, whichever side it came from', () => {
    const log = new RequestLog(60_000);
    log.remember(tag, { e: 7, s: 1 }, 0); // ordered by the e7 primary, never committed
    log.import([[editor, 7, 1234, 5, 8, 6]], 10); // re-ordered by the e8 primary
    expect(log.find(tag)).toMatchObject({ e: 8, s: 6 });
    log.import([[editor, 7, 1234, 5, 7, 1]], 20); // the older ordering again: no change
    expect(log.find(tag)).toMatchObject({ e: 8, s: 6 });
  });

  it('exports what it imported, and forgets requests past the TTL', () => {
    const log = new RequestLog(1000);
    log.import([[editor, 7, 1234, 5, 3, 2]], 0);
    expect(log.export(10)).toEqual([[editor, 7, 1234, 5, 3, 2]]);
    log.prune(1001);
    expect(log.size).toBe(0);
  });
});
