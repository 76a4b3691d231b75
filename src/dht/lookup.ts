// Iterative Kademlia lookup (FIND_NODE / FIND_VALUE), alpha-parallel.
//
// Up to `alpha` queries are in flight; each goes to the closest not-yet-asked node among
// the k closest non-failed candidates. The lookup ends when the k closest non-failed
// candidates have all answered (nothing pending among them, nothing unasked), or, for
// FIND_VALUE, as soon as `values` answers carried a value (1 by default; the query
// function drops invalid values before they count), or two rounds (capped by
// `valueWaitMs`) after the first value: a reader takes the highest version among several
// answers (values.ts `get`), so one holder's stale value is not the answer, without
// waiting for all k.
//
// Hops: a candidate from our own table has depth 0; one first learned from the reply
// of a depth-d node has depth d+1. The lookup's `hops` is depth+1 of the node that
// decided it (the closest responder, or the deepest value holder taken): the number of
// sequential request/reply rounds on the critical path, which is what Kademlia's
// O(log n) bounds. Each of those RPCs may itself cross several links when routed
// (counted separately in stats.routedForwarded).
//
// Disjoint paths (`paths` d > 1, S/Kademlia: Baumgart and Mies 2007): the seeds are dealt
// to d paths in turn, each path runs the search above on its own candidate list, and a
// node belongs to the path that learned of it first: no node is queried by two paths.
// One hostile node that answers with only its accomplices (an eclipse attempt) or says it
// holds nothing steers its own path only; the others reach the honest nodes near the key
// unless every path meets an attacker. The lookup ends when every path ended, or, for
// FIND_VALUE, when each path brought its share of the values (ceil(values / d)) or ended:
// the first values to come may all be from one path its liars took over. (No early end
// `valueWaitMs` after the first value then: that would cut off the slower honest paths.)
//
// Retries by another route (`attempts` > 1): a routed query can be lost on the way there
// or back (a forwarder that drops it, a dead link nobody noticed yet), and a lost answer
// of the target itself loses the whole FIND_NODE. So a candidate whose query stalled
// (`stallMs`) or failed is asked again, up to `attempts` queries in all, each through the
// next of the nodes that named it (every informer of its path is kept, up to
// MAX_INFORMERS), then by plain routing, round and round: a hostile forwarder on one route
// is not on the next, and one that drops at random loses a copy, not the answer. A stalled
// query may still answer: the first answer of any attempt counts. Only candidates whose
// query goes over the network (`retryable`) are retried: a direct link has no other way.
// Retries leave only within `retryWithinMs` (the RPC timeout) of the first query, and a
// candidate whose first query failed past that fails then: a dead candidate holds the lookup
// no longer than it did before retries (it had held it up to 5 timeouts: joins among crashed
// hosts took seconds longer).
//
// The target's copies (`targetCopies` c > 1): a FIND_NODE for a node finds it only if that
// node's own answer comes back, and traced misses among 20% hostile nodes were the target's
// queries all lost (dropped on the way there or back, or sent into a dead link) within the
// window. So the candidate that is the target is asked c times at once and again c times
// per stall, each copy by another route (the next informer, or another first hop), up to
// `attempts` x c queries: c times the tries within the same window, at the cost of c - 1
// extra queries per lookup that reaches its target (other candidates are asked as before).
//
// Giving up on a silent candidate (`giveUpMs`): a candidate (not the target) that has
// answered none of its queries this long after its first no longer holds the lookup's end:
// it is passed over as a failed one is (a late answer still counts while the lookup runs),
// and the lookup ends without it, counted among `failures`. Without it, a lookup that met a
// node which had just left (nodes keep naming a contact until they find it dead, up to the
// heartbeat timeout) ended only when that node's retry window closed: a join into a world
// some tabs had just left waited out the RPC timeout on the tabs that were gone. The wait
// is at least `giveUpMs` and `GIVE_UP_ANSWERS` times the slowest answer this lookup has had,
// so on a machine or route slow enough that live nodes answer late, it grows with them
// (as TCP's retransmission timeout grows with the round trips it measured). A given-up
// candidate gets no more retries, and its retry goes outside the parallel slots (one it
// took held the closer unasked candidates back until the give-up: a lookup that met
// several gone nodes asked the next ones only then). The nodes given up lately (`silent`,
// silent-candidates.ts) are asked once in later lookups and not waited for at all. Past the
// retry window it is off: the window's own end fails the candidate then.
//
// The target's second window (`targetWindows` w > 1, FIND_NODE only): the target's copies
// keep leaving for w retry windows after its first query, up to `attempts` x c x w queries.
// All the tries of one window leave before any of them timed out, so before anything that
// judges a route by its silence (route records at the RPC timeout, a link that answered
// nothing passed over and probed, dead hops closed) has acted on what they met: traced
// misses at 5,000 nodes, 20% hostile, during churn were 15 of 17 a live target listed by
// most of its neighbours, all 8 tries within 1.8 s lost on the way there or back. A later
// window goes out over routes repaired meanwhile. A target that never answers holds the
// lookup w times as long (only FIND_NODE for a node's own id: a value read never waits on it).
import { compareDistance, type NodeId } from '../core/node-id';
import type { ValueRecord } from './messages';

