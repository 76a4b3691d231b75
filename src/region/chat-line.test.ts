import { describe, expect, it } from 'vitest';
import { SimKeyring } from '../testing/sim-keyring';
import { isChatText, makeChatLine, MAX_CHAT_CHARS, normaliseChatText, verifyChatLine } from './chat-line';
import { subscriptionCodec } from './subscription-messages';

const keys = new SimKeyring('chat');
const ann = keys.signer(new Uint8Array(20).fill(1));
const bob = keys.signer(new Uint8Array(20).fill(2));

describe('chat lines', () => {
  it('text: trimmed, whitespace made one space; control, format and private characters and mark towers refused', () => {
    expect(normaliseChatText('  hi \n\tthere  ')).toBe('hi there');
    expect(normaliseChatText('<script>alert(1)</script> 🙂 José')).toBe('<script>alert(1)</script> 🙂 José');
    expect(normaliseChatText('x'.repeat(MAX_CHAT_CHARS))).toHaveLength(MAX_CHAT_CHARS);
    for (const bad of ['', '   ', 'x'.repeat(MAX_CHAT_CHARS + 1), 'a\u0000b', 'a\u202eb', 'a\u200bb', 'a\u0007', 'a\ue000', 'a\u0301\u0301\u0301\u0301', '\ud800']) {
      expect(normaliseChatText(bad), JSON.stringify(bad)).toBeUndefined();
    }
    // A receiver takes only the exact form.
    expect(isChatText(' hi')).toBe(false);
    expect(isChatText('hi  there')).toBe(false);
  });

  it('signed by the player it names, for one world; any change to it breaks the signature', async () => {
    const line = await makeChatLine(ann, 'w', 'Ann', 'hello', 1000);
    expect(await verifyChatLine(line, 'w', keys.verify)).toBe(true);
    expect(await verifyChatLine(line, 'other-world', keys.verify)).toBe(false);
    for (const changed of [{ x: 'hullo' }, { n: 'Bob' }, { c: (line.c + 1) % 12 }, { w: 1001 }, { p: bob.id }, { k: bob.publicKey }]) {
      expect(await verifyChatLine({ ...line, ...changed }, 'w', keys.verify), JSON.stringify(Object.keys(changed))).toBe(false);
    }
    // Bob signing a line that names Ann.
    const asAnn = await makeChatLine({ ...bob, id: ann.id }, 'w', 'Ann', 'hello', 1000);
    // The colour is the speaker's choice, signed: a line says it as chosen.
    expect((await makeChatLine(ann, 'w', 'Ann', 'hello', 1000, 7)).c).toBe(7);
    expect(await verifyChatLine(asAnn, 'w', keys.verify)).toBe(false);
  });

  it('SAY and CHAT frames with a hostile name or text do not decode', async () => {
    const line = await makeChatLine(ann, 'w', 'Ann', 'hello', 1000);
    const frame = (over: object) => subscriptionCodec.encode({ t: 'CHAT', rx: 0, rz: 0, ...line, ...over });
    expect(subscriptionCodec.decode(frame({})).t).toBe('CHAT');
    for (const over of [{ x: 'a\u202eb' }, { x: 'y'.repeat(500) }, { n: '<b>Ann</b>' }, { n: 'Ann\u0000' }, { w: -1 }, { c: 12 }, { c: -1 }, { c: 0.5 }, { c: '#ff0000' }]) {
      expect(() => subscriptionCodec.decode(frame(over)), JSON.stringify(over)).toThrow();
    }
  });
});
