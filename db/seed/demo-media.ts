/**
 * The demo media library: each item is a real file the seed generates
 * (demo-files.ts: pictures painted in demo-art.ts, videos, PDFs, SVGs) and
 * stores like an upload. Several MIME types, pixel sizes for images and
 * videos (the generated files' own), none for PDFs, alt text and captions,
 * and creation times spread over months so "newest first" is visible.
 * `hoursAgo` is relative to the seed time.
 *
 * Content elsewhere in the seed refers to these files as `/media/demo/<file>`
 * (see M() in demo-blocks.ts); the seed replaces that with the stored URL.
 */

export interface DemoMedia {
  file: string;
  mimeType: "image/jpeg" | "image/png" | "image/svg+xml" | "video/mp4" | "application/pdf";
  width: number | null;
  height: number | null;
  alt: string | null;
  caption: string | null;
  hoursAgo: number;
}

// Photographs are 600×400 (3:2) unless given; like uploads, anything larger than 400 px gets a 400 px thumbnail file.
const jpg = (
  file: string,
  alt: string,
  hoursAgo: number,
  caption: string | null = null,
  w = 600,
  hgt = 400,
): DemoMedia => ({
  file,
  mimeType: "image/jpeg",
  width: w,
  height: hgt,
  alt,
  caption,
  hoursAgo,
});
const png = (
  file: string,
  alt: string,
  hoursAgo: number,
  w = 480,
  hgt = 480,
  caption: string | null = null,
): DemoMedia => ({
  file,
  mimeType: "image/png",
  width: w,
  height: hgt,
  alt,
  caption,
  hoursAgo,
});
const svg = (file: string, alt: string, hoursAgo: number, w: number, hgt: number): DemoMedia => ({
  file,
  mimeType: "image/svg+xml",
  width: w,
  height: hgt,
  alt,
  caption: null,
  hoursAgo,
});
const mp4 = (
  file: string,
  alt: string,
  hoursAgo: number,
  w: number,
  hgt: number,
  caption: string | null,
): DemoMedia => ({
  file,
  mimeType: "video/mp4",
  width: w,
  height: hgt,
  alt,
  caption,
  hoursAgo,
});
const pdf = (file: string, caption: string, hoursAgo: number): DemoMedia => ({
  file,
  mimeType: "application/pdf",
  width: null,
  height: null,
  alt: null,
  caption,
  hoursAgo,
});

