// `scripts/lab.sh --headless-pair`: why a Chromium player whose home drops UDP never links
// the headless peer (lab-world.ts's UDP-blocked step), with nothing of the app in between.
// A bare RTCPeerConnection in Chromium in home B and a bare node-datachannel one on the
// internet (headless-pair-peer.ts: the headless peer's ICE agent, libjuice) exchange offer,
// answer and trickled candidates directly, each way round, with coturn's TURN:
// - 'udp-blocked': B's router drops UDP, Chromium has TURN over TCP (and UDP, which fails);
// - 'relay-tcp': B a cone NAT, Chromium relay-only with TURN over TCP alone;
// - 'relay-udp': the same with TURN over UDP alone (the control: links).
// For each it prints whether the data channel opened, Chromium's candidate pairs, and how
// many Binding requests libjuice refused as "Controlling and controlled attributes mismatch":
// Chromium's TURN-over-TCP port sends its checks with a tiebreaker of 0, which libjuice reads
// as no role attribute at all and answers 400, and Chromium drops a pair on a 400
// (github.com/paullouisageneau/libjuice/issues/355; bench/lab/README.md).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Browser } from 'playwright-core';
import { mintTurnCredential } from '../../signaling/turn-credentials';
import type { PairSignal } from './headless-pair-peer';
import { LabProcesses } from './lab-processes';
import { buildTopology, configureNat, HOMES, INTERNET, PEER_IP, SERVER_IP, type NatKind } from './topology';

interface PairCase { name: string; nat: NatKind; turn: ('udp' | 'tcp')[]; relayOnly: boolean }
const CASES: PairCase[] = [
  { name: 'udp-blocked', nat: 'udp-blocked', turn: ['udp', 'tcp'], relayOnly: false },
  { name: 'relay-tcp', nat: 'cone', turn: ['tcp'], relayOnly: true },
  { name: 'relay-udp', nat: 'cone', turn: ['udp'], relayOnly: true },
];
const WAIT_MS = 8000;
/**
 * The Node end: headless-pair-peer.ts, or (env LAB_PAIR_PEER) any script taking the same
 * arguments and speaking the same JSON lines, to try another Node WebRTC against Chromium.
 */
const PEER_SCRIPT = process.env.LAB_PAIR_PEER ?? 'bench/lab/headless-pair-peer.ts';
const MISMATCH = /Controlling and controlled attributes mismatch/;

const lab = new LabProcesses();

interface PairOutcome { linked: boolean; ms: number; refused: number; pairs: string[] }

