/**
 * The demo's vector files: logos and an icon as SVG (text, sized by their
 * width and height attributes), and three one-page PDFs whose content
 * matches the posts that link to them.
 */
import { PdfPage, pdfDocument, type PdfColor } from "./demo-pdf";

const NAVY = "#1f3a5f";
const TERRACOTTA = "#c8553d";
const CREAM = "#fbf8f3";

/** The anchor, drawn in a 64×64 box with strokes of the given colour. */
const anchorPaths = (color: string) =>
  `<g fill="none" stroke="${color}" stroke-width="4" stroke-linecap="round" stroke-linejoin="round">` +
  `<circle cx="32" cy="15" r="5"/><path d="M32 20v31"/><path d="M22 28h20"/><path d="M14 37c2 9 9 14 18 14s16-5 18-14"/>` +
  `<path d="M10 40l4-4 4 4"/><path d="M46 40l4-4 4 4"/></g>`;

export const SVGS: Record<string, string> = {
  "logo-harbor.svg":
    `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="64" viewBox="0 0 240 64" role="img" aria-label="Harbor Coffee Roasters">` +
    `<circle cx="32" cy="32" r="30" fill="${NAVY}"/><g transform="translate(8 8) scale(.75)">${anchorPaths(CREAM)}</g>` +
    `<text x="74" y="34" font-family="Fraunces, Georgia, 'Times New Roman', serif" font-size="25" font-weight="700" fill="${NAVY}">Harbor Coffee</text>` +
    `<text x="75" y="53" font-family="Inter, 'Helvetica Neue', Arial, sans-serif" font-size="11" font-weight="600" letter-spacing="3.2" fill="${TERRACOTTA}">ROASTERS</text>` +
    `</svg>\n`,
  "logo-harbor-mark.svg":
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="Harbor Coffee">` +
    `<circle cx="32" cy="32" r="32" fill="${NAVY}"/><g transform="translate(6 6) scale(.8125)">${anchorPaths(CREAM)}</g></svg>\n`,
  "icon-pour-over.svg":
    `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48" role="img" aria-label="Pour-over">` +
    `<g fill="none" stroke="${NAVY}" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round">` +
    `<path d="M9 8h30l-10 14h-10z"/><path d="M39 11h3"/><path d="M14 24h20a2 2 0 0 1 2 2v11a5 5 0 0 1-5 5h-14a5 5 0 0 1-5-5v-11a2 2 0 0 1 2-2z"/></g>` +
    `<path d="M15 33h18v4a3 3 0 0 1-3 3h-12a3 3 0 0 1-3-3z" fill="${TERRACOTTA}"/></svg>\n`,
  "northwind-logo.svg":
    `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="48" viewBox="0 0 200 48" role="img" aria-label="Northwind Studio">` +
    `<rect x="2" y="4" width="40" height="40" rx="10" fill="#0f766e"/>` +
    `<path d="M13 34V14l18 20V14" fill="none" stroke="#f0fdfa" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/>` +
    `<text x="52" y="31" font-family="'Space Grotesk', 'IBM Plex Sans', Arial, sans-serif" font-size="19" font-weight="700" fill="#0f172a">Northwind Studio</text>` +
    `</svg>\n`,
};

const INK: PdfColor = [0.11, 0.1, 0.09];
const MUTED: PdfColor = [0.42, 0.4, 0.37];
const NAVY_PDF: PdfColor = [0.12, 0.23, 0.37];
const TERRACOTTA_PDF: PdfColor = [0.78, 0.33, 0.24];
const AMBER_PDF: PdfColor = [0.95, 0.65, 0.25];
const SAND_PDF: PdfColor = [0.96, 0.94, 0.9];
const WHITE: PdfColor = [1, 1, 1];

/** The shared letterhead: a navy band with the company name and the document title. */
function letterhead(title: string, subtitle: string): PdfPage {
  const page = new PdfPage();
  page.rect(0, 0, page.width, 96, NAVY_PDF);
  page.text(48, 40, 11, "HARBOR COFFEE ROASTERS", { bold: true, color: [0.98, 0.97, 0.95] });
  page.text(48, 72, 22, title, { bold: true, color: WHITE });
  page.text(48, 124, 11, subtitle, { color: MUTED });
  page.line(48, 812, page.width - 48, 812, 0.5, [0.8, 0.78, 0.74]);
  page.text(48, 826, 8, "Harbor Coffee Roasters \u2022 The Net Loft, Harbour Road \u2022 hello@harborcoffee.example", {
    color: MUTED,
  });
  return page;
}

function table(page: PdfPage, y: number, widths: number[], header: string[], rows: string[][]): number {
  const x0 = 48;
  const total = widths.reduce((a, b) => a + b, 0);
  page.rect(x0, y, total, 24, SAND_PDF);
  let x = x0;
  header.forEach((h, i) => {
    page.text(x + 8, y + 16, 9.5, h, { bold: true });
    x += widths[i]!;
  });
  y += 24;
  for (const row of rows) {
    x = x0;
    row.forEach((cell, i) => {
      page.text(x + 8, y + 17, 10, cell, { color: i === 0 ? INK : [0.25, 0.24, 0.22] });
      x += widths[i]!;
    });
    page.line(x0, y + 26, x0 + total, y + 26, 0.4, [0.86, 0.84, 0.8]);
    y += 26;
  }
  return y;
}