/** Informers kept per candidate: the routes a retry can take (plus plain routing). */
const MAX_INFORMERS = 4;
/**
 * A silent candidate is given up no sooner than this many times the slowest answer of its
 * lookup (`giveUpMs`): a live node on a slow route answers within a few of the round trips
 * its lookup has seen, a gone one never does.
 */
const GIVE_UP_ANSWERS = 4;

export interface QueryAnswer {
  nodes: NodeId[];
  value?: ValueRecord;
  /** The value's version (its namespace rule's); default its seq. */
  version?: number;
  /**
   * A read-only node answered (read-only-peers.ts): the nodes it names are used, but it is
   * nobody's closest node, so it leaves the candidates as if it had failed.
   */
  readOnly?: boolean;
}

/**
 * Asks one node; rejects when it fails (timeout, no route). `informer` is the node whose
 * reply named it (undefined for seeds, or for a retry by plain routing): it knows a way
 * there, so a routed query may go through it. `attempt`: 0 for the first query to this
 * node, n for its n-th retry (which should leave by another first hop).
 */
export type QueryFn = (id: NodeId, hex: string, informer: NodeId | undefined, attempt: number) => Promise<QueryAnswer>;

export interface LookupParams {
  target: NodeId;
  seeds: { id: NodeId; hex: string }[];
  query: QueryFn;
  k: number;
  alpha: number;
  selfHex: string;
  hexOf: (id: NodeId) => string;
  /** FIND_VALUE: collect values, stop at `values` of them. */
  wantValue?: boolean;
  /** Values that end a FIND_VALUE lookup (default 1). */
  values?: number;
  /**
   * A FIND_VALUE lookup ends at most this long after its first value even with fewer than
   * `values` (the rest are slow or missing); with `now`, at most `valueWaitRounds` rounds
   * more, a round being the time to the first value divided by its rounds (depth + 1).
   * Needs `setTimer`. 0 = off.
   */
  valueWaitMs?: number;
  /** See valueWaitMs (default 2). */
  valueWaitRounds?: number;
  /** The clock, for `valueWaitMs`'s round estimate. */
  now?: () => number;
  /**
   * A query unanswered this long stops counting toward alpha (it may still answer), so a
   * dead candidate's timeout does not hold the lookup up: without it, each round that hit
   * dead nodes waited out a whole RPC timeout. Needs `setTimer`. 0 = off.
   */
  stallMs?: number;
  setTimer?: (fn: () => void, ms: number) => void;
  /**
   * A candidate other than the target that answered none of its queries this long after its
   * first (and at least GIVE_UP_ANSWERS times the slowest answer so far) no longer holds the
   * lookup's end. Needs `setTimer` and `now`; off (0, or not under `retryWithinMs`) by default.
   */
  giveUpMs?: number;
  /** Nodes given up lately (with `giveUpMs`): asked once, not waited for; told of each give-up and answer. */
  silent?: { has(hex: string): boolean; gaveUp(hex: string): void; answered(hex: string): void };
  /** Disjoint paths (default 1); each runs `alpha` queries in parallel and ends at its own k closest. */
  paths?: number;
  /** Queries one candidate gets at most, each by another route (default 1: no retry). */
  attempts?: number;
  /**
   * Retries are sent only this long after a candidate's first query (the RPC timeout: a
   * dead candidate then holds the lookup no longer than without retries). Needs `setTimer`.
   */
  retryWithinMs?: number;
  /** Whether a query to hex crosses the network (may take another route); default all. */
  retryable?: (hex: string) => boolean;
  /**
   * Queries to the target itself (a candidate whose id is the target: the one answer a
   * FIND_NODE for a node is for) go out this many at once, each by another route, and it
   * gets `attempts` times this many in all (default 1).
   */
  targetCopies?: number;
  /**
   * The target's queries leave within this many retry windows (`retryWithinMs`) of its
   * first, and it gets `attempts` x `targetCopies` x this many in all (default 1).
   */
  targetWindows?: number;
}

