/**
 * Valibot inputs of the store tools. Only actions that have a JSON Schema
 * form are used here (the MCP adapter publishes these schemas), so rules that
 * need the database or several fields at once (compare-at above price, URL
 * schemes, option/variant consistency) live in the verbs.
 */
import * as v from "valibot";
import { described } from "../../core/fields";
import { jsonObject } from "../../core/json-value";
import { pageInput } from "../../core/pagination";
import { MAX_SLUG } from "../../core/slug";
import { PRODUCT_STATUSES } from "./tables";
import { cents, MAX_CENTS, quantity } from "./money";

export const MAX_IMAGES = 20;
export const MAX_OPTIONS = 5;
export const MAX_OPTION_VALUES = 50;
export const MAX_VARIANTS = 100;
export const MAX_BULK_RULES = 20;
export const MAX_TAGS = 50;
export const MAX_METADATA_BYTES = 16 * 1024;
export const MAX_ORDER_LINES = 100;
export const MAX_DIMENSION = 100_000;

export const entityId = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.integer(`${what} must be an integer.`),
    v.minValue(1, `${what} must be a positive integer.`),
    v.maxValue(Number.MAX_SAFE_INTEGER, `${what} is too large.`),
  );

export const siteId = entityId("siteId");

/** A required, non-blank line of text. */
export const line = (what: string, max: number) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.minLength(1, `${what} must not be empty.`),
    v.maxLength(max, `${what} must be at most ${max} characters.`),
    v.regex(/\S/, `${what} must not be blank.`),
  );

export const text = (what: string, max: number) =>
  v.pipe(v.string(`${what} must be a string.`), v.maxLength(max, `${what} must be at most ${max} characters.`));

export const slug = v.pipe(
  v.string("slug must be a string."),
  v.maxLength(MAX_SLUG, `slug must be at most ${MAX_SLUG} characters.`),
  v.regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "slug must be lower-case letters, digits and single hyphens, e.g. blue-mug."),
);

