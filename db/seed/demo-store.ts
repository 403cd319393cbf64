/**
 * Harbor Coffee's store: a three-level product category tree (with inactive
 * branches), coffees with size and grind options, equipment, merch and gift
 * cards; some variants inactive, bulk pricing of both kinds, draft and
 * inactive products, uncategorised products. Money is integer cents.
 */

export interface DemoProductCategory {
  slug: string;
  name: string;
  parent: string | null;
  description: string | null;
  image: string | null;
  order: number;
  active: boolean;
}

export const PRODUCT_CATEGORIES: DemoProductCategory[] = [
  {
    slug: "coffee",
    name: "Coffee",
    parent: null,
    description: "Roasted every Tuesday and Friday.",
    image: "/media/demo/bag-house-espresso.png",
    order: 1,
    active: true,
  },
  {
    slug: "single-origin",
    name: "Single origin",
    parent: "coffee",
    description: "One farm or washing station per bag.",
    image: "/media/demo/bag-ethiopia-kochere.png",
    order: 1,
    active: true,
  },
  {
    slug: "africa",
    name: "Africa",
    parent: "single-origin",
    description: "Ethiopia, Kenya, Rwanda.",
    image: null,
    order: 1,
    active: true,
  },
  {
    slug: "latin-america",
    name: "Latin America",
    parent: "single-origin",
    description: "Colombia, Guatemala, Costa Rica, Brazil.",
    image: null,
    order: 2,
    active: true,
  },
  {
    slug: "asia-pacific",
    name: "Asia & Pacific",
    parent: "single-origin",
    description: "Back next season.",
    image: null,
    order: 3,
    active: false,
  },
  {
    slug: "blends",
    name: "Blends",
    parent: "coffee",
    description: "Consistent, all year round.",
    image: "/media/demo/bag-breakfast-blend.png",
    order: 2,
    active: true,
  },
  {
    slug: "espresso",
    name: "Espresso",
    parent: "coffee",
    description: "Roasted for espresso and milk.",
    image: null,
    order: 3,
    active: true,
  },
  {
    slug: "decaf",
    name: "Decaf",
    parent: "coffee",
    description: "Swiss Water process, no solvents.",
    image: null,
    order: 4,
    active: true,
  },
  {
    slug: "brewing-equipment",
    name: "Brewing equipment",
    parent: null,
    description: "What we use behind the bar.",
    image: null,
    order: 2,
    active: true,
  },
  {
    slug: "grinders",
    name: "Grinders",
    parent: "brewing-equipment",
    description: null,
    image: null,
    order: 1,
    active: true,
  },
  {
    slug: "brewers",
    name: "Brewers",
    parent: "brewing-equipment",
    description: null,
    image: null,
    order: 2,
    active: true,
  },
  {
    slug: "kettles-scales",
    name: "Kettles & scales",
    parent: "brewing-equipment",
    description: null,
    image: null,
    order: 3,
    active: true,
  },
  {
    slug: "filters",
    name: "Filters",
    parent: "brewing-equipment",
    description: null,
    image: null,
    order: 4,
    active: true,
  },
  {
    slug: "merch",
    name: "Merch",
    parent: null,
    description: "Mugs, bags and shirts.",
    image: "/media/demo/mug-enamel.png",
    order: 3,
    active: true,
  },
  {
    slug: "seasonal",
    name: "Seasonal",
    parent: null,
    description: "Limited releases.",
    image: null,
    order: 4,
    active: false,
  },
  {
    slug: "holiday-2023",
    name: "Holiday 2023",
    parent: "seasonal",
    description: null,
    image: null,
    order: 1,
    active: false,
  },
];

export interface DemoOption {
  name: string;
  values: [value: string, label: string | null][];
}

export interface DemoBulkRule {
  /** Option values of the variant the rule is for (in option order); omitted = whole product. */
  variant?: string[];
  min: number;
  max: number | null;
  type: "fixed" | "percent_off";
  /** fixed: cents per unit; percent_off: basis points. */
  amount: number;
}