export interface LookupResult {
  /** The k closest nodes that answered, closest first. */
  closest: { id: NodeId; hex: string }[];
  /** FIND_VALUE: the highest version among `values` (the first of equals). */
  value?: FoundValue;
  /** FIND_VALUE: every value answered, in arrival order. */
  values: FoundValue[];
  hops: number;
  queries: number;
  failures: number;
  /** Disjoint paths it ran (a value read's answers stand for a lookup by disjoint paths only with several: near-view.ts `adopt`). */
  paths?: number;
}

export interface FoundValue {
  rec: ValueRecord;
  from: NodeId;
  version: number;
}

type State = 'new' | 'pending' | 'ok' | 'failed';
interface Candidate {
  id: NodeId;
  hex: string;
  depth: number;
  state: State;
  /** The nodes of its path that named it, first first (none for a seed). */
  informers: NodeId[];
  /** Queries sent to it, and of those still unsettled. */
  tries: number;
  live: number;
  /** When its first query left (retries only within retryWithinMs of it). */
  firstAt?: number;
  /** Given up (`giveUpMs`): still pending, but no longer holding the lookup's end. */
  givenUp?: boolean;
  path: Path;
}

/** One of a lookup's disjoint paths: its candidates, closest first. */
interface Path {
  list: Candidate[];
  inFlight: number;
  done: boolean;
  /** Values this path's answers carried. */
  values: number;
}

