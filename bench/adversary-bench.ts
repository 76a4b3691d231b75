// `npm run bench -- adversary`: the adversary kit (src/testing/adversary.ts, the rows
// src/testing/adversary.test.ts asserts on 3 runs) over 8 seeds and 8 attackers: 2, 4 and
// 8 keys far from the key; 8 keys with the primary killed mid-attack; 2 ids ground next to
// the region's hosts with the primary killed; 1 ground id; 1 id inside the host set, and
// the same answering the failover's claims with GRANTs of its own blocks.
// Figures, summed over runs (targets in docs/BENCHMARKS.md "The adversary kit"):
// - accepted: the attacker's blocks honest subscribers showed (state or pending) or honest
//   hosts stored, from rows sent from outside the host set (0), and from inside it (the
//   known DELTA / PENDING hole: docs/TRUST.md "The adversary kit");
// - undelivered / uncounted rows (0): the attack never arrived, or was refused uncounted;
// - the longest time without an honest primary (kill runs: the failover under attack);
// - epochs: the most the region's hosts moved, and runs where a host outside the set
//   reached LEARN_EPOCH_CAP (the known hole "learnt chains");
// - honest edits made during the attack and not confirmed / not shown;
// - hosts of the set following an attacker primary: not reached as idle hosts (0 without
//   ground ids), and reached so (learnt chains).
import { percentile } from '../src/core/percentile';
import { LEARN_EPOCH_CAP } from '../src/region/cert-anchor';
import { runAdversary, uncountedRows, undelivered, type AdversaryOptions } from '../src/testing/adversary';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const ATTACKERS: [name: string, o: Omit<AdversaryOptions, 'seed'>][] = [
  ['2keys', { keys: 2 }],
  ['4keys', { keys: 4 }],
  ['8keys', { keys: 8 }],
  ['8keys_kill', { keys: 8, kill: true }],
  ['2near_kill', { keys: 3, near: 2, kill: true }],
  ['1near', { keys: 5, near: 1 }],
  ['member', { keys: 2, member: true }],
  ['member_grants_kill', { keys: 2, member: true, grants: true, kill: true }],
];

export async function benchAdversary(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let runs = 0, rows = 0, outside = 0, inside = 0, lost = 0, uncounted = 0, epochsMoved = 0, idleCapped = 0;
  let unconfirmed = 0, unshown = 0, unstored = 0, adopted = 0, doubles = 0, failedRuns = 0;
  const noPrimary: number[] = [];
  for (const [name, a] of ATTACKERS) {
    let acceptedHere = 0;
    for (const seed of SEEDS) {
      const o = { ...a, seed };
      let r;
      try {
        r = await runAdversary(o);
      } catch (err) {
        failedRuns++;
        console.error(`adversary ${name} seed ${seed}: setup failed: ${String(err)}`);
        continue;
      }
      runs++;
      rows += r.rows.length;
      for (const x of r.rows) {
        const n = x.shown + x.stored + x.pending;
        if (n === 0) continue;
        if (x.member) inside += n;
        else outside += n;
        acceptedHere += n;
        console.error(`adversary ${name} seed ${seed}: ${x.name}${x.member ? ' (from inside the set)' : ''}: shown ${x.shown}, stored ${x.stored}, pending ${x.pending}`);
      }
      const un = uncountedRows(r, o), gone = undelivered(r, o);
      lost += gone.length;
      uncounted += un.length;
      for (const x of [...gone, ...un]) console.error(`adversary ${name} seed ${seed}: ${x.delivered ? 'uncounted' : 'undelivered'}: ${x.name}`);
      epochsMoved = Math.max(epochsMoved, r.maxEpoch - r.startEpoch);
      if (r.maxEpochAnywhere >= LEARN_EPOCH_CAP) {
        idleCapped++;
        console.error(`adversary ${name} seed ${seed}: an honest host at e${r.maxEpochAnywhere}, at or above LEARN_EPOCH_CAP`);
      }
      if (r.honestConfirmed + r.honestStored + r.honestShown < 3 * r.honestEdits) {
        console.error(`adversary ${name} seed ${seed}: honest edits ${r.honestEdits}, confirmed ${r.honestConfirmed}, stored by the primary ${r.honestStored}, shown by both subscribers ${r.honestShown}`);
      }
      unconfirmed += r.honestEdits - r.honestConfirmed;
      unstored += r.honestEdits - r.honestStored;
      unshown += r.honestEdits - r.honestShown;
      adopted += r.adopted;
      doubles += r.doublePrimaries;
      noPrimary.push(r.noPrimaryMs);
    }
    out[`sim_adversary_accepted_${name}`] = acceptedHere;
  }
  return {
    ...out,
    sim_adversary_runs: runs,
    sim_adversary_runs_failed: failedRuns,
    sim_adversary_rows: rows,
    sim_adversary_accepted_outside: outside,
    sim_adversary_accepted_inside: inside,
    sim_adversary_undelivered: lost,
    sim_adversary_uncounted: uncounted,
    sim_adversary_no_primary_ms_p50: percentile(noPrimary, 0.5),
    sim_adversary_no_primary_ms_max: noPrimary.length ? Math.max(...noPrimary) : -1,
    sim_adversary_epochs_moved_max: epochsMoved,
    sim_adversary_idle_at_cap_runs: idleCapped,
    sim_adversary_honest_unconfirmed: unconfirmed,
    sim_adversary_honest_unstored: unstored,
    sim_adversary_honest_unshown: unshown,
    sim_adversary_adopted: adopted,
    sim_adversary_double_primaries: doubles,
  };
}
