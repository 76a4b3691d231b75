// A hosted region with only what checking a certificate from the wire needs (hosted-region.ts
// `acceptable`): its node's id, clock, options, counters and certificate checker. Any other
// part of the node it reaches throws, naming it: a test of what a host believes and on whose
// budget, with no DHT, wires or store under it. Test files only.
import type { Clock } from '../core/clock';
import { idToHex, type NodeId } from '../core/node-id';
import { HOST_DEFAULTS, newHostStats } from '../host/host-options';
import { HostedRegion } from '../host/hosted-region';
import type { RegionContext } from '../host/region-context';
import type { CertChecker } from '../region/cert-checker';

/** Context fields a caller may leave out without a throw (optional hooks). */
const HOOKS = new Set<PropertyKey>(['trace', 'onAccept', 'onConfirm']);

export function certCheckingRegion(selfId: NodeId, key: NodeId, certs: CertChecker, clock: Clock): HostedRegion {
  const given: Partial<RegionContext> = {
    selfId, selfHex: idToHex(selfId), opts: HOST_DEFAULTS, clock, store: null, stats: newHostStats(), certs,
    tableNear: () => [],
  };
  const ctx = new Proxy(given, {
    get(t, p) {
      if (p in t || HOOKS.has(p)) return t[p as keyof RegionContext];
      throw new Error(`certCheckingRegion: the region reached ctx.${String(p)}, which it is not given`);
    },
  }) as RegionContext;
  return new HostedRegion(ctx, { rx: 0, rz: 0 }, key);
}
