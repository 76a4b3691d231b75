import { describe, expect, it } from 'vitest';
import { PROBLEM_WORDS, webglProblemKind } from './start-screen';

describe('start screen: a page that cannot draw', () => {
  it('tells a browser without WebGL2 from one whose WebGL2 failed to start', () => {
    expect(webglProblemKind(false)).toBe('webgl2-unsupported');
    expect(webglProblemKind(true)).toBe('webgl2-unavailable');
  });

  it('names what to do in both cases: update the browser, turn on hardware acceleration, try Chrome or Firefox', () => {
    for (const kind of ['webgl2-unsupported', 'webgl2-unavailable'] as const) {
      const { title, text } = PROBLEM_WORDS[kind];
      expect(title.length).toBeGreaterThan(0);
      expect(text).toMatch(/WebGL2/);
      expect(text).toMatch(/update/i);
      expect(text).toMatch(/hardware acceleration/);
      expect(text).toMatch(/Chrome/);
      expect(text).toMatch(/Firefox/);
    }
  });
});

describe('start screen: a browser too old for the world', () => {
  it('says what it lacks, which versions have it, and to update or change browsers (Safari included)', () => {
    const { title, text } = PROBLEM_WORDS['browser-outdated'];
    expect(title).toMatch(/cannot check/);
    expect(text).toMatch(/Ed25519/);
    expect(text).toMatch(/Safari 17/);
    expect(text).toMatch(/Update your browser/);
    expect(text).toMatch(/Chrome, Firefox or Safari/);
    expect(text).toMatch(/alone/);
  });
});
