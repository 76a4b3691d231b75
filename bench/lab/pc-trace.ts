// Every RTCPeerConnection a lab page makes, recorded from its start (an init script): its
// candidates gathered and received, its signaling and ICE states with their times, and,
// when asked, each one's states and candidate pairs from getStats (what chrome://webrtc-internals
// shows). lab.ts --verbose prints them for both homes; lab-world.ts for the UDP-blocked home's
// player, whose first dials over TURN/TCP are the ones to explain.
import type { Page } from 'playwright-core';

export interface LabWindow {
  labPcs?: { pc: RTCPeerConnection; connectedMs: number | null; connectedAt: number | null; gathered: string[] }[];
}

/** Keeps every RTCPeerConnection the page makes, with the ms from its creation to 'connected' and when (epoch ms). */
export function recordPeerConnections(): void {
  const w = window as unknown as LabWindow & { RTCPeerConnection: typeof RTCPeerConnection };
  const Base = w.RTCPeerConnection;
  const recs: NonNullable<LabWindow['labPcs']> = (w.labPcs = []);
  w.RTCPeerConnection = class extends Base {
    constructor(config?: RTCConfiguration) {
      super(config);
      const rec = { pc: this as RTCPeerConnection, connectedMs: null as number | null, connectedAt: null as number | null, gathered: [] as string[] };
      const t0 = performance.now();
      recs.push(rec);
      rec.gathered.push(`created at +${Math.round(t0)}ms of the page, servers ${JSON.stringify(config?.iceServers?.map((s) => s.urls) ?? [])}`);
      this.addEventListener('icegatheringstatechange', () => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms gathering:${this.iceGatheringState}`); });
      this.addEventListener('connectionstatechange', () => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms conn:${this.connectionState}`); });
      this.addEventListener('iceconnectionstatechange', () => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms ice:${this.iceConnectionState} at ${new Date().toISOString().slice(17, 23)}`); });
      const add = this.addIceCandidate.bind(this);
      this.addIceCandidate = (cand?: RTCIceCandidateInit | null) => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms remote ${cand?.candidate?.split(' ').slice(4, 8).join(' ') ?? 'end'}`); return add(cand ?? undefined); };
      const setRemote = this.setRemoteDescription.bind(this);
      this.setRemoteDescription = (d: RTCSessionDescriptionInit) => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms setRemote ${d.type}`); return setRemote(d).catch((e: Error) => { rec.gathered.push(`setRemote failed ${e.message}`); throw e; }); };
      const setLocal = this.setLocalDescription.bind(this);
      this.setLocalDescription = (d?: RTCLocalSessionDescriptionInit) => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms setLocal ${d?.type}`); return setLocal(d); };
      const channel = this.createDataChannel.bind(this);
      this.createDataChannel = (label: string, init?: RTCDataChannelInit) => {
        const ch = channel(label, init);
        ((this as unknown as { labChannels?: RTCDataChannel[] }).labChannels ??= []).push(ch);
        ch.addEventListener('open', () => rec.gathered.push(`${Math.round(performance.now() - t0)}ms channel open`));
        return ch;
      };
      this.addEventListener('datachannel', (e) => ((this as unknown as { labChannels?: RTCDataChannel[] }).labChannels ??= []).push(e.channel));
      this.addEventListener('datachannel', (e) => e.channel.addEventListener('open', () => rec.gathered.push(`${Math.round(performance.now() - t0)}ms channel open`)));
      const close = this.close.bind(this);
      this.close = () => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms close() ${new Error().stack?.split('\n').slice(2, 5).join(' < ')}`); close(); };
      this.addEventListener('icecandidate', (e) => { rec.gathered.push(`${Math.round(performance.now() - t0)}ms ${e.candidate?.candidate.split(' ').slice(4, 8).join(' ') ?? 'end'}`); });
      this.addEventListener('connectionstatechange', () => {
        if (this.connectionState === 'connected' && rec.connectedMs === null) { rec.connectedMs = performance.now() - t0; rec.connectedAt = Date.now(); }
      });
    }
  };
}

/** --verbose: each peer connection's states and candidate pairs, the transport's counters, the start problem. */
export function describePage(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const lines: string[] = [`start problem: ${window.voxel?.startProblem?.() ?? '-'}`, `net: ${JSON.stringify(window.voxel?.net?.stats() ?? null)}`];
    for (const r of (window as unknown as LabWindow).labPcs ?? []) {
      lines.push(`pc ${r.pc.connectionState} ice ${r.pc.iceConnectionState} gathering ${r.pc.iceGatheringState} servers ${JSON.stringify(r.pc.getConfiguration().iceServers?.map((s) => s.urls))} gathered ${r.gathered.join(', ')}`);
      const stats = await r.pc.getStats().catch(() => new Map<string, Record<string, unknown>>());
      stats.forEach((s: Record<string, unknown>) => {
        if (s.type === 'local-candidate' || s.type === 'remote-candidate') lines.push(`  ${s.id as string} ${s.type as string} ${s.candidateType as string} ${s.address as string}:${s.port as number} ${s.protocol as string}${s.relayProtocol ? ` via ${s.relayProtocol as string}` : ''}`);
        if (s.type === 'candidate-pair') lines.push(`  pair ${s.localCandidateId as string}>${s.remoteCandidateId as string} ${s.state as string} nominated=${String(s.nominated)} sent=${s.requestsSent as number} recv=${s.responsesReceived as number} reqRecv=${s.requestsReceived as number}`);
      });
    }
    return lines.join('\n    ');
  });
}

