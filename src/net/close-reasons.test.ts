import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedForFlood, closedOnPurpose, BUDGET_CLOSE, FLOOD_CLOSE, PEER_RETIRED, remoteClosed } from './close-reasons';

const SRC = resolve(import.meta.dirname, '..');
/** The layers whose links close for a reason another layer may act on. */
const LAYERS = ['net', 'dht', 'bootstrap', 'host', 'play'];
/** Calls here that take a string but close no link, and why. */
const NOT_LINKS: Record<string, string> = {
  'net/relay-bootstrap.ts': 'a relay WebSocket\'s close code and reason (a doorway, not a link)',
  'net/ice-probe.ts': 'the ICE probe\'s outcome (finish), not a link closing',
  'net/socket-ahead.ts': 'a relay WebSocket opened ahead of the join and closed unused (a doorway, not a link)',
};
/** A link closed, retired, let go or told of its far end's close with a reason written in place. */
const LITERAL_REASON = /\b(?:close|closeAll|retire|letGo|remoteClosed|finish)\((?:\s*[\w.]+,\s*)?['"`]/;

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return productFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** `file:line: text` of every line of `src` (a file named `name`) that closes a link with a literal reason. */
export function literalReasons(name: string, src: string): string[] {
  if (NOT_LINKS[name]) return [];
  return src.split('\n').flatMap((line, i) => (LITERAL_REASON.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*') ? [`${name}:${i + 1}: ${line.trim()}`] : []));
}

describe('link-close reasons', () => {
  it('every link of net/, dht/, bootstrap/, host/ and play/ closes with a reason of close-reasons.ts, not a literal', () => {
    const found = LAYERS.flatMap((l) => productFiles(join(SRC, l))).flatMap((f) => literalReasons(relative(SRC, f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check sees a literal reason in each form a link is closed by', () => {
    const src = ["link.close('stopped');", 'this.finish(`error: ${m}`);', "this.letGo(pl, 'duplicate', true);", "deps.links.close(pl.hex, 'heartbeat timeout');", 'link.close(STOPPED);', "// link.close('in a comment')"].join('\n');
    expect(literalReasons('dht/x.ts', src)).toHaveLength(4);
    expect(literalReasons('net/relay-bootstrap.ts', "this.ws.close(1000, 'bye');")).toEqual([]);
  });

  it('on purpose: a budget, ours or the far end\'s; flood: ours or the far end\'s bye', () => {
    expect([closedOnPurpose(BUDGET_CLOSE), closedOnPurpose(PEER_RETIRED), closedOnPurpose(remoteClosed(BUDGET_CLOSE))]).toEqual([true, true, false]);
    expect([closedForFlood(FLOOD_CLOSE), closedForFlood(remoteClosed(FLOOD_CLOSE)), closedForFlood(BUDGET_CLOSE)]).toEqual([true, true, false]);
  });
});
