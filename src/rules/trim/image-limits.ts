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

/**
 * The Messages API's byte limit (https://docs.claude.com/en/api/overview, "Request size limits": 32 MB, a 413
 * `request_too_large` before the API reads the body). A medium whose data alone is over it can never be sent.
 */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** PDF pages in one request (https://docs.claude.com/en/docs/build-with-claude/pdf-support: 100; 600 on 1M-window models). */
export const MAX_PDF_PAGES = 100;

/** Base64 characters decoded at a time: a PDF of hundreds of megabytes is never decoded whole. */
const PDF_SLICE = 1024 * 1024;
/** A page marker cut by a slice boundary is found in the overlap. */
const PDF_OVERLAP = 32;
const PAGE_MARKER = /\/Type\s*\/Page(?![a-zA-Z])/g;
const pageCounts = new Map<string, number>();

/**
 * The pages of a PDF given as base64 or a data: URL: its page objects (`/Type /Page`, not `/Pages`), counted slice by
 * slice of the decoded bytes, as the loopback mock counts them (scripts/clients/api/messages-rules.mjs pdfPages).
 */
export function pdfPages(data: string | undefined): number {
  if (data === undefined) return 0;
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1;
  // One count per PDF: trim asks each pass, and a PDF's pages do not change between passes. The key is the data's
  // length and ends, not the data (a map holding the data would keep every PDF alive).
  const key = `${data.length}:${data.slice(comma + 1, comma + 65)}:${data.slice(-64)}`;
  const known = pageCounts.get(key);
  if (known !== undefined) return known;
  let pages = 0;
  let carry = "";
  for (let at = comma + 1; at < data.length; at += PDF_SLICE) {
    const last = at + PDF_SLICE >= data.length;
    const chunk = carry + Buffer.from(data.slice(at, at + PDF_SLICE), "base64").toString("latin1");
    const head = chunk.length - PDF_OVERLAP;
    for (const found of chunk.matchAll(PAGE_MARKER)) if (last || found.index < head) pages++;
    carry = chunk.slice(Math.max(0, head));
  }
  if (pageCounts.size > 256) pageCounts.clear();
  pageCounts.set(key, pages);
  return pages;
}

export interface SentDocument {
  mime: string;
  chars: number;
  data?: string;
}

/**
 * Why the API refuses this document (or any medium) whatever else the request holds: its data alone over the request
 * limit, or a PDF over the page limit by itself. None when it could be sent.
 */
export function unsendableFault(medium: SentDocument): string | undefined {
  if (medium.chars > MAX_REQUEST_BYTES) return `over the API's 32 MB request limit by itself`;
  if (medium.mime === "application/pdf") {
    const pages = pdfPages(medium.data);
    if (pages > MAX_PDF_PAGES) return `${formatCount(pages)} pages, over the API's ${MAX_PDF_PAGES} PDF pages per request`;
  }
  return undefined;
}
