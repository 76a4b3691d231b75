// The lab's network: an "internet" namespace (coturn and the relay on one address, a dummy
// interface that swallows private destinations) and two homes, each a router namespace with
// a NAT in front of a host namespace. Runs only inside scripts/lab.sh's isolated namespaces
// (names live under its private /run). Addresses: documentation range 203.0.113.0/24 on the
// internet side, 10.0.N.0/24 in home N.
import { execFileSync } from 'node:child_process';

export const INTERNET = 'inet';
export const SERVER_IP = '203.0.113.1';
/** A second address on the internet, for a peer that runs there (the headless peer of lab-world.ts). */
export const PEER_IP = '203.0.113.2';
const VOID = 'void';

export interface Home {
  name: 'A' | 'B';
  /** Namespace of the player's machine. */
  host: string;
  /** Namespace of the home's router (its NAT). */
  router: string;
  /** The router's public address. */
  wanIp: string;
  lanIp: string;
}

/**
 * How a home's router treats traffic: 'cone' keeps the source port for every destination
 * (iptables MASQUERADE: endpoint-independent mapping, address-and-port-dependent filtering);
 * 'symmetric' picks a new port per destination (MASQUERADE --random-fully), so a STUN
 * server's answer says nothing about the port another peer sees; 'udp-blocked' is a cone
 * that drops every UDP packet from the home (a firewall letting only TCP out).
 */
export type NatKind = 'cone' | 'symmetric' | 'udp-blocked';

/**
 * A change of home A's network during play: 'flush' its router forgets every NAT mapping
 * (conntrack flushed, as a router restart or a mapping timeout does); 'address' its public
 * address moves (as a laptop's to another network, or a provider's renumbering): the old
 * one is gone, and with it every mapping.
 */
export type NetworkChange = 'flush' | 'address';

export interface NatSetting {
  kind: NatKind;
  /** Share of forwarded packets dropped each way (iptables statistic: this kernel has no netem). */
  loss?: number;
}