export const HARBOR_MEDIA: DemoMedia[] = [
  jpg("pour-over-v60.jpg", "Water being poured in a spiral over a V60", 70, "Blooming a V60 at the tasting-room bar."),
  mp4(
    "brew-guide-pour-over.mp4",
    "A pour-over brewing at the tasting-room bar",
    74,
    320,
    180,
    "Pour-over brew guide, a four-second clip.",
  ),
  jpg("pour-over-poster.jpg", "Still of a pour-over in progress", 75, null, 400, 225),
  jpg(
    "driftwood-cafe-bar.jpg",
    "The espresso bar at Driftwood Café with two baristas working",
    460,
    "Driftwood Café on opening week.",
  ),
  jpg(
    "farm-kochere-washing-station.jpg",
    "Fermentation tanks at the Kochere washing station",
    380,
    "Kochere washing station, Yirgacheffe.",
  ),
  jpg("green-beans-sacks.jpg", "Jute sacks of green coffee stacked in the warehouse", 390),
  jpg("cupping-table.jpg", "Cupping bowls lined up on a long table", 395, "Saturday public cupping."),
  jpg("cold-brew-jars.jpg", "Mason jars of cold brew steeping in a fridge", 570),
  jpg("espresso-shot.jpg", "Espresso pouring from a bottomless portafilter", 980),
  pdf("carbon-report-2023.pdf", "Harbor Coffee carbon report, 2023.", 1310),
  mp4("latte-art-slowmo.mp4", "A latte art heart sliding into view", 1630, 180, 320, "Vertical, for social."),
  jpg("latte-art-poster.jpg", "A finished latte art heart", 1632, null, 225, 400),
  jpg("latte-art-rosetta.jpg", "A rosetta in a white cup from above", 1640),
  jpg("farm-nyeri-cherries.jpg", "Ripe red coffee cherries on the branch", 1915, "Gatomboya, Nyeri, in November."),
  jpg("saltbox-bakery-counter.jpg", "Pastries and a batch brewer on the Saltbox Bakery counter", 1800),
  jpg("chemex-brew.jpg", "A Chemex brewing on a wooden counter", 2050),
  jpg("aeropress-inverted.jpg", "An AeroPress standing upside down on a scale", 2100),
  mp4("roastery-tour.mp4", "A pan across the new roastery before fit-out", 3600, 320, 180, "Tour of the ice house."),
  jpg("hotel-room-coffee.jpg", "A filter bag steeping in a cup on a hotel room tray", 5030),
  png("bag-ethiopia-kochere.png", "A 250 g bag of Ethiopia Kochere", 5200),
  png("bag-house-espresso.png", "A 250 g bag of House Espresso", 5210),
  png("bag-breakfast-blend.png", "A 250 g bag of Harbor Breakfast Blend", 5220),
  png("bag-colombia-huila.png", "A 250 g bag of Colombia Huila El Paraíso", 5230),
  png("mug-enamel.png", "White enamel mug with the Harbor Coffee anchor", 5400),
  png("tote-bag.png", "Natural canvas tote printed with the roastery logo", 5410),
  png("tee-sand.png", "Sand-coloured T-shirt with a small anchor on the chest", 5420),
  png("tee-navy.png", "Navy T-shirt with a small cream anchor on the chest", 5425),
  pdf("wholesale-price-list-2024.pdf", "Wholesale price list, effective January.", 6100),
  pdf("brew-ratio-cheatsheet.pdf", "One-page brew ratio cheat sheet.", 6500),
  jpg("team-maya-ortiz.jpg", "Portrait of Maya Ortiz", 7200, null, 400, 400),
  jpg("team-dev-patel.jpg", "Portrait of Dev Patel", 7210, null, 400, 400),
  jpg("team-lucia-santos.jpg", "Portrait of Lucía Santos", 7220, null, 400, 400),
  jpg(
    "storefront-waterfront.jpg",
    "The Harbor Coffee storefront on the waterfront at dusk",
    9000,
    "The net loft, our first home.",
  ),
  jpg(
    "hero-roastery-morning.jpg",
    "Morning light through the roastery windows onto the drum roaster",
    9100,
    null,
    960,
    540,
  ),
  png("og-default.png", "Harbor Coffee Roasters logo on a sand background", 9800, 1200, 630),
  svg("logo-harbor.svg", "Harbor Coffee Roasters", 9900, 240, 64),
  svg("logo-harbor-mark.svg", "Harbor Coffee anchor mark", 9901, 64, 64),
  svg("icon-pour-over.svg", "Pour-over icon", 9902, 48, 48),
];

export const NORTHWIND_MEDIA: DemoMedia[] = [
  png("northwind-harbor-case-study.png", "The Harbor Coffee shop on a laptop and a phone", 2000, 960, 600),
  png("northwind-tidewater-portal.png", "The Tidewater Co-op member portal in a browser window", 3800, 960, 600),
  svg("northwind-logo.svg", "Northwind Studio", 12000, 200, 48),
  jpg("northwind-studio-loft.jpg", "The Northwind team at a long table in the sail loft", 12500),
  // Team photos for the pitch deck's team slide (decks' demo).
  jpg("northwind-priya-shah.jpg", "Portrait of Priya Shah", 12600, null, 400, 400),
  jpg("northwind-leo-martin.jpg", "Portrait of Leo Martin", 12610, null, 400, 400),
  jpg("northwind-sam-rivera.jpg", "Portrait of Sam Rivera", 12620, null, 400, 400),
];
