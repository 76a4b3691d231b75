// Moving a player to another browser: the player identity (a keypair; the player id is
// the hash of its public key) is exported as a JSON file or text and imported elsewhere.
// Opened with P or the pause menu's button. The private key is in the export, so the panel
// says so; an import replaces this browser's player (the page reloads to use it).
import { idToHex } from '../core/node-id';
import { identityFromJson, type IdentityJson } from '../core/identity';
import { exportPlayerIdentity, importPlayerIdentity, loadPlayerIdentity } from '../store/identity-store';
import { addStyleOnce } from './page-style';
import { VoxelError } from '../core/errors';

export interface IdentityPanelDeps {
  exportIdentity(): Promise<IdentityJson>;
  importIdentity(json: unknown): Promise<{ id: Uint8Array }>;
  currentId(): Promise<Uint8Array>;
  /** Called after a successful import (default: reload the page so the new player is used). */
  afterImport(): void;
}

const defaultDeps: IdentityPanelDeps = {
  exportIdentity: () => exportPlayerIdentity(),
  importIdentity: (json) => importPlayerIdentity(json),
  currentId: async () => (await loadPlayerIdentity()).id,
  afterImport: () => setTimeout(() => location.reload(), 1500),
};

export class IdentityImportError extends VoxelError {
  readonly code = 'identity-import-invalid';
  override readonly name = 'IdentityImportError';
}

/** Checks pasted or loaded text before it goes near the identity store; clear messages. */
export async function parseIdentityText(text: string): Promise<IdentityJson> {
  const t = text.trim();
  if (!t) throw new IdentityImportError('Paste an exported identity or choose its file first.');
  if (t.length > 16_384) throw new IdentityImportError('That is far too long to be an exported identity.');
  let json: unknown;
  try {
    json = JSON.parse(t);
  } catch {
    throw new IdentityImportError('That is not JSON: paste the whole exported identity, from { to }.');
  }
  try {
    await identityFromJson(json, 'player'); // validates shape and that the private key matches the public one
  } catch (e) {
    throw new IdentityImportError(`Not a usable identity: ${(e as Error).message}.`);
  }
  return json as IdentityJson;
}

export const identityFileName = (idHex: string) => `voxel-populi-player-${idHex.slice(0, 8)}.json`;

const CSS = `
.identity-panel { position: fixed; inset: 0; display: flex; align-items: center; justify-content: center; background: rgba(0,0,0,.55); z-index: 20; }
.identity-panel[hidden] { display: none; }
.identity-panel .card { background: rgba(20,24,32,.96); padding: 18px 22px; border-radius: 10px; width: min(520px, 92vw); cursor: auto; }
.identity-panel h2 { margin: 0 0 6px; font-size: 18px; }
.identity-panel .who { font: 12px ui-monospace, monospace; opacity: .85; word-break: break-all; }
.identity-panel .warn { font-size: 12px; opacity: .8; margin: 6px 0 10px; }
.identity-panel textarea { width: 100%; box-sizing: border-box; height: 110px; font: 11px ui-monospace, monospace; }
.identity-panel .row { display: flex; gap: 8px; flex-wrap: wrap; margin: 8px 0; align-items: center; }
.identity-panel button { font: inherit; padding: 4px 10px; cursor: pointer; }
.identity-panel .status { min-height: 1.4em; padding: 4px 8px; border-radius: 4px; }
.identity-panel .status.error { background: #b3261e; }
.identity-panel .status.ok { background: #1e6b34; }
`;

export class IdentityPanel {
  readonly root: HTMLElement;
  private readonly who: HTMLElement;
  private readonly text: HTMLTextAreaElement;
  private readonly status: HTMLElement;
  private readonly deps: IdentityPanelDeps;