const run = (cmd: string, ...args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const inNs = (ns: string, cmd: string, ...args: string[]): string => run('ip', 'netns', 'exec', ns, cmd, ...args);

export const HOMES: readonly Home[] = [
  { name: 'A', host: 'homeA', router: 'natA', wanIp: '203.0.113.11', lanIp: '10.0.1.2' },
  { name: 'B', host: 'homeB', router: 'natB', wanIp: '203.0.113.12', lanIp: '10.0.2.2' },
];

function gateway(h: Home): string {
  return h.lanIp.replace(/\.2$/, '.1');
}

/** Builds the namespaces and links; a second call would fail (names taken), as it should. */
export function buildTopology(): void {
  run('ip', 'netns', 'add', INTERNET);
  inNs(INTERNET, 'ip', 'link', 'set', 'lo', 'up');
  inNs(INTERNET, 'ip', 'link', 'add', 'br0', 'type', 'bridge');
  inNs(INTERNET, 'ip', 'addr', 'add', `${SERVER_IP}/24`, 'dev', 'br0');
  inNs(INTERNET, 'ip', 'addr', 'add', `${PEER_IP}/24`, 'dev', 'br0');
  inNs(INTERNET, 'ip', 'link', 'set', 'br0', 'up');
  // A peer's private host candidates reach coturn too (Chromium checks every pair): coturn
  // drops a relay allocation at its first send error, so private destinations must vanish
  // silently, as on the real Internet, not fail with "network unreachable".
  // They go to a namespace that drops every packet before routing (raw PREROUTING): a
  // send succeeds and nothing answers, not even ICMP. (This kernel has no dummy interface.)
  run('ip', 'netns', 'add', VOID);
  run('ip', 'link', 'add', 'void', 'netns', INTERNET, 'type', 'veth', 'peer', 'name', 'in', 'netns', VOID);
  inNs(INTERNET, 'ip', 'addr', 'add', '192.0.2.1/30', 'dev', 'void');
  inNs(INTERNET, 'ip', 'link', 'set', 'void', 'up');
  inNs(VOID, 'ip', 'addr', 'add', '192.0.2.2/30', 'dev', 'in');
  inNs(VOID, 'ip', 'link', 'set', 'in', 'up');
  inNs(VOID, 'iptables', '-t', 'raw', '-A', 'PREROUTING', '-j', 'DROP');
  inNs(INTERNET, 'ip', 'route', 'add', '10.0.0.0/8', 'via', '192.0.2.2');
  for (const h of HOMES) {
    run('ip', 'netns', 'add', h.router);
    run('ip', 'netns', 'add', h.host);
    for (const ns of [h.router, h.host]) inNs(ns, 'ip', 'link', 'set', 'lo', 'up');
    // router wan <-> internet bridge
    run('ip', 'link', 'add', 'wan', 'netns', h.router, 'type', 'veth', 'peer', 'name', `up${h.name}`, 'netns', INTERNET);
    inNs(INTERNET, 'ip', 'link', 'set', `up${h.name}`, 'master', 'br0');
    inNs(INTERNET, 'ip', 'link', 'set', `up${h.name}`, 'up');
    inNs(h.router, 'ip', 'addr', 'add', `${h.wanIp}/24`, 'dev', 'wan');
    inNs(h.router, 'ip', 'link', 'set', 'wan', 'up');
    // router lan <-> the home's machine
    run('ip', 'link', 'add', 'lan', 'netns', h.router, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.host);
    inNs(h.router, 'ip', 'addr', 'add', `${gateway(h)}/24`, 'dev', 'lan');
    inNs(h.router, 'ip', 'link', 'set', 'lan', 'up');
    inNs(h.host, 'ip', 'addr', 'add', `${h.lanIp}/24`, 'dev', 'eth0');
    inNs(h.host, 'ip', 'link', 'set', 'eth0', 'up');
    // The home's default route is its router, as at home: Chromium gathers candidates on the
    // default route's interface (with no media permission in force, only there). The routers
    // and the internet have none, so a packet for anywhere else ends at the router.
    inNs(h.host, 'ip', 'route', 'add', 'default', 'via', gateway(h));
    inNs(h.router, 'sysctl', '-qw', 'net.ipv4.ip_forward=1');
  }
  checkNoWayOut();
}

/** No router and not the internet may route to an address outside the lab (a home's default route ends at its router). */
export function checkNoWayOut(): void {
  for (const ns of [INTERNET, VOID, ...HOMES.map((h) => h.router)]) {
    let routed = true;
    try {
      inNs(ns, 'ip', 'route', 'get', '198.51.100.1');
    } catch {
      routed = false;
    }
    if (routed) throw new Error(`lab: namespace ${ns} has a route out of the lab`);
  }
}

/** The public address a home moves to in the 'address' change. */
export function movedWanIp(h: Home): string {
  return h.wanIp.replace(/\.(\d+)$/, (_, n: string) => `.${Number(n) + 10}`);
}

function setWanIp(h: Home, ip: string): void {
  inNs(h.router, 'ip', 'addr', 'flush', 'dev', 'wan');
  inNs(h.router, 'ip', 'addr', 'add', `${ip}/24`, 'dev', 'wan');
}

function flushMappings(h: Home): void {
  try {
    inNs(h.router, 'conntrack', '-F');
  } catch {
    // An empty table: conntrack -F exits non-zero on some versions.
  }
}

/** Changes home `h`'s network now (the routers' rules stay). */
export function changeNetwork(h: Home, change: NetworkChange): void {
  if (change === 'address') setWanIp(h, movedWanIp(h));
  flushMappings(h);
}

/**
 * The path between home `h` and the internet address `ip` dies: its router drops UDP both
 * ways (a route gone bad; nothing else of the home changes, its relay socket and its TURN
 * allocation live on). configureNat undoes it.
 */
export function cutUdpPath(h: Home, ip: string): void {
  inNs(h.router, 'iptables', '-I', 'FORWARD', '-p', 'udp', '-d', ip, '-j', 'DROP');
  inNs(h.router, 'iptables', '-I', 'FORWARD', '-p', 'udp', '-s', ip, '-j', 'DROP');
}

/** The internet-side leg between coturn's relayed addresses and `ip` (an address of the internet namespace), both ways. */
const relayLeg = (ip: string) => [['-p', 'udp', '-s', SERVER_IP, '-d', ip, '-j', 'DROP'], ['-p', 'udp', '-s', ip, '-d', SERVER_IP, '-j', 'DROP']];

/**
 * A link relayed by coturn to the internet address `ip` loses its path too: coturn and `ip`
 * share the internet namespace, so a cut at a home's router never reaches that leg.
 * mendRelayLeg undoes it (a redial then allocates afresh and links through TURN again).
 */
export function cutRelayLeg(ip: string): void {
  for (const rule of relayLeg(ip)) inNs(INTERNET, 'iptables', '-I', 'OUTPUT', ...rule);
}

export function mendRelayLeg(ip: string): void {
  for (const rule of relayLeg(ip)) inNs(INTERNET, 'iptables', '-D', 'OUTPUT', ...rule);
}

/** Sets a home router's NAT and firewall afresh (its own public address back) and forgets its mappings (conntrack flushed). */
export function configureNat(h: Home, s: NatSetting): void {
  setWanIp(h, h.wanIp);
  const ipt = (...args: string[]) => inNs(h.router, 'iptables', ...args);
  ipt('-t', 'nat', '-F');
  ipt('-F');
  ipt('-P', 'FORWARD', 'DROP');
  // An unsolicited packet from outside is dropped, as a home router does, not answered
  // (port unreachable) by the router itself: answering it would confirm a conntrack entry
  // for it, and the home's own packet to that peer a moment later would then clash with
  // that entry and leave through a different port: hole punching between two cone NATs
  // failed every time so (13 checks sent each way, none answered).
  ipt('-A', 'INPUT', '-i', 'wan', '-m', 'conntrack', '--ctstate', 'NEW', '-j', 'DROP');
  if (s.loss) {
    const p = String(s.loss);
    ipt('-A', 'FORWARD', '-m', 'statistic', '--mode', 'random', '--probability', p, '-j', 'DROP');
  }
  if (s.kind === 'udp-blocked') ipt('-A', 'FORWARD', '-i', 'lan', '-p', 'udp', '-j', 'DROP');
  ipt('-A', 'FORWARD', '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT');
  ipt('-A', 'FORWARD', '-i', 'lan', '-o', 'wan', '-j', 'ACCEPT');
  ipt('-t', 'nat', '-A', 'POSTROUTING', '-o', 'wan', '-j', 'MASQUERADE', ...(s.kind === 'symmetric' ? ['--random-fully'] : []));
  flushMappings(h);
}

/** A shell script that runs Chromium in `ns` (playwright's pipes are inherited file descriptors). */
export function nsWrapper(ns: string, binary: string): string {
  return `#!/bin/sh\nexec ip netns exec ${ns} ${binary} "$@"\n`;
}

/** The router's TCP mappings to `ip` (conntrack), one a line; '' when it has none. */
export function tcpMappings(h: Home, ip: string): string {
  try {
    return inNs(h.router, 'conntrack', '-L', '-p', 'tcp', '-d', ip).trim();
  } catch (e) {
    return String((e as { stdout?: string }).stdout ?? '').trim();
  }
}

/** The router's rule counters and NAT mappings (lab.ts --verbose). */
export function routerState(h: Home): string {
  let ct: string;
  try {
    ct = inNs(h.router, 'conntrack', '-L', '-p', 'udp');
  } catch (e) {
    ct = String((e as { stdout?: string }).stdout ?? e);
  }
  return `${inNs(h.router, 'iptables', '-L', '-v', '-n')}${inNs(h.router, 'iptables', '-t', 'nat', '-L', '-v', '-n')}${ct}`;
}