/** An absolute http(s) URL or a site-relative path; the verb applies the full URL rule. */
export const imageUrl = v.pipe(
  v.string("url must be a string."),
  v.maxLength(2048, "url must be at most 2048 characters."),
  v.regex(
    /^(?:https?:\/\/[^\s/\\?#]\S*|\/(?![/\\])\S*)$/i,
    "url must be an absolute http(s) URL or a path starting with /.",
  ),
);

const dimension = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.minValue(0, `${what} must not be negative.`),
    v.maxValue(MAX_DIMENSION, `${what} must be at most ${MAX_DIMENSION}.`),
  );

export const WEIGHT_UNITS = ["g", "kg", "oz", "lb"] as const;

const imageInput = v.strictObject({
  url: imageUrl,
  alt: v.optional(v.nullable(text("alt", 300))),
});

const optionValueInput = described(
  v.union(
    [
      line("value", 100),
      v.strictObject({ value: line("value", 100), label: v.optional(v.nullable(text("label", 100))) }),
    ],
    "Each option value is a string or { value, label }.",
  ),
  "the value (M), or {value, label} to show another label",
);

export const optionsInput = v.pipe(
  v.array(
    v.strictObject({
      name: line("option name", 100),
      values: v.pipe(
        v.array(optionValueInput),
        v.minLength(1, "An option needs at least one value."),
        v.maxLength(MAX_OPTION_VALUES, `An option has at most ${MAX_OPTION_VALUES} values.`),
      ),
    }),
  ),
  v.maxLength(MAX_OPTIONS, `A product has at most ${MAX_OPTIONS} options.`),
);

/** Option name → value, e.g. { "Size": "M", "Colour": "Red" }: one entry per option of the product. */
export const variantOptions = v.record(
  line("option name", 100),
  line("option value", 100),
  "options must map each option name to one of its values.",
);

const variantFields = {
  name: v.optional(line("name", 200)),
  sku: v.optional(v.nullable(text("sku", 100))),
  barcode: v.optional(v.nullable(text("barcode", 100))),
  price: v.optional(cents("price")),
  compareAtPrice: v.optional(v.nullable(cents("compareAtPrice"))),
  costPrice: v.optional(v.nullable(cents("costPrice"))),
  quantity: v.optional(v.nullable(quantity("quantity"))),
  weight: v.optional(v.nullable(text("weight", 40))),
  image: v.optional(v.nullable(imageUrl)),
  lengthIn: v.optional(v.nullable(dimension("lengthIn"))),
  widthIn: v.optional(v.nullable(dimension("widthIn"))),
  heightIn: v.optional(v.nullable(dimension("heightIn"))),
  active: v.optional(v.boolean("active must be true or false.")),
};

export const variantInput = v.strictObject({ options: variantOptions, ...variantFields });

/**
 * Cents added to (or, negative, taken off) the base price of a generated
 * variant for each option value it has: { "Size": { "L": 300, "XL": 500 } }.
 * Option names and values match as variant options do; unnamed values add 0.
 */
export const optionPrices = v.record(
  line("option name", 100),
  v.record(
    line("option value", 100),
    v.pipe(
      v.number("optionPrices amounts must be numbers of cents."),
      v.integer("optionPrices amounts must be whole cents."),
      v.minValue(-MAX_CENTS, `optionPrices amounts must be at least -${MAX_CENTS}.`),
      v.maxValue(MAX_CENTS, `optionPrices amounts must be at most ${MAX_CENTS}.`),
    ),
  ),
  "optionPrices maps option name → { value: cents added }.",
);

export const bulkRuleInput = v.strictObject({
  /** A rule for one variant: by id, or by its option values. Omit both for a product-wide rule. */
  variantId: v.optional(v.nullable(entityId("variantId"))),
  variantOptions: v.optional(variantOptions),
  minQuantity: quantity("minQuantity", 1),
  maxQuantity: v.optional(v.nullable(quantity("maxQuantity", 1))),
  priceType: v.picklist(["fixed", "percent_off"], "priceType must be fixed (cents) or percent_off (basis points)."),
  amount: v.pipe(
    v.number("amount must be a number."),
    v.integer("amount must be an integer."),
    v.minValue(0, "amount must not be negative."),
  ),
});

const productFields = {
  description: v.optional(v.nullable(text("description", 100_000))),
  shortDescription: v.optional(v.nullable(text("shortDescription", 1000))),
  sku: v.optional(v.nullable(text("sku", 100))),
  barcode: v.optional(v.nullable(text("barcode", 100))),
  compareAtPrice: v.optional(v.nullable(cents("compareAtPrice"))),
  costPrice: v.optional(v.nullable(cents("costPrice"))),
  trackInventory: v.optional(v.boolean("trackInventory must be true or false.")),
  quantity: v.optional(v.nullable(quantity("quantity"))),
  weight: v.optional(v.nullable(text("weight", 40))),
  weightUnit: v.optional(v.nullable(v.picklist(WEIGHT_UNITS, "weightUnit must be one of g, kg, oz, lb."))),
  lengthIn: v.optional(v.nullable(dimension("lengthIn"))),
  widthIn: v.optional(v.nullable(dimension("widthIn"))),
  heightIn: v.optional(v.nullable(dimension("heightIn"))),
  featured: v.optional(v.boolean("featured must be true or false.")),
  designable: v.optional(v.boolean("designable must be true or false.")),
  seoTitle: v.optional(v.nullable(text("seoTitle", 200))),
  seoDescription: v.optional(v.nullable(text("seoDescription", 500))),
  tags: v.optional(v.nullable(v.pipe(v.array(line("tag", 60)), v.maxLength(MAX_TAGS, `At most ${MAX_TAGS} tags.`)))),
  /** Your own JSON object; null clears it. */
  metadata: v.optional(v.nullable(jsonObject("metadata"))),
  categoryId: v.optional(v.nullable(entityId("categoryId"))),
  images: v.optional(
    v.pipe(v.array(imageInput), v.maxLength(MAX_IMAGES, `A product has at most ${MAX_IMAGES} images.`)),
  ),
};

export const productCreateInput = v.strictObject({
  siteId,
  name: line("name", 200),
  slug: v.optional(slug),
  price: cents("price"),
  status: v.optional(v.picklist(PRODUCT_STATUSES, "status must be draft, inactive or active.")),
  ...productFields,
  options: v.optional(optionsInput),
  variants: v.optional(
    v.pipe(v.array(variantInput), v.maxLength(MAX_VARIANTS, `A product has at most ${MAX_VARIANTS} variants.`)),
  ),
  /** After `variants`, create a variant for every combination still missing (at most 100 in all). */
  generateVariants: v.optional(v.boolean("generateVariants must be true or false.")),
  optionPrices: v.optional(optionPrices),
  bulkPricing: v.optional(
    v.pipe(v.array(bulkRuleInput), v.maxLength(MAX_BULK_RULES, `At most ${MAX_BULK_RULES} bulk pricing rules.`)),
  ),
});
export type ProductCreateInput = v.InferOutput<typeof productCreateInput>;

export const productUpdateInput = v.strictObject({
  siteId,
  id: entityId("id"),
  name: v.optional(line("name", 200)),
  slug: v.optional(slug),
  price: v.optional(cents("price")),
  ...productFields,
});
export type ProductUpdateInput = v.InferOutput<typeof productUpdateInput>;

export const productRef = v.strictObject({ siteId, id: entityId("id") });

export const productGetInput = v.strictObject({
  siteId,
  id: v.optional(entityId("id")),
  slug: v.optional(slug),
});

export const productListInput = v.strictObject({
  siteId,
  status: v.optional(v.picklist(PRODUCT_STATUSES, "status must be draft, inactive or active.")),
  categoryId: v.optional(entityId("categoryId")),
  featured: v.optional(v.boolean("featured must be true or false.")),
  search: v.optional(text("search", 200)),
  ...pageInput,
});

export const productSetStatusInput = v.strictObject({
  siteId,
  id: entityId("id"),
  status: v.picklist(PRODUCT_STATUSES, "status must be draft, inactive or active."),
});

export const productOptionsSetInput = v.strictObject({
  siteId,
  productId: entityId("productId"),
  options: optionsInput,
  /** Delete variants whose combination no longer fits the new options (refused otherwise). */
  deleteInvalidVariants: v.optional(v.boolean(), false),
});

export const variantCreateInput = v.strictObject({
  siteId,
  productId: entityId("productId"),
  ...variantFields,
  options: variantOptions,
});
export const variantUpdateInput = v.strictObject({
  siteId,
  id: entityId("id"),
  ...variantFields,
  options: v.optional(variantOptions),
});
export const variantRef = v.strictObject({ siteId, id: entityId("id") });
export const variantsGenerateInput = v.strictObject({
  siteId,
  productId: entityId("productId"),
  price: v.optional(cents("price")),
  quantity: v.optional(v.nullable(quantity("quantity"))),
  active: v.optional(v.boolean(), true),
  optionPrices: v.optional(optionPrices),
});

export const bulkPricingSetInput = v.strictObject({
  siteId,
  productId: entityId("productId"),
  rules: v.pipe(v.array(bulkRuleInput), v.maxLength(MAX_BULK_RULES, `At most ${MAX_BULK_RULES} bulk pricing rules.`)),
});

// Categories

export const categoryCreateInput = v.strictObject({
  siteId,
  name: line("name", 120),
  slug: v.optional(slug),
  description: v.optional(v.nullable(text("description", 2000))),
  image: v.optional(v.nullable(imageUrl)),
  parentId: v.optional(v.nullable(entityId("parentId"))),
  order: v.optional(v.pipe(v.number(), v.integer("order must be an integer."), v.minValue(0), v.maxValue(1_000_000))),
  active: v.optional(v.boolean(), true),
});

export const categoryUpdateInput = v.strictObject({
  siteId,
  id: entityId("id"),
  name: v.optional(line("name", 120)),
  slug: v.optional(slug),
  description: v.optional(v.nullable(text("description", 2000))),
  image: v.optional(v.nullable(imageUrl)),
  active: v.optional(v.boolean("active must be true or false.")),
});

export const categoryMoveInput = v.strictObject({
  siteId,
  id: entityId("id"),
  /** New parent; null moves it to the top level. */
  parentId: v.nullable(entityId("parentId")),
  /** 0-based position among its new siblings; omitted puts it last. */
  position: v.optional(
    v.pipe(v.number(), v.integer("position must be an integer."), v.minValue(0), v.maxValue(10_000)),
  ),
});

export const categoryReorderInput = v.strictObject({
  siteId,
  parentId: v.nullable(entityId("parentId")),
  /** Every child id of parentId, in the new order. */
  orderedIds: v.pipe(v.array(entityId("category id")), v.maxLength(1000)),
});

export const categoryRef = v.strictObject({ siteId, id: entityId("id") });
export const categoryListInput = v.strictObject({ siteId, includeInactive: v.optional(v.boolean(), true) });

// Settings

export const storeSettingsUpdateInput = v.strictObject({
  siteId,
  enabled: v.optional(v.boolean("enabled must be true or false.")),
  currency: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z]{3}$/, "currency must be a 3-letter ISO 4217 code, e.g. EUR.")),
  ),
  taxInclusive: v.optional(v.boolean("taxInclusive must be true or false.")),
});
export const siteOnly = v.strictObject({ siteId });

