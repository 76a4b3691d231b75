// A tiny typed event emitter: DOM-free, so every layer (and the simulator) can use it.

export type Listener<T> = (payload: T) => void;

/** One event's listeners, and the list an emit calls (made again only after on/off). */
interface Listeners {
  set: Set<Listener<never>>;
  calls: Listener<never>[] | null;
}

export class Emitter<Events extends Record<string, unknown>> {
  private listeners = new Map<keyof Events, Listeners>();

  on<K extends keyof Events>(event: K, fn: Listener<Events[K]>): () => void {
    let l = this.listeners.get(event);
    if (!l) this.listeners.set(event, (l = { set: new Set(), calls: null }));
    l.set.add(fn as Listener<never>);
    l.calls = null;
    return () => this.off(event, fn);
  }

  once<K extends keyof Events>(event: K, fn: Listener<Events[K]>): () => void {
    const off = this.on(event, (p) => {
      off();
      fn(p);
    });
    return off;
  }

  off<K extends keyof Events>(event: K, fn: Listener<Events[K]>): void {
    const l = this.listeners.get(event);
    if (l?.set.delete(fn as Listener<never>)) l.calls = null;
  }

  /** Whether anyone listens to `event` (an emitter may skip building a payload nobody reads). */
  has<K extends keyof Events>(event: K): boolean {
    return (this.listeners.get(event)?.set.size ?? 0) > 0;
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const l = this.listeners.get(event);
    if (!l) return;
    // The listeners as they were when the emit began (one added or removed by a listener
    // counts from the next emit): a list kept until on/off change it, not a copy per emit.
    const calls = (l.calls ??= [...l.set]);
    for (const fn of calls) (fn as Listener<Events[K]>)(payload);
  }

  removeAll(): void {
    this.listeners.clear();
  }
}
