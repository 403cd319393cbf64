/**
 * The demo sites' posts: pages, blog posts and case studies for Harbor Coffee
 * Roasters (site 1), Northwind Studio's own site (site 2), the retired
 * wholesale site (inactive) and the events microsite (no store).
 *
 * Written to read like a real small business's site, and to exercise the
 * REST rules: drafts next to published posts, spread publish dates, a child
 * page, SEO fields, noIndex, a title with "%" (search must treat it
 * literally), posts without categories or tags.
 */
import type { Block } from "../../src/domains/blocks/catalog";
import {
  accordion,
  addToCart,
  button,
  card,
  categoryList,
  code,
  columns,
  cta,
  embed,
  faq,
  featured,
  file,
  gallery,
  grid,
  h,
  hero,
  hr,
  img,
  lead,
  ol,
  p,
  picks,
  productCard,
  productGrid,
  quote,
  section,
  spacer,
  tabs,
  testimonial,
  ul,
  video,
} from "./demo-blocks";

export interface DemoPost {
  type: "page" | "blog" | "case-study";
  title: string;
  slug: string;
  excerpt: string | null;
  /** Days before the seed that it was published; null for a draft; negative: scheduled that many days ahead. */
  publishedDaysAgo: number | null;
  /** Media file name used as cover (and og) image. */
  cover?: string;
  categories?: string[];
  tags?: string[];
  /** Slug of the parent page. */
  parent?: string;
  seoTitle?: string;
  seoDescription?: string;
  canonicalUrl?: string;
  noIndex?: boolean;
  customCss?: string;
  blocks: Block[];
  /**
   * Earlier approved versions, oldest first, as what differed from the post
   * as it is now; the post itself is the newest version (post_versions).
   */
  history?: DemoVersion[];
  /** Custom field values (case studies: client, industry, results; see CASE_STUDY_FIELDS). */
  fields?: Record<string, unknown>;
}

/** The case-study post type's custom fields (post_type_fields_set), on every demo site that has case studies. */
export const CASE_STUDY_FIELDS = [
  { name: "client", label: "Client", type: "text", required: true },
  {
    name: "industry",
    label: "Industry",
    type: "select",
    options: ["Hospitality", "Retail", "Food service", "Workspace", "Technology"],
  },
  { name: "results", label: "Results", type: "list", of: { type: "text" }, maxItems: 10 },
  { name: "featured", label: "Featured on the home page", type: "boolean" },
];

