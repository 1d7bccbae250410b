/**
 * The API's hard limits on images (reference formats-and-errors.md): a side over 8,000 px, data over 5 MB, and, in a
 * request of more than 20 images, a side over 2,000 px. Sizes come from the image's own header in its base64 data
 * (PNG, JPEG, GIF, WebP…), read by image-size: only the first kilobytes are decoded.
 */
import { imageSize } from "image-size";
import { formatCount } from "../../model/format-count.js";

export const MAX_IMAGE_SIDE = 8_000;
export const MANY_IMAGES = 20;
export const MANY_IMAGES_MAX_SIDE = 2_000;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Enough base64 for any header image-size reads (a JPEG's size may follow tens of kilobytes of EXIF). */
const HEADER_CHARS = 256 * 1024;

export interface Dimensions {
  width: number;
  height: number;
}

/** An image's size from its base64 data or data: URL; none when the header is not one image-size knows. */
export function dimensionsOf(data: string | undefined): Dimensions | undefined {
  if (data === undefined) return undefined;
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1;
  const base64 = data.slice(comma + 1, comma + 1 + HEADER_CHARS);
  try {
    const found = imageSize(Buffer.from(base64, "base64"));
    return found.width !== undefined && found.height !== undefined ? { width: found.width, height: found.height } : undefined;
  } catch {
    return undefined;
  }
}

export interface SentImage {
  chars: number;
  size?: Dimensions;
  /** The client re-encodes it before sending (after scaling it down): its stored bytes are not what the API gets. */
  reencoded?: true;
}

/**
 * An image or document as the API gets it: an image's size from its header; `fitTo`, when the client scales every
 * image to fit that many pixels a side and re-encodes it before sending (openclaw 2026.9), the size it sends.
 */
export function sizeAsSent(mime: string, data: string | undefined, fitTo?: number): { size?: Dimensions; reencoded?: true } {
  const image = mime.startsWith("image/");
  const size = image ? dimensionsOf(data) : undefined;
  const reencoded = image && fitTo !== undefined ? { reencoded: true as const } : {};
  if (!size) return reencoded;
  const scale = fitTo !== undefined ? Math.min(1, fitTo / Math.max(size.width, size.height)) : 1;
  return { size: { width: Math.round(size.width * scale), height: Math.round(size.height * scale) }, ...reencoded };
}

/** Why the API refuses this image in a request of `count` images; none when it accepts it. */
export function imageFault(image: SentImage, count: number): string | undefined {
  const side = image.size ? Math.max(image.size.width, image.size.height) : 0;
  if (image.chars > MAX_IMAGE_BYTES && !image.reencoded) return `over the API's 5 MB per image`;
  if (side > MAX_IMAGE_SIDE) return `over the API's ${formatCount(MAX_IMAGE_SIDE)} px per side`;
  if (count > MANY_IMAGES && side > MANY_IMAGES_MAX_SIDE) return `over ${formatCount(MANY_IMAGES_MAX_SIDE)} px in a request of more than ${MANY_IMAGES} images`;
  return undefined;
}
