// Whether a TURN server refused this browser's credentials, read from an RTCPeerConnection's
// `icecandidateerror` event (webrtc-pc; Chrome 77, Safari 14.1, Firefox 150 on: one for each
// STUN or TURN URL whose request failed, with the server's STUN error code). A TURN exchange's first 401
// is its challenge, answered inside the browser and never reported: a 401 reported is the
// answer to the credentials themselves, as is 441 (Wrong Credentials, RFC 8656). Either
// means the username and password are wrong or expired (a relay's short-lived credentials
// past their time, or minted by a clock far behind the TURN server's), which the player or
// the deploy can fix, unlike a path that nothing carries. Other codes (701: that URL never
// answered; 403, 486, 508: the server's own limits) say nothing of the credentials.
// A browser without the event (an older Firefox) says only that TURN did not carry the link.

/** STUN error codes that answer the credentials themselves. */
const CREDENTIALS_REFUSED = new Set([401, 441]);

/** The fields of an RTCPeerConnectionIceErrorEvent this reads. */
export interface IceCandidateErrorLike {
  errorCode?: unknown;
  url?: unknown;
  errorText?: unknown;
}

/**
 * "turn:host:3478?transport=udp refused the credentials (401 Unauthorized)" for a TURN URL's
 * refusal of the credentials; undefined for any other error. The text is the server's
 * reason phrase: cut short, since any server may send it.
 */
export function turnRefusal(e: IceCandidateErrorLike): string | undefined {
  if (typeof e.errorCode !== 'number' || !CREDENTIALS_REFUSED.has(e.errorCode)) return undefined;
  if (typeof e.url !== 'string' || !/^turns?:/.test(e.url)) return undefined;
  const text = typeof e.errorText === 'string' && e.errorText.trim() ? ` ${e.errorText.trim().slice(0, 64)}` : '';
  return `${e.url.slice(0, 256)} refused the credentials (${e.errorCode}${text})`;
}

/** Calls `refused` with each TURN refusal of the credentials `pc` reports (a connection without the event: never). */
export function watchTurnRefusals(pc: unknown, refused: (why: string) => void): void {
  const target = pc as { addEventListener?: (type: string, fn: (e: IceCandidateErrorLike) => void) => void } | undefined;
  target?.addEventListener?.('icecandidateerror', (e) => {
    const why = turnRefusal(e);
    if (why !== undefined) refused(why);
  });
}
