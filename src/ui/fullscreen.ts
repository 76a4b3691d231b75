// Fullscreen with the keyboard locked where the browser has the Keyboard Lock API (Chromium):
// only then do Ctrl+W, Ctrl+T and the like reach the game instead of closing or opening
// tabs, and Esc comes to the page (holding it leaves fullscreen, as the browser says on
// entering). The lock is asked for each time fullscreen starts and given back when it ends,
// however it ends (the key, the button, Esc held, the browser). Where the API is missing
// (Firefox, Safari) fullscreen works alone and nothing is said: the game's default keys
// never need Ctrl anyway (key-bindings.ts).

/** The slice of navigator.keyboard used (absent in most browsers but Chromium's). */
export interface KeyboardLockApi {
  lock(codes?: string[]): Promise<void>;
  unlock(): void;
}

/** The slice of the document used (a stand-in in tests). */
export interface FullscreenDocument {
  readonly fullscreenElement: Element | null;
  readonly fullscreenEnabled?: boolean;
  readonly documentElement: { requestFullscreen(): Promise<void> };
  exitFullscreen(): Promise<void>;
  addEventListener(type: 'fullscreenchange', fn: () => void): void;
}

/** 'off': not fullscreen; 'unavailable': no Keyboard Lock API; 'refused': the browser said no; 'locked'. */
export type KeyboardLockState = 'off' | 'pending' | 'locked' | 'unavailable' | 'refused';

export interface FullscreenState {
  fullscreen: boolean;
  keyboardLock: KeyboardLockState;
}

export class Fullscreen {
  private lockState: KeyboardLockState = 'off';

  constructor(
    private readonly doc: FullscreenDocument = document,
    private readonly keyboard: KeyboardLockApi | undefined = keyboardLockApi(),
    /** Called whenever fullscreen or the lock changes (a notice for the player). */
    private readonly changed: (s: FullscreenState) => void = () => {},
  ) {
    doc.addEventListener('fullscreenchange', () => this.onChange());
  }

  get state(): FullscreenState {
    return { fullscreen: this.doc.fullscreenElement !== null, keyboardLock: this.lockState };
  }

  /** Whether this page may go fullscreen at all (an iframe without allow="fullscreen" may not). */
  get enabled(): boolean {
    return this.doc.fullscreenEnabled !== false;
  }

  /** Enters fullscreen, or leaves it; call from a key press or click (browsers need a gesture). Rejects with the browser's refusal. */
  async toggle(): Promise<void> {
    if (this.doc.fullscreenElement) await this.doc.exitFullscreen();
    else await this.doc.documentElement.requestFullscreen();
  }

  /** The page's fullscreen button: hidden where the page may not go fullscreen; its clicks stay its own (the menu under it grabs the pointer). */
  bind(button: HTMLElement | null, toggle: () => void): void {
    if (!button) return;
    button.hidden = !this.enabled;
    button.addEventListener('click', (e) => {
      e.stopPropagation();
      toggle();
    });
  }

  private onChange(): void {
    if (this.doc.fullscreenElement) {
      if (this.lockState === 'off') this.lock();
    } else {
      if (this.lockState === 'locked' || this.lockState === 'pending') this.keyboard?.unlock();
      this.lockState = 'off';
    }
    this.changed(this.state);
  }

  private lock(): void {
    if (!this.keyboard) {
      this.lockState = 'unavailable';
      return;
    }
    this.lockState = 'pending';
    // Every key (no list): Ctrl+W, Ctrl+T, Ctrl+N, Alt+Tab where the system lets it, Esc.
    this.keyboard.lock().then(
      () => { if (this.lockState === 'pending') { this.lockState = 'locked'; this.changed(this.state); } },
      () => { if (this.lockState === 'pending') { this.lockState = 'refused'; this.changed(this.state); } },
    );
  }
}

/** What the player is told when fullscreen starts or ends. */
export function fullscreenNotice(s: FullscreenState): string {
  if (!s.fullscreen) return 'Fullscreen off';
  if (s.keyboardLock === 'locked') return 'Fullscreen: every key, Ctrl+W too, goes to the game; hold Esc to leave';
  if (s.keyboardLock === 'pending') return 'Fullscreen';
  return 'Fullscreen: Esc leaves';
}

/** navigator.keyboard where it has lock and unlock (Chromium), else undefined. */
export function keyboardLockApi(nav: unknown = globalThis.navigator): KeyboardLockApi | undefined {
  const k = (nav as { keyboard?: Partial<KeyboardLockApi> } | undefined)?.keyboard;
  return k && typeof k.lock === 'function' && typeof k.unlock === 'function' ? (k as KeyboardLockApi) : undefined;
}
