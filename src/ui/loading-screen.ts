// Shown from page load until the terrain under the player is drawn, with progress, and
// turned into an error panel if start-up fails.

export class LoadingScreen {
  private readonly text: HTMLElement;
  private readonly bar: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    this.text = root.querySelector('.loading-text') as HTMLElement;
    this.bar = root.querySelector('.loading-bar-fill') as HTMLElement;
  }

  progress(message: string, fraction: number): void {
    this.text.textContent = message;
    this.bar.style.width = `${Math.round(Math.max(0, Math.min(1, fraction)) * 100)}%`;
  }

  fail(message: string): void {
    this.root.classList.add('failed');
    this.text.textContent = message;
    this.root.hidden = false;
  }

  hide(): void {
    this.root.hidden = true;
  }
}
