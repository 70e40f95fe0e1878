import { describe, expect, it } from 'vitest';
import { livePausedText } from '../../renderer/src/sync/livePausedText.js';

// A pause the service retries by itself (a lost super-user) must not tell the user to attach the
// remote again; only a pause with no retry due (a refused login) does.
describe('the live panel on a pause', () => {
  const demoted =
    "Stopped: admin@test.local is no longer a super-user; 0 records were pulled and 0 changes pushed; the rest waits for a super-user's next sync";

  it('says a lost super-user is waited for and retried, not re-attached', () => {
    const text = livePausedText({ state: 'paused', reason: demoted, next_try: '2031-01-04T12:06:00.000Z' })!;
    expect(text).toContain(`Paused: ${demoted}. Live sync waits for a super-user and tries again by itself (next at `);
    expect(text).not.toMatch(/attach/i);
  });

  it('asks for the remote attached again when no retry is due', () => {
    expect(livePausedText({ state: 'paused', reason: 'the server refused the login: bad password', next_try: null })).toBe(
      'Paused: the server refused the login: bad password. Attach the remote again (Change…) to resume.',
    );
  });

  it('says nothing when not paused', () => {
    expect(livePausedText({ state: 'offline', reason: 'unreachable', next_try: '2031-01-04T12:06:00.000Z' })).toBeNull();
  });
});
