import { describe, expect, it } from 'vitest';
import { parsePageConfig } from './config';

describe('page config', () => {
  it('reads world and seed from the fragment, knobs from the query, and rejects junk names', () => {
    expect(parsePageConfig('http://localhost:8080/')).toMatchObject({ world: 'populi', seed: 'populi', renderDistance: undefined, headless: false });
    expect(parsePageConfig('http://x/?rd=3&render=off#world=alps&seed=42')).toMatchObject({ world: 'alps', seed: '42', renderDistance: 3, headless: true });
    expect(parsePageConfig('http://x/?rd=99#world=a%20b<script>').world).toBe('populi');
    expect(parsePageConfig('http://x/?rd=99').renderDistance).toBe(16);
  });
});
