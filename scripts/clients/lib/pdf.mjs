// Test documents for the scenarios and the mock's tests.

/**
 * A PDF of `pages` pages (page objects only: what the API's page count and opencode's reader see), padded with a
 * comment to `bytes` bytes: the size of a scanned document without its weight in the repository.
 */
export function pdfFile(pages, bytes = 0) {
  const objects = [`1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj`, `2 0 obj << /Type /Pages /Count ${pages} >> endobj`];
  for (let i = 0; i < pages; i++) objects.push(`${i + 3} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj`);
  const head = `%PDF-1.4\n${objects.join("\n")}\n`;
  const tail = "trailer << /Root 1 0 R >>\n%%EOF\n";
  const pad = Math.max(0, bytes - head.length - tail.length - 2);
  return Buffer.from(`${head}%${"0".repeat(pad)}\n${tail}`, "latin1");
}
