// A peer dials with its own ICE servers merged with its doorway's grant (renewals too), and
// nothing of a grant's credentials goes into its invite. Fake doorways: no network.
import { afterEach, describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { generateNodeIdentity } from '../core/identity';
import type { BootstrapEvents, Bootstrap } from '../net/bootstrap';
import type { IceGrant } from '../net/relay-protocol';
import { parsePageConfig } from './config';
import type { DoorwayConnector } from '../bootstrap/doorways';
import { inviteLinkFor } from './net-session';
import { Peer } from '../bootstrap/peer';
import { UNNAMED_NETWORK } from '../net/network-id';

const relay = { kind: 'relay', url: 'ws://127.0.0.1:1/relay' } as const;
const peers: Peer[] = [];
afterEach(() => { for (const p of peers.splice(0)) p.stop(); });

const SECRET_USER = '1700003600:0123456789abcdef0123456789abcdef01234567';
const SECRET_CRED = 'plYeR+VmrimdrYh8Etx86+DalhQ=';
const stun = { urls: 'stun:stun.deploy.example:3478' };
const staleTurn = { urls: ['turn:turn.deploy.example:3478?transport=udp'], username: 'old', credential: 'old' };
const grantedTurn = { urls: ['turn:turn.deploy.example:3478?transport=udp'], username: SECRET_USER, credential: SECRET_CRED };

/** A doorway that lists nobody and grants `ice`; `events` lets the test send renewals. */
function grantingDoorway(ice: IceGrant | undefined) {
  const events = new Emitter<BootstrapEvents>();
  const connect: DoorwayConnector = async (_spec, selfId) => {
    const b: Bootstrap = { selfId, events, ice, sendSignal: () => {}, randomPeers: async () => [], close: () => {} };
    return b;
  };
  return { connect, events };
}

async function start(connect: DoorwayConnector, iceServers: RTCIceServer[], iceServersForRtc?: (s: RTCIceServer[]) => RTCIceServer[]) {
  const peer = await Peer.start({ identity: await generateNodeIdentity({ bits: 0 }), network: UNNAMED_NETWORK, records: {}, doorways: [relay], iceServers, connect, ...(iceServersForRtc ? { iceServersForRtc } : {}), options: { joinDeadlineMs: 300 } });
  peers.push(peer);
  return peer;
}

describe('ICE servers of a peer', () => {
  it('its own first, then the doorway\'s grant, which replaces an own entry of the same URL', async () => {
    const { connect } = grantingDoorway({ iceServers: [grantedTurn], ttl: 3600 });
    const peer = await start(connect, [stun, staleTurn]);
    expect(peer.transport.iceServers).toEqual([stun, grantedTurn]);
  });

  it('no grant: its own only; a renewal replaces the grant for the next connections', async () => {
    const { connect, events } = grantingDoorway(undefined);
    const peer = await start(connect, [stun]);
    expect(peer.transport.iceServers).toEqual([stun]);
    events.emit('ice', { iceServers: [grantedTurn], ttl: 3600 });
    expect(peer.transport.iceServers).toEqual([stun, grantedTurn]);
    const renewed = { ...grantedTurn, username: '1700090000:x', credential: 'bmV3' };
    events.emit('ice', { iceServers: [renewed], ttl: 3600 });
    expect(peer.transport.iceServers).toEqual([stun, renewed]);
  });

  it('written for the runtime\'s RTCPeerConnection (the headless peer encodes them)', async () => {
    const { connect } = grantingDoorway({ iceServers: [grantedTurn] });
    const peer = await start(connect, [], (s) => s.map((x) => ({ ...x, username: `enc(${x.username})` })));
    expect(peer.transport.iceServers).toEqual([{ ...grantedTurn, username: `enc(${SECRET_USER})` }]);
  });

  it('an invite of a peer holding TURN credentials carries none of them', async () => {
    const { connect } = grantingDoorway({ iceServers: [grantedTurn], ttl: 3600 });
    const deploy = { iceServers: [{ urls: ['turn:turn.deploy.example:3478'], username: 'build-user', credential: 'build-pass' }], icePolicy: 'relay' as const };
    const cfg = parsePageConfig('http://127.0.0.1:8080/?ice=relay#world=alps', deploy);
    const peer = await start(connect, cfg.iceServers);
    expect(JSON.stringify(peer.transport.iceServers)).toContain(SECRET_CRED);
    const link = await inviteLinkFor(peer, cfg, 'http://127.0.0.1:8080/?ice=relay');
    const text = decodeURIComponent(link);
    for (const secret of [SECRET_USER, SECRET_CRED, 'build-user', 'build-pass', 'turn:', 'stun:']) expect(text).not.toContain(secret);
  });
});
