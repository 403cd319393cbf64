/**
 * The store toolset: catalog (products, options, variants, bulk pricing,
 * categories), store settings, customers, orders, discounts, reviews and
 * customer messages. Thin declarations over the verbs of this folder; every
 * verb re-checks scope and role, resolves the site through the company, and
 * bumps the site's content version on writes.
 */
import { defineTool, type Domain } from "../../mcp/define";
import { createCategory, deleteCategory, listCategories, moveCategory, reorderCategories, updateCategory } from "./categories";
import { createCustomer, getCustomer, listCustomers, updateCustomer } from "./customers";
import { createDiscount, deleteDiscount, getDiscount, listDiscounts, updateDiscount } from "./discounts";
import { closeMessage, createMessage, getMessage, listMessages, reopenMessage, replyToMessage } from "./messages";
import { createOrder, getOrder, listOrders, updateOrderStatus } from "./orders";
import { createProduct, deleteProduct, getProduct, listProducts, setProductStatus, updateProduct } from "./products";
import { createReview, listReviews, moderateReview } from "./reviews";
import * as s from "./schemas";
import { getStoreSettings, updateStoreSettings } from "./settings";
import { createVariant, deleteVariant, generateVariants, setBulkPricing, setProductOptions, updateVariant } from "./variants";

const MONEY = "Money is integer cents (1999 = 19.99).";

// Products

const productsList = defineTool({
  name: "products_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List products",
  description:
    "List a site's products of every status (draft, inactive, active), newest first, with price (cents), category, first image, " +
    "stock and variant counts. Filter by status, categoryId or search (name or SKU). Paginated: limit 1-100 (default 20), offset; nextOffset is null on the last page.",
  input: s.productListInput,
  run: listProducts,
});

const productsGet = defineTool({
  name: "products_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get a product",
  description:
    "Get one product by productId or slug with everything the storefront serves: images (in order), options with values, " +
    "variants (including inactive ones, flagged active: false; the public API hides those), bulk pricing rules, SEO fields, tags, metadata and category. " +
    MONEY,
  input: s.productGetInput,
  run: getProduct,
});

const productsCreate = defineTool({
  name: "products_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create a product",
  description:
    "Create a product, by default as a draft. In the same call you may give images (ordered), options " +
    '(e.g. [{"name":"Size","values":["S","M"]}]), variants (each naming its option values, e.g. {"options":{"Size":"M"},"price":2100}) ' +
    "and bulk pricing rules (fixed price in cents, or percent_off in basis points, 1000 = 10 %, over non-overlapping quantity ranges). " +
    `compareAtPrice must be above price when set. ${MONEY} The slug is made from the name when omitted. ` +
    "status may be draft (default), inactive or active; only active products appear on the storefront. Returns {id, slug, status}.",
  input: s.productCreateInput,
  run: createProduct,
});

const productsUpdate = defineTool({
  name: "products_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Update a product",
  description:
    "Change fields of a product; fields you omit stay as they are, null clears an optional field. images, when given, replaces the whole ordered list. " +
    "Use products_set_status for status, product_options_set for options, product_variants_* for variants and product_bulk_pricing_set for bulk pricing. " +
    `${MONEY} Returns {id, slug, status}.`,
  input: s.productUpdateInput,
  run: updateProduct,
});

const productsSetStatus = defineTool({
  name: "products_set_status",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Change a product's status",
  description:
    "Move a product between draft, inactive and active. Allowed: draft → active or inactive; inactive → active or draft; active → inactive " +
    "(set an active product inactive before sending it back to draft). A product with options needs at least one active variant to be active. " +
    "Only active products are served by the storefront API. Returns {id, slug, status, previousStatus}.",
  input: s.productSetStatusInput,
  run: setProductStatus,
});

const productsDelete = defineTool({
  name: "products_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  destructive: true,
  title: "Delete a product",
  description:
    "Delete a product with its images, options, variants, bulk pricing and reviews. Past orders keep their lines (name, SKU, prices). " +
    "To take a product off sale without losing it, use products_set_status with inactive instead.",
  input: s.productRef,
  run: deleteProduct,
});

