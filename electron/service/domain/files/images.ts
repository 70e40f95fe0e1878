import sharp from 'sharp';

// The real server's default thumbnail box (ODR's image size "thumbnail": 500×375).
export const THUMBNAIL = { width: 500, height: 375 } as const;

const IMAGE_FORMATS: Record<string, string> = {
  jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', tiff: 'image/tiff',
};

export interface ImageInfo {
  mime: string;
  format: string;
  width: number;
  height: number;
}

/** Decodes the header to tell a real image by content (not by name or declared type). */
export async function probeImage(file: string): Promise<ImageInfo | null> {
  try {
    const m = await sharp(file).metadata();
    const mime = m.format ? IMAGE_FORMATS[m.format] : undefined;
    if (!mime || !m.width || !m.height) return null;
    return { mime, format: m.format!, width: m.width, height: m.height };
  } catch {
    return null;
  }
}

/** The default derivative: fits inside 500×375, never enlarged, PNG/GIF kept lossless. */
export async function thumbnail(file: string, info: ImageInfo): Promise<{ data: Buffer; width: number; height: number; mime: string }> {
  let img = sharp(file, { animated: false }).rotate().resize(THUMBNAIL.width, THUMBNAIL.height, { fit: 'inside', withoutEnlargement: true });
  const lossless = info.format === 'png' || info.format === 'gif';
  img = lossless ? img.png() : img.jpeg({ quality: 85 });
  const { data, info: out } = await img.toBuffer({ resolveWithObject: true });
  return { data, width: out.width, height: out.height, mime: lossless ? 'image/png' : 'image/jpeg' };
}
