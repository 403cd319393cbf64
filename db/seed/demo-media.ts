/**
 * The demo media library: rows only (URLs under /media/demo/, no files).
 * Several MIME types, pixel sizes for images and videos, none for PDFs, alt
 * text and captions, and creation times spread over months so "newest first"
 * is visible. `hoursAgo` is relative to the seed time.
 */

export interface DemoMedia {
  file: string;
  mimeType: string;
  width: number | null;
  height: number | null;
  alt: string | null;
  caption: string | null;
  sizeBytes: number;
  hoursAgo: number;
}

const jpg = (file: string, alt: string, hoursAgo: number, caption: string | null = null, w = 1600, hgt = 1067): DemoMedia => ({
  file, mimeType: "image/jpeg", width: w, height: hgt, alt, caption, sizeBytes: Math.round((w * hgt) / 5.2), hoursAgo,
});
const webp = (file: string, alt: string, hoursAgo: number, w = 1200, hgt = 1200, caption: string | null = null): DemoMedia => ({
  file, mimeType: "image/webp", width: w, height: hgt, alt, caption, sizeBytes: Math.round((w * hgt) / 9.5), hoursAgo,
});
const png = (file: string, alt: string, hoursAgo: number, w = 1200, hgt = 1200, caption: string | null = null): DemoMedia => ({
  file, mimeType: "image/png", width: w, height: hgt, alt, caption, sizeBytes: Math.round((w * hgt) / 2.1), hoursAgo,
});
const svg = (file: string, alt: string, hoursAgo: number, w: number, hgt: number): DemoMedia => ({
  file, mimeType: "image/svg+xml", width: w, height: hgt, alt, caption: null, sizeBytes: 2800 + w * 4, hoursAgo,
});
const mp4 = (file: string, alt: string, hoursAgo: number, w: number, hgt: number, caption: string | null, sizeBytes: number): DemoMedia => ({
  file, mimeType: "video/mp4", width: w, height: hgt, alt, caption, sizeBytes, hoursAgo,
});
const pdf = (file: string, caption: string, hoursAgo: number, sizeBytes: number): DemoMedia => ({
  file, mimeType: "application/pdf", width: null, height: null, alt: null, caption, sizeBytes, hoursAgo,
});

export const HARBOR_MEDIA: DemoMedia[] = [
  jpg("pour-over-v60.jpg", "Water being poured in a spiral over a V60", 70, "Blooming a V60 at the tasting-room bar."),
  mp4("brew-guide-pour-over.mp4", "Dev brewing a pour-over at the tasting-room bar", 74, 1920, 1080, "Pour-over brew guide, 2 min 10 s.", 48_200_000),
  jpg("pour-over-poster.jpg", "Still of a pour-over in progress", 75, null, 1920, 1080),
  jpg("driftwood-cafe-bar.jpg", "The espresso bar at Driftwood Café with two baristas working", 460, "Driftwood Café on opening week."),
  jpg("farm-kochere-washing-station.jpg", "Fermentation tanks at the Kochere washing station", 380, "Kochere washing station, Yirgacheffe."),
  jpg("green-beans-sacks.jpg", "Jute sacks of green coffee stacked in the warehouse", 390),
  jpg("cupping-table.jpg", "Cupping bowls lined up on a long table", 395, "Saturday public cupping."),
  jpg("cold-brew-jars.jpg", "Mason jars of cold brew steeping in a fridge", 570),
  jpg("espresso-shot.jpg", "Espresso pouring from a bottomless portafilter", 980, null, 1600, 1067),
  pdf("carbon-report-2023.pdf", "Harbor Coffee carbon report, 2023.", 1310, 1_840_000),
  mp4("latte-art-slowmo.mp4", "A heart being poured in latte art, in slow motion", 1630, 1080, 1920, "Vertical, for social.", 21_700_000),
  jpg("latte-art-poster.jpg", "A finished latte art heart", 1632, null, 1080, 1920),
  jpg("latte-art-rosetta.jpg", "A rosetta in a white cup from above", 1640),
  jpg("farm-nyeri-cherries.jpg", "Ripe red coffee cherries on the branch", 1915, "Gatomboya, Nyeri, in November."),
  jpg("saltbox-bakery-counter.jpg", "Pastries and a batch brewer on the Saltbox Bakery counter", 1800),
  jpg("chemex-brew.jpg", "A Chemex brewing on a wooden counter", 2050),
  jpg("aeropress-inverted.jpg", "An AeroPress standing upside down on a scale", 2100),
  mp4("roastery-tour.mp4", "A walk through the new roastery before fit-out", 3600, 1280, 720, "Tour of the ice house.", 96_500_000),
  jpg("hotel-room-coffee.jpg", "A filter bag steeping in a cup on a hotel room tray", 5030),
  webp("bag-ethiopia-kochere.webp", "A 250 g bag of Ethiopia Kochere", 5200),
  webp("bag-house-espresso.webp", "A 250 g bag of House Espresso", 5210),
  webp("bag-breakfast-blend.webp", "A 250 g bag of Harbor Breakfast Blend", 5220),
  webp("bag-colombia-huila.webp", "A 250 g bag of Colombia Huila El Paraíso", 5230),
  png("mug-enamel.png", "White enamel mug with the Harbor Coffee anchor", 5400),
  png("tote-bag.png", "Natural canvas tote printed with the roastery logo", 5410),
  png("tee-sand.png", "Sand-coloured T-shirt with a small anchor on the chest", 5420),
  pdf("wholesale-price-list-2024.pdf", "Wholesale price list, effective January.", 6100, 310_000),
  pdf("brew-ratio-cheatsheet.pdf", "One-page brew ratio cheat sheet.", 6500, 120_000),
  jpg("team-maya-ortiz.jpg", "Maya Ortiz smiling behind the cupping table", 7200, null, 800, 800),
  jpg("team-dev-patel.jpg", "Dev Patel at the roaster controls", 7210, null, 800, 800),
  jpg("team-lucia-santos.jpg", "Lucía Santos training a barista", 7220, null, 800, 800),
  webp("storefront-waterfront.webp", "The Harbor Coffee storefront on the waterfront at dusk", 9000, 1800, 1200, "The net loft, our first home."),
  jpg("hero-roastery-morning.jpg", "Morning light through the roastery windows onto the drum roaster", 9100, null, 2400, 1350),
  png("og-default.png", "Harbor Coffee Roasters logo on a sand background", 9800, 1200, 630),
  svg("logo-harbor.svg", "Harbor Coffee Roasters", 9900, 240, 64),
  svg("logo-harbor-mark.svg", "Harbor Coffee anchor mark", 9901, 64, 64),
  svg("icon-pour-over.svg", "Pour-over icon", 9902, 48, 48),
];

export const NORTHWIND_MEDIA: DemoMedia[] = [
  png("northwind-harbor-case-study.png", "Screenshot of the Harbor Coffee shop on a phone and a laptop", 2000, 2400, 1500),
  png("northwind-tidewater-portal.png", "Screenshot of the Tidewater Co-op member portal", 3800, 2400, 1500),
  svg("northwind-logo.svg", "Northwind Studio", 12000, 200, 48),
  jpg("northwind-studio-loft.jpg", "The Northwind team at a long table in the sail loft", 12500),
];