const productOptionsSet = defineTool({
  name: "product_options_set",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  destructive: true,
  idempotent: true,
  title: "Set a product's options",
  description:
    'Replace a product\'s options, e.g. [{"name":"Size","values":["S","M","L"]},{"name":"Colour","values":[{"value":"red","label":"Red"}]}] (at most 5 options, 50 values each). ' +
    "Options and values that keep their name/value keep their ids, so existing variants stay valid. If a variant would no longer match (a value removed, an option added or removed), " +
    "the call is refused listing those variants, unless deleteInvalidVariants is true. Then run product_variants_generate to add the missing combinations.",
  input: s.productOptionsSetInput,
  run: setProductOptions,
});

const variantsCreate = defineTool({
  name: "product_variants_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create a variant",
  description:
    'Add one variant to a product. options must name one value of every product option, e.g. {"Size":"M","Colour":"Red"}; each combination may exist once. ' +
    `price defaults to the product's price; compareAtPrice must be above price when set. ${MONEY} At most 100 variants per product.`,
  input: s.variantCreateInput,
  run: createVariant,
});

const variantsUpdate = defineTool({
  name: "product_variants_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Update a variant",
  description:
    "Change a variant's price, compare-at or cost price, stock quantity, SKU, image, dimensions, active flag or option values. " +
    `Inactive variants are hidden from the storefront and cannot be ordered. ${MONEY}`,
  input: s.variantUpdateInput,
  run: updateVariant,
});

const variantsDelete = defineTool({
  name: "product_variants_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  destructive: true,
  title: "Delete a variant",
  description: "Delete a variant (and its own bulk pricing rules). Set active: false with product_variants_update to hide it without deleting.",
  input: s.variantRef,
  run: deleteVariant,
});

const variantsGenerate = defineTool({
  name: "product_variants_generate",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Generate all variants",
  description:
    "Create a variant for every combination of the product's option values that has none yet, named from the values (e.g. \"M / Red\"), " +
    "priced at price (default: the product's price) with the given stock quantity. Refused, creating nothing, when the options make more than 100 combinations. " +
    "Calling it again creates nothing new.",
  input: s.variantsGenerateInput,
  run: generateVariants,
});

const bulkPricingSet = defineTool({
  name: "product_bulk_pricing_set",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  destructive: true,
  idempotent: true,
  title: "Set bulk pricing",
  description:
    "Replace a product's bulk (quantity) pricing rules; an empty list removes them. Each rule: minQuantity, optional maxQuantity, priceType fixed " +
    "(amount = unit price in cents) or percent_off (amount in basis points, 1000 = 10 %, unit price rounded half up), and optionally a variant (variantId or variantOptions). " +
    "Ranges of the same scope must not overlap. A variant's own rule wins over a product-wide one. Tiers apply per order line.",
  input: s.bulkPricingSetInput,
  run: setBulkPricing,
});

// Categories

const categoriesList = defineTool({
  name: "product_categories_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List product categories",
  description:
    "All product categories of a site in tree order (depth-first, siblings by order), each with parentId, depth, active, " +
    "productCount (active products in it, as the storefront API reports) and totalProducts (any status).",
  input: s.categoryListInput,
  run: listCategories,
});

const categoriesCreate = defineTool({
  name: "product_categories_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create a product category",
  description:
    "Create a product category, at the top level or under parentId (at most 6 levels), last among its siblings unless order (0-based position) is given. " +
    "The slug is made from the name when omitted. Returns {id, slug, status, parentId, order}.",
  input: s.categoryCreateInput,
  run: createCategory,
});

const categoriesUpdate = defineTool({
  name: "product_categories_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Update a product category",
  description:
    "Rename a category or change its slug, description, image or active flag. Deactivating hides it and its whole subtree from the storefront " +
    "(alsoDeactivated lists the descendants switched off); a category under an inactive parent cannot be activated until the parent is.",
  input: s.categoryUpdateInput,
  run: updateCategory,
});

const categoriesMove = defineTool({
  name: "product_categories_move",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Move a product category",
  description:
    "Move a category (with its subtree) under parentId, or to the top level with parentId null, at position (0-based among the new siblings; default last). " +
    "Refused when it would make a cycle (moving under itself or a descendant) or exceed 6 levels.",
  input: s.categoryMoveInput,
  run: moveCategory,
});