export interface DemoProduct {
  slug: string;
  name: string;
  category: string | null;
  status: "active" | "inactive" | "draft";
  featured?: boolean;
  designable?: boolean;
  price: number;
  compareAtPrice?: number;
  costPrice?: number;
  sku: string;
  barcode?: string;
  shortDescription: string;
  /** Trusted HTML (the spec's ProductDetail.description is HTML). */
  description: string;
  trackInventory?: boolean;
  quantity?: number;
  weight?: string;
  weightUnit?: string;
  dims?: [length: number, width: number, height: number];
  tags: string[];
  metadata?: unknown;
  seoTitle?: string;
  seoDescription?: string;
  images: [url: string, alt: string | null][];
  options?: DemoOption[];
  /** Price of the variant with these option values; defaults to `price`. */
  variantPrice?: (values: string[]) => number;
  /** Picture of the variant with these option values (a demo media reference); none by default. */
  variantImage?: (values: string[]) => string;
  /** Variants (by option values, joined with "/") that exist but are switched off. */
  inactiveVariants?: string[];
  bulk?: DemoBulkRule[];
  createdDaysAgo: number;
}

const img = (file: string) => `/media/demo/${file}`;
const SIZE: DemoOption = {
  name: "Size",
  values: [
    ["250g", "250 g"],
    ["1kg", "1 kg"],
  ],
};
const GRIND: DemoOption = {
  name: "Grind",
  values: [
    ["whole-bean", "Whole bean"],
    ["espresso", "Espresso"],
    ["filter", "Filter"],
  ],
};
/** A kilo bag costs a little over three 250 g bags, rounded to 50 cents. */
const coffeePrice = (base: number) => (values: string[]) =>
  values[0] === "1kg" ? Math.round((base * 3.2) / 50) * 50 : base;

function coffee(
  slug: string,
  name: string,
  category: string,
  price: number,
  notes: string[],
  origin: Record<string, unknown>,
  extra: Partial<DemoProduct> & { createdDaysAgo: number },
): DemoProduct {
  return {
    slug,
    name,
    category,
    status: "active",
    price,
    sku: slug
      .split("-")
      .map((w) => w.slice(0, 3).toUpperCase())
      .join("-")
      .slice(0, 15),
    shortDescription: `${notes.join(", ")}.`,
    description: `<p>${name}: ${notes.join(", ").toLowerCase()}.</p><ul>${Object.entries(origin)
      .map(([k, v]) => `<li><strong>${k}</strong>: ${Array.isArray(v) ? v.join(", ") : v}</li>`)
      .join("")}</ul>`,
    weight: "250",
    weightUnit: "g",
    tags: ["coffee", ...notes.map((n) => n.toLowerCase())],
    metadata: { tastingNotes: notes, origin, roastDays: ["Tuesday", "Friday"] },
    images: [],
    options: [SIZE, GRIND],
    variantPrice: coffeePrice(price),
    ...extra,
  };
}

