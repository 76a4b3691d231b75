// Two ends of an in-memory control channel, for running both halves of the link handshake
// (net/link-handshake.ts) with no connection under them. Test files only.
import type { ControlMsg, HandshakeIo } from '../net/link-handshake';

export function handshakePipe(): [HandshakeIo, HandshakeIo] {
  const end = () => {
    const queue: ControlMsg[] = [];
    let waiting: ((m: ControlMsg) => void) | undefined;
    return {
      push(m: ControlMsg) {
        if (waiting) {
          const w = waiting;
          waiting = undefined;
          w(m);
        } else queue.push(m);
      },
      next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise<ControlMsg>((r) => (waiting = r))),
    };
  };
  const [a, b] = [end(), end()];
  return [{ send: (m) => b.push(m), next: a.next }, { send: (m) => a.push(m), next: b.next }];
}
