/**
 * Branding, messaging, navigation and service catalogues for the demo.
 * Harbor Coffee has the full Branding object of the spec (every field set);
 * Northwind has a partial one (so defaults show through); the events site
 * has none at all.
 */

/** Stable ids: renderers and block `presetId`s refer to presets by id. */
export const PRESET_IDS = {
  primary: "3f1c2a8e-6b4d-4c1e-9a7f-2d5e8b1c0a11",
  outline: "8a0d4f2b-1e3c-4b5a-8c9d-7e6f5a4b3c22",
  pill: "c5e7b9a1-2d4f-4e6a-b8c0-1d3e5f7a9b33",
} as const;

export const HARBOR_BRANDING: Record<string, unknown> = {
  primaryColor: "#1f3a5f",
  secondaryColor: "#c8553d",
  accentColor: "#f2a541",
  backgroundColor: "#fbf8f3",
  textColor: "#1c1917",
  headingFont: "Fraunces",
  bodyFont: "Inter",
  logoUrl: "/media/demo/logo-harbor.svg",
  logoSquareUrl: "/media/demo/logo-harbor-mark.svg",
  logoRectUrl: "/media/demo/logo-harbor.svg",
  logoIconUrl: "/media/demo/logo-harbor-mark.svg",
  logoText: "Harbor Coffee",
  logoAlt: "Harbor Coffee Roasters",
  navTemplate: "mega",
  navPosition: "top",
  navBackground: "#1f3a5f",
  navTextColor: "#fbf8f3",
  borderRadius: "10px",
  linkColor: "#c8553d",
  linkHoverColor: "#9a3f2c",
  faviconUrl: "/media/demo/logo-harbor-mark.svg",
  ogImageUrl: "/media/demo/og-default.png",
  buttonStyle: {
    primaryBg: "#1f3a5f",
    primaryText: "#ffffff",
    primaryHoverBg: "#16304f",
    secondaryBg: "#c8553d",
    secondaryText: "#ffffff",
    secondaryHoverBg: "#9a3f2c",
    borderRadius: "999px",
    variant: "solid",
  },
  buttonPresets: [
    {
      id: PRESET_IDS.primary,
      name: "Primary",
      backgroundColor: "#1f3a5f",
      color: "#ffffff",
      borderRadius: "999px",
      fontWeight: "600",
      textTransform: "none",
      paddingX: "24px",
      paddingY: "12px",
    },
    {
      id: PRESET_IDS.outline,
      name: "Outline",
      backgroundColor: "transparent",
      color: "#1f3a5f",
      borderRadius: "999px",
      fontWeight: "600",
      textTransform: "none",
      paddingX: "22px",
      paddingY: "10px",
    },
    {
      id: PRESET_IDS.pill,
      name: "Shop pill",
      backgroundColor: "#f2a541",
      color: "#1c1917",
      borderRadius: "999px",
      fontWeight: "700",
      textTransform: "uppercase",
      paddingX: "18px",
      paddingY: "8px",
    },
  ],
  typography: {
    h1: { font: "Fraunces", size: "3rem", weight: "700", lineHeight: "1.1", letterSpacing: "-0.02em" },
    h2: { font: "Fraunces", size: "2.25rem", weight: "700", lineHeight: "1.15", letterSpacing: "-0.01em" },
    h3: { font: "Fraunces", size: "1.75rem", weight: "600", lineHeight: "1.2", letterSpacing: "0" },
    h4: { font: "Inter", size: "1.375rem", weight: "600", lineHeight: "1.3", letterSpacing: "0" },
    h5: { font: "Inter", size: "1.125rem", weight: "600", lineHeight: "1.4", letterSpacing: "0.01em" },
    h6: { font: "Inter", size: "0.875rem", weight: "700", lineHeight: "1.4", letterSpacing: "0.08em" },
    body: { font: "Inter", size: "1rem", weight: "400", lineHeight: "1.65", letterSpacing: "0" },
  },
  darkMode: {
    primaryColor: "#8fb3de",
    backgroundColor: "#12100e",
    textColor: "#f5f0e8",
    navBackground: "#0b0a09",
    navTextColor: "#f5f0e8",
  },
};

export const HARBOR_MESSAGING = {
  tagline: "Small-batch coffee, roasted on the waterfront.",
  toneOfVoice: "Warm, plain-spoken and precise. We explain the craft without jargon and never talk down to beginners.",
  elevatorPitch:
    "Harbor Coffee Roasters buys coffee directly from farms we visit, roasts it in small batches twice a week, and ships it within 48 hours, to home brewers and to the cafés, offices and hotels we supply.",
  keyMessages: ["Roasted to order, twice a week", "Bought direct, prices published", "Free brew guides and training"],
  wordsToAvoid: ["artisanal", "premium", "world-class", "100% Arabica"],
};

/** Partial on purpose: the REST layer fills nothing in; defaults are the renderer's business. */
export const NORTHWIND_BRANDING: Record<string, unknown> = {
  primaryColor: "#0f766e",
  textColor: "#0f172a",
  headingFont: "Space Grotesk",
  bodyFont: "IBM Plex Sans",
  logoUrl: "/media/demo/northwind-logo.svg",
  logoText: "Northwind Studio",
  navTemplate: "classic",
  navPosition: "top",
};

