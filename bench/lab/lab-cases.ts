// The lab's cases and how an outcome is judged (pure: no namespaces, no browsers).
import type { NatSetting, NetworkChange } from './topology';

/**
 * What the relay hands the tabs: nothing; a STUN server; STUN + TURN over UDP with
 * credentials minted from coturn's secret; the same minted by a relay whose clock is two
 * days behind (expired to coturn: 401); STUN + TURN over UDP and TCP.
 */
export type IceOffer = 'none' | 'stun' | 'turn' | 'turn-expired' | 'turn-tcp';

/** How a link is carried: both ends' own or mapped addresses ('srflx' covers prflx) or a TURN relay. */
export type LinkKind = 'host' | 'srflx' | 'relay';

export interface LabCase {
  name: string;
  a: NatSetting;
  b: NatSetting;
  ice: IceOffer;
  /** 'none': the tabs must not link. */
  expect: LinkKind | 'none';
  /** A relayed link must reach coturn over this protocol from some end. */
  relayProtocol?: 'udp' | 'tcp';
  /** Page query of both tabs (e.g. `ice=relay`: TURN relays only). */
  query?: string;
  /** Once linked, home A's network changes while A edits (network-change.ts): its links must come back and no edit be lost. */
  change?: NetworkChange;
}

export const LAB_CASES: readonly LabCase[] = [
  { name: 'no-ice', a: { kind: 'cone' }, b: { kind: 'cone' }, ice: 'none', expect: 'none' },
  { name: 'stun-cone', a: { kind: 'cone' }, b: { kind: 'cone' }, ice: 'stun', expect: 'srflx' },
  { name: 'stun-cone-loss5', a: { kind: 'cone', loss: 0.05 }, b: { kind: 'cone' }, ice: 'stun', expect: 'srflx' },
  { name: 'stun-symmetric', a: { kind: 'cone' }, b: { kind: 'symmetric' }, ice: 'stun', expect: 'none' },
  { name: 'turn-symmetric', a: { kind: 'cone' }, b: { kind: 'symmetric' }, ice: 'turn', expect: 'relay', relayProtocol: 'udp' },
  { name: 'turn-relay-only', a: { kind: 'cone' }, b: { kind: 'cone' }, ice: 'turn', expect: 'relay', relayProtocol: 'udp', query: 'ice=relay' },
  { name: 'turn-expired', a: { kind: 'cone' }, b: { kind: 'symmetric' }, ice: 'turn-expired', expect: 'none' },
  { name: 'turn-tcp', a: { kind: 'cone' }, b: { kind: 'udp-blocked' }, ice: 'turn-tcp', expect: 'relay', relayProtocol: 'tcp' },
  // STUN alone where the homes link directly (with TURN on offer a cone pair sometimes ends on a relay pair).
  { name: 'change-flush-cone', a: { kind: 'cone' }, b: { kind: 'cone' }, ice: 'stun', expect: 'srflx', change: 'flush' },
  { name: 'change-flush-symmetric', a: { kind: 'symmetric' }, b: { kind: 'cone' }, ice: 'turn', expect: 'relay', relayProtocol: 'udp', change: 'flush' },
  { name: 'change-address', a: { kind: 'cone' }, b: { kind: 'cone' }, ice: 'stun', expect: 'srflx', change: 'address' },
];

/** The relay's --turn-url flags for an offer (coturn and the server at `ip`, port 3478). */
export function turnUrls(offer: IceOffer, ip: string): string[] {
  const stun = `stun:${ip}:3478`;
  const udp = `turn:${ip}:3478?transport=udp`;
  switch (offer) {
    case 'none': return [];
    case 'stun': return [stun];
    case 'turn': case 'turn-expired': return [stun, udp];
    case 'turn-tcp': return [stun, udp, `turn:${ip}:3478?transport=tcp`];
  }
}

/** One end of the selected candidate pair, as getStats reports it. */
export interface PairEnd {
  candidateType: string;
  /** The relay candidate's protocol to the TURN server (local end only). */
  relayProtocol?: string | undefined;
}

export function linkKind(local: PairEnd, remote: PairEnd): LinkKind {
  const types = [local.candidateType, remote.candidateType];
  if (types.includes('relay')) return 'relay';
  if (types.includes('srflx') || types.includes('prflx')) return 'srflx';
  return 'host';
}

export interface CaseOutcome {
  linked: boolean;
  /** The pair as each tab that has one sees it. */
  pairs: { local: PairEnd; remote: PairEnd }[];
  /** A message crossed the link (B -> A through the overlay). */
  delivered: boolean;
}

/** Whether an outcome is what the case expects; the reason when not. */
export function judge(c: LabCase, o: CaseOutcome): { pass: boolean; why: string } {
  if (c.expect === 'none') return o.linked ? { pass: false, why: 'linked, expected no link' } : { pass: true, why: 'no link' };
  if (!o.linked) return { pass: false, why: 'no link' };
  if (!o.delivered) return { pass: false, why: 'linked but a message did not cross' };
  const kinds = o.pairs.map((p) => linkKind(p.local, p.remote));
  if (kinds.length === 0) return { pass: false, why: 'no selected pair in getStats' };
  if (kinds.some((k) => k !== c.expect)) return { pass: false, why: `carried as ${kinds.join('/')}` };
  if (c.relayProtocol && !o.pairs.some((p) => p.local.relayProtocol === c.relayProtocol)) {
    return { pass: false, why: `no end reached TURN over ${c.relayProtocol}` };
  }
  return { pass: true, why: c.expect };
}

/** What a network-change case saw after the change (network-change.ts's outcome, the part judged). */
export interface ChangeOutcome {
  recoveryMs: number | null;
  refused: number;
  tentativeLeft: number;
  unseenAtB: number;
}

/** A network change passes when an edit made after it was confirmed, and every edit ended confirmed and seen by B. */
export function judgeChange(o: ChangeOutcome): { pass: boolean; why: string } {
  if (o.recoveryMs === null) return { pass: false, why: 'no edit confirmed after the change' };
  const lost = [o.refused && `${o.refused} refused`, o.tentativeLeft && `${o.tentativeLeft} left tentative`, o.unseenAtB && `${o.unseenAtB} unseen at B`].filter(Boolean);
  if (lost.length) return { pass: false, why: lost.join(', ') };
  return { pass: true, why: `back in ${Math.round(o.recoveryMs)} ms` };
}