const categoriesReorder = defineTool({
  name: "product_categories_reorder",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Reorder product categories",
  description:
    "Set the order of the children of parentId (null for the top level): orderedIds must list every one of those children exactly once, in the new order.",
  input: s.categoryReorderInput,
  run: reorderCategories,
});

const categoriesDelete = defineTool({
  name: "product_categories_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  destructive: true,
  title: "Delete a product category",
  description:
    "Delete a category that has no subcategories (move or delete those first). Its products become uncategorized; the count is returned.",
  input: s.categoryRef,
  run: deleteCategory,
});

// Settings

const settingsGet = defineTool({
  name: "store_settings_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get store settings",
  description:
    "Whether the site's store is configured and enabled (the storefront API serves products only for an enabled store), its currency (ISO 4217) and whether prices include tax.",
  input: s.siteOnly,
  run: getStoreSettings,
});

const settingsUpdate = defineTool({
  name: "store_settings_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Update store settings",
  description:
    "Enable or disable a site's store (creating it on first use), set its currency (ISO 4217 code such as EUR; new orders use it) and whether catalog prices include tax.",
  input: s.storeSettingsUpdateInput,
  run: updateStoreSettings,
});

// Customers

const customersList = defineTool({
  name: "customers_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List customers",
  description: "List a site's customers, newest first; search matches email or name. Paginated: limit 1-100 (default 20), offset.",
  input: s.customerListInput,
  run: listCustomers,
});

const customersGet = defineTool({
  name: "customers_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get a customer",
  description: "Get one customer with their number of orders and total spent (cents, paid and fulfilled orders).",
  input: s.customerRef,
  run: getCustomer,
});

const customersCreate = defineTool({
  name: "customers_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create a customer",
  description: "Add a customer to a site's store. Emails are unique per site (case-insensitive). Returns {id, email}.",
  input: s.customerCreateInput,
  run: createCustomer,
});

const customersUpdate = defineTool({
  name: "customers_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Update a customer",
  description: "Change a customer's email, name or phone; null clears name or phone.",
  input: s.customerUpdateInput,
  run: updateCustomer,
});

// Orders

const ordersList = defineTool({
  name: "orders_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List orders",
  description: `List a site's orders, newest first, filtered by status or customerId, with totals. ${MONEY} Paginated: limit 1-100 (default 20), offset.`,
  input: s.orderListInput,
  run: listOrders,
});

const ordersGet = defineTool({
  name: "orders_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get an order",
  description: `Get one order with its lines (unit price, quantity, line total), subtotal, discount and total. ${MONEY}`,
  input: s.orderRef,
  run: getOrder,
});

const ordersCreate = defineTool({
  name: "orders_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create an order",
  description:
    "Place an order (status pending) for active products: items [{productId, variantId (required when the product has options), quantity}], " +
    "optionally a customer (customerId, or customer {email, name} found or created) and a discountCode. Prices come from the catalog, " +
    "including bulk pricing for each line's quantity; you never send prices. Stock of products that track inventory is taken, and the order is refused when there is not enough. " +
    `Totals are exact: lines sum to the subtotal, minus the discount. Requires an enabled store. ${MONEY}`,
  input: s.orderCreateInput,
  run: createOrder,
});

const ordersUpdateStatus = defineTool({
  name: "orders_update_status",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Change an order's status",
  description:
    "Move an order along its lifecycle: pending → paid or cancelled; paid → fulfilled or refunded; fulfilled → refunded; cancelled and refunded are final. " +
    "Cancelling a pending order or refunding a paid one returns its stock; cancelling also releases its discount-code use.",
  input: s.orderStatusInput,
  run: updateOrderStatus,
});

// Discounts

const discountsList = defineTool({
  name: "discounts_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List discounts",
  description: "List a site's discount codes with kind, amount, validity window, usage (usedCount of usageLimit) and whether each is usable now. Paginated.",
  input: s.discountListInput,
  run: listDiscounts,
});

const discountsGet = defineTool({
  name: "discounts_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get a discount",
  description: "Get one discount code with its terms, usage and whether it is usable now.",
  input: s.discountRef,
  run: getDiscount,
});

