/** Commerce: store settings, catalog (products, options, variants, bulk pricing, categories), customers, orders, discounts, reviews, messages. Money is integer cents. */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  real,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { sites } from "../sites/tables";

export const stores = table("stores", {
  siteId: integer("site_id")
    .primaryKey()
    .references(() => sites.id, { onDelete: "cascade" }),
  enabled: bool("enabled").notNull().default(true),
  currency: text("currency").notNull().default("USD"),
  taxInclusive: bool("tax_inclusive").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const productCategories = table(
  "product_categories",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    parentId: integer("parent_id"),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    description: text("description"),
    image: text("image"),
    order: integer("sort_order").notNull().default(0),
    active: bool("active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("product_categories_site_slug").on(t.siteId, t.slug)],
);

export const PRODUCT_STATUSES = ["active", "inactive", "draft"] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

export const products = table(
  "products",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    categoryId: integer("category_id").references(() => productCategories.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    description: text("description"),
    shortDescription: text("short_description"),
    sku: text("sku"),
    barcode: text("barcode"),
    price: integer("price").notNull(),
    compareAtPrice: integer("compare_at_price"),
    costPrice: integer("cost_price"),
    trackInventory: bool("track_inventory").notNull().default(false),
    quantity: integer("quantity"),
    weight: text("weight"),
    weightUnit: text("weight_unit"),
    lengthIn: real("length_in"),
    widthIn: real("width_in"),
    heightIn: real("height_in"),
    status: text("status").$type<ProductStatus>().notNull().default("draft"),
    featured: bool("featured").notNull().default(false),
    designable: bool("designable").notNull().default(false),
    seoTitle: text("seo_title"),
    seoDescription: text("seo_description"),
    tags: json<string[]>("tags"),
    metadata: json<unknown>("metadata"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("products_site_slug").on(t.siteId, t.slug),
    index("products_site_status").on(t.siteId, t.status),
    index("products_category").on(t.categoryId),
  ],
);

export const productImages = table(
  "product_images",
  {
    id: id(),
    productId: integer("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    alt: text("alt"),
    order: integer("sort_order").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("product_images_product").on(t.productId, t.order)],
);

export const productOptions = table(
  "product_options",
  {
    id: id(),
    productId: integer("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    order: integer("sort_order").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("product_options_product").on(t.productId)],
);

export const productOptionValues = table(
  "product_option_values",
  {
    id: id(),
    optionId: integer("option_id")
      .notNull()
      .references(() => productOptions.id, { onDelete: "cascade" }),
    value: text("value").notNull(),
    label: text("label"),
    order: integer("sort_order").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("product_option_values_option").on(t.optionId)],
);

export const productVariants = table(
  "product_variants",
  {
    id: id(),
    productId: integer("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    sku: text("sku"),
    barcode: text("barcode"),
    price: integer("price").notNull(),
    compareAtPrice: integer("compare_at_price"),
    costPrice: integer("cost_price"),
    quantity: integer("quantity"),
    weight: text("weight"),
    image: text("image"),
    lengthIn: real("length_in"),
    widthIn: real("width_in"),
    heightIn: real("height_in"),
    active: bool("active").notNull().default(true),
    optionValues: json<{ optionId: number; valueId: number }[]>("option_values").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("product_variants_product").on(t.productId)],
);

export const bulkPricingRules = table(
  "bulk_pricing_rules",
  {
    id: id(),
    productId: integer("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    variantId: integer("variant_id").references(() => productVariants.id, { onDelete: "cascade" }),
    minQuantity: integer("min_quantity").notNull(),
    maxQuantity: integer("max_quantity"),
    priceType: text("price_type").$type<"fixed" | "percent_off">().notNull(),
    amount: integer("amount").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("bulk_pricing_product").on(t.productId)],
);

export const customers = table(
  "customers",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    name: text("name"),
    phone: text("phone"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("customers_site_email").on(t.siteId, t.email)],
);

export const discounts = table(
  "discounts",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    code: text("code").notNull(), // stored upper-cased
    kind: text("kind").$type<"percent" | "fixed">().notNull(),
    /** percent: basis points (1000 = 10 %); fixed: cents. */
    amount: integer("amount").notNull(),
    minSubtotal: integer("min_subtotal"),
    startsAt: time("starts_at"),
    endsAt: time("ends_at"),
    usageLimit: integer("usage_limit"),
    usedCount: integer("used_count").notNull().default(0),
    active: bool("active").notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("discounts_site_code").on(t.siteId, t.code)],
);

export const orders = table(
  "orders",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    customerId: integer("customer_id").references(() => customers.id),
    status: text("status").notNull().default("pending"),
    currency: text("currency").notNull(),
    subtotal: integer("subtotal").notNull(),
    discountTotal: integer("discount_total").notNull().default(0),
    total: integer("total").notNull(),
    discountId: integer("discount_id").references(() => discounts.id),
    /** The code's terms when the order was placed (later edits to the code do not rewrite them); null without a code. */
    discountCode: text("discount_code"),
    discountKind: text("discount_kind").$type<"percent" | "fixed">(),
    discountAmount: integer("discount_amount"),
    notes: text("notes"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("orders_site").on(t.siteId, t.createdAt)],
);

/** A bulk pricing rule as an order line records it. */
export interface OrderBulkRule {
  id: number;
  minQuantity: number;
  maxQuantity: number | null;
  priceType: "fixed" | "percent_off";
  amount: number;
}

export const orderItems = table(
  "order_items",
  {
    id: id(),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    productId: integer("product_id").references(() => products.id, { onDelete: "set null" }),
    variantId: integer("variant_id").references(() => productVariants.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    sku: text("sku"),
    quantity: integer("quantity").notNull(),
    /** Unit price before bulk pricing (the variant's or product's price at order time); null on lines placed before it was kept. */
    listPrice: integer("list_price"),
    unitPrice: integer("unit_price").notNull(),
    /** The bulk pricing rule that set unitPrice, as it was at order time; null when none applied. */
    bulkRule: json<OrderBulkRule>("bulk_rule"),
    lineTotal: integer("line_total").notNull(),
    /** Stock was taken for this line when the order was placed (so a cancel or refund puts it back). */
    stockTaken: bool("stock_taken").notNull().default(false),
  },
  (t) => [index("order_items_order").on(t.orderId)],
);

export const reviews = table(
  "reviews",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    productId: integer("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    authorName: text("author_name").notNull(),
    authorEmail: text("author_email"),
    rating: integer("rating").notNull(),
    title: text("title"),
    body: text("body"),
    status: text("status").notNull().default("pending"), // pending | approved | hidden
    createdAt: createdAt(),
  },
  (t) => [index("reviews_product").on(t.productId)],
);

export const customerMessages = table(
  "customer_messages",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    customerId: integer("customer_id").references(() => customers.id),
    email: text("email").notNull(),
    subject: text("subject").notNull(),
    status: text("status").notNull().default("open"), // open | closed
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("customer_messages_site").on(t.siteId)],
);

export const customerMessageReplies = table("customer_message_replies", {
  id: id(),
  messageId: integer("message_id")
    .notNull()
    .references(() => customerMessages.id, { onDelete: "cascade" }),
  author: text("author").notNull(), // customer | staff
  userId: integer("user_id"),
  body: text("body").notNull(),
  createdAt: createdAt(),
});