export const PRODUCTS: DemoProduct[] = [
  coffee(
    "ethiopia-yirgacheffe-kochere",
    "Ethiopia Yirgacheffe Kochere",
    "africa",
    1950,
    ["Blueberry", "Jasmine", "Black tea"],
    {
      country: "Ethiopia",
      region: "Yirgacheffe, Gedeo",
      producer: "Kochere washing station",
      altitude: "1,900–2,100 m",
      process: "Washed",
      varieties: ["Heirloom"],
    },
    {
      featured: true,
      images: [
        [img("bag-ethiopia-kochere.png"), "A 250 g bag of Ethiopia Kochere"],
        [img("farm-kochere-washing-station.jpg"), "The Kochere washing station"],
      ],
      inactiveVariants: ["1kg/filter"],
      createdDaysAgo: 40,
      seoTitle: "Ethiopia Yirgacheffe Kochere, washed | Harbor Coffee",
    },
  ),
  coffee(
    "kenya-nyeri-gatomboya",
    "Kenya Nyeri Gatomboya AA",
    "africa",
    2100,
    ["Blackcurrant", "Grapefruit", "Cane sugar"],
    {
      country: "Kenya",
      region: "Nyeri",
      producer: "Gatomboya cooperative",
      altitude: "1,800 m",
      process: "Washed",
      varieties: ["SL28", "SL34"],
    },
    {
      compareAtPrice: 2400,
      images: [[img("farm-nyeri-cherries.jpg"), "Ripe coffee cherries at Gatomboya"]],
      createdDaysAgo: 80,
    },
  ),
  coffee(
    "rwanda-huye-mountain",
    "Rwanda Huye Mountain",
    "africa",
    1850,
    ["Red apple", "Caramel", "Orange zest"],
    {
      country: "Rwanda",
      region: "Huye",
      producer: "Huye Mountain",
      altitude: "1,900 m",
      process: "Washed",
      varieties: ["Red Bourbon"],
    },
    { images: [[img("green-beans-sacks.jpg"), "Green coffee sacks"]], createdDaysAgo: 130 },
  ),
  coffee(
    "colombia-huila-el-paraiso",
    "Colombia Huila El Paraíso",
    "latin-america",
    1800,
    ["Milk chocolate", "Red grape", "Panela"],
    {
      country: "Colombia",
      region: "Huila",
      producer: "Finca El Paraíso",
      altitude: "1,750 m",
      process: "Washed",
      varieties: ["Caturra", "Castillo"],
    },
    { featured: true, images: [[img("bag-colombia-huila.png"), "A 250 g bag of Colombia Huila"]], createdDaysAgo: 200 },
  ),
  coffee(
    "guatemala-huehuetenango-la-esperanza",
    "Guatemala Huehuetenango La Esperanza",
    "latin-america",
    1900,
    ["Toffee", "Plum", "Cocoa"],
    {
      country: "Guatemala",
      region: "Huehuetenango",
      producer: "La Esperanza",
      altitude: "1,650 m",
      process: "Washed",
      varieties: ["Bourbon", "Caturra"],
    },
    { images: [], createdDaysAgo: 95 },
  ),
  coffee(
    "costa-rica-tarrazu-honey",
    "Costa Rica Tarrazú Honey",
    "latin-america",
    1700,
    ["Honey", "Peach", "Almond"],
    {
      country: "Costa Rica",
      region: "Tarrazú",
      producer: "Micro-mill Las Lajas",
      altitude: "1,500 m",
      process: "Yellow honey",
      varieties: ["Catuaí"],
    },
    { compareAtPrice: 2000, images: [[img("cupping-table.jpg"), "Cupping the Tarrazú"]], createdDaysAgo: 60 },
  ),
  coffee(
    "brazil-cerrado-natural",
    "Brazil Cerrado Natural",
    "latin-america",
    1500,
    ["Hazelnut", "Dark chocolate", "Dried fig"],
    {
      country: "Brazil",
      region: "Cerrado Mineiro",
      producer: "Fazenda Santa Lúcia",
      altitude: "1,150 m",
      process: "Natural",
      varieties: ["Yellow Catuaí"],
    },
    { images: [], inactiveVariants: ["1kg/espresso", "1kg/filter"], createdDaysAgo: 300 },
  ),
  coffee(
    "house-espresso",
    "House Espresso",
    "espresso",
    1600,
    ["Chocolate", "Cherry", "Brown sugar"],
    { blend: "Brazil Cerrado 60%, Colombia Huila 40%", roast: "Medium" },
    {
      featured: true,
      barcode: "5060123450017",
      images: [
        [img("bag-house-espresso.png"), "A 250 g bag of House Espresso"],
        [img("espresso-shot.jpg"), "House Espresso pouring"],
      ],
      bulk: [
        { min: 3, max: 5, type: "fixed", amount: 1500 },
        { min: 6, max: null, type: "percent_off", amount: 1000 },
        { variant: ["1kg", "whole-bean"], min: 4, max: null, type: "fixed", amount: 4600 },
      ],
      createdDaysAgo: 400,
    },
  ),
  coffee(
    "night-shift-espresso",
    "Night Shift Espresso",
    "espresso",
    1650,
    ["Dark chocolate", "Molasses", "Smoke"],
    { blend: "Sumatra 50%, Brazil 50%", roast: "Medium-dark" },
    { images: [], createdDaysAgo: 250 },
  ),
  coffee(
    "harbor-breakfast-blend",
    "Harbor Breakfast Blend",
    "blends",
    1450,
    ["Milk chocolate", "Toasted nuts", "Caramel"],
    { blend: "Colombia 60%, Brazil 40%", roast: "Medium" },
    {
      featured: true,
      images: [[img("bag-breakfast-blend.png"), "A 250 g bag of Harbor Breakfast Blend"]],
      bulk: [{ min: 10, max: null, type: "percent_off", amount: 1500 }],
      createdDaysAgo: 390,
    },
  ),
  coffee(
    "lighthouse-dark-roast",
    "Lighthouse Dark Roast",
    "blends",
    1450,
    ["Bittersweet chocolate", "Cedar"],
    { blend: "Brazil 70%, Guatemala 30%", roast: "Dark" },
    { images: [], createdDaysAgo: 380 },
  ),
  coffee(
    "swiss-water-decaf-colombia",
    "Swiss Water Decaf Colombia",
    "decaf",
    1700,
    ["Cocoa", "Red apple", "Brown sugar"],
    { country: "Colombia", region: "Cauca", process: "Washed, Swiss Water decaffeinated", varieties: ["Castillo"] },
    { images: [], createdDaysAgo: 190 },
  ),
  coffee(
    "panama-geisha-lot-7",
    "Panama Geisha Lot 7",
    "latin-america",
    4200,
    ["Bergamot", "Jasmine", "Peach"],
    {
      country: "Panama",
      region: "Boquete",
      producer: "Finca Lérida",
      altitude: "1,700 m",
      process: "Washed",
      varieties: ["Geisha"],
    },
    { status: "draft", images: [], createdDaysAgo: 2 },
  ),
  coffee(
    "holiday-blend-2023",
    "Holiday Blend 2023",
    "holiday-2023",
    1600,
    ["Cinnamon", "Orange", "Chocolate"],
    { blend: "Ethiopia 50%, Colombia 50%" },
    { status: "inactive", images: [], createdDaysAgo: 330 },
  ),
  {
    slug: "cold-brew-concentrate",
    name: "Cold Brew Concentrate",
    category: "coffee",
    status: "active",
    price: 1200,
    sku: "CB-CONC",
    shortDescription: "500 ml of concentrate; makes eight drinks.",
    description: "<p>Steeped for 16 hours from our Breakfast Blend. Dilute 1:1 with water or milk.</p>",
    trackInventory: true,
    quantity: 48,
    weight: "0.6",
    weightUnit: "kg",
    tags: ["cold-brew", "ready-to-drink"],
    metadata: { keepRefrigerated: true, shelfLifeDays: 21 },
    images: [[img("cold-brew-jars.jpg"), "Cold brew concentrate in a bottle"]],
    options: [
      {
        name: "Pack",
        values: [
          ["single", "Single bottle"],
          ["four-pack", "Four bottles"],
        ],
      },
    ],
    variantPrice: (v) => (v[0] === "four-pack" ? 4200 : 1200),
    createdDaysAgo: 35,
  },
  {
    slug: "hario-v60-02-dripper",
    name: "Hario V60 02 Dripper",
    category: "brewers",
    status: "active",
    price: 2400,
    sku: "HAR-V60-02",
    shortDescription: "The cone dripper we use at the bar.",
    description: "<p>Spiral ribs and a single large hole let you control flow with your pour.</p>",
    dims: [5.3, 4.6, 3.2],
    weight: "0.4",
    weightUnit: "kg",
    tags: ["pour-over", "brewer"],
    images: [[img("pour-over-v60.jpg"), "A V60 on a carafe"]],
    options: [
      {
        name: "Material",
        values: [
          ["plastic", "Plastic"],
          ["ceramic", "Ceramic"],
          ["glass", "Glass"],
        ],
      },
    ],
    variantPrice: (v) => ({ plastic: 1200, ceramic: 2400, glass: 2200 })[v[0]!]!,
    inactiveVariants: ["glass"],
    createdDaysAgo: 500,
  },
  {
    slug: "chemex-six-cup",
    name: "Chemex Six Cup",
    category: "brewers",
    status: "active",
    price: 4900,
    sku: "CHX-6",
    shortDescription: "Glass pour-over brewer with a wooden collar.",
    description: "<p>Thick bonded filters give a very clean cup. Brews up to 900 ml.</p>",
    dims: [5.1, 5.1, 9.1],
    tags: ["pour-over", "brewer"],
    images: [[img("chemex-brew.jpg"), "A Chemex brewing on a wooden counter"]],
    createdDaysAgo: 480,
  },
  {
    slug: "aeropress-original",
    name: "AeroPress Original",
    category: "brewers",
    status: "active",
    featured: true,
    price: 3995,
    sku: "AERO-ORIG",
    barcode: "0085276080018",
    shortDescription: "Fast, forgiving and nearly unbreakable.",
    description: "<p>Brews a clean, full-bodied cup in two minutes. Includes 350 paper filters.</p>",
    tags: ["aeropress", "brewer", "travel"],
    images: [[img("aeropress-inverted.jpg"), "An AeroPress on a scale"]],
    createdDaysAgo: 470,
  },
  {
    slug: "baratza-encore-esp",
    name: "Baratza Encore ESP",
    category: "grinders",
    status: "active",
    price: 19995,
    costPrice: 13200,
    sku: "BAR-ENC-ESP",
    shortDescription: "An entry-level burr grinder that can also do espresso.",
    description: "<p>40 mm conical burrs and a dual-range dial: fine steps for espresso, wide ones for filter.</p>",
    trackInventory: true,
    quantity: 7,
    weight: "3.2",
    weightUnit: "kg",
    dims: [5.1, 6.3, 13.8],
    tags: ["grinder", "electric"],
    metadata: { warrantyYears: 1, burrSizeMm: 40 },
    images: [],
    createdDaysAgo: 150,
  },
  {
    slug: "comandante-c40",
    name: "Comandante C40 MK4",
    category: "grinders",
    status: "active",
    price: 28500,
    compareAtPrice: 31000,
    sku: "COM-C40",
    shortDescription: "The hand grinder to beat.",
    description: "<p>Nitrogen-steel burrs, excellent for light-roast filter and espresso alike.</p>",
    tags: ["grinder", "manual"],
    images: [],
    createdDaysAgo: 140,
  },
  {
    slug: "fellow-stagg-ekg",
    name: "Fellow Stagg EKG Kettle",
    category: "kettles-scales",
    status: "active",
    price: 16500,
    sku: "FEL-EKG",
    shortDescription: "Variable-temperature gooseneck kettle.",
    description: "<p>Holds temperature to the degree, with a hold mode and a brew timer.</p>",
    tags: ["kettle"],
    images: [],
    options: [
      {
        name: "Colour",
        values: [
          ["matte-black", "Matte black"],
          ["polished-steel", "Polished steel"],
          ["white", null],
        ],
      },
    ],
    variantPrice: (v) => (v[0] === "polished-steel" ? 19500 : 16500),
    createdDaysAgo: 160,
  },
  {
    slug: "acaia-pearl-scale",
    name: "Acaia Pearl Scale",
    category: "kettles-scales",
    status: "inactive",
    price: 14900,
    sku: "ACA-PEARL",
    shortDescription: "Discontinued; replaced by the Pearl S.",
    description: "<p>0.1 g resolution with a built-in timer.</p>",
    tags: ["scale"],
    images: [],
    createdDaysAgo: 600,
  },
  {
    slug: "v60-paper-filters-100",
    name: "V60 Paper Filters (100)",
    category: "filters",
    status: "active",
    price: 795,
    sku: "HAR-VCF-02",
    shortDescription: "Tabbed white filters for the 02 dripper.",
    description: "<p>Rinse before brewing. Pack of 100.</p>",
    tags: ["filters", "pour-over"],
    images: [],
    bulk: [
      { min: 5, max: 9, type: "percent_off", amount: 1000 },
      { min: 10, max: null, type: "percent_off", amount: 2000 },
    ],
    createdDaysAgo: 500,
  },
  {
    slug: "chemex-bonded-filters",
    name: "Chemex Bonded Filters (100)",
    category: "filters",
    status: "active",
    price: 1195,
    sku: "CHX-FS100",
    shortDescription: "Pre-folded square filters.",
    description: "<p>Fits six, eight and ten cup Chemex brewers.</p>",
    tags: ["filters"],
    images: [],
    createdDaysAgo: 470,
  },
  {
    slug: "harbor-enamel-mug",
    name: "Harbor Enamel Mug",
    category: "merch",
    status: "active",
    price: 1800,
    sku: "MRC-MUG",
    shortDescription: "12 oz enamel mug with our anchor.",
    description: "<p>Steel with a white enamel finish. Hand wash.</p>",
    tags: ["merch", "gift"],
    images: [
      [img("mug-enamel.png"), "White enamel mug"],
      [img("logo-harbor-mark.svg"), null],
    ],
    createdDaysAgo: 220,
  },
  {
    slug: "roastery-tote-bag",
    name: "Roastery Tote Bag",
    category: "merch",
    status: "active",
    price: 1500,
    sku: "MRC-TOTE",
    shortDescription: "Heavy canvas; fits four bags of coffee.",
    description: "<p>Organic cotton canvas, printed locally.</p>",
    tags: ["merch", "gift"],
    images: [[img("tote-bag.png"), "Canvas tote bag"]],
    createdDaysAgo: 215,
  },
  {
    slug: "harbor-logo-tee",
    name: "Harbor Logo T-shirt",
    category: "merch",
    status: "active",
    designable: true,
    price: 2800,
    sku: "MRC-TEE",
    shortDescription: "Organic cotton tee with a small anchor on the chest.",
    description: "<p>Relaxed fit. Sand or navy.</p>",
    tags: ["merch", "apparel"],
    images: [
      [img("tee-sand.png"), "Sand T-shirt"],
      [img("tee-navy.png"), "Navy T-shirt"],
    ],
    options: [
      {
        name: "Size",
        values: [
          ["s", "S"],
          ["m", "M"],
          ["l", "L"],
          ["xl", "XL"],
        ],
      },
      {
        name: "Colour",
        values: [
          ["sand", "Sand"],
          ["navy", "Navy"],
        ],
      },
    ],
    variantPrice: (v) => (v[0] === "xl" ? 3000 : 2800),
    variantImage: (v) => img(v[1] === "navy" ? "tee-navy.png" : "tee-sand.png"),
    inactiveVariants: ["xl/sand", "s/navy"],
    createdDaysAgo: 210,
  },
  {
    slug: "gift-card",
    name: "Harbor Coffee Gift Card",
    category: null,
    status: "active",
    price: 2500,
    sku: "GIFT",
    shortDescription: "Sent by email; never expires.",
    description: "<p>Redeemable on coffee, equipment and subscriptions.</p>",
    tags: ["gift"],
    images: [],
    options: [
      {
        name: "Amount",
        values: [
          ["25", "$25"],
          ["50", "$50"],
          ["100", "$100"],
        ],
      },
    ],
    variantPrice: (v) => Number(v[0]) * 100,
    createdDaysAgo: 365,
  },
  {
    slug: "tasting-flight",
    name: "Tasting Flight: four 60 g samples",
    category: null,
    status: "active",
    featured: true,
    price: 2200,
    sku: "FLIGHT-4",
    shortDescription: "Four current single origins side by side.",
    description: "<p>A card with brew notes for each. The best way to find your favourite.</p>",
    tags: ["coffee", "gift", "sampler"],
    images: [[img("cupping-table.jpg"), "Four small bags on a cupping table"]],
    createdDaysAgo: 25,
  },
  {
    slug: "wholesale-house-espresso-5kg",
    name: "House Espresso, 5 kg wholesale bag",
    category: "espresso",
    status: "draft",
    price: 9500,
    sku: "WHS-HE-5KG",
    shortDescription: "Trade only.",
    description: "<p>For wholesale accounts.</p>",
    tags: ["wholesale"],
    images: [],
    createdDaysAgo: 5,
  },
];

