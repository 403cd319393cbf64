/**
 * A minimal PDF writer for the demo's documents: one-page A4 PDF 1.4 files
 * with text in the standard Helvetica fonts (which every reader has, so
 * nothing is embedded), filled rectangles and lines. Enough for a report
 * with a bar chart, a price list and a cheat sheet.
 *
 * Text is encoded as WinAnsi (Latin-1 plus typographic dashes and quotes);
 * any other character becomes "?".
 */

export type PdfColor = readonly [number, number, number];

/** Page coordinates in points from the top-left corner (PDF's own origin is bottom-left). */
export class PdfPage {
  private ops: string[] = [];
  readonly width = 595;
  readonly height = 842;

  text(x: number, y: number, size: number, str: string, o: { bold?: boolean; color?: PdfColor } = {}) {
    this.ops.push(
      `BT ${rg(o.color ?? [0.11, 0.1, 0.09])} /${o.bold ? "F2" : "F1"} ${size} Tf ${fmt(x)} ${fmt(this.height - y)} Td ${pdfString(str)} Tj ET`,
    );
    return this;
  }

  rect(x: number, y: number, w: number, h: number, color: PdfColor) {
    this.ops.push(`${rg(color)} ${fmt(x)} ${fmt(this.height - y - h)} ${fmt(w)} ${fmt(h)} re f`);
    return this;
  }

  line(x0: number, y0: number, x1: number, y1: number, width: number, color: PdfColor) {
    this.ops.push(
      `${rg(color, "RG")} ${fmt(width)} w ${fmt(x0)} ${fmt(this.height - y0)} m ${fmt(x1)} ${fmt(this.height - y1)} l S`,
    );
    return this;
  }

  /** Words wrapped to `width` points (Helvetica average widths are close enough for body text); returns the y below the last line. */
  paragraph(
    x: number,
    y: number,
    width: number,
    size: number,
    str: string,
    o: { color?: PdfColor; leading?: number } = {},
  ): number {
    const perLine = Math.max(10, Math.floor(width / (size * 0.5)));
    const lines: string[] = [];
    let cur = "";
    for (const word of str.split(/\s+/)) {
      if (cur && (cur + " " + word).length > perLine) {
        lines.push(cur);
        cur = word;
      } else cur = cur ? `${cur} ${word}` : word;
    }
    if (cur) lines.push(cur);
    const leading = o.leading ?? size * 1.45;
    lines.forEach((l, i) => this.text(x, y + i * leading, size, l, { color: o.color }));
    return y + lines.length * leading;
  }

  content(): string {
    return this.ops.join("\n");
  }
}

const fmt = (n: number) => (Math.round(n * 100) / 100).toString();
const rg = (c: PdfColor, op = "rg") => `${fmt(c[0])} ${fmt(c[1])} ${fmt(c[2])} ${op}`;

/** Characters of WinAnsiEncoding outside Latin-1's printable range, by code point. */
const WIN_ANSI: Record<number, number> = {
  0x2013: 0x96,
  0x2014: 0x97,
  0x2018: 0x91,
  0x2019: 0x92,
  0x201c: 0x93,
  0x201d: 0x94,
  0x2022: 0x95,
  0x2026: 0x85,
  0x20ac: 0x80,
};

/** A PDF literal string, as Latin-1 text in the file (escaped as the syntax requires). */
function pdfString(s: string): string {
  let out = "(";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const b = WIN_ANSI[cp] ?? ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) ? cp : 0x3f);
    if (b === 0x28 || b === 0x29 || b === 0x5c) out += "\\" + String.fromCharCode(b);
    else out += String.fromCharCode(b);
  }
  return out + ")";
}

/** The bytes of a one-page PDF, with a correct cross-reference table. */
export function pdfDocument(title: string, page: PdfPage): Uint8Array {
  const content = page.content();
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width} ${page.height}] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
    // Content is ASCII operators plus Latin-1 strings: one byte per character.
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Title ${pdfString(title)} /Producer (Plinth demo seed) >>`,
  ];
  // A binary comment on line two tells tools the file is not plain text.
  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 7 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  // Every character is one byte (Latin-1), so string offsets are byte offsets.
  return Uint8Array.from(out, (c) => c.charCodeAt(0));
}
