const lossy = new TextDecoder("utf-8", { fatal: false });

/** A record's stored bytes as a person reads them: pretty JSON when they parse, else the bytes as far as they decode. */
export function payloadText(bytes: Buffer | undefined): string {
  if (!bytes || bytes.length === 0) return "";
  const text = lossy.decode(bytes);
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return text.endsWith("\n") ? text : `${text}\n`;
  }
}