async function runPair(browser: Browser, c: PairCase, peerOffers: boolean, servers: RTCIceServer[], peerServers: RTCIceServer[]): Promise<PairOutcome> {
  configureNat(HOMES[1]!, { kind: c.nat });
  const peer = spawn('ip', ['netns', 'exec', INTERNET, process.execPath, '--import', 'tsx', PEER_SCRIPT,
    JSON.stringify(peerServers), PEER_IP, peerOffers ? 'offer' : 'answer'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let refused = 0;
  createInterface({ input: peer.stderr }).on('line', (l) => { if (MISMATCH.test(l)) refused++; else if (!/^ndc (Warning|Info)/.test(l)) console.error(`  peer: ${l}`); });
  const context = await browser.newContext();
  const page = await context.newPage();
  const t0 = Date.now();
  try {
    await page.exposeFunction('toPeer', (s: PairSignal) => peer.stdin.write(`${JSON.stringify(s)}\n`));
    // Signals from the peer are applied in order (an answer before the candidates after it).
    // No named functions in here: tsx would wrap them in a `__name` helper the page lacks.
    await page.evaluate(([servers, relayOnly, offers]) => {
      const w = window as unknown as { pc: RTCPeerConnection; opened: boolean; fromPeer: (s: PairSignal) => void; toPeer: (s: PairSignal) => void; send: (d: RTCSessionDescriptionInit) => void };
      const pc = (w.pc = new RTCPeerConnection({ iceServers: servers, ...(relayOnly ? { iceTransportPolicy: 'relay' as const } : {}) }));
      // As the transport sends them (webrtc-transport.ts): candidates trickled, none in the SDP.
      w.send = (d) => w.toPeer({ t: d.type as 'offer' | 'answer', d: { type: d.type, sdp: d.sdp!.split('\r\n').filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates').join('\r\n') } });
      pc.onicecandidate = (e) => { if (e.candidate) w.toPeer({ t: 'cand', c: { candidate: e.candidate.candidate, sdpMid: e.candidate.sdpMid } }); };
      pc.ondatachannel = (e) => { e.channel.onopen = () => { w.opened = true; }; };
      let chain = Promise.resolve();
      w.fromPeer = (s) => {
        chain = chain.then(async () => {
          if (s.t === 'offer') {
            await pc.setRemoteDescription(s.d);
            await pc.setLocalDescription(await pc.createAnswer());
            w.send(pc.localDescription!);
          } else if (s.t === 'answer') await pc.setRemoteDescription(s.d);
          else if (s.t === 'cand') await pc.addIceCandidate(s.c);
        }).catch(() => {});
      };
      if (offers) return;
      pc.createDataChannel('probe').onopen = () => { w.opened = true; };
      chain = pc.createOffer().then((o) => pc.setLocalDescription(o)).then(() => w.send(pc.localDescription!));
    }, [servers, c.relayOnly, peerOffers] as const);
    createInterface({ input: peer.stdout }).on('line', (l) => {
      void page.evaluate((s) => (window as unknown as { fromPeer: (s: PairSignal) => void }).fromPeer(s), JSON.parse(l) as PairSignal).catch(() => {});
    });
    const linked = await page.waitForFunction(() => (window as unknown as { opened?: boolean }).opened === true, null, { timeout: WAIT_MS, polling: 50 }).then(() => true, () => false);
    const ms = Date.now() - t0;
    const pairs = await page.evaluate(async () => {
      const stats = await (window as unknown as { pc: RTCPeerConnection }).pc.getStats();
      const cand = new Map<string, string>();
      const lines: string[] = [];
      stats.forEach((s: Record<string, unknown>) => {
        if (s.type === 'local-candidate' || s.type === 'remote-candidate') cand.set(s.id as string, `${s.candidateType as string} ${s.address as string}:${s.port as number}${s.relayProtocol ? ` via ${s.relayProtocol as string}` : ''}`);
      });
      stats.forEach((s: Record<string, unknown>) => {
        if (s.type === 'candidate-pair') lines.push(`${cand.get(s.localCandidateId as string)} > ${cand.get(s.remoteCandidateId as string)}: ${s.state as string}, checks sent ${s.requestsSent as number}, answered ${s.responsesReceived as number}`);
      });
      return lines;
    });
    return { linked, ms, refused, pairs };
  } finally {
    peer.kill('SIGKILL');
    await context.close();
  }
}

async function main(): Promise<void> {
  buildTopology();
  configureNat(HOMES[0]!, { kind: 'cone' });
  await lab.startCoturn();
  const secret = readFileSync(lab.secretFile, 'utf8').trim();
  const cred = mintTurnCredential(secret, 'pair', 3600, Date.now());
  const url = (t: 'udp' | 'tcp') => `turn:${SERVER_IP}:3478?transport=${t}`;
  const stun = { urls: `stun:${SERVER_IP}:3478` };
  // The headless peer's ICE servers as the link world's relay grants them (libjuice uses TURN over UDP only).
  const peerServers: RTCIceServer[] = [stun, { urls: [url('udp'), url('tcp')], ...cred }];
  const browser = await lab.launchIn(HOMES[1]!.host);
  try {
    for (const c of CASES) {
      for (const peerOffers of [false, true]) {
        const o = await runPair(browser, c, peerOffers, [stun, { urls: c.turn.map(url), ...cred }], peerServers);
        console.log(`headless-pair ${c.name} (${peerOffers ? 'the peer offers' : 'Chromium offers'}): ${o.linked ? `linked in ${o.ms} ms` : `NOT linked in ${WAIT_MS} ms`}; libjuice refused ${o.refused} Binding requests as role-less (400)`);
        for (const p of o.pairs) console.log(`    ${p}`);
      }
    }
  } finally {
    await browser.close().catch(() => {});
  }
}

let code = 1;
try {
  await main();
  code = 0;
} catch (e) {
  console.error('headless-pair failed:', e);
} finally {
  await lab.stopAll();
}
process.exit(code);
