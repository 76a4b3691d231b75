// Minimal types for @thaunknown/simple-peer (the package ships none): only what
// webrtc-link.ts and webrtc-transport.ts use. lite.js = data channels only, no media.
declare module '@thaunknown/simple-peer/lite.js' {
  export interface SimplePeerSignal {
    type?: string;
    sdp?: string;
    candidate?: unknown;
    renegotiate?: boolean;
    transceiverRequest?: unknown;
  }
  export interface SimplePeerOptions {
    initiator?: boolean;
    config?: Record<string, unknown>;
    channelConfig?: Record<string, unknown>;
    trickle?: boolean;
    iceCompleteTimeout?: number;
    objectMode?: boolean;
  }
  export default class SimplePeer {
    constructor(opts?: SimplePeerOptions);
    readonly destroyed: boolean;
    readonly connected: boolean;
    readonly bufferSize: number;
    /** The RTCPeerConnection underneath (simple-peer's own field): read for its `icecandidateerror` only (turn-refusal.ts). */
    readonly _pc?: unknown;
    signal(data: SimplePeerSignal): void;
    send(chunk: Uint8Array): void;
    write(chunk: Uint8Array): boolean;
    destroy(err?: Error): void;
    /** The RTCPeerConnection's stats, each report flattened to a plain object (link-path.ts reads them). */
    getStats(cb: (err: Error | null, reports: Record<string, unknown>[]) => void): void;
    on(event: 'signal', fn: (data: SimplePeerSignal) => void): this;
    on(event: 'connect' | 'close' | 'drain', fn: () => void): this;
    on(event: 'data', fn: (data: Uint8Array) => void): this;
    on(event: 'error', fn: (err: Error & { code?: string }) => void): this;
    once(event: 'drain' | 'connect' | 'close', fn: () => void): this;
    removeListener(event: string, fn: (...args: never[]) => void): this;
  }
}
