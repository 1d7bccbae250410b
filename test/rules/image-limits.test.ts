// The API's image limits, judged on what the client sends: an image as stored, or as a client that scales every
// history image down and re-encodes it sends it (openclaw 2026.9: 1,200 px a side).
import { describe, expect, it } from "vitest";
import { imageFault, sizeAsSent } from "../../src/rules/trim/image-limits.js";

/** A PNG of `width` × `height` px, as far as its header goes (all image-size reads). */
function png(width: number, height: number): string {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12);
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes[24] = 8;
  bytes[25] = 6;
  return bytes.toString("base64");
}

describe("image limits as sent", () => {
  it("an image over 8,000 px a side is refused as stored, and not once the client scales it to fit 1,200 px", () => {
    const data = png(9000, 300);
    expect(sizeAsSent("image/png", data)).toEqual({ size: { width: 9000, height: 300 } });
    expect(imageFault({ chars: data.length, ...sizeAsSent("image/png", data) }, 1)).toBe("over the API's 8,000 px per side");
    const sent = sizeAsSent("image/png", data, 1200);
    expect(sent).toEqual({ size: { width: 1200, height: 40 }, reencoded: true });
    expect(imageFault({ chars: data.length, ...sent }, 1)).toBeUndefined();
  });

  it("a stored image over 5 MB is refused, and not when the client re-encodes it; a small one keeps its size", () => {
    const big = 6 * 1024 * 1024;
    expect(imageFault({ chars: big }, 1)).toBe("over the API's 5 MB per image");
    expect(imageFault({ chars: big, ...sizeAsSent("image/png", png(800, 600), 1200) }, 1)).toBeUndefined();
    expect(sizeAsSent("image/png", png(800, 600), 1200)).toEqual({ size: { width: 800, height: 600 }, reencoded: true });
    expect(sizeAsSent("application/pdf", "JVBERi0=", 1200)).toEqual({});
  });
});