export const PDFS: Record<string, () => Uint8Array> = {
  "carbon-report-2023.pdf": () => {
    const page = letterhead(
      "Carbon report 2023",
      "Scope 1, 2 and 3 emissions for the roastery, tasting room and deliveries.",
    );
    let y = page.paragraph(
      48,
      160,
      499,
      10.5,
      "We emitted 41.6 tonnes of CO2e in 2023, 0.58 kg for every kilogram of coffee we roasted: down 12% per kilogram on 2022. Most of the saving came from the roaster's afterburner settings and from moving city deliveries to a cargo bike.",
    );
    page.text(48, y + 24, 13, "Emissions by source (tonnes CO2e)", { bold: true });
    const sources: [string, number, PdfColor][] = [
      ["Shipping green coffee", 14.2, NAVY_PDF],
      ["Roasting (natural gas)", 11.8, TERRACOTTA_PDF],
      ["Packaging", 6.1, AMBER_PDF],
      ["Deliveries", 5.3, [0.33, 0.5, 0.29]],
      ["Electricity", 2.6, [0.45, 0.56, 0.66]],
      ["Staff travel", 1.6, [0.6, 0.52, 0.44]],
    ];
    y += 44;
    for (const [label, t, color] of sources) {
      page.text(48, y + 13, 10, label);
      page.rect(190, y + 2, t * 22, 14, color);
      page.text(196 + t * 22, y + 13, 10, t.toFixed(1), { color: MUTED });
      y += 24;
    }
    y = page.paragraph(
      48,
      y + 24,
      499,
      10.5,
      "For 2024 we are trialling an electric sample roaster, switching our retail bags to a mono-material film that can be recycled at the kerbside, and asking importers for shipping data per lot.",
      {},
    );
    page.paragraph(
      48,
      y + 12,
      499,
      10.5,
      "Method: GHG Protocol, market-based scope 2. Shipping from the importers' voyage data; packaging from supplier declarations.",
      { color: MUTED },
    );
    return pdfDocument("Harbor Coffee carbon report 2023", page);
  },
  "wholesale-price-list-2024.pdf": () => {
    const page = letterhead(
      "Wholesale price list 2024",
      "Prices per kilogram, excluding tax, effective 1 January. Free delivery on orders over 10 kg.",
    );
    const y = table(
      page,
      150,
      [200, 100, 100, 99],
      ["Coffee", "1\u20134 kg", "5\u201319 kg", "20 kg and over"],
      [
        ["House Espresso", "$34.00", "$31.50", "$29.00"],
        ["Harbor Breakfast Blend", "$32.00", "$29.50", "$27.00"],
        ["Decaf Colombia (sugarcane)", "$36.00", "$33.50", "$31.00"],
        ["Ethiopia Yirgacheffe Kochere", "$46.00", "$43.00", "$40.00"],
        ["Colombia Huila El Para\u00edso", "$44.00", "$41.00", "$38.50"],
        ["Kenya Nyeri Gatomboya AA", "$52.00", "$48.50", "$45.00"],
        ["Guatemala Huehuetenango", "$42.00", "$39.00", "$36.50"],
        ["Costa Rica Tarraz\u00fa honey", "$44.00", "$41.00", "$38.50"],
      ],
    );
    page.paragraph(
      48,
      y + 30,
      499,
      10.5,
      "Every wholesale account includes barista training for new staff, a grinder calibration visit each quarter and next-day delivery within 20 miles. Ask Luc\u00eda about equipment leasing.",
    );
    return pdfDocument("Harbor Coffee wholesale price list 2024", page);
  },
  "brew-ratio-cheatsheet.pdf": () => {
    const page = letterhead(
      "Brew ratio cheat sheet",
      "Start here, then adjust grind first and ratio second. Weigh everything.",
    );
    const y = table(
      page,
      150,
      [110, 70, 80, 70, 100, 69],
      ["Method", "Coffee", "Water", "Ratio", "Grind", "Time"],
      [
        ["V60", "15 g", "250 g", "1:16.7", "Medium-fine", "2:45"],
        ["Chemex", "30 g", "500 g", "1:16.7", "Medium-coarse", "4:00"],
        ["AeroPress", "17 g", "220 g", "1:13", "Medium-fine", "2:00"],
        ["French press", "30 g", "500 g", "1:16.7", "Coarse", "4:00"],
        ["Espresso", "18 g", "36 g out", "1:2", "Fine", "28 s"],
        ["Cold brew", "100 g", "1 L", "1:10", "Coarse", "16 h"],
      ],
    );
    page.paragraph(
      48,
      y + 30,
      499,
      10.5,
      "Water at 93\u201396 \u00b0C for filter (85 \u00b0C for the AeroPress recipe). Sour and thin: grind finer. Bitter and dry: grind coarser.",
    );
    return pdfDocument("Harbor Coffee brew ratio cheat sheet", page);
  },
};