// ---------------------------------------------------------------------------
// Customers, discounts, orders, reviews, messages (the store site's admin data)

export const CUSTOMERS: { email: string; name: string; phone: string | null; daysAgo: number }[] = [
  { email: "priya.nair@example.com", name: "Priya Nair", phone: "+1 555 0101", daysAgo: 600 },
  { email: "tom.becker@example.com", name: "Tom Becker", phone: null, daysAgo: 300 },
  { email: "aisha@driftwoodcafe.example", name: "Aisha Rahman", phone: "+1 555 0177", daysAgo: 200 },
  { email: "j.okafor@example.com", name: "James Okafor", phone: null, daysAgo: 45 },
  { email: "lena.voss@example.com", name: "Lena Voss", phone: "+1 555 0190", daysAgo: 8 },
];

export const DISCOUNTS: {
  code: string;
  kind: "percent" | "fixed";
  amount: number;
  minSubtotal: number | null;
  startsDaysAgo: number | null;
  endsDaysAgo: number | null;
  usageLimit: number | null;
  usedCount: number;
  active: boolean;
}[] = [
  {
    code: "WELCOME10",
    kind: "percent",
    amount: 1000,
    minSubtotal: null,
    startsDaysAgo: 400,
    endsDaysAgo: null,
    usageLimit: null,
    usedCount: 2,
    active: true,
  },
  {
    code: "HARBOR5",
    kind: "fixed",
    amount: 500,
    minSubtotal: 3000,
    startsDaysAgo: 60,
    endsDaysAgo: -30,
    usageLimit: 200,
    usedCount: 1,
    active: true,
  },
  {
    code: "SUMMER23",
    kind: "percent",
    amount: 1500,
    minSubtotal: null,
    startsDaysAgo: 420,
    endsDaysAgo: 330,
    usageLimit: 100,
    usedCount: 37,
    active: false,
  },
];