  constructor(parent: HTMLElement, deps: Partial<IdentityPanelDeps> = {}) {
    this.deps = { ...defaultDeps, ...deps };
    addStyleOnce('identity-panel-css', CSS);
    this.root = el(parent, 'div', 'identity-panel');
    this.root.hidden = true;
    const card = el(this.root, 'div', 'card');
    el(card, 'h2').textContent = 'Your player identity';
    this.who = el(card, 'div', 'who');
    el(card, 'div', 'warn').textContent =
      'Export it to play as the same player in another browser. The export holds your private key: keep it to yourself.';
    const exportRow = el(card, 'div', 'row');
    button(exportRow, 'Download file', () => this.download());
    button(exportRow, 'Copy as text', () => this.copy());
    this.text = el(card, 'textarea') as HTMLTextAreaElement;
    this.text.placeholder = 'Paste an exported identity here to import it…';
    this.text.spellcheck = false;
    const importRow = el(card, 'div', 'row');
    const file = el(importRow, 'input') as HTMLInputElement;
    file.type = 'file';
    file.accept = 'application/json,.json';
    file.addEventListener('change', () => {
      const f = file.files?.[0];
      if (f) void f.text().then((t) => { this.text.value = t; return this.import(); }, (e: Error) => this.show(`Could not read the file: ${e.message}`, 'error'));
      file.value = '';
    });
    button(importRow, 'Import pasted text', () => this.import());
    button(importRow, 'Close', () => this.close());
    this.status = el(card, 'div', 'status');
    // Keys typed here are not game input (the game listens on window).
    for (const type of ['keydown', 'keyup']) {
      this.root.addEventListener(type, (e) => {
        if ((e as KeyboardEvent).code === 'Escape') this.close();
        e.stopPropagation();
      });
    }
    // Clicks stay in the panel (the pause menu behind it grabs the pointer on click).
    this.root.addEventListener('click', (e) => {
      e.stopPropagation();
      if (e.target === this.root) this.close();
    });
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }

  open(): void {
    if (document.pointerLockElement) document.exitPointerLock();
    this.root.hidden = false;
    this.show('');
    this.deps.currentId().then(
      (id) => { this.who.textContent = `Player id ${idToHex(id)}`; },
      (e: Error) => this.show(`Cannot read your identity: ${e.message}`, 'error'),
    );
  }

  close(): void {
    this.root.hidden = true;
  }

  toggle(): void {
    if (this.isOpen) this.close();
    else this.open();
  }

  /** Opens on clicks of `button` (its key is the player's binding: keyboard-mouse-input.ts calls toggle). */
  bind(openButton: HTMLElement | null): this {
    openButton?.addEventListener('click', (e) => {
      e.stopPropagation();
      this.open();
    });
    return this;
  }

  private async exported(): Promise<{ json: string; idHex: string } | null> {
    try {
      const json = await this.deps.exportIdentity();
      const id = await this.deps.currentId();
      return { json: JSON.stringify(json, null, 2), idHex: idToHex(id) };
    } catch (e) {
      this.show(`Cannot export your identity: ${(e as Error).message}`, 'error');
      return null;
    }
  }

  private async download(): Promise<void> {
    const x = await this.exported();
    if (!x) return;
    const url = URL.createObjectURL(new Blob([x.json], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = identityFileName(x.idHex);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    this.show(`Saved ${a.download}`, 'ok');
  }

  private async copy(): Promise<void> {
    const x = await this.exported();
    if (!x) return;
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(x.json);
      this.show('Copied: paste it into this panel in the other browser.', 'ok');
    } catch {
      // No clipboard permission: put it in the box, selected, for a manual copy.
      this.text.value = x.json;
      this.text.select();
      this.show('The clipboard is not available here: the identity is in the box, selected; copy it by hand.', 'ok');
    }
  }

  private async import(): Promise<void> {
    try {
      const json = await parseIdentityText(this.text.value);
      const id = await this.deps.importIdentity(json);
      this.text.value = '';
      this.show(`Imported: you are now player ${idToHex(id.id).slice(0, 16)}…; reloading.`, 'ok');
      this.deps.afterImport();
    } catch (e) {
      this.show(e instanceof IdentityImportError ? e.message : `Import failed: ${(e as Error).message}`, 'error');
    }
  }

  private show(text: string, kind: 'ok' | 'error' | '' = ''): void {
    this.status.textContent = text;
    this.status.className = `status ${kind}`;
  }
}

function el(parent: HTMLElement, tag: string, cls?: string): HTMLElement {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  parent.appendChild(e);
  return e;
}

function button(parent: HTMLElement, label: string, fn: () => unknown): HTMLButtonElement {
  const b = el(parent, 'button') as HTMLButtonElement;
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', () => void fn());
  return b;
}