// Customers

export const email = v.pipe(
  v.string("email must be a string."),
  v.maxLength(254, "email must be at most 254 characters."),
  v.email("email must be a valid address, e.g. ana@example.com."),
);

export const customerCreateInput = v.strictObject({
  siteId,
  email,
  name: v.optional(v.nullable(text("name", 200))),
  phone: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.maxLength(40),
        v.regex(/^[0-9+()\-. ]*$/, "phone may hold digits, spaces and + ( ) - . only."),
      ),
    ),
  ),
});
export const customerUpdateInput = v.strictObject({
  siteId,
  id: entityId("id"),
  email: v.optional(email),
  name: v.optional(v.nullable(text("name", 200))),
  phone: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.maxLength(40),
        v.regex(/^[0-9+()\-. ]*$/, "phone may hold digits, spaces and + ( ) - . only."),
      ),
    ),
  ),
});
export const customerRef = v.strictObject({ siteId, id: entityId("id") });
export const customerListInput = v.strictObject({ siteId, search: v.optional(text("search", 200)), ...pageInput });

// Orders

export const ORDER_STATUSES = ["pending", "paid", "fulfilled", "cancelled", "refunded"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const orderCreateInput = v.strictObject({
  siteId,
  customerId: v.optional(entityId("customerId")),
  /** Finds the customer by email, creating it when new. Give this or customerId, not both. */
  customer: v.optional(v.strictObject({ email, name: v.optional(text("name", 200)) })),
  items: v.pipe(
    v.array(
      v.strictObject({
        productId: entityId("productId"),
        variantId: v.optional(entityId("variantId")),
        quantity: quantity("quantity", 1),
      }),
    ),
    v.minLength(1, "An order needs at least one item."),
    v.maxLength(MAX_ORDER_LINES, `An order has at most ${MAX_ORDER_LINES} items.`),
  ),
  discountCode: v.optional(line("discountCode", 40)),
  notes: v.optional(text("notes", 2000)),
});
export type OrderCreateInput = v.InferOutput<typeof orderCreateInput>;

export const orderStatusInput = v.strictObject({
  siteId,
  id: entityId("id"),
  status: v.picklist(ORDER_STATUSES, "status must be one of pending, paid, fulfilled, cancelled, refunded."),
});
export const orderRef = v.strictObject({ siteId, id: entityId("id") });
export const orderUpdateInput = v.strictObject({
  siteId,
  id: entityId("id"),
  notes: v.optional(v.nullable(text("notes", 2000))),
  /** Another existing customer, or null for none. */
  customerId: v.optional(v.nullable(entityId("customerId"))),
  /** Finds the customer by email, creating it when new. Give this or customerId, not both. */
  customer: v.optional(v.strictObject({ email, name: v.optional(text("name", 200)) })),
});
export const orderListInput = v.strictObject({
  siteId,
  status: v.optional(v.picklist(ORDER_STATUSES)),
  customerId: v.optional(entityId("customerId")),
  ...pageInput,
});

// Discounts

export const discountCode = v.pipe(
  v.string("code must be a string."),
  v.regex(/^[A-Za-z0-9_-]{3,40}$/, "code must be 3 to 40 letters, digits, - or _."),
);

export const discountCreateInput = v.strictObject({
  siteId,
  code: discountCode,
  kind: v.picklist(["percent", "fixed"], "kind must be percent (basis points) or fixed (cents)."),
  amount: v.pipe(
    v.number("amount must be a number."),
    v.integer("amount must be an integer."),
    v.minValue(1, "amount must be at least 1."),
  ),
  minSubtotal: v.optional(v.nullable(cents("minSubtotal"))),
  startsAt: v.optional(
    v.nullable(
      v.pipe(v.string(), v.isoTimestamp("startsAt must be an ISO 8601 date-time, e.g. 2025-06-01T00:00:00Z.")),
    ),
  ),
  endsAt: v.optional(
    v.nullable(v.pipe(v.string(), v.isoTimestamp("endsAt must be an ISO 8601 date-time, e.g. 2025-06-30T23:59:59Z."))),
  ),
  usageLimit: v.optional(v.nullable(quantity("usageLimit", 1))),
  active: v.optional(v.boolean(), true),
});
export const discountUpdateInput = v.strictObject({
  siteId,
  id: entityId("id"),
  amount: v.optional(
    v.pipe(v.number(), v.integer("amount must be an integer."), v.minValue(1, "amount must be at least 1.")),
  ),
  minSubtotal: v.optional(v.nullable(cents("minSubtotal"))),
  startsAt: v.optional(v.nullable(v.pipe(v.string(), v.isoTimestamp("startsAt must be an ISO 8601 date-time.")))),
  endsAt: v.optional(v.nullable(v.pipe(v.string(), v.isoTimestamp("endsAt must be an ISO 8601 date-time.")))),
  usageLimit: v.optional(v.nullable(quantity("usageLimit", 1))),
  active: v.optional(v.boolean("active must be true or false.")),
});
export const discountRef = v.strictObject({ siteId, id: entityId("id") });
export const discountListInput = v.strictObject({ siteId, activeOnly: v.optional(v.boolean(), false), ...pageInput });

// Reviews

export const REVIEW_STATUSES = ["pending", "approved", "hidden"] as const;
export const reviewCreateInput = v.strictObject({
  siteId,
  productId: entityId("productId"),
  authorName: line("authorName", 120),
  authorEmail: v.optional(v.nullable(email)),
  rating: v.pipe(
    v.number("rating must be a number."),
    v.integer("rating must be an integer."),
    v.minValue(1, "rating must be 1 to 5."),
    v.maxValue(5, "rating must be 1 to 5."),
  ),
  title: v.optional(v.nullable(text("title", 200))),
  body: v.optional(v.nullable(text("body", 5000))),
});
export const reviewModerateInput = v.strictObject({
  siteId,
  id: entityId("id"),
  action: v.picklist(["approve", "hide"], "action must be approve or hide."),
});
export const reviewListInput = v.strictObject({
  siteId,
  productId: v.optional(entityId("productId")),
  status: v.optional(v.picklist(REVIEW_STATUSES)),
  ...pageInput,
});

// Customer messages

export const messageCreateInput = v.strictObject({
  siteId,
  email,
  subject: line("subject", 200),
  body: line("body", 10_000),
});
export const messageReplyInput = v.strictObject({ siteId, id: entityId("id"), body: line("body", 10_000) });
export const messageRef = v.strictObject({ siteId, id: entityId("id") });
export const messageListInput = v.strictObject({
  siteId,
  status: v.optional(v.picklist(["open", "closed"])),
  ...pageInput,
});