/** Lines name a product by slug and, for products with options, a variant by option values. */
export const ORDERS: {
  customer: string;
  status: string;
  discount: string | null;
  daysAgo: number;
  notes: string | null;
  lines: { product: string; variant?: string[]; quantity: number }[];
}[] = [
  {
    customer: "priya.nair@example.com",
    status: "fulfilled",
    discount: "WELCOME10",
    daysAgo: 590,
    notes: null,
    lines: [
      { product: "ethiopia-yirgacheffe-kochere", variant: ["250g", "filter"], quantity: 2 },
      { product: "v60-paper-filters-100", quantity: 1 },
    ],
  },
  {
    customer: "priya.nair@example.com",
    status: "fulfilled",
    discount: null,
    daysAgo: 30,
    notes: null,
    lines: [{ product: "kenya-nyeri-gatomboya", variant: ["250g", "whole-bean"], quantity: 1 }],
  },
  {
    customer: "tom.becker@example.com",
    status: "fulfilled",
    discount: "WELCOME10",
    daysAgo: 290,
    notes: "Leave with the neighbour at no. 12.",
    lines: [
      { product: "aeropress-original", quantity: 1 },
      { product: "house-espresso", variant: ["250g", "espresso"], quantity: 2 },
    ],
  },
  {
    customer: "aisha@driftwoodcafe.example",
    status: "fulfilled",
    discount: null,
    daysAgo: 21,
    notes: "Café order: deliver before 7 a.m.",
    lines: [
      { product: "house-espresso", variant: ["1kg", "whole-bean"], quantity: 6 },
      { product: "harbor-breakfast-blend", variant: ["1kg", "whole-bean"], quantity: 2 },
    ],
  },
  {
    customer: "j.okafor@example.com",
    status: "paid",
    discount: "HARBOR5",
    daysAgo: 3,
    notes: null,
    lines: [
      { product: "harbor-logo-tee", variant: ["m", "navy"], quantity: 1 },
      { product: "harbor-enamel-mug", quantity: 2 },
    ],
  },
  {
    customer: "lena.voss@example.com",
    status: "pending",
    discount: null,
    daysAgo: 1,
    notes: null,
    lines: [
      { product: "tasting-flight", quantity: 1 },
      { product: "gift-card", variant: ["50"], quantity: 1 },
    ],
  },
];

