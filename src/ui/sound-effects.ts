// Sound effects synthesised with WebAudio (no audio files): dig, place, footsteps, an item
// picked up and a chat line heard, each a short burst of filtered noise or a gliding tone
// under an envelope. The browser allows
// audio only after a person's gesture, so nothing is made until unlock() runs from one
// (the click or tap that starts playing). Volume 0 mutes and makes no sound at all. The
// recipes and the step cadence are plain data and arithmetic (tested without a browser).

export type SoundKind = 'dig' | 'place' | 'step' | 'pickup' | 'chat';

export interface SoundRecipe {
  /** Seconds. */
  readonly duration: number;
  /** Noise through a band-pass at this frequency (Hz), or a tone gliding from it. */
  readonly source: 'noise' | 'tone';
  readonly frequency: number;
  /** Tone only: the frequency it glides to by the end (higher: a rising chirp). */
  readonly endFrequency?: number;
  /** Peak gain at volume 1. */
  readonly gain: number;
}

export const SOUND_RECIPES: Readonly<Record<SoundKind, SoundRecipe>> = {
  dig: { duration: 0.16, source: 'noise', frequency: 900, gain: 0.5 },
  place: { duration: 0.11, source: 'tone', frequency: 220, endFrequency: 90, gain: 0.45 },
  step: { duration: 0.07, source: 'noise', frequency: 350, gain: 0.22 },
  // A bright rising chirp: something gained.
  pickup: { duration: 0.12, source: 'tone', frequency: 520, endFrequency: 1040, gain: 0.3 },
  // Soft and short: a line from someone else, not an alarm.
  chat: { duration: 0.09, source: 'tone', frequency: 880, endFrequency: 780, gain: 0.12 },
};

/** Blocks walked on the ground between two footsteps. */
export const STEP_BLOCKS = 1.7;

/** Counts the ground walked and says when a footstep sounds. */
export class StepCadence {
  private last: { x: number; z: number } | null = null;
  private walked = 0;

  /** The player is at (x, z), on the ground or not: true when a step sounds now. */
  update(x: number, z: number, onGround: boolean): boolean {
    const prev = this.last;
    this.last = { x, z };
    if (!prev || !onGround) return false;
    const d = Math.hypot(x - prev.x, z - prev.z);
    // A teleport or a respawn is not a walk.
    if (d > 2) return false;
    this.walked += d;
    if (this.walked < STEP_BLOCKS) return false;
    this.walked = 0;
    return true;
  }
}

/** The slice of the Web Audio API used; a browser's AudioContext. */
type Audio = AudioContext;

export class SoundEffects {
  private ctx: Audio | null = null;
  private noise: AudioBuffer | null = null;
  /** 0..1; 0 makes no sound. */
  volume: number;
  /** Sounds played (for window.voxel and tests). */
  played = 0;

  constructor(volume: number, private readonly makeContext: () => Audio | null = defaultContext) {
    this.volume = volume;
  }

  /** Call from a person's gesture (click, tap, key): the browser lets audio start only then. */
  unlock(): void {
    if (this.volume <= 0) return;
    if (!this.ctx) this.ctx = this.makeContext();
    void this.ctx?.resume().catch(() => {});
  }

  get unlocked(): boolean {
    return this.ctx?.state === 'running';
  }

  play(kind: SoundKind): void {
    const ctx = this.ctx;
    if (!ctx || this.volume <= 0 || ctx.state !== 'running') return;
    const r = SOUND_RECIPES[kind];
    const t = ctx.currentTime;
    const env = ctx.createGain();
    env.gain.setValueAtTime(0.0001, t);
    env.gain.exponentialRampToValueAtTime(r.gain * this.volume, t + 0.008);
    env.gain.exponentialRampToValueAtTime(0.0001, t + r.duration);
    env.connect(ctx.destination);
    if (r.source === 'noise') {
      const src = ctx.createBufferSource();
      src.buffer = this.noise ??= noiseBuffer(ctx);
      src.playbackRate.value = 0.8 + Math.random() * 0.4;
      const band = ctx.createBiquadFilter();
      band.type = 'bandpass';
      band.frequency.value = r.frequency;
      band.Q.value = 0.8;
      src.connect(band).connect(env);
      src.start(t, Math.random() * 0.2, r.duration);
    } else {
      const osc = ctx.createOscillator();
      osc.type = 'triangle';
      osc.frequency.setValueAtTime(r.frequency, t);
      osc.frequency.exponentialRampToValueAtTime(r.endFrequency ?? r.frequency, t + r.duration);
      osc.connect(env);
      osc.start(t);
      osc.stop(t + r.duration);
    }
    this.played++;
  }
}

function defaultContext(): Audio | null {
  return typeof AudioContext === 'undefined' ? null : new AudioContext();
}

/** Half a second of white noise, made once per context. */
function noiseBuffer(ctx: Audio): AudioBuffer {
  const buf = ctx.createBuffer(1, Math.floor(ctx.sampleRate * 0.5), ctx.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < d.length; i++) d[i] = Math.random() * 2 - 1;
  return buf;
}
