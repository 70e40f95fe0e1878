import sharp from 'sharp';
import { getMimeType } from 'hono/utils/mime';
import { badRequest } from '../errors.js';
import { withArticle } from '../../../../shared/article.js';

// The real server's default thumbnail box (ODR's image size "thumbnail": 500×375).
export const THUMBNAIL = { width: 500, height: 375 } as const;

/**
 * Images over this many pixels are refused: a few KB of PNG can declare 60000×60000 pixels and
 * decode to gigabytes. 100 MP is a 10000×10000 mosaic (300 MB decoded as RGB).
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

const IMAGE_FORMATS: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  tiff: 'image/tiff',
};
const IMAGE_MIMES = new Set(Object.values(IMAGE_FORMATS));

export interface ImageInfo {
  mime: string;
  format: string;
  width: number;
  height: number;
}

/** Decodes the header to tell a real image by content (not by name or declared type). */
export async function probeImage(file: string): Promise<ImageInfo | null> {
  try {
    // Header only: the pixel limit is ours to apply (below), with a message naming it.
    const m = await sharp(file, { limitInputPixels: false }).metadata();
    const mime = m.format ? IMAGE_FORMATS[m.format] : undefined;
    if (!mime || !m.width || !m.height) return null;
    return { mime, format: m.format!, width: m.width, height: m.height };
  } catch {
    return null;
  }
}

export interface Thumbnail {
  data: Buffer;
  width: number;
  height: number;
  mime: string;
}

/** The default derivative: fits inside 500×375, never enlarged, PNG/GIF kept lossless. */
export async function thumbnail(file: string, info: ImageInfo): Promise<Thumbnail> {
  // failOn 'warning': a truncated or corrupt image fails here rather than giving a grey thumbnail.
  let img = sharp(file, { animated: false, limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'warning' })
    .rotate()
    .resize(THUMBNAIL.width, THUMBNAIL.height, { fit: 'inside', withoutEnlargement: true });
  const lossless = info.format === 'png' || info.format === 'gif';
  img = lossless ? img.png() : img.jpeg({ quality: 85 });
  const { data, info: out } = await img.toBuffer({ resolveWithObject: true });
  return { data, width: out.width, height: out.height, mime: lossless ? 'image/png' : 'image/jpeg' };
}

const describe = (e: unknown) => (e instanceof Error ? e.message.split('\n')[0] : String(e));

/**
 * An upload checked before any of it is kept: empty files, images that do not decode to the
 * end, images over the pixel limit, and files whose name claims an image format their content
 * is not (HTML or SVG renamed .png) are refused with a 400 naming the file. Image-field uploads
 * get their info and thumbnail; other files their image info when they are images.
 */
export async function checkUpload(
  file: string,
  name: string,
  size: number,
  imageField: boolean,
): Promise<{ info: ImageInfo | null; thumb: Thumbnail | null }> {
  if (size === 0) throw badRequest(`"${name}" is empty (0 bytes)`);
  const named = getMimeType(name);
  const claimsImage = named !== undefined && IMAGE_MIMES.has(named);
  if (!imageField && !claimsImage) return { info: null, thumb: null };
  const info = await probeImage(file);
  if (!info) {
    throw badRequest(
      imageField
        ? `"${name}" is not an image this service can read (JPEG, PNG, GIF, WebP or TIFF)`
        : `"${name}" is named as ${withArticle(named ?? '')} image but its content is not one`,
    );
  }
  if (claimsImage && named !== info.mime)
    throw badRequest(`"${name}" is named as ${withArticle(named ?? '')} image but its content is ${info.mime}`);
  if (info.width * info.height > MAX_IMAGE_PIXELS) {
    throw badRequest(`"${name}" is ${info.width}×${info.height} pixels; images over ${MAX_IMAGE_PIXELS / 1e6} megapixels are refused`);
  }
  if (!imageField) return { info, thumb: null };
  try {
    return { info, thumb: await thumbnail(file, info) };
  } catch (e) {
    throw badRequest(`"${name}" is a damaged or incomplete ${info.format.toUpperCase()} image: ${describe(e)}`);
  }
}
