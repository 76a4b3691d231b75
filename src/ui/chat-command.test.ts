import { describe, expect, it } from 'vitest';
import { directMessagePrefix, parseChatCommand, type ChatTarget } from './chat-command';

const row = (id: string, name: string): ChatTarget => ({ id: id.padEnd(40, '0'), shortId: id.slice(0, 6), name });
const ann1 = row('aa11aa', 'Ann'), ann2 = row('bb22bb', 'Ann'), annLee = row('cc33cc', 'Ann Lee'), bob = row('dd44dd', 'Bob');
const players = [ann1, ann2, annLee, bob];

describe('chat commands', () => {
  it('a plain line is said to the players around; // says a line starting with /', () => {
    expect(parseChatCommand('hello /msg', players)).toEqual({ kind: 'say', text: 'hello /msg' });
    expect(parseChatCommand('//shrug', players)).toEqual({ kind: 'say', text: '/shrug' });
  });

  it('/msg finds the player by name, the longest listed name first, any case', () => {
    expect(parseChatCommand('/msg Bob hi there', players)).toEqual({ kind: 'dm', to: bob, text: 'hi there' });
    expect(parseChatCommand('/tell bob  hi', players)).toEqual({ kind: 'dm', to: bob, text: 'hi' });
    // "Ann Lee" is one player, not Ann saying "Lee ...".
    expect(parseChatCommand('/w Ann Lee are you there', players)).toEqual({ kind: 'dm', to: annLee, text: 'are you there' });
  });

  it('a shared name needs the short id; the id alone will do', () => {
    const r = parseChatCommand('/msg Ann hi', players);
    expect(r.kind).toBe('refused');
    expect(r.kind === 'refused' && r.reason).toContain('2 players are called Ann: write one of Ann#aa11aa, Ann#bb22bb');
    expect(parseChatCommand('/msg Ann#bb22 hi', players)).toEqual({ kind: 'dm', to: ann2, text: 'hi' });
    expect(parseChatCommand('/msg #aa11aa hi', players)).toEqual({ kind: 'dm', to: ann1, text: 'hi' });
    expect(parseChatCommand(`${directMessagePrefix(ann2)}yo`, players)).toEqual({ kind: 'dm', to: ann2, text: 'yo' });
  });

  it('refuses, with a reason, a name nobody has, a missing text, an unknown command; /r answers the last writer', () => {
    for (const typed of ['/msg Zed hi', '/msg Ann#ff hi', '/msg Bob', '/msg Bobby hi', '/msg', '/kick Bob', '/r hi']) {
      expect(parseChatCommand(typed, players).kind, typed).toBe('refused');
    }
    expect(parseChatCommand('/r  thanks ', players, bob)).toEqual({ kind: 'dm', to: bob, text: 'thanks' });
  });
});
