import { describe, expect, it } from 'vitest';
import { VoxelError } from '../core/errors';
import { EditRejectedError, EditTimeoutError } from '../world/edit-error';
import { errorWords } from './error-words';

class Coded extends VoxelError {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

describe('errorWords', () => {
  it('says a host refusal in words by its code, not its wire message', () => {
    const e = new EditRejectedError('out-of-reach');
    expect(e.message).toBe('edit rejected: out-of-reach');
    expect(errorWords(e)).toBe('Too far away to change that block.');
    expect(errorWords(new EditTimeoutError('no answer'))).toBe('No host answered in time: try again.');
  });

  it('shows the message of an error it has no words for, and of one outside the family', () => {
    expect(errorWords(new Coded('storage-failed', 'Storage is full: free some space.'))).toBe('Storage is full: free some space.');
    expect(errorWords(new Error('plain'))).toBe('plain');
    expect(errorWords('text')).toBe('text');
    // A code that is an Object.prototype name is no word.
    expect(errorWords(new Coded('constructor', 'its own words'))).toBe('its own words');
  });
});
