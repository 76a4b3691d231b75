// Whether this browser can gather any ICE candidate at all, asked once at start-up while the
// node id is still being minted (~1 s of work, app/node-id-minter.ts). A browser with WebRTC
// blocked (no media permission in a network with no other address, a strict policy, an
// extension) gathers no candidate (Chromium then stays 'gathering' for good, so only time
// tells). Knowing that before the first dial lets the start screen say "WebRTC blocked" at
// once instead of after every dial's own gather timeout. A probe silent for a dial's gather
// wait is taken as 'none' by the transport for now (webrtc-transport.ts); the probe itself
// listens longer, since a loaded machine gathered its first candidate seconds late, and its
// late 'gathered' clears the browser (the start screen then says what is really wrong).

/**
 * 'none': gathering completed with no candidate (blocked for sure); 'silent': no candidate
 * within the timeout, gathering unfinished (a blocked Chromium, or a very slow machine);
 * 'unknown': no WebRTC here, or it threw.
 */
export type IceProbeResult = 'gathered' | 'none' | 'silent' | 'unknown';

/** The part of RTCPeerConnection the probe uses (tests pass their own). */
export interface ProbePeerConnection {
  createDataChannel(label: string): unknown;
  createOffer(): Promise<{ type?: string; sdp?: string }>;
  setLocalDescription(d: { type?: string; sdp?: string }): Promise<void>;
  onicecandidate: ((e: { candidate: unknown }) => void) | null;
  onicegatheringstatechange: (() => void) | null;
  readonly iceGatheringState: string;
  close(): void;
}

export type ProbePeerFactory = (config: { iceServers: unknown[] }) => ProbePeerConnection;

function browserFactory(): ProbePeerFactory | undefined {
  const Pc = (globalThis as { RTCPeerConnection?: new (c: unknown) => ProbePeerConnection }).RTCPeerConnection;
  return Pc ? (c) => new Pc(c) : undefined;
}

/**
 * Gathers candidates for one offer with `iceServers` and reports whether any came within
 * `timeoutMs` (the app passes a dial's timeout, WEBRTC_DEFAULTS.dialTimeoutMs: the transport
 * does not wait that long for a first answer, WebRtcTransportOptions.iceProbe).
 * A 'none' is a measurement of one moment (a loaded machine can be late): the transport
 * believes it for a short while only.
 */
export function probeIceGathering(iceServers: unknown[], timeoutMs: number, create: ProbePeerFactory | undefined = browserFactory()): Promise<IceProbeResult> {
  if (!create) return Promise.resolve('unknown');
  return new Promise((resolve) => {
    let pc: ProbePeerConnection | undefined;
    let done = false;
    const finish = (r: IceProbeResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        pc?.close();
      } catch {
        /* closing already */
      }
      resolve(r);
    };
    const timer = setTimeout(() => finish('silent'), timeoutMs);
    try {
      pc = create({ iceServers });
      pc.onicecandidate = (e) => {
        if (e.candidate) finish('gathered');
      };
      pc.onicegatheringstatechange = () => {
        if (pc?.iceGatheringState === 'complete') finish('none');
      };
      pc.createDataChannel('probe');
      void pc.createOffer().then((o) => pc!.setLocalDescription(o)).catch(() => finish('unknown'));
    } catch {
      finish('unknown');
    }
  });
}