export const NORTHWIND_MESSAGING = {
  tagline: "Websites small teams can run themselves.",
  toneOfVoice: "Direct and friendly.",
  elevatorPitch: "A four-person studio building headless sites and shops for independent businesses.",
  keyMessages: ["Fast pages", "Editors that can't break the layout"],
  wordsToAvoid: ["synergy"],
};

export interface DemoNavItem {
  label: string;
  href: string;
  sortOrder: number;
  openInNewTab?: boolean;
  isButton?: boolean;
  description?: string;
  icon?: string;
  featuredImage?: string;
  columnGroup?: number;
  children?: DemoNavItem[];
}

/**
 * Listed deliberately out of sortOrder (and with a gap in the numbers) so a
 * client that trusts insertion order instead of sortOrder shows up in tests.
 */
export const HARBOR_NAV: DemoNavItem[] = [
  {
    label: "Learn",
    href: "/blog",
    sortOrder: 20,
    children: [
      {
        label: "Brew guides",
        href: "/blog?category=brewing",
        sortOrder: 1,
        description: "Recipes for every brewer",
        icon: "coffee",
        columnGroup: 1,
      },
      {
        label: "Origins",
        href: "/blog?category=origins",
        sortOrder: 2,
        description: "The farms we buy from",
        icon: "globe",
        columnGroup: 1,
      },
      {
        label: "Wholesale stories",
        href: "/blog?postType=case-study",
        sortOrder: 3,
        description: "Cafés and offices we supply",
        icon: "briefcase",
        columnGroup: 2,
      },
    ],
  },
  {
    label: "Shop",
    href: "/shop",
    sortOrder: 10,
    children: [
      {
        label: "Equipment",
        href: "/shop/brewing-equipment",
        sortOrder: 3,
        description: "Grinders, brewers, kettles",
        icon: "settings",
        columnGroup: 2,
      },
      {
        label: "Single origins",
        href: "/shop/single-origin",
        sortOrder: 1,
        description: "One farm per bag, roasted twice a week",
        icon: "map-pin",
        featuredImage: "/media/demo/bag-ethiopia-kochere.png",
        columnGroup: 1,
      },
      {
        label: "Blends & espresso",
        href: "/shop/blends",
        sortOrder: 2,
        description: "Consistent all year",
        icon: "layers",
        featuredImage: "/media/demo/bag-house-espresso.png",
        columnGroup: 1,
      },
      {
        label: "Gift cards",
        href: "/shop/gift-card",
        sortOrder: 4,
        description: "Never expire",
        icon: "gift",
        columnGroup: 2,
      },
    ],
  },
  { label: "Subscribe", href: "/subscriptions", sortOrder: 50, isButton: true },
  {
    label: "About",
    href: "/about",
    sortOrder: 30,
    children: [
      { label: "Our story", href: "/about", sortOrder: 1 },
      { label: "Meet the team", href: "/about/team", sortOrder: 2 },
      { label: "Visit the roastery", href: "/visit", sortOrder: 3 },
      { label: "Wholesale", href: "/wholesale", sortOrder: 4 },
    ],
  },
  {
    label: "Instagram",
    href: "https://www.instagram.com/harborcoffee.example",
    sortOrder: 40,
    openInNewTab: true,
    icon: "instagram",
  },
];

export const NORTHWIND_NAV: DemoNavItem[] = [
  { label: "Work", href: "/work", sortOrder: 1 },
  { label: "Services", href: "/services", sortOrder: 2 },
  { label: "About", href: "/about", sortOrder: 3 },
  { label: "Start a project", href: "mailto:hello@northwind.example", sortOrder: 4, isButton: true },
];

export interface DemoService {
  name: string;
  description: string;
  priceCents: number | null;
  unit: string | null;
  active: boolean;
}

/** What Northwind offers each client company (the agency's catalogue, per company). */
export const SERVICES_FOR_HARBOR: DemoService[] = [
  {
    name: "Site care plan",
    description: "Updates, uptime monitoring and one hour of changes each month.",
    priceCents: 29_000,
    unit: "month",
    active: true,
  },
  {
    name: "Product photography day",
    description: "A day in the roastery shooting up to 30 products, edited and uploaded.",
    priceCents: 180_000,
    unit: "day",
    active: true,
  },
  {
    name: "SEO audit",
    description: "Technical and content audit with a prioritised fix list.",
    priceCents: 95_000,
    unit: "project",
    active: true,
  },
  {
    name: "Email campaign design",
    description: "One designed, tested newsletter template plus the first send.",
    priceCents: 60_000,
    unit: "project",
    active: true,
  },
  {
    name: "Extra development",
    description: "Ad-hoc changes outside the care plan.",
    priceCents: 12_000,
    unit: "hour",
    active: true,
  },
  {
    name: "Print catalogue layout",
    description: "Retired: we no longer offer print.",
    priceCents: 150_000,
    unit: "project",
    active: false,
  },
];

export const SERVICES_FOR_NORTHWIND: DemoService[] = [
  {
    name: "Internal: brand sprint",
    description: "Two-week brand and moodboard sprint (used for our own site refresh).",
    priceCents: null,
    unit: "project",
    active: true,
  },
  {
    name: "Internal: hosting",
    description: "Our own hosting and domains.",
    priceCents: 4_000,
    unit: "month",
    active: true,
  },
  {
    name: "Headless build",
    description: "Design system, content model and front end on Plinth.",
    priceCents: 1_200_000,
    unit: "project",
    active: true,
  },
];
