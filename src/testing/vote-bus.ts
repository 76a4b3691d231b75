// A hand-driven bus for vote unit tests: effects queue up as frames, and the test delivers
// them in order (all, or those a filter lets through), so a test can stage exactly who
// heard what before whom. Decisions are collected per node.
import type { Decision, VoteEffect } from '../agree/vote';
import type { VoteMessage } from '../agree/vote-messages';

export interface BusNode<C> {
  receive(from: string, msg: VoteMessage<C>): VoteEffect<C>[];
}

export interface Frame<C> {
  from: string;
  to: string;
  msg: VoteMessage<C>;
}

export class VoteBus<C> {
  readonly queue: Frame<C>[] = [];
  readonly decisions = new Map<string, Decision<C>>();

  constructor(readonly nodes: Map<string, BusNode<C>>) {}

  /** Queues what a node's call produced. */
  put(from: string, effects: VoteEffect<C>[]): void {
    for (const e of effects) {
      if ('decided' in e) this.decisions.set(from, e.decided);
      else for (const to of e.to) this.queue.push({ from, to, msg: e.send });
    }
  }

  /** Delivers queued frames (and what they cause) until none is left that `pass` lets through; the rest stay queued. */
  run(pass: (f: Frame<C>) => boolean = () => true, max = 10_000): void {
    for (let i = 0; i < max; i++) {
      const at = this.queue.findIndex(pass);
      if (at < 0) return;
      const [f] = this.queue.splice(at, 1);
      const node = this.nodes.get(f!.to);
      if (node) this.put(f!.to, node.receive(f!.from, f!.msg));
    }
    throw new Error(`bus still busy after ${max} frames`);
  }
}
