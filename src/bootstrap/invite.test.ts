import { describe, expect, it } from 'vitest';
import { generateNodeIdentity } from '../core/identity';
import { checkInvite, makeInvite, parseInvite, type Invite } from './invite';

const hex = (c: string) => c.repeat(40);

async function made(contacts = [hex('1'), hex('2')]) {
  const who = await generateNodeIdentity({ bits: 0 });
  const link = await makeInvite('http://127.0.0.1:8080/?rd=3', { world: 'alps', seed: 's 1', relay: 'ws://127.0.0.1:8080/relay', peerjs: 'http://127.0.0.1:9000/', contacts }, who);
  return { who, link, frag: new URL(link).hash };
}

const invite = (frag: string): Invite => {
  const p = parseInvite(frag);
  if (p.kind !== 'invite') throw new Error(`not an invite: ${JSON.stringify(p)}`);
  return p.invite;
};

describe('invite links', () => {
  it('carry the world, doorways, inviter and contacts, signed by the inviter', async () => {
    const { who, frag } = await made();
    const i = invite(frag);
    expect(i).toMatchObject({ world: 'alps', seed: 's 1', relay: 'ws://127.0.0.1:8080/relay', peerjs: 'http://127.0.0.1:9000/', contacts: [hex('1'), hex('2')] });
    expect(i.inviter).toBe([...who.id].map((b) => b.toString(16).padStart(2, '0')).join(''));
    expect(await checkInvite(i)).toBe('signed');
  });

  it('are told apart when altered on the way: another relay, seed, contact or inviter', async () => {
    const { frag } = await made();
    const swap = (k: string, val: string) => { const f = new URLSearchParams(frag.slice(1)); f.set(k, val); return `#${f}`; };
    for (const f of [swap('relay', 'ws://evil.example/relay'), swap('seed', 's 2'), swap('peers', `${hex('1')},${hex('3')}`), swap('peer', hex('a'))]) {
      expect(await checkInvite(invite(f))).toBe('tampered');
    }
  });

  it('say what is wrong with a broken link, and accept a hand-written unsigned one', async () => {
    expect(parseInvite('#world=alps')).toEqual({ kind: 'none' });
    expect(parseInvite('#world=alps&peer=zz')).toMatchObject({ kind: 'malformed', reason: 'a node id is 40 hex digits' });
    expect(parseInvite(`#peer=${hex('a')}&relay=http://x`)).toMatchObject({ kind: 'malformed', reason: /ws:\/\// });
    expect(parseInvite(`#peer=${hex('a')}&peers=12,34`)).toMatchObject({ kind: 'malformed', reason: /contact list/ });
    expect(parseInvite(`#peer=${hex('a')}&peer=${hex('b')}`)).toMatchObject({ kind: 'malformed', reason: /twice/ });
    const { frag } = await made();
    const cut = frag.slice(0, frag.indexOf('&sig='));
    expect(parseInvite(cut)).toMatchObject({ kind: 'malformed', reason: /cut short/ });
    const plain = invite(`#world=alps&peer=${hex('a')}`);
    expect(plain).toMatchObject({ world: 'alps', seed: 'alps', inviter: hex('a'), contacts: [] });
    expect(await checkInvite(plain)).toBe('unsigned');
  });

  it('carry at most four contacts, never the inviter twice', async () => {
    const { frag } = await made(['1', '2', '3', '4', '5'].map(hex));
    expect(invite(frag).contacts).toHaveLength(4);
  });
});