const discountsCreate = defineTool({
  name: "discounts_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create a discount code",
  description:
    "Create a discount code (3-40 letters, digits, - or _; case-insensitive) taking percent (amount in basis points, 1000 = 10 %) or fixed (amount in cents) " +
    "off an order's subtotal, with optional minSubtotal (cents), startsAt/endsAt (ISO 8601) window and usageLimit. Returns {id, code, status}.",
  input: s.discountCreateInput,
  run: createDiscount,
});

const discountsUpdate = defineTool({
  name: "discounts_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Update a discount code",
  description: "Change a discount's amount, minimum subtotal, validity window, usage limit or active flag. The code and kind are fixed once created.",
  input: s.discountUpdateInput,
  run: updateDiscount,
});

const discountsDelete = defineTool({
  name: "discounts_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  destructive: true,
  title: "Delete a discount code",
  description: "Delete a discount code that no order used; a used code is refused (deactivate it with discounts_update instead).",
  input: s.discountRef,
  run: deleteDiscount,
});

// Reviews

const reviewsList = defineTool({
  name: "reviews_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List reviews",
  description: "List product reviews of a site, newest first, filtered by productId or status (pending, approved, hidden), with the average rating of the matches. Paginated.",
  input: s.reviewListInput,
  run: listReviews,
});

const reviewsCreate = defineTool({
  name: "reviews_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Record a review",
  description: "Record a customer's review of a product (rating 1-5, optional title and body). New reviews are pending until approved with reviews_moderate.",
  input: s.reviewCreateInput,
  run: createReview,
});

const reviewsModerate = defineTool({
  name: "reviews_moderate",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Moderate a review",
  description: "Approve (show) or hide a review. Either can be undone by moderating again. Returns {id, status, previousStatus}.",
  input: s.reviewModerateInput,
  run: moderateReview,
});

// Customer messages

const messagesList = defineTool({
  name: "customer_messages_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List customer messages",
  description: "List customer message threads, most recently active first, filtered by status (open, closed); awaitingReply marks open threads whose last message is the customer's. Paginated.",
  input: s.messageListInput,
  run: listMessages,
});

const messagesGet = defineTool({
  name: "customer_messages_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Read a customer message",
  description: "Read one customer message thread with every message in order (author customer or staff).",
  input: s.messageRef,
  run: getMessage,
});

const messagesCreate = defineTool({
  name: "customer_messages_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Record a customer message",
  description: "Record a message a customer sent (by email, form or phone) as a new open thread, linked to the customer with that email when there is one.",
  input: s.messageCreateInput,
  run: createMessage,
});

const messagesReply = defineTool({
  name: "customer_messages_reply",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Reply to a customer message",
  description: "Add a staff reply to an open thread. Closed threads are refused; reopen them first with customer_messages_reopen.",
  input: s.messageReplyInput,
  run: replyToMessage,
});

const messagesClose = defineTool({
  name: "customer_messages_close",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Close a customer message",
  description: "Close a customer message thread once it is resolved. Returns {id, status, previousStatus}.",
  input: s.messageRef,
  run: closeMessage,
});

const messagesReopen = defineTool({
  name: "customer_messages_reopen",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Reopen a customer message",
  description: "Reopen a closed customer message thread so it can be replied to again.",
  input: s.messageRef,
  run: reopenMessage,
});

export const storeDomain: Domain = {
  name: "store",
  title: "Store",
  description:
    "Storefront commerce per site: products with images, options, variants and bulk pricing; product categories; store settings; customers; orders; discount codes; reviews; customer messages. Money is integer cents.",
  tools: [
    productsList, productsGet, productsCreate, productsUpdate, productsSetStatus, productsDelete,
    productOptionsSet, variantsCreate, variantsUpdate, variantsDelete, variantsGenerate, bulkPricingSet,
    categoriesList, categoriesCreate, categoriesUpdate, categoriesMove, categoriesReorder, categoriesDelete,
    settingsGet, settingsUpdate,
    customersList, customersGet, customersCreate, customersUpdate,
    ordersList, ordersGet, ordersCreate, ordersUpdateStatus,
    discountsList, discountsGet, discountsCreate, discountsUpdate, discountsDelete,
    reviewsList, reviewsCreate, reviewsModerate,
    messagesList, messagesGet, messagesCreate, messagesReply, messagesClose, messagesReopen,
  ],
};
