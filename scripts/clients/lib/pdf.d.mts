// The types of pdf.mjs.
/** A PDF of `pages` page objects, padded with a comment to `bytes` bytes. */
export function pdfFile(pages: number, bytes?: number): Buffer;