export function iterativeLookup(p: LookupParams): Promise<LookupResult> {
  const known = new Set<string>([p.selfHex]);
  const targetHex = p.hexOf(p.target);
  let queries = 0;
  let failures = 0;
  let finished = false;
  const values: (FoundValue & { depth: number })[] = [];
  const wanted = Math.max(1, p.values ?? 1);
  const startedAt = p.now?.() ?? 0;
  const paths: Path[] = Array.from({ length: Math.max(1, Math.floor(p.paths ?? 1)) }, () => ({ list: [], inFlight: 0, done: false, values: 0 }));
  // With several paths, each must bring its share of the values (or end): the first values
  // may all come from one path its liars took over.
  const quota = Math.ceil(wanted / paths.length);
  const enough = () => (paths.length === 1 ? values.length >= wanted : paths.every((x) => x.done || x.values >= quota));

  const attempts = Math.max(1, Math.floor(p.attempts ?? 1));
  const byHex = new Map<string, Candidate>();
  // A node goes to the path that learned of it first (`known` is shared): paths stay disjoint.
  // Another informer of the same path is a route a retry can take.
  const insert = (path: Path, id: NodeId, hex: string, depth: number, informer?: NodeId) => {
    if (known.has(hex)) {
      const c = byHex.get(hex);
      if (attempts > 1 && informer && c && c.path === path && c.state !== 'ok' && c.informers.length < MAX_INFORMERS) c.informers.push(informer);
      return;
    }
    const { list } = path;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareDistance(list[mid]!.id, id, p.target) < 0) lo = mid + 1;
      else hi = mid;
    }
    const c: Candidate = { id, hex, depth, state: 'new', informers: informer ? [informer] : [], tries: 0, live: 0, path };
    known.add(hex);
    byHex.set(hex, c);
    list.splice(lo, 0, c);
  };
  p.seeds.forEach((s, i) => insert(paths[i % paths.length]!, s.id, s.hex, 0));
  let dealing = paths.length > 1 && p.seeds.length < paths.length;
  const giveUpMs = p.giveUpMs ?? 0;
  const givingUp = giveUpMs > 0 && !!p.setTimer && !!p.now && (p.retryWithinMs === undefined || giveUpMs < p.retryWithinMs);
  /** The slowest answer this lookup has had, ms from its query to its answer. */
  let slowest = 0;

  return new Promise<LookupResult>((resolve) => {
    const finish = () => {
      if (finished) return;
      finished = true;
      const answered = paths.flatMap((path) => path.list.filter((c) => c.state === 'ok'));
      // Candidates given up and still silent failed as far as this lookup is concerned (a
      // join looks up its own id again when some of its queries failed: join.ts).
      const gaveUp = paths.reduce((n, path) => n + path.list.filter((c) => c.givenUp && c.state === 'pending').length, 0);
      const closest = answered.sort((a, b) => compareDistance(a.id, b.id, p.target)).slice(0, p.k);
      const decider = values.length > 0 ? Math.max(...values.map((x) => x.depth)) : (closest[0]?.depth ?? -1);
      const result: LookupResult = {
        closest: closest.map((c) => ({ id: c.id, hex: c.hex })),
        values: values.map((x) => ({ rec: x.rec, from: x.from, version: x.version })),
        hops: decider + 1,
        queries,
        failures: failures + gaveUp,
        paths: paths.length,
      };
      let best: FoundValue | undefined;
      for (const x of result.values) if (!best || x.version > best.version) best = x;
      if (best) result.value = best;
      resolve(result);
    };

    const step = (path: Path) => {
      if (finished || path.done) return;
      // Walk the path's k closest non-failed candidates: launch queries at unasked ones.
      let seen = 0;
      let waiting = false;
      for (const c of path.list) {
        if (seen >= p.k) break;
        if (c.state === 'failed' || (c.givenUp && c.state === 'pending')) continue;
        if (c.state === 'new' && unwaited(c)) {
          launch(path, c); // asked, given up at once: no slot, no wait
          continue;
        }
        seen++;
        if (c.state === 'pending') waiting = true;
        else if (c.state === 'new') {
          if (path.inFlight >= p.alpha) {
            waiting = true;
            continue;
          }
          launch(path, c);
          // The target itself: its copies leave at once, each by another route.
          for (let i = 1; i < copies(c) && mayRetry(c); i++) launch(path, c);
          waiting = true;
        }
      }
      // Queries still out beyond the k closest cannot matter: the path is done.
      if (!waiting) {
        path.done = true;
        if (paths.every((x) => x.done) || (values.length > 0 && enough())) finish();
      }
    };

    /** The route of c's next query: its informers in turn, then plain routing (undefined). */
    const route = (c: Candidate): NodeId | undefined => {
      const i = c.tries % (c.informers.length + 1);
      return i < c.informers.length ? c.informers[i] : undefined;
    };
    const windows = (c: Candidate) => (c.hex === targetHex ? Math.max(1, Math.floor(p.targetWindows ?? 1)) : 1);
    const inTime = (c: Candidate) => p.retryWithinMs === undefined || !p.now || c.firstAt === undefined || p.now() - c.firstAt < p.retryWithinMs * windows(c);
    const copies = (c: Candidate) => (c.hex === targetHex ? Math.max(1, Math.floor(p.targetCopies ?? 1)) : 1);
    /** A candidate given up lately by another lookup: asked once, not waited for. */
    const unwaited = (c: Candidate) => givingUp && c.hex !== targetHex && (p.silent?.has(c.hex) ?? false);
    const mayRetry = (c: Candidate) => !c.givenUp && c.tries < attempts * copies(c) * windows(c) && inTime(c) && (p.retryable?.(c.hex) ?? true);

    const launch = (path: Path, c: Candidate) => {
      const via = route(c);
      const attempt = c.tries;
      c.state = 'pending';
      if (c.tries === 0) {
        c.firstAt = p.now?.();
        if (unwaited(c)) c.givenUp = true;
        else if (givingUp && c.hex !== targetHex) watchSilence(c, giveUpMs);
      }
      const sentAt = p.now?.() ?? 0;
      c.tries++;
      c.live++;
      // A retry of a candidate that may be given up, or a query to one given up, goes
      // outside the parallel slots (above).
      const holds = !(givingUp && c.hex !== targetHex && (attempt > 0 || c.givenUp));
      if (holds) path.inFlight++;
      queries++;
      let stalled = false;
      if (p.stallMs && p.setTimer) {
        p.setTimer(() => {
          if (c.state !== 'pending' || finished || stalled) return;
          stalled = true;
          if (holds) path.inFlight--;
          // Slow on this route: ask again by the next one, in the slot it frees.
          if (mayRetry(c)) launch(path, c);
          step(path);
        }, p.stallMs);
      }
      const settle = () => {
        c.live--;
        if (!stalled && holds) path.inFlight--;
        stalled = true; // a late stall timer must not count it again
      };
      p.query(c.id, c.hex, via, attempt).then(
        (ans) => {
          settle();
          if (finished) return;
          slowest = Math.max(slowest, (p.now?.() ?? 0) - sentAt);
          p.silent?.answered(c.hex);
          // Answered already by another attempt: only the slot this one held is freed.
          if (c.state === 'ok') return step(path);
          c.state = ans.readOnly ? 'failed' : 'ok';
          if (p.wantValue && ans.value) {
            values.push({ rec: ans.value, from: c.id, version: ans.version ?? ans.value.seq, depth: c.depth });
            path.values++;
            if (enough()) return finish();
            if (values.length === 1 && paths.length === 1 && p.valueWaitMs && p.setTimer) {
              const rounds = p.now ? ((p.valueWaitRounds ?? 2) * (p.now() - startedAt)) / (c.depth + 1) : Infinity;
              p.setTimer(finish, Math.min(p.valueWaitMs, rounds));
            }
          }
          if (dealing) {
            // Fewer seeds than paths (a join starts from its bootstrap node alone): the
            // first answer is dealt to all paths, as seeds are.
            dealing = false;
            ans.nodes.forEach((id, i) => insert(paths[i % paths.length]!, id, p.hexOf(id), c.depth + 1, c.id));
            for (const x of paths) if (x !== path && x.list.length > 0) x.done = false;
            for (const x of paths) if (x !== path) step(x);
          } else for (const id of ans.nodes) insert(path, id, p.hexOf(id), c.depth + 1, c.id);
          step(path);
        },
        () => {
          settle();
          failures++;
          if (finished) return;
          // Settled already (answered, or failed past the retry window): free the slot.
          if (c.state !== 'pending') return step(path);
          // Another attempt still out (a retry after a stall) may yet answer; past the retry
          // window the candidate fails now all the same (a late answer still counts).
          if (c.live > 0 && inTime(c)) return;
          if (mayRetry(c)) launch(path, c);
          else c.state = 'failed';
          step(path);
        },
      );
    };

    /** Gives c up once it has been silent long enough (`giveUpMs`, the slowest answer's multiple), checked again after `ms`. */
    const watchSilence = (c: Candidate, ms: number) => {
      p.setTimer!(() => {
        if (finished || c.state !== 'pending') return;
        const left = Math.max(giveUpMs, GIVE_UP_ANSWERS * slowest) - (p.now!() - c.firstAt!);
        if (left > 0) return watchSilence(c, left);
        c.givenUp = true;
        p.silent?.gaveUp(c.hex);
        step(c.path);
      }, ms);
    };

    for (const path of paths) step(path);
  });
}
