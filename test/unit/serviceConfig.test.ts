import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, serviceConfig } from '../../electron/service/domain/context.js';

// Merged service settings: a count that is not a positive integer (NaN from a bad env value would
// make the record reader render no trees at all) is refused, naming the setting.
describe('serviceConfig', () => {
  it('applies settings over the defaults', () => {
    expect(serviceConfig({ renderChunkTops: 7 })).toEqual({ ...DEFAULT_CONFIG, renderChunkTops: 7 });
    expect(serviceConfig()).toEqual(DEFAULT_CONFIG);
  });

  it.each([
    ['renderChunkTops', NaN],
    ['renderChunkTops', 0],
    ['renderChunkTops', 2.5],
    ['countCap', -1],
    ['maxBodyBytes', Infinity],
    ['tokenTtlSeconds', NaN],
    ['maxUploadBytes', 0],
    ['eventQueueEvents', 0],
    ['eventQueueChars', NaN],
    ['liveMaxBackoffMs', 0],
  ] as const)('refuses %s = %s', (key, value) => {
    expect(() => serviceConfig({ [key]: value })).toThrow(new RegExp(`invalid service config[^]*${key}`));
  });
});
