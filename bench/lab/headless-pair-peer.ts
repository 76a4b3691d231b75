// One end of headless-pair.ts: a bare node-datachannel RTCPeerConnection (libdatachannel's
// ICE agent, libjuice: what the headless peer dials with) on the lab's internet, bound to
// PEER_IP, with the ICE servers given. Signals are JSON lines on stdin/stdout; libjuice's
// warnings go to stderr, where headless-pair.ts counts its refusals of a Binding request.
//   node --import tsx bench/lab/headless-pair-peer.ts SERVERS_JSON BIND_ADDRESS offer|answer
import { createInterface } from 'node:readline';
import nodeDataChannel from 'node-datachannel';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { nodeDatachannelIceServers } from '../../src/bootstrap/headless-ice';

export type PairSignal =
  | { t: 'offer' | 'answer'; d: RTCSessionDescriptionInit }
  | { t: 'cand'; c: RTCIceCandidateInit }
  | { t: 'open' };

const [servers, bind, role] = process.argv.slice(2);
nodeDataChannel.initLogger('Warning', (level, message) => console.error(`ndc ${level} ${message}`));
const out = (s: PairSignal) => process.stdout.write(`${JSON.stringify(s)}\n`);
const pc = new RTCPeerConnection({ iceServers: nodeDatachannelIceServers(JSON.parse(servers!) as RTCIceServer[]), bindAddress: bind } as RTCConfiguration);
const opened = (ch: RTCDataChannel) => { ch.onopen = () => out({ t: 'open' }); };
pc.onicecandidate = (e) => { if (e.candidate) out({ t: 'cand', c: { candidate: e.candidate.candidate, sdpMid: e.candidate.sdpMid } }); };
pc.ondatachannel = (e) => opened(e.channel);
// As the transport sends them (webrtc-transport.ts): candidates trickled, none in the SDP.
const bare = (d: RTCSessionDescriptionInit): RTCSessionDescriptionInit =>
  ({ type: d.type, sdp: d.sdp!.split('\r\n').filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates').join('\r\n') });

createInterface({ input: process.stdin }).on('line', (line) => {
  const s = JSON.parse(line) as PairSignal;
  void (async () => {
    if (s.t === 'offer') {
      await pc.setRemoteDescription(s.d);
      await pc.setLocalDescription(await pc.createAnswer());
      out({ t: 'answer', d: bare(pc.localDescription!) });
    } else if (s.t === 'answer') await pc.setRemoteDescription(s.d);
    else if (s.t === 'cand') await pc.addIceCandidate(s.c);
  })().catch((e: Error) => console.error(`peer: ${e.message}`));
});

if (role === 'offer') {
  opened(pc.createDataChannel('probe'));
  await pc.setLocalDescription(await pc.createOffer());
  out({ t: 'offer', d: bare(pc.localDescription!) });
}
