import { describe, expect, it } from 'vitest';
import { probeIceGathering, type ProbePeerConnection } from './ice-probe';

/** A peer connection that gathers what `script` says: candidates after ms, then maybe completes. */
function fakePc(script: { candidateAt?: number; completeAt?: number; throws?: boolean }, closed: { n: number }) {
  return (): ProbePeerConnection => {
    if (script.throws) throw new Error('RTCPeerConnection blocked by policy');
    const pc: ProbePeerConnection = {
      onicecandidate: null,
      onicegatheringstatechange: null,
      iceGatheringState: 'new',
      createDataChannel: () => ({}),
      createOffer: async () => ({ type: 'offer', sdp: 'v=0' }),
      setLocalDescription: async () => {
        if (script.candidateAt !== undefined) setTimeout(() => pc.onicecandidate?.({ candidate: { candidate: 'candidate:1 1 udp 1 127.0.0.1 5000 typ host' } }), script.candidateAt);
        if (script.completeAt !== undefined) {
          setTimeout(() => {
            (pc as { iceGatheringState: string }).iceGatheringState = 'complete';
            pc.onicecandidate?.({ candidate: null });
            pc.onicegatheringstatechange?.();
          }, script.completeAt);
        }
      },
      close: () => void closed.n++,
    };
    return pc;
  };
}

describe('probeIceGathering', () => {
  it('says gathered at the first candidate, none when gathering ends without one, silent when it times out unfinished, unknown without WebRTC; closes what it opened', async () => {
    const closed = { n: 0 };
    expect(await probeIceGathering([], 500, fakePc({ candidateAt: 5, completeAt: 20 }, closed))).toBe('gathered');
    expect(await probeIceGathering([], 500, fakePc({ completeAt: 5 }, closed))).toBe('none');
    const t0 = Date.now();
    expect(await probeIceGathering([], 100, fakePc({}, closed))).toBe('silent'); // Chromium blocked: stays 'gathering'
    expect(Date.now() - t0).toBeGreaterThanOrEqual(95);
    expect(await probeIceGathering([], 100, fakePc({ candidateAt: 300 }, closed))).toBe('silent'); // too late for this probe
    expect(closed.n).toBe(4);
    expect(await probeIceGathering([], 100, fakePc({ throws: true }, closed))).toBe('unknown');
    expect(await probeIceGathering([], 100, undefined)).toBe('unknown');
  });
});