/** An earlier approved version of a demo post: when, by whom, and the fields that differed. */
export interface DemoVersion {
  daysAgo: number;
  approvedBy: string;
  title?: string;
  excerpt?: string | null;
  blocks?: Block[];
  fields?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------
// Site 1: Harbor Coffee Roasters

export const HARBOR_POSTS: DemoPost[] = [
  // ----- pages -----
  {
    type: "page",
    title: "Home",
    slug: "home",
    excerpt: "Small-batch coffee roasted on the waterfront every Tuesday and Friday.",
    publishedDaysAgo: 420,
    cover: "hero-roastery-morning.jpg",
    seoTitle: "Harbor Coffee Roasters | Small-batch coffee, roasted twice a week",
    seoDescription:
      "Seasonal single origins and a house espresso, roasted on the waterfront and shipped within 48 hours.",
    blocks: [
      hero(
        "Small-batch coffee, roasted on the waterfront",
        "Seasonal single origins and a house espresso, roasted every Tuesday and Friday and shipped within 48 hours.",
        ["Shop the current roasts", "/shop"],
        "hero-roastery-morning.jpg",
        ["Visit the roastery", "/visit"],
      ),
      featured("Roaster's picks", 4),
      section(
        { padding: "lg", background: "#f5efe6" },
        columns(
          [
            h("Roasted to order", 3),
            p(
              "We roast in 15 kg batches, so nothing sits on a shelf. Your bag is packed the day after it leaves the drum.",
            ),
          ],
          [
            h("Bought direct", 3),
            p(
              "Most of our green coffee comes from six farms we have visited, and we pay well above the Fairtrade minimum.",
            ),
          ],
          [
            h("Brewed your way", 3),
            p(
              "Choose whole bean or ask us to grind for espresso, filter or French press. Free brew guides with every order.",
            ),
          ],
        ),
      ),
      testimonial(
        "The Kochere is the best filter coffee I've had outside Ethiopia. It tastes like blueberries and jasmine tea.",
        "Priya Nair",
        "Subscriber since 2022",
        undefined,
        5,
      ),
      categoryList("Shop by category"),
      cta(
        "Never run out",
        "Pick a coffee and a rhythm; we'll roast and post it. Pause or cancel any time.",
        "Start a subscription",
        "/subscriptions",
      ),
    ],
  },
  {
    type: "page",
    title: "Our story",
    slug: "about",
    excerpt: "Two baristas, one secondhand roaster and a lease on an old net loft.",
    publishedDaysAgo: 418,
    cover: "storefront-waterfront.jpg",
    blocks: [
      h("Our story", 1),
      lead(
        "Harbor Coffee started in 2016 with two baristas, a secondhand 5 kg roaster and a lease on an old net loft by the fish market.",
      ),
      p(
        "Maya Ortiz and Dev Patel had spent a decade behind espresso bars and wanted to roast coffee the way they liked to drink it: light enough to taste where it came from, developed enough to be sweet.",
      ),
      img(
        "storefront-waterfront.jpg",
        "The Harbor Coffee storefront on the waterfront at dusk",
        "The net loft, now our roastery and tasting room.",
        true,
      ),
      h("What we believe"),
      ul(
        "Know the farm. We buy most of our coffee from producers we have met, and we publish what we pay.",
        "Roast little and often. Small batches twice a week mean every bag is fresh.",
        "Share the craft. Our brew guides, cuppings and classes are free.",
      ),
      quote("Roast for the cup, not for the colour.", "Dev Patel, head roaster"),
      button("Meet the team", "/about/team", "secondary"),
    ],
  },
  {
    type: "page",
    title: "Meet the team",
    slug: "team",
    parent: "about",
    excerpt: "The people who source, roast, pack and pour.",
    publishedDaysAgo: 300,
    blocks: [
      h("Meet the team", 1),
      grid(
        3,
        card(
          "Maya Ortiz",
          "Co-founder and green coffee buyer. Spends every February on farms in Huila and Huehuetenango.",
          undefined,
          "team-maya-ortiz.jpg",
        ),
        card(
          "Dev Patel",
          "Co-founder and head roaster. Former UK Brewers Cup finalist; still weighs everything.",
          undefined,
          "team-dev-patel.jpg",
        ),
        card(
          "Lucía Santos",
          "Wholesale and training. Sets up every café we supply and runs our Saturday classes.",
          undefined,
          "team-lucia-santos.jpg",
        ),
      ),
      p("Behind them are four packers, two delivery riders on cargo bikes, and Biscuit, the roastery cat."),
    ],
  },
  {
    type: "page",
    title: "Visit the roastery",
    slug: "visit",
    excerpt: "Tasting room hours, directions and the Saturday public cupping.",
    publishedDaysAgo: 410,
    blocks: [
      h("Visit the roastery", 1),
      p(
        "Our tasting room is open to everyone. Order a pour-over of anything on the shelf, watch the roaster at work, and take home a bag roasted that week.",
      ),
      columns(
        [h("Opening hours", 3), ul("Monday to Friday: 7:30 to 16:00", "Saturday: 8:30 to 15:00", "Sunday: closed")],
        [
          h("Find us", 3),
          p("Unit 4, The Net Loft\nFish Quay\nHarbor Town HT1 4QA"),
          button("Get directions", "https://maps.google.com/?q=Harbor+Coffee+Roasters", "outline"),
        ],
      ),
      embed(
        "https://www.google.com/maps/embed?pb=harbor-coffee-roasters",
        "Map of Harbor Coffee Roasters on the fish quay",
        "google-maps",
      ),
      h("Public cupping"),
      p("Every Saturday at 10:00 we cup the week's roasts, free. Ten places; just turn up."),
    ],
  },
  {
    type: "page",
    title: "Wholesale",
    slug: "wholesale",
    excerpt: "Coffee, training and equipment support for cafés, offices and hotels.",
    publishedDaysAgo: 380,
    cover: "driftwood-cafe-bar.jpg",
    seoTitle: "Wholesale coffee for cafés, offices and hotels | Harbor Coffee",
    blocks: [
      hero(
        "Wholesale coffee that your staff can brew well",
        "We roast to order, train your team on site, and come back when something tastes off.",
        ["Ask for samples", "mailto:wholesale@harborcoffee.example"],
      ),
      {
        type: "pricing-table",
        props: {
          heading: "Wholesale plans",
          currency: "USD",
          tiers: [
            {
              name: "Office",
              price: 14900,
              interval: "month",
              description: "For teams of 10 to 40.",
              features: ["6 kg a month", "Grinder loan", "Quarterly tasting"],
              ctaLabel: "Get started",
              ctaHref: "/contact",
            },
            {
              name: "Café",
              price: 52000,
              interval: "month",
              description: "For espresso bars.",
              features: ["25 kg a month", "On-site barista training", "Same-week equipment callouts"],
              ctaLabel: "Book a tasting",
              ctaHref: "/contact",
              highlighted: true,
            },
            {
              name: "Hotel",
              price: 0,
              interval: "one-time",
              description: "Custom volumes and in-room coffee.",
              features: ["Custom blend", "Filter bags for rooms"],
              ctaLabel: "Talk to Lucía",
              ctaHref: "mailto:lucia@harborcoffee.example",
            },
          ],
        },
      },
      faq(
        "Wholesale questions",
        ["Is there a minimum order?", "5 kg per delivery for cafés, 2 kg for offices."],
        [
          "Do you supply equipment?",
          "We lend grinders on the Office plan and can source espresso machines at trade price for cafés.",
        ],
        [
          "How fast is delivery?",
          "Orders placed by Monday are roasted Tuesday and delivered Wednesday within 20 miles; elsewhere by courier the next day.",
        ],
      ),
      file(
        "wholesale-price-list-2024.pdf",
        "Wholesale price list (PDF)",
        "Every coffee, per kilo, with volume breaks.",
      ),
    ],
  },
  {
    type: "page",
    title: "Coffee subscriptions",
    slug: "subscriptions",
    excerpt: "Fresh coffee every one, two or four weeks. Pause or cancel any time.",
    publishedDaysAgo: 365,
    blocks: [
      h("Coffee subscriptions", 1),
      lead(
        "Choose a coffee, or let us choose for you, and how often you want it. Postage is free on every subscription.",
      ),
      {
        type: "pricing-table",
        props: {
          currency: "USD",
          tiers: [
            {
              name: "Roaster's choice",
              price: 1700,
              interval: "week",
              features: ["A different single origin each time", "Tasting notes card"],
              ctaLabel: "Choose",
              ctaHref: "/shop/subscriptions/roasters-choice",
            },
            {
              name: "House espresso",
              price: 1600,
              interval: "week",
              features: ["Our house espresso, every time", "Grind to order"],
              ctaLabel: "Choose",
              ctaHref: "/shop/subscriptions/house-espresso",
              highlighted: true,
            },
            {
              name: "Decaf",
              price: 1700,
              interval: "week",
              features: ["Swiss Water decaf", "No solvents"],
              ctaLabel: "Choose",
              ctaHref: "/shop/subscriptions/decaf",
            },
          ],
        },
      },
      accordion(
        [
          "Can I skip a delivery?",
          "Yes. Skip, pause or change your coffee from your account up to the evening before roast day.",
        ],
        [
          "When will it arrive?",
          "We roast on Tuesday and Friday and post the same day. Most orders arrive in one to two days.",
        ],
      ),
    ],
  },
  {
    type: "page",
    title: "Shipping and returns",
    slug: "shipping-returns",
    excerpt: "Where we post, how much it costs, and what to do if something arrives damaged.",
    publishedDaysAgo: 400,
    blocks: [
      h("Shipping and returns", 1),
      tabs(
        ["Domestic", "Free on orders over $40. Otherwise $4.50 by tracked post, usually one to two working days."],
        [
          "International",
          "We post to Canada, the UK and the EU. Rates are shown at checkout; allow five to ten working days.",
        ],
        [
          "Returns",
          "Unopened equipment can be returned within 30 days. If coffee tastes wrong, tell us and we will replace it.",
        ],
      ),
      p("Questions about an order? Email orders@harborcoffee.example with your order number."),
    ],
  },
  {
    type: "page",
    title: "Privacy policy",
    slug: "privacy",
    excerpt: null,
    publishedDaysAgo: 400,
    noIndex: true,
    blocks: [
      h("Privacy policy", 1),
      p(
        "We collect what we need to take and deliver your order: your name, email, postal address and order history. Payments are handled by our payment provider; we never see your card number.",
      ),
      p(
        "We do not sell your data. We email you about your orders and, if you opt in, about new coffees. Unsubscribe from any email.",
      ),
      p("To see or delete the data we hold, email privacy@harborcoffee.example."),
    ],
  },
  {
    type: "page",
    title: "Contact",
    slug: "contact",
    excerpt: "How to reach the roastery, orders and wholesale.",
    publishedDaysAgo: 415,
    blocks: [
      h("Contact us", 1),
      ul(
        "Orders: orders@harborcoffee.example",
        "Wholesale: wholesale@harborcoffee.example",
        "Press: hello@harborcoffee.example",
      ),
      button("Email the roastery", "mailto:hello@harborcoffee.example"),
      p("Or call the tasting room on +1 555 0142 during opening hours."),
    ],
  },
  {
    type: "page",
    title: "Careers",
    slug: "careers",
    excerpt: "We're hiring a production roaster.",
    publishedDaysAgo: null,
    blocks: [
      h("Work with us", 1),
      p(
        "We're looking for a production roaster to join Dev three days a week. You'll roast, cup and keep meticulous logs.",
      ),
      ul("Two years' roasting experience", "Q Grader certificate a plus", "Comfortable lifting 30 kg sacks"),
      cta(
        "Interested?",
        "Send us a short note about the coffees you like to roast.",
        "Apply by email",
        "mailto:jobs@harborcoffee.example",
      ),
    ],
  },

  // ----- blog -----
  {
    type: "blog",
    title: "How to brew a better pour-over at home",
    slug: "better-pour-over-at-home",
    excerpt: "A simple V60 recipe, and the three changes that make the biggest difference.",
    publishedDaysAgo: 3,
    cover: "pour-over-v60.jpg",
    categories: ["brewing", "recipes"],
    tags: ["pour-over", "grinders", "water"],
    blocks: [
      lead(
        "A good pour-over needs fresh coffee, a decent grinder and a recipe you repeat until you can taste what changes.",
      ),
      img("pour-over-v60.jpg", "Water being poured in a spiral over a V60", undefined, true),
      h("The recipe", 2, "recipe"),
      ol(
        "15 g of coffee, ground like coarse sand",
        "250 g of water just off the boil",
        "Bloom with 40 g for 45 seconds",
        "Pour the rest in slow circles by 1:45",
        "Total time around 3:00",
      ),
      video(
        "brew-guide-pour-over.mp4",
        "pour-over-poster.jpg",
        "Pour-over in two minutes",
        "Dev walks through the recipe at the tasting-room bar.",
      ),
      h("If it tastes sour or thin"),
      p("Grind finer. Sourness usually means the water ran through too quickly to pull out the sweetness."),
      h("If it tastes bitter or dry"),
      p("Grind coarser, or pour a little faster. Bitterness is over-extraction."),
      productCard("hario-v60-02-dripper"),
    ],
  },
  {
    type: "blog",
    title: "100% Arabica: what the label really tells you",
    slug: "100-percent-arabica",
    excerpt: "Almost all specialty coffee is arabica. Here is what to look for on a bag instead.",
    publishedDaysAgo: 9,
    categories: ["origins"],
    tags: ["direct-trade"],
    blocks: [
      p(
        '"100% Arabica" is printed on supermarket bags as if it were a mark of quality. It is a species name, and nearly every specialty coffee is arabica.',
      ),
      h("What to look for instead"),
      ul(
        "A roast date, not a best-before date",
        "The farm or washing station, not just the country",
        "The process: washed, natural or honey",
        "The altitude and the variety",
      ),
      quote("If a bag can't tell you who grew the coffee, it's probably because nobody asked.", "Maya Ortiz"),
    ],
  },
  {
    type: "blog",
    title: "Meet the producers: Kochere washing station, Ethiopia",
    slug: "meet-the-producers-kochere",
    excerpt: "How 800 smallholders deliver cherries to one washing station in Yirgacheffe.",
    publishedDaysAgo: 16,
    cover: "farm-kochere-washing-station.jpg",
    categories: ["origins", "sustainability"],
    tags: ["ethiopia", "direct-trade"],
    blocks: [
      lead(
        "Kochere sits at 2,000 metres in the Gedeo zone. Around 800 families deliver ripe cherries here during the harvest.",
      ),
      gallery(
        ["farm-kochere-washing-station.jpg", "Fermentation tanks at the Kochere washing station", "Fermentation tanks"],
        ["green-beans-sacks.jpg", "Jute sacks of green coffee in the warehouse"],
        ["cupping-table.jpg", "Cupping bowls lined up on a table", "Cupping the first lots"],
      ),
      p(
        "Cherries are pulped the same day, fermented for 36 to 48 hours, washed in channels and dried on raised beds for two weeks.",
      ),
      h("What we pay"),
      p(
        "This year we paid $4.10 per pound FOB, 70% above the Fairtrade minimum, and a second payment after the coffee scored 87 on arrival.",
      ),
      addToCart("ethiopia-yirgacheffe-kochere"),
    ],
  },
  {
    type: "blog",
    title: "Cold brew concentrate: a recipe that keeps for a week",
    slug: "cold-brew-concentrate-recipe",
    excerpt: "Coarse grind, 1:5 ratio, 16 hours in the fridge.",
    publishedDaysAgo: 24,
    cover: "cold-brew-jars.jpg",
    categories: ["recipes", "brewing"],
    tags: ["cold-brew"],
    blocks: [
      img("cold-brew-jars.jpg", "Mason jars of cold brew steeping in a fridge", undefined, true),
      ol(
        "Grind 200 g of coffee very coarse",
        "Stir into 1 litre of cold, filtered water",
        "Steep in the fridge for 16 hours",
        "Filter through a paper filter",
        "Dilute 1:1 with water or milk over ice",
      ),
      p(
        "The concentrate keeps for a week in a sealed bottle. Our Breakfast Blend and the Colombia both make excellent cold brew.",
      ),
      productGrid("Good for cold brew", "blends", 3),
    ],
  },
  {
    type: "blog",
    title: "Why we roast on Tuesdays and Fridays",
    slug: "why-tuesdays-and-fridays",
    excerpt: "Roasting twice a week keeps every bag within days of the drum.",
    publishedDaysAgo: 33,
    categories: ["roastery-news"],
    tags: ["storage"],
    blocks: [
      p(
        "Coffee tastes best from about four days to four weeks after roasting. Roast too far ahead and it sits on a shelf; roast every day and there's no time to cup and adjust.",
      ),
      p(
        "Twice a week lets us roast to the orders we actually have, cup every batch the next morning, and post within 48 hours.",
      ),
      h("Storing your coffee"),
      ul(
        "Keep the bag sealed, with the air pressed out",
        "Store it somewhere cool and dark, not the fridge",
        "Grind just before brewing",
      ),
    ],
  },
  {
    type: "blog",
    title: "Dialling in espresso with the house blend",
    slug: "dialling-in-house-espresso",
    excerpt: "18 grams in, 38 out, 28 seconds, then adjust by taste.",
    publishedDaysAgo: 41,
    cover: "espresso-shot.jpg",
    categories: ["brewing"],
    tags: ["espresso", "grinders"],
    blocks: [
      lead("Our house espresso is roasted to be forgiving, but every grinder and machine is different."),
      tabs(
        ["Starting recipe", "18 g in, 38 g out, 26 to 30 seconds, 93 °C."],
        ["Too sour", "Grind finer, or increase the yield to 40 g."],
        ["Too bitter", "Grind coarser, or stop the shot at 36 g."],
      ),
      img("espresso-shot.jpg", "Espresso pouring from a bottomless portafilter", undefined, true),
      code("dose 18.0 g\nyield 38.0 g\ntime 28 s\ntemp 93 C", "text"),
      productCard("house-espresso"),
    ],
  },
  {
    type: "blog",
    title: "Our first carbon report",
    slug: "first-carbon-report",
    excerpt: "Where our emissions come from, and the three things we're changing this year.",
    publishedDaysAgo: 55,
    categories: ["sustainability"],
    tags: ["direct-trade"],
    blocks: [
      p(
        "We measured our emissions for the first time last year: 41 tonnes of CO2e, or about 2.6 kg for every kilo of coffee we sold.",
      ),
      ul(
        "Green coffee shipping: 38%",
        "Roasting (gas): 27%",
        "Packaging: 14%",
        "Deliveries: 12%",
        "Everything else: 9%",
      ),
      h("What we're changing"),
      ol(
        "Switching to compostable bags with a paper valve",
        "Moving city deliveries to cargo bikes",
        "Fitting an afterburner heat exchanger to the roaster",
      ),
      file("carbon-report-2023.pdf", "Read the full report (PDF)"),
    ],
  },
  {
    type: "blog",
    title: "Latte art for beginners: the heart",
    slug: "latte-art-the-heart",
    excerpt: "Texture the milk, pour from high, then drop close and push through.",
    publishedDaysAgo: 68,
    cover: "latte-art-rosetta.jpg",
    categories: ["brewing"],
    tags: ["milk", "latte-art", "espresso"],
    blocks: [
      video("latte-art-slowmo.mp4", "latte-art-poster.jpg", "A heart poured in slow motion"),
      ol(
        "Stretch the milk for 3 seconds, then spin it until it's 60 °C",
        "Tap and swirl until it looks like wet paint",
        "Pour from 10 cm until the cup is half full",
        "Drop the jug close to the surface and let the white spread",
        "Lift and cut through the middle",
      ),
      p("It takes most people about 50 cups. Use water with a drop of washing-up liquid to practise the motion."),
    ],
  },
  {
    type: "blog",
    title: "New arrival: Kenya Nyeri Gatomboya AA",
    slug: "new-arrival-kenya-gatomboya",
    excerpt: "Blackcurrant, grapefruit and a long, sweet finish.",
    publishedDaysAgo: 80,
    cover: "farm-nyeri-cherries.jpg",
    categories: ["roastery-news", "origins"],
    tags: ["kenya"],
    blocks: [
      p(
        "The Gatomboya cooperative in Nyeri grows SL28 and SL34 on red volcanic soil at 1,800 metres. This AA lot is the best Kenyan we've tasted in three years.",
      ),
      img(
        "farm-nyeri-cherries.jpg",
        "Ripe red coffee cherries on the branch",
        "Cherries at Gatomboya in November.",
        true,
      ),
      productCard("kenya-nyeri-gatomboya"),
    ],
  },
  {
    type: "blog",
    title: "How to choose a grinder",
    slug: "how-to-choose-a-grinder",
    excerpt: "Burrs, not blades. And why a $150 grinder beats a $600 machine.",
    publishedDaysAgo: 96,
    categories: ["equipment", "brewing"],
    tags: ["grinders"],
    blocks: [
      p(
        "If you upgrade one thing, make it the grinder. Even grounds extract evenly; a blade grinder makes dust and boulders at the same time.",
      ),
      columns(
        [h("For filter", 3), p("A conical burr grinder like the Baratza Encore ESP is all most people need.")],
        [
          h("For espresso", 3),
          p("You need fine, repeatable steps. The Encore ESP or a hand grinder like the Comandante C40."),
        ],
      ),
      productGrid("Our grinders", "grinders", 3, "price_asc"),
    ],
  },
  {
    type: "blog",
    title: "Washed, natural or honey? A tasting guide",
    slug: "washed-natural-honey",
    excerpt: "How the way a cherry is dried changes what's in your cup.",
    publishedDaysAgo: 120,
    categories: ["origins"],
    tags: ["colombia", "ethiopia"],
    blocks: [
      accordion(
        ["Washed", "The fruit is removed before drying. Clean, bright, tea-like. Try our Kochere."],
        ["Natural", "The whole cherry dries in the sun. Heavy, fruity, sometimes winey."],
        ["Honey", "Some of the sticky fruit is left on. Sweet and round. Try our Costa Rica Tarrazú."],
      ),
      productGrid("Taste the difference", "single-origin", 6),
    ],
  },
  {
    type: "blog",
    title: "The roastery is moving (down the quay)",
    slug: "roastery-is-moving",
    excerpt: "Same harbour, twice the space, and a proper tasting room.",
    publishedDaysAgo: 150,
    categories: ["roastery-news", "events"],
    tags: ["competitions"],
    blocks: [
      p(
        "After eight years in the net loft we're moving 200 metres down the quay into the old ice house. There's room for a second roaster and a tasting bar with twelve seats.",
      ),
      embed(
        "https://www.youtube.com/embed/harbor-roastery-tour",
        "Walk-through of the new roastery",
        "youtube",
        "A tour before the builders moved in.",
      ),
      p("The tasting room will be closed from the 3rd to the 10th. Online orders are unaffected."),
    ],
  },
  {
    type: "blog",
    title: "Decaf that doesn't taste like decaf",
    slug: "decaf-that-tastes-like-coffee",
    excerpt: "Why Swiss Water decaf from Colombia changed our minds.",
    publishedDaysAgo: 190,
    categories: ["origins", "brewing"],
    tags: ["decaf", "colombia"],
    blocks: [
      p(
        "For years decaf was the coffee we apologised for. The Swiss Water process uses only water, temperature and time, and keeps far more of the original flavour.",
      ),
      quote("I ordered it by mistake and drank a whole bag before I noticed.", "A subscriber's email"),
      addToCart("swiss-water-decaf-colombia"),
    ],
  },
  {
    type: "blog",
    title: "Water for coffee: the recipe we use",
    slug: "water-for-coffee",
    excerpt: "Soft, clean and a little bit of magnesium.",
    publishedDaysAgo: 230,
    categories: ["brewing", "equipment"],
    tags: ["water"],
    blocks: [
      p(
        "Coffee is 98% water, and hard tap water flattens acidity. We brew with a simple mineral recipe made from distilled water.",
      ),
      code("1 litre distilled water\n0.08 g Epsom salt (magnesium sulphate)\n0.04 g baking soda", "text"),
      p("Or use a jug filter and a bottled water under 100 ppm total dissolved solids."),
    ],
  },
  {
    type: "blog",
    title: "What we learned judging the regional barista championship",
    slug: "judging-regional-barista-championship",
    excerpt: "Notes from two days of sensory judging.",
    publishedDaysAgo: 300,
    categories: ["events"],
    tags: ["competitions", "espresso"],
    blocks: [
      p(
        "Dev spent a weekend as a sensory judge. The winners didn't use the rarest coffees; they explained clearly what we should taste, and then we tasted it.",
      ),
      ul("Sweetness beats intensity", "Milk drinks are won on texture", "Good service is part of the score"),
    ],
  },
  {
    type: "blog",
    title: "Guatemala harvest trip notes",
    slug: "guatemala-harvest-notes",
    excerpt: "Draft: photos and notes from La Esperanza.",
    publishedDaysAgo: null,
    categories: ["origins"],
    tags: ["guatemala"],
    blocks: [
      p("Draft notes from Maya's February trip to Huehuetenango. Photos to follow."),
      ul("Harvest two weeks late because of rain", "New drying beds finished", "Trial anaerobic lot: 40 kg"),
    ],
  },
  {
    type: "blog",
    title: "Holiday gift guide",
    slug: "holiday-gift-guide",
    excerpt: "Draft for December.",
    publishedDaysAgo: null,
    categories: ["roastery-news"],
    blocks: [
      picks("Gifts for coffee people", ["gift-card", "tasting-flight", "harbor-enamel-mug", "aeropress-original"]),
      p("Gift cards never expire and can be used on subscriptions."),
    ],
  },
  {
    type: "blog",
    title: "AeroPress: the inverted method",
    slug: "aeropress-inverted",
    excerpt: "Draft: our competition-style recipe.",
    publishedDaysAgo: null,
    categories: ["brewing", "recipes"],
    tags: ["aeropress"],
    blocks: [
      img("aeropress-inverted.jpg", "An AeroPress standing upside down on a scale"),
      ol("17 g coffee, medium-fine", "220 g water at 85 °C", "Stir, steep 1:30, flip and press"),
    ],
  },

  // ----- case studies -----
  {
    type: "case-study",
    title: "Driftwood Café: a new espresso bar in six weeks",
    slug: "driftwood-cafe",
    fields: { client: "Driftwood Café", industry: "Food service" },
    excerpt: "From an empty unit to 400 drinks a day, with training and a custom espresso profile.",
    publishedDaysAgo: 20,
    cover: "driftwood-cafe-bar.jpg",
    categories: ["wholesale"],
    tags: ["espresso", "milk"],
    blocks: [
      hero(
        "Driftwood Café",
        "A new espresso bar, six weeks from lease to launch.",
        undefined,
        "driftwood-cafe-bar.jpg",
      ),
      columns(
        [
          h("The brief", 3),
          p(
            "Tom and Aisha wanted espresso that works in milk and on its own, and a team who could make it consistently from day one.",
          ),
        ],
        [
          h("What we did", 3),
          ul(
            "Two tasting sessions to choose a profile",
            "Three days of on-site training",
            "Weekly dial-in visits for the first month",
          ),
        ],
      ),
      testimonial(
        "Lucía trained six people who had never steamed milk. By launch day they were pouring better than me.",
        "Aisha Rahman",
        "Co-owner",
        "Driftwood Café",
        5,
      ),
      ul("400 drinks a day by week eight", "Waste down to under 2% of shots", "25 kg of house espresso a month"),
      cta(
        "Opening a café?",
        "We'd love to help you choose a coffee and train your team.",
        "Talk to wholesale",
        "/wholesale",
      ),
    ],
  },
  {
    type: "case-study",
    title: "Saltbox Bakery: a breakfast blend of their own",
    slug: "saltbox-bakery",
    fields: { client: "Saltbox Bakery", industry: "Food service" },
    excerpt: "A custom filter blend built around their morning pastries.",
    publishedDaysAgo: 75,
    cover: "saltbox-bakery-counter.jpg",
    categories: ["wholesale"],
    tags: ["pour-over", "colombia"],
    blocks: [
      p(
        "Saltbox sells 300 cups of batch brew before 10 a.m. They wanted something sweet enough to drink black and sturdy enough for a big jug.",
      ),
      img("saltbox-bakery-counter.jpg", "The Saltbox Bakery counter with pastries and a batch brewer", undefined, true),
      p(
        "We cupped eleven combinations with their bakers and settled on 60% Colombia Huila, 40% Brazil Cerrado, roasted a touch darker than our filter profile.",
      ),
      quote("People ask for 'the Saltbox coffee' by name now.", "Hannah Cole, Saltbox Bakery"),
    ],
  },
  {
    type: "case-study",
    title: "Northside Coworking: office coffee people actually drink",
    slug: "northside-coworking",
    fields: { client: "Northside Coworking", industry: "Workspace" },
    excerpt: "Replacing pods with a grinder, a batch brewer and a rota.",
    publishedDaysAgo: 140,
    categories: ["wholesale", "sustainability"],
    tags: ["grinders", "pour-over"],
    blocks: [
      p(
        "Northside's 120 members got through 9,000 pods a year. We swapped them for a batch brewer, a grinder on loan and 6 kg of coffee a month.",
      ),
      ul("Coffee spend down 31%", "No more pod waste", "A monthly cupping that members now run themselves"),
    ],
  },
  {
    type: "case-study",
    title: "Harbor Lights Hotel: in-room coffee without pods",
    slug: "harbor-lights-hotel",
    fields: {
      client: "Harbor Lights Hotel",
      industry: "Hospitality",
      results: [
        "64 rooms switched from pods to compostable filter bags",
        "Coffee complaints in guest reviews down by two thirds in one season",
      ],
      featured: true,
    },
    excerpt: "Compostable filter bags for 64 rooms.",
    publishedDaysAgo: 210,
    cover: "hotel-room-coffee.jpg",
    categories: ["wholesale", "sustainability"],
    tags: ["decaf"],
    blocks: [
      p(
        "We developed single-serve filter bags with the hotel: one regular, one decaf, both packed in compostable sachets.",
      ),
      img("hotel-room-coffee.jpg", "A filter bag steeping in a cup on a hotel room tray"),
      p("Guest reviews mentioning coffee went from mostly negative to mostly positive in one season."),
    ],
    // Published, then the excerpt sharpened, then the results added once the season was over.
    history: [
      {
        daysAgo: 210,
        approvedBy: "Maya Ortiz (member)",
        excerpt: "In-room coffee for a waterfront hotel.",
        fields: { client: "Harbor Lights Hotel", industry: "Hospitality" },
        blocks: [
          p(
            "We developed single-serve filter bags with the hotel: one regular, one decaf, both packed in compostable sachets.",
          ),
          img("hotel-room-coffee.jpg", "A filter bag steeping in a cup on a hotel room tray"),
        ],
      },
      {
        daysAgo: 180,
        approvedBy: "Maya Ortiz (member)",
        fields: { client: "Harbor Lights Hotel", industry: "Hospitality" },
        blocks: [
          p(
            "We developed single-serve filter bags with the hotel: one regular, one decaf, both packed in compostable sachets.",
          ),
          img("hotel-room-coffee.jpg", "A filter bag steeping in a cup on a hotel room tray"),
        ],
      },
    ],
  },
  {
    type: "case-study",
    title: "The Tidewater Co-op: bulk bags and zero waste",
    slug: "tidewater-co-op",
    fields: { client: "Tidewater Co-op", industry: "Retail", results: ["1,800 single-use bags avoided last year"] },
    excerpt: "Refillable 5 kg tubs for a grocery co-op's bulk aisle.",
    publishedDaysAgo: 260,
    categories: ["wholesale", "sustainability"],
    tags: ["direct-trade"],
    blocks: [
      p(
        "Tidewater's members scoop coffee into their own jars. We deliver in returnable 5 kg tubs and collect the empties on the next run.",
      ),
      ul("1,800 single-use bags avoided last year", "Three coffees in rotation", "Roast dates printed on every tub"),
    ],
  },
  {
    type: "case-study",
    title: "Quayside Deli: espresso and retail bags",
    slug: "quayside-deli",
    fields: { client: "Quayside Deli", industry: "Food service" },
    excerpt: "Draft case study.",
    publishedDaysAgo: null,
    categories: ["wholesale"],
    blocks: [p("Draft: Quayside started with retail bags on a shelf and added an espresso machine in the spring.")],
  },
  // Scheduled: approved, goes live in two days (posts_schedule); REST does not serve it until then.
  {
    type: "blog",
    title: "Winter blend: first roast next week",
    slug: "winter-blend-first-roast",
    excerpt: "Our winter blend returns, with a new Colombian component. Scheduled, not yet live.",
    publishedDaysAgo: -2,
    blocks: [
      lead("The winter blend is back: dark chocolate, orange peel and a long, sweet finish."),
      p(
        "This year a washed Colombian from Huila replaces the Sumatra, for a cleaner cup that still stands up to milk.",
      ),
    ],
  },
];

// ---------------------------------------------------------------------------
// Site 2: Northwind Studio (the agency's own site; store disabled)

export const NORTHWIND_POSTS: DemoPost[] = [
  {
    type: "page",
    title: "Home",
    slug: "home",
    excerpt: "A small studio building fast, editable websites for independent businesses.",
    publishedDaysAgo: 700,
    blocks: [
      hero(
        "Websites that small teams can run themselves",
        "Northwind Studio designs and builds headless sites for independent shops, cafés and co-ops.",
        ["See our work", "/work"],
      ),
      grid(
        3,
        card(
          "Harbor Coffee Roasters",
          "A shop that sells while the roaster sleeps.",
          "/work/harbor-coffee",
          "northwind-harbor-case-study.png",
        ),
        card(
          "Tidewater Co-op",
          "A member portal for a grocery co-op.",
          "/work/tidewater-member-portal",
          "northwind-tidewater-portal.png",
        ),
        card("Our services", "Design, build, care plans and training.", "/services"),
      ),
    ],
  },
  {
    type: "page",
    title: "Services",
    slug: "services",
    excerpt: "Design, build and care plans.",
    publishedDaysAgo: 690,
    blocks: [
      h("Services", 1),
      accordion(
        ["Brand and site design", "Two-week sprints from moodboard to clickable prototype."],
        ["Headless build", "Content and store on Plinth, front end on your choice of framework."],
        ["Care plans", "Updates, monitoring and a monthly hour of changes."],
      ),
      cta(
        "Have a project?",
        "Tell us about it; we reply within a working day.",
        "Email the studio",
        "mailto:hello@northwind.example",
      ),
    ],
  },
  {
    type: "page",
    title: "About",
    slug: "about",
    excerpt: "Four people in a converted sail loft.",
    publishedDaysAgo: 690,
    cover: "northwind-studio-loft.jpg",
    blocks: [
      h("About Northwind", 1),
      p("We are a designer, two developers and a project lead, working from a sail loft two doors from Harbor Coffee."),
      img(
        "northwind-studio-loft.jpg",
        "The Northwind team at a long table in the sail loft",
        "Monday planning in the loft.",
        true,
      ),
    ],
  },
  {
    type: "case-study",
    title: "Harbor Coffee Roasters: a shop that sells while the roaster sleeps",
    slug: "harbor-coffee",
    fields: { client: "Harbor Coffee Roasters", industry: "Retail" },
    excerpt: "A headless storefront with subscriptions, wholesale and a blog the team updates themselves.",
    publishedDaysAgo: 90,
    cover: "northwind-harbor-case-study.png",
    categories: ["ecommerce", "design"],
    tags: ["headless", "retail"],
    blocks: [
      lead("Harbor Coffee's old site couldn't handle variants, and every blog post needed a developer."),
      ul(
        "Online revenue up 64% in the first year",
        "Page weight down from 4.1 MB to 380 KB",
        "Posts published by staff, approved in one click",
      ),
      quote("We publish a brew guide every week now. Before, it was once a season.", "Maya Ortiz, Harbor Coffee"),
    ],
  },
  {
    type: "case-study",
    title: "Tidewater Co-op member portal",
    slug: "tidewater-member-portal",
    fields: { client: "Tidewater Co-op", industry: "Retail" },
    excerpt: "Member sign-up, shifts and bulk orders in one place.",
    publishedDaysAgo: 160,
    cover: "northwind-tidewater-portal.png",
    categories: ["engineering"],
    tags: ["headless"],
    blocks: [
      p(
        "Tidewater's 900 members sign up for shifts and pre-order bulk goods from one portal backed by the same content API as their public site.",
      ),
    ],
  },
  {
    type: "blog",
    title: "Why we build headless for small businesses",
    slug: "why-headless",
    excerpt: "It isn't only for big companies.",
    publishedDaysAgo: 40,
    categories: ["engineering", "strategy"],
    tags: ["headless"],
    blocks: [
      p("Small businesses need fast pages and an editor they can't break. A block-based content API gives them both."),
      code("GET /api/v1/sites/1/posts?postType=blog&limit=3", "http"),
    ],
  },
  {
    type: "blog",
    title: "Block-based content for teams of three",
    slug: "block-based-content",
    excerpt: "Why we stopped giving clients a rich-text box.",
    publishedDaysAgo: 12,
    categories: ["design"],
    tags: ["content-design"],
    blocks: [
      p(
        "Rich text invites pasted styles and broken layouts. Blocks keep content structured and let the design system do its job.",
      ),
      ul("Fewer support requests", "Consistent pages", "Easier redesigns"),
    ],
  },
  {
    type: "blog",
    title: "How we price retainers",
    slug: "pricing-retainers",
    excerpt: "Draft.",
    publishedDaysAgo: null,
    categories: ["strategy"],
    blocks: [p("Draft: hours versus outcomes, and why we moved to fixed monthly plans.")],
  },
];

// ---------------------------------------------------------------------------
// Site 3: retired wholesale portal (inactive site: its content must never be served)

export const RETIRED_POSTS: DemoPost[] = [
  {
    type: "page",
    title: "Wholesale ordering",
    slug: "home",
    excerpt: "The old trade ordering site.",
    publishedDaysAgo: 900,
    blocks: [
      h("Wholesale ordering has moved", 1),
      p("Trade customers now order through harborcoffee.example/wholesale."),
      button("Go to the new site", "https://harborcoffee.example/wholesale"),
    ],
  },
  {
    type: "blog",
    title: "Price list changes for spring",
    slug: "spring-price-list",
    excerpt: "New prices from March.",
    publishedDaysAgo: 880,
    blocks: [p("From 1 March our wholesale prices change. The new list is on the wholesale page.")],
  },
];

// ---------------------------------------------------------------------------
// Site 4: events microsite (active, no store row at all, no branding)

export const EVENTS_POSTS: DemoPost[] = [
  {
    type: "page",
    title: "Cupping nights",
    slug: "cupping-nights",
    excerpt: "First Thursday of the month, 18:30, at the roastery.",
    publishedDaysAgo: 30,
    blocks: [
      h("Cupping nights", 1),
      p("Taste six coffees side by side and learn to describe what you taste. Free; ten places."),
      spacer("sm"),
      hr(),
      p("Next date: the first Thursday of next month."),
    ],
  },
  {
    type: "page",
    title: "Latte art throwdown",
    slug: "latte-art-throwdown",
    excerpt: "Knock-out latte art competition, open to all.",
    publishedDaysAgo: 10,
    blocks: [
      h("Latte art throwdown", 1),
      p("Sixteen baristas, one jug each, knock-out rounds. Entry $10, all to the harbour lifeboat."),
      button("Enter by email", "mailto:events@harborcoffee.example"),
    ],
  },
];

// ---------------------------------------------------------------------------
// Taxonomies. `color` null on purpose for one category (the field is optional).

export interface DemoCategory {
  slug: string;
  name: string;
  description: string | null;
  color: string | null;
}

export const HARBOR_CATEGORIES: DemoCategory[] = [
  { slug: "brewing", name: "Brewing", description: "Recipes and technique for every brewer.", color: "#8b5a2b" },
  {
    slug: "origins",
    name: "Origins",
    description: "The farms, cooperatives and washing stations we buy from.",
    color: "#2f6b4f",
  },
  {
    slug: "roastery-news",
    name: "Roastery news",
    description: "New coffees, new faces, new premises.",
    color: "#c2410c",
  },
  {
    slug: "sustainability",
    name: "Sustainability",
    description: "What we pay, what we emit, what we're changing.",
    color: "#15803d",
  },
  { slug: "recipes", name: "Recipes", description: "Drinks to make at home.", color: "#b45309" },
  {
    slug: "equipment",
    name: "Equipment",
    description: "Grinders, brewers and kettles we use and sell.",
    color: "#475569",
  },
  { slug: "events", name: "Events", description: "Cuppings, classes and competitions.", color: "#7c3aed" },
  {
    slug: "wholesale",
    name: "Wholesale",
    description: "Stories from the cafés, offices and shops we supply.",
    color: "#0e7490",
  },
  { slug: "in-the-press", name: "In the press", description: null, color: null },
];

export const HARBOR_TAGS: [slug: string, name: string][] = [
  ["espresso", "Espresso"],
  ["pour-over", "Pour-over"],
  ["cold-brew", "Cold brew"],
  ["aeropress", "AeroPress"],
  ["milk", "Milk"],
  ["latte-art", "Latte art"],
  ["grinders", "Grinders"],
  ["water", "Water"],
  ["storage", "Storage"],
  ["decaf", "Decaf"],
  ["ethiopia", "Ethiopia"],
  ["kenya", "Kenya"],
  ["colombia", "Colombia"],
  ["guatemala", "Guatemala"],
  ["direct-trade", "Direct trade"],
  ["competitions", "Competitions"],
];

export const NORTHWIND_CATEGORIES: DemoCategory[] = [
  { slug: "design", name: "Design", description: "Brand, layout and content design.", color: "#db2777" },
  { slug: "engineering", name: "Engineering", description: "How we build.", color: "#2563eb" },
  { slug: "ecommerce", name: "E-commerce", description: null, color: "#16a34a" },
  { slug: "strategy", name: "Strategy", description: null, color: "#9333ea" },
];

export const NORTHWIND_TAGS: [slug: string, name: string][] = [
  ["headless", "Headless"],
  ["retail", "Retail"],
  ["content-design", "Content design"],
];
