import { afterEach, describe, expect, it } from 'vitest';
import { dateTitle, fromWire, localStamp, showLocal, zoneName } from '../../renderer/src/lib/dates.js';

// The machine's zone can change while the app runs (travel, a settings change): the local time
// follows at once, and the zone named beside it must be the one that time is in.
const before = process.env.TZ;
afterEach(() => {
  if (before === undefined) delete process.env.TZ;
  else process.env.TZ = before;
});

const fresh = (d: Date, style: 'short' | 'long') =>
  new Intl.DateTimeFormat(undefined, { timeZoneName: style }).formatToParts(d).find((p) => p.type === 'timeZoneName')!.value;

describe('zone names after the zone changes', () => {
  const wire = '2031-01-04 12:06:00';
  const d = fromWire(wire)!;

  it('names the zone the local stamp was computed in, short and long', () => {
    process.env.TZ = 'America/Denver';
    expect(showLocal(wire)).toBe(`2031-01-04 05:06 ${fresh(d, 'short')}`);
    const denverShort = zoneName(d);
    const denverLong = zoneName(d, 'long');
    expect(dateTitle(wire)).toContain(denverLong);

    process.env.TZ = 'Asia/Tokyo';
    expect(localStamp(d)).toBe('2031-01-04 21:06');
    expect(zoneName(d)).toBe(fresh(d, 'short'));
    expect(zoneName(d)).not.toBe(denverShort);
    expect(zoneName(d, 'long')).toBe(fresh(d, 'long'));
    expect(dateTitle(wire)).toBe(`2031-01-04 21:06 ${fresh(d, 'long')} (2031-01-04 12:06 UTC)`);

    process.env.TZ = 'America/Denver';
    expect(showLocal(wire)).toBe(`2031-01-04 05:06 ${denverShort}`);
  });

  it('follows summer time within one zone', () => {
    process.env.TZ = 'America/Denver';
    const winter = zoneName(d);
    const summer = zoneName(fromWire('2031-07-04 12:06')!);
    expect(winter).not.toBe(summer);
  });
});
