import { describe, expect, it } from 'vitest';
import { Fullscreen, keyboardLockApi, type FullscreenDocument, type KeyboardLockApi } from './fullscreen';

/** A document whose fullscreen follows requestFullscreen / exitFullscreen, as a browser's does, with its change event. */
function fakeDocument(): FullscreenDocument & { leave(): void } {
  let element: Element | null = null;
  const listeners: (() => void)[] = [];
  const set = (e: Element | null) => { element = e; for (const l of listeners) l(); };
  return {
    get fullscreenElement() { return element; },
    documentElement: { requestFullscreen: async () => set({} as Element) },
    exitFullscreen: async () => set(null),
    addEventListener: (_type, fn) => { listeners.push(fn); },
    leave: () => set(null),
  };
}

function fakeKeyboard(refuse = false): KeyboardLockApi & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    lock: (codes) => { calls.push(`lock:${codes === undefined ? 'all' : codes.join()}`); return refuse ? Promise.reject(new Error('no')) : Promise.resolve(); },
    unlock: () => { calls.push('unlock'); },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('fullscreen with keyboard lock', () => {
  it('locks every key on entering and unlocks on leaving, however it is left', async () => {
    const doc = fakeDocument();
    const kb = fakeKeyboard();
    const seen: string[] = [];
    const fs = new Fullscreen(doc, kb, (s) => seen.push(`${s.fullscreen}/${s.keyboardLock}`));
    await fs.toggle();
    await settle();
    expect(fs.state).toEqual({ fullscreen: true, keyboardLock: 'locked' });
    expect(kb.calls).toEqual(['lock:all']);
    await fs.toggle();
    expect(fs.state).toEqual({ fullscreen: false, keyboardLock: 'off' });
    await fs.toggle();
    await settle();
    doc.leave(); // Esc held, or the browser's own way out
    expect(kb.calls).toEqual(['lock:all', 'unlock', 'lock:all', 'unlock']);
    expect(seen).toEqual(['true/pending', 'true/locked', 'false/off', 'true/pending', 'true/locked', 'false/off']);
  });

  it('without the Keyboard Lock API (Firefox) fullscreen works alone and nothing throws', async () => {
    const doc = fakeDocument();
    const fs = new Fullscreen(doc, undefined);
    await fs.toggle();
    expect(fs.state).toEqual({ fullscreen: true, keyboardLock: 'unavailable' });
    await fs.toggle();
    expect(fs.state).toEqual({ fullscreen: false, keyboardLock: 'off' });
  });

  it('a refused lock is said as refused, and leaving does not unlock what was never locked', async () => {
    const doc = fakeDocument();
    const kb = fakeKeyboard(true);
    const fs = new Fullscreen(doc, kb);
    await fs.toggle();
    await settle();
    expect(fs.state.keyboardLock).toBe('refused');
    await fs.toggle();
    expect(kb.calls).toEqual(['lock:all']);
  });

  it('the API is found only where it has lock and unlock', () => {
    expect(keyboardLockApi({})).toBeUndefined();
    expect(keyboardLockApi({ keyboard: { getLayoutMap() {} } })).toBeUndefined();
    expect(keyboardLockApi(undefined)).toBeUndefined();
    const kb = fakeKeyboard();
    expect(keyboardLockApi({ keyboard: kb })).toBe(kb);
  });
});
