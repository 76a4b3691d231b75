// What is printed on the keys of this keyboard, where the browser says (the Keyboard Map API,
// navigator.keyboard.getLayoutMap(): Chromium-based browsers, in a secure context). Bindings
// are KeyboardEvent.code, a key's place (KeyW is the key right of Tab's row start on every
// layout), so on an AZERTY keyboard KeyW is the key printed Z: a label that said "W" sent
// the player hunting for the wrong key. Where the API is missing (Firefox, Safari) or refuses,
// there is no map and labels fall back to the code's own name (key-bindings.ts keyLabel).

/** KeyboardEvent.code -> what the key types on this layout ('KeyW' -> 'z' on AZERTY). */
export type LayoutMap = ReadonlyMap<string, string>;

interface KeyboardWithLayout {
  getLayoutMap(): Promise<Iterable<[string, string]>>;
}

/** The layout map, or undefined where the browser has none to give (never rejects). */
export async function readLayoutMap(keyboard: unknown = (globalThis.navigator as { keyboard?: unknown } | undefined)?.keyboard): Promise<LayoutMap | undefined> {
  const kb = keyboard as Partial<KeyboardWithLayout> | undefined;
  if (typeof kb?.getLayoutMap !== 'function') return undefined;
  try {
    return new Map(await kb.getLayoutMap());
  } catch {
    // Refused (a cross-origin frame, a page not focused in some browsers): codes it is.
    return undefined;
  }
}

/** What to print for a key the layout names: one or two visible characters, a letter as its capital; undefined for anything else. */
export function printedKey(typed: string | undefined): string | undefined {
  if (typed === undefined) return undefined;
  const chars = [...typed];
  if (chars.length < 1 || chars.length > 2 || /[\p{C}\p{Z}]/u.test(typed)) return undefined;
  const upper = typed.toLocaleUpperCase();
  // 'ß' becomes 'SS': a key prints one character, so such a letter stays as it is.
  return [...upper].length === chars.length ? upper : typed;
}
