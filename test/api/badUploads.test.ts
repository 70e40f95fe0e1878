import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { digestAll } from '../support/digest.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// Uploads that must be refused (issue 11 item 3) with a 400 naming the file and leave nothing behind: no blob,
// no file row, quota unchanged (the digest covers every table and the content store).

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(3);
});
afterAll(() => t.close());

/** A PNG whose IHDR declares other dimensions (CRC fixed, so the header reads as valid). */
function withSize(png: Buffer, width: number, height: number): Buffer {
  const b = Buffer.from(png);
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b.writeUInt32BE(crc32(b.subarray(12, 29)), 29);
  return b;
}

async function samples() {
  const create = { width: 400, height: 300, channels: 3 as const, background: { r: 200, g: 80, b: 40 } };
  const png = await sharp({ create }).png().toBuffer();
  const jpg = await sharp({ create }).jpeg().toBuffer();
  return {
    'corrupt.png': Buffer.concat([png.subarray(0, 8), Buffer.alloc(300, 0x5a)]), // a PNG signature over broken data
    'broken-data.png': withSize(png, 1200, 1200), // valid header, pixel data too short for it
    'empty.png': Buffer.alloc(0),
    'half.jpg': jpg.subarray(0, Math.floor(jpg.length / 2)),
    'bomb.png': withSize(png, 60000, 60000),
    'medium-bomb.png': withSize(png, 12000, 12000),
    'page.png': Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>'),
    'drawing.png': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'),
    'photo.png': jpg, // a JPEG named .png
  };
}

async function upload(field: string, name: string, bytes: Buffer, extra: Buffer | null = null) {
  const form = new FormData();
  form.set('dataset_uuid', SYNTH.dataset);
  form.set('record_uuid', SYNTH.record(1));
  form.set('field_uuid', field);
  if (extra) form.append('file', new Blob([extra]), 'fine.png');
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${t.api}/file`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.admin.token}` },
    body: form,
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}

const quota = async () => (await t.admin.quota(SYNTH.dataset)).total_bytes;

describe('refused uploads leave nothing behind', () => {
  for (const field of [SYNTH.field('Image'), SYNTH.field('File')]) {
    const kind = field === SYNTH.field('Image') ? 'image field' : 'file field';
    it(`${kind}: every bad file answers 400 naming it, alone and after a good part`, async () => {
      const good = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 1, g: 2, b: 3 } } })
        .png()
        .toBuffer();
      for (const [name, bytes] of Object.entries(await samples())) {
        // A file field keeps bytes as they are: it reads headers, never decodes pixel data.
        if (kind === 'file field' && (name === 'broken-data.png' || name === 'half.jpg')) continue;
        for (const extra of [null, good]) {
          const before = digestAll(t.service);
          const q = await quota();
          const r = await upload(field, name, bytes, extra);
          expect(r.status, `${name}: ${r.text}`).toBe(400);
          expect(JSON.parse(r.text).error.message).toContain(name);
          expect(await quota()).toBe(q);
          expect(digestAll(t.service), `${name} left something behind`).toBe(before);
        }
      }
    });
  }
  it('a good image still uploads with its thumbnail', async () => {
    const ok = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 9, g: 9, b: 9 } } })
      .png()
      .toBuffer();
    const r = await upload(SYNTH.field('Image'), 'fine.png', ok);
    expect(r.status).toBe(302);
  });
});