export const REVIEWS: {
  product: string;
  author: string;
  email: string | null;
  rating: number;
  title: string | null;
  body: string | null;
  status: string;
  daysAgo: number;
}[] = [
  {
    product: "ethiopia-yirgacheffe-kochere",
    author: "Priya N.",
    email: "priya.nair@example.com",
    rating: 5,
    title: "Blueberries, really",
    body: "I didn't believe the tasting notes until I brewed it as a V60. Wonderful.",
    status: "approved",
    daysAgo: 580,
  },
  {
    product: "ethiopia-yirgacheffe-kochere",
    author: "Marcus",
    email: null,
    rating: 4,
    title: "Lovely but light",
    body: "Great as filter, too bright for my espresso machine.",
    status: "approved",
    daysAgo: 120,
  },
  {
    product: "house-espresso",
    author: "Tom B.",
    email: "tom.becker@example.com",
    rating: 5,
    title: "Forgiving",
    body: "Tastes good even when my shots run fast.",
    status: "approved",
    daysAgo: 280,
  },
  {
    product: "house-espresso",
    author: "Aisha R.",
    email: "aisha@driftwoodcafe.example",
    rating: 5,
    title: "Our café's espresso",
    body: "Works beautifully in milk.",
    status: "approved",
    daysAgo: 15,
  },
  {
    product: "aeropress-original",
    author: "Sam",
    email: null,
    rating: 4,
    title: null,
    body: "Does what it says. Took it camping.",
    status: "approved",
    daysAgo: 200,
  },
  {
    product: "harbor-logo-tee",
    author: "James O.",
    email: "j.okafor@example.com",
    rating: 3,
    title: "Runs small",
    body: "Nice fabric; order a size up.",
    status: "pending",
    daysAgo: 1,
  },
  {
    product: "kenya-nyeri-gatomboya",
    author: "Best Deals",
    email: "deals@spam.example",
    rating: 1,
    title: '<a href="http://spam.example">cheap</a>',
    body: "<script>alert('x')</script> Visit my site!",
    status: "hidden",
    daysAgo: 10,
  },
  {
    product: "baratza-encore-esp",
    author: "Lena V.",
    email: "lena.voss@example.com",
    rating: 5,
    title: "Huge upgrade",
    body: "Coming from a blade grinder, the difference is enormous.",
    status: "pending",
    daysAgo: 2,
  },
];

