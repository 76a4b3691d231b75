// The invite in the pause menu: a Copy-invite button, the link itself (selectable, for a
// browser that refuses the clipboard) and a QR code of it for a phone or a friend across
// the room. The link is made fresh each time (it carries this tab's live contacts).
// The QR code is drawn by `qrcode` (npm, a canvas renderer).
import QRCode from 'qrcode';

export class InvitePanel {
  private readonly root: HTMLElement;
  private readonly text: HTMLInputElement;
  private readonly said: HTMLElement;
  private readonly qr: HTMLCanvasElement;
  private link = '';

  /** `makeLink` rejects (with a message for the player) when there is nothing to invite to yet. */
  constructor(container: HTMLElement, private readonly makeLink: () => Promise<string>) {
    this.root = document.createElement('div');
    this.root.className = 'invite-panel';
    this.root.innerHTML = `
      <button type="button" class="copy-invite">Copy invite link (<kbd>I</kbd>)</button>
      <span class="invite-said" role="status"></span>
      <div class="invite-body" hidden>
        <canvas class="invite-qr" width="220" height="220" aria-label="QR code of the invite link"></canvas>
        <input class="invite-link" readonly aria-label="invite link" />
      </div>`;
    this.text = this.root.querySelector('.invite-link')!;
    this.said = this.root.querySelector('.invite-said')!;
    this.qr = this.root.querySelector('.invite-qr')!;
    // The menu under it captures the mouse on any click; the panel's clicks are its own.
    this.root.addEventListener('click', (e) => e.stopPropagation());
    this.root.querySelector('.copy-invite')!.addEventListener('click', () => void this.copy());
    this.text.addEventListener('focus', () => this.text.select());
    container.append(this.root);
  }

  /** Makes a fresh link, shows it with its QR code and copies it; resolves to what the player was told. */
  async copy(): Promise<string> {
    try {
      this.link = await this.makeLink();
    } catch (err) {
      return this.say((err as Error).message);
    }
    this.text.value = this.link;
    (this.root.querySelector('.invite-body') as HTMLElement).hidden = false;
    await QRCode.toCanvas(this.qr, this.link, { errorCorrectionLevel: 'L', margin: 2, width: 220 }).catch((err: Error) => this.say(`No QR code: ${err.message}`));
    try {
      await navigator.clipboard.writeText(this.link);
      return this.say('Invite link copied: send it to a friend');
    } catch {
      this.text.focus();
      return this.say('Copy the selected link (Ctrl+C) and send it to a friend');
    }
  }

  get current(): string {
    return this.link;
  }

  private say(words: string): string {
    this.said.textContent = words;
    return words;
  }
}
