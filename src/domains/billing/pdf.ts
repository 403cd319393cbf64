/**
 * An invoice as PDF (A4): seller and client, number, dates, status, the
 * lines, subtotal, tax and total. pdf-lib with the standard Helvetica, for
 * the reasons decks/pdf.ts gives (pure JavaScript, in the binary, no
 * browser); characters the font cannot show become "?".
 */
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { formatMoney, hoursText } from "./money";
import type { invoiceDocument } from "./invoices";

type Doc = Awaited<ReturnType<typeof invoiceDocument>>;

const W = 595.28;
const H = 841.89;
const M = 50;

function safe(font: PDFFont) {
  const set = new Set(font.getCharacterSet());
  return (s: string) =>
    [...s.replace(/[\r\t]/g, " ")]
      .map((ch) => {
        if (ch === "\n" || set.has(ch.codePointAt(0)!)) return ch;
        const base = ch.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
        return base && [...base].every((c) => set.has(c.codePointAt(0)!)) ? base : "?";
      })
      .join("");
}

/** Lines of at most `width` points; long words broken. */
function wrap(font: PDFFont, size: number, text: string, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split("\n")) {
    let line = "";
    for (const word of para.split(/\s+/)) {
      let w = word;
      while (font.widthOfTextAtSize(w, size) > width) {
        let cut = w.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(w.slice(0, cut), size) > width) cut--;
        if (line) out.push(line), (line = "");
        out.push(w.slice(0, cut));
        w = w.slice(cut);
      }
      const next = line ? `${line} ${w}` : w;
      if (font.widthOfTextAtSize(next, size) > width) {
        out.push(line);
        line = w;
      } else line = next;
    }
    out.push(line);
  }
  return out;
}

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : "-");

export async function invoicePdf(doc: Doc): Promise<Uint8Array> {
  const { invoice: inv, lines, settings } = doc;
  const pdf = await PDFDocument.create();
  const title = inv.number ? `Invoice ${inv.number}` : `Draft invoice ${inv.id}`;
  pdf.setTitle(title);
  pdf.setProducer("Plinth");
  pdf.setCreationDate(inv.issuedAt ?? inv.createdAt);
  pdf.setModificationDate(inv.issuedAt ?? inv.createdAt);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const clean = safe(regular);
  const money = (c: number) => clean(formatMoney(c, inv.currency));
  let page: PDFPage = pdf.addPage([W, H]);
  let y = H - M;
  const grey = rgb(0.4, 0.4, 0.45);
  const text = (s: string, x: number, size = 10, font = regular, color = rgb(0.1, 0.1, 0.12)) =>
    page.drawText(clean(s), { x, y, size, font, color });
  const right = (s: string, xRight: number, size = 10, font = regular) =>
    page.drawText(clean(s), { x: xRight - font.widthOfTextAtSize(clean(s), size), y, size, font });
  const ensure = (need: number) => {
    if (y - need < M) {
      page = pdf.addPage([W, H]);
      y = H - M;
    }
  };

  text(title, M, 20, bold);
  right(doc.status.toUpperCase(), W - M, 12, bold);
  y -= 30;
  const col2 = W / 2;
  const startY = y;
  text("From", M, 9, bold, grey);
  y -= 13;
  for (const l of wrap(
    regular,
    10,
    clean([settings.sellerName, settings.sellerDetails].filter(Boolean).join("\n")),
    col2 - M - 10,
  ))
    text(l, M), (y -= 13);
  const leftEnd = y;
  y = startY;
  text("Bill to", col2, 9, bold, grey);
  y -= 13;
  for (const l of wrap(
    regular,
    10,
    clean([doc.company, settings.billingAddress].filter(Boolean).join("\n")),
    W - M - col2,
  ))
    text(l, col2), (y -= 13);
  y = Math.min(y, leftEnd) - 12;
  const facts: [string, string][] = [
    ["Issued", day(inv.issuedAt)],
    ["Due", day(inv.dueAt)],
    ...(inv.periodStart
      ? ([["Period", `${day(inv.periodStart)} to ${day(inv.periodEnd)}`]] as [string, string][])
      : []),
    ...(inv.paidAt ? ([["Paid", day(inv.paidAt)]] as [string, string][]) : []),
  ];
  for (const [k, val] of facts) {
    text(k, M, 10, bold);
    text(val, M + 70);
    y -= 14;
  }
  y -= 12;
  const cQty = 340;
  const cUnit = 440;
  const cAmt = W - M;
  text("Description", M, 9, bold, grey);
  right("Qty", cQty, 9, bold);
  right("Unit price", cUnit, 9, bold);
  right("Amount", cAmt, 9, bold);
  y -= 6;
  page.drawLine({ start: { x: M, y }, end: { x: W - M, y }, thickness: 0.5, color: grey });
  y -= 14;
  for (const l of lines) {
    const desc = wrap(regular, 10, clean(l.description), cQty - M - 60);
    ensure(desc.length * 13 + 6);
    right(l.unit === "minute" ? `${hoursText(l.quantity)} h` : String(l.quantity), cQty);
    right(l.unit === "minute" ? `${money(l.unitAmountCents)}/h` : money(l.unitAmountCents), cUnit);
    right(money(l.amountCents), cAmt);
    for (const d of desc) text(d, M), (y -= 13);
    y -= 4;
  }
  ensure(80);
  page.drawLine({ start: { x: col2, y: y + 6 }, end: { x: W - M, y: y + 6 }, thickness: 0.5, color: grey });
  y -= 8;
  const sum = (k: string, val: string, font = regular) => {
    text(k, col2, 10, font);
    right(val, cAmt, 10, font);
    y -= 15;
  };
  sum("Subtotal", money(inv.subtotalCents));
  if (inv.taxBasisPoints > 0 || inv.taxCents > 0)
    sum(`${inv.taxName ?? "Tax"} (${inv.taxBasisPoints / 100}%)`, money(inv.taxCents));
  sum("Total", money(inv.totalCents), bold);
  if (inv.memo) {
    y -= 10;
    for (const l of wrap(regular, 9, clean(inv.memo), W - 2 * M)) ensure(12), text(l, M, 9, regular, grey), (y -= 12);
  }
  return pdf.save();
}