export const MESSAGES: {
  customer: string | null;
  email: string;
  subject: string;
  status: string;
  daysAgo: number;
  replies: { author: "customer" | "staff"; body: string; hoursAfter: number }[];
}[] = [
  {
    customer: "j.okafor@example.com",
    email: "j.okafor@example.com",
    subject: "Can I change the T-shirt size?",
    status: "open",
    daysAgo: 2,
    replies: [
      {
        author: "customer",
        body: "I ordered a medium navy tee yesterday; could I swap it for a large before it ships?",
        hoursAfter: 0,
      },
    ],
  },
  {
    customer: "priya.nair@example.com",
    email: "priya.nair@example.com",
    subject: "Bag arrived split",
    status: "closed",
    daysAgo: 28,
    replies: [
      { author: "customer", body: "The Kenya bag split in the post and about a third spilled out.", hoursAfter: 0 },
      {
        author: "staff",
        body: "Sorry about that, Priya. A replacement is in Friday's roast and will go out the same day.",
        hoursAfter: 3,
      },
      { author: "customer", body: "Arrived, thank you!", hoursAfter: 80 },
    ],
  },
  {
    customer: null,
    email: "events@quaysidedeli.example",
    subject: "Wholesale samples for a deli",
    status: "open",
    daysAgo: 6,
    replies: [
      {
        author: "customer",
        body: "We run a small deli on the quay and would like to try two espresso options.",
        hoursAfter: 0,
      },
    ],
  },
];
