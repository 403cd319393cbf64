/**
 * The store toolset: catalog (products, options, variants, bulk pricing,
 * categories), store settings, customers, orders, discounts, reviews and
 * customer messages. Thin declarations over the verbs of this folder; every
 * verb re-checks scope and role, resolves the site through the company, and
 * bumps the site's content version on writes.
 */
import { defineTool, type Domain } from "../../mcp/define";
import {
  createCategory,
  deleteCategory,
  listCategories,
  moveCategory,
  reorderCategories,
  updateCategory,
} from "./categories";
import { createCustomer, getCustomer, listCustomers, updateCustomer } from "./customers";
import { createDiscount, deleteDiscount, getDiscount, listDiscounts, updateDiscount } from "./discounts";
import { closeMessage, createMessage, getMessage, listMessages, reopenMessage, replyToMessage } from "./messages";
import { createOrder, deleteOrder, getOrder, listOrders, updateOrder, updateOrderStatus } from "./orders";
import { createProduct, deleteProduct, getProduct, listProducts, setProductStatus, updateProduct } from "./products";
import { createReview, listReviews, moderateReview } from "./reviews";
import * as s from "./schemas";
import { STORE_PATH, storePages } from "./pages";
import { storeStagedTargets } from "./staged-targets";
import { storeEvents } from "./events";
import { getStoreSettings, updateStoreSettings } from "./settings";
import {
  createVariant,
  deleteVariant,
  generateVariants,
  setBulkPricing,
  setProductOptions,
  updateVariant,
} from "./variants";

const _MONEY = "Money is integer cents (1999 = 19.99).";

// Products

const productsList = defineTool({
  name: "products_list",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "List products",
  description:
    "A site's products (any status), newest first, with price, stock and variant counts. search: name or SKU.",
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
    "One product by id or slug with images, options, variants (inactive flagged), bulk pricing, SEO, category. Cents.",
  input: s.productGetInput,
  run: getProduct,
});

const productsCreate = defineTool({
  name: "products_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  title: "Create a product",
  description:
    'Create a product (draft unless status says; only active ones sell). options [{"name":"Size","values":["S","M"]}], variants [{"options":{"Size":"M"}}] and/or generateVariants (all combinations), optionPrices {"Size":{"L":300}} (cents added). Cents.',
  input: s.productCreateInput,
  run: createProduct,
});

const productsUpdate = defineTool({
  name: "products_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Update a product",
  description:
    "Change a product's fields (omitted stay, null clears, images replaces the list). Status, options, variants, bulk pricing: own tools.",
  input: s.productUpdateInput,
  run: updateProduct,
});

const productsSetStatus = defineTool({
  name: "products_set_status",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Change a product's status",
  description:
    "Move a product: draft \u2192 active/inactive, inactive \u2192 active/draft, active \u2192 inactive. Active needs an active variant if it has options. Taking one off sale waits for a person's approval (approval.url).",
  input: s.productSetStatusInput,
  run: setProductStatus,
});

const productsDelete = defineTool({
  name: "products_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "gated",
  destructive: true,
  title: "Delete a product",
  description:
    "Delete a product with its images, options, variants, bulk pricing (orders keep their lines). An active one waits for a person's approval (approval.url).",
  input: s.productRef,
  run: deleteProduct,
});

const productOptionsSet = defineTool({
  name: "product_options_set",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  idempotent: true,
  title: "Set a product's options",
  description:
    'Replace a product\'s options, e.g. [{"name":"Size","values":["S","M"]}]; kept names/values keep their ids. Refused if variants would stop matching, unless deleteInvalidVariants.',
  input: s.productOptionsSetInput,
  run: setProductOptions,
});

const variantsCreate = defineTool({
  name: "product_variants_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  title: "Create a variant",
  description:
    'Add a variant: options has one value per option ({"Size":"M"}); own price (cents), stock, SKU, image. Each combination exists once.',
  input: s.variantCreateInput,
  run: createVariant,
});

const variantsUpdate = defineTool({
  name: "product_variants_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Update a variant",
  description: "Change a variant's price, stock, SKU, image, active flag or options (the combination stays unique).",
  input: s.variantUpdateInput,
  run: updateVariant,
});

const variantsDelete = defineTool({
  name: "product_variants_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  title: "Delete a variant",
  description:
    "Delete a variant and its bulk pricing rules. To hide it instead: product_variants_update active: false.",
  input: s.variantRef,
  run: deleteVariant,
});

const variantsGenerate = defineTool({
  name: "product_variants_generate",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Generate all variants",
  description:
    'Create the missing option combinations as variants (100 at most in all) at price (default the product\'s) plus optionPrices ({"Size":{"L":300}}: cents).',
  input: s.variantsGenerateInput,
  run: generateVariants,
});

const bulkPricingSet = defineTool({
  name: "product_bulk_pricing_set",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  idempotent: true,
  title: "Set bulk pricing",
  description:
    "Replace a product's quantity pricing rules ([] removes): priceType fixed (amount = unit price, cents) or percent_off (basis points, 1000 = 10 %); a variantId/variantOptions rule beats a product-wide one. Ranges must not overlap.",
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
  description: "A site's product categories as a tree (parentId), by position then name, with active product counts.",
  input: s.categoryListInput,
  run: listCategories,
});

const categoriesCreate = defineTool({
  name: "product_categories_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  title: "Create a product category",
  description: "Create a product category, optionally under a parent.",
  input: s.categoryCreateInput,
  run: createCategory,
});

const categoriesUpdate = defineTool({
  name: "product_categories_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Update a product category",
  description:
    "Change a category. Deactivating hides its subtree from the storefront; activating needs an active parent.",
  input: s.categoryUpdateInput,
  run: updateCategory,
});

const categoriesMove = defineTool({
  name: "product_categories_move",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Move a product category",
  description:
    "Move a category under another parent (null = top level), optionally at a position; never under itself or a descendant.",
  input: s.categoryMoveInput,
  run: moveCategory,
});

const categoriesReorder = defineTool({
  name: "product_categories_reorder",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Reorder product categories",
  description: "Reorder parentId's children (null = top level): orderedIds lists each exactly once.",
  input: s.categoryReorderInput,
  run: reorderCategories,
});

const categoriesDelete = defineTool({
  name: "product_categories_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  title: "Delete a product category",
  description: "Delete a category without subcategories; its products become uncategorized (count returned).",
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
    "Whether the site's store is enabled (REST serves products only then), its currency and whether prices include tax.",
  input: s.siteOnly,
  run: getStoreSettings,
});

const settingsUpdate = defineTool({
  name: "store_settings_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Update store settings",
  description:
    "Enable or disable a site's store (created on first use); set its ISO 4217 currency (for new orders) and whether prices include tax.",
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
  description: "List a site's customers, newest first; search matches email or name.",
  input: s.customerListInput,
  run: listCustomers,
});

const customersGet = defineTool({
  name: "customers_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get a customer",
  description: "One customer with their order count and total spent (cents; paid and fulfilled orders).",
  input: s.customerRef,
  run: getCustomer,
});

const customersCreate = defineTool({
  name: "customers_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create a customer",
  description: "Add a customer; emails are unique per site (case-insensitive). Returns {id, email}.",
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
  description: `List a site's orders, newest first, filtered by status or customerId, with totals.`,
  input: s.orderListInput,
  run: listOrders,
});

const ordersGet = defineTool({
  name: "orders_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get an order",
  description: "One order: lines (listPrice, bulkRule, unitPrice, lineTotal), subtotal, discount, total.",
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
    "Place a pending order: items [{productId, variantId if it has options, quantity}], customerId or customer {email, name}. Prices, tiers and stock come from the catalog. Needs an enabled store.",
  input: s.orderCreateInput,
  run: createOrder,
});

const ordersUpdate = defineTool({
  name: "orders_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Update an order",
  description: "Change a pending order's notes or customer (customerId, null for none, or customer {email, name}).",
  input: s.orderUpdateInput,
  run: updateOrder,
});

const ordersDelete = defineTool({
  name: "orders_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  destructive: true,
  title: "Delete an order",
  description:
    "Delete a pending (stock and code use given back) or cancelled order. Paid, fulfilled, refunded ones stay: refund instead.",
  input: s.orderRef,
  run: deleteOrder,
});

const ordersUpdateStatus = defineTool({
  name: "orders_update_status",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  idempotent: true,
  title: "Change an order's status",
  description:
    "Move an order: pending \u2192 paid/cancelled, paid \u2192 fulfilled/refunded, fulfilled \u2192 refunded. Cancelling or refunding before fulfilment returns stock.",
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
  description: "A site's discount codes with terms, usage (usedCount of usageLimit) and whether each is usable now.",
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
  supervised: "staged",
  title: "Create a discount code",
  description:
    "Create a discount code: percent (basis points, 1000 = 10 %) or fixed (cents) off the subtotal. Codes are case-insensitive, unique per site.",
  input: s.discountCreateInput,
  run: createDiscount,
});

const discountsUpdate = defineTool({
  name: "discounts_update",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Update a discount code",
  description: "Change a discount's terms or active flag; code and kind are fixed.",
  input: s.discountUpdateInput,
  run: updateDiscount,
});

const discountsDelete = defineTool({
  name: "discounts_delete",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  title: "Delete a discount code",
  description: "Delete a discount code no order used; a used one is refused (deactivate it with discounts_update).",
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
  description: "A site's product reviews, newest first, with the matches' average rating.",
  input: s.reviewListInput,
  run: listReviews,
});

const reviewsCreate = defineTool({
  name: "reviews_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Record a review",
  description: "Record a customer's product review (rating 1-5); pending until approved with reviews_moderate.",
  input: s.reviewCreateInput,
  run: createReview,
});

const reviewsModerate = defineTool({
  name: "reviews_moderate",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Moderate a review",
  description: "Approve (show) or hide a review; either can be undone. Returns {id, status, previousStatus}.",
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
  description: "Customer message threads, latest activity first; awaitingReply: open, last message from the customer.",
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
  description:
    "Record a customer's message (email, form, phone) as a new open thread, linked to the customer with that email if any.",
  input: s.messageCreateInput,
  run: createMessage,
});

const messagesReply = defineTool({
  name: "customer_messages_reply",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Reply to a customer message",
  description: "Add a staff reply to an open thread (reopen a closed one with customer_messages_reopen).",
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
  scopes: [
    {
      area: "store",
      title: "Store",
      words: {
        "store:read": "read products, orders, customers, discounts, reviews and messages",
        "store:write": "change them, moderate reviews and answer customers",
      },
    },
  ],
  name: "store",
  title: "Store",
  description:
    "Storefront commerce per site: products with images, options, variants and bulk pricing; product categories; store settings; customers; orders; discount codes; reviews; customer messages. Money is integer cents.",
  vocabulary: {
    shop: ["store", "product"],
    item: ["product"],
    merchandise: ["product"],
    coupon: ["discount", "code"],
    promo: ["discount", "code"],
    voucher: ["discount", "code"],
    shipped: ["status", "fulfilled"],
    ship: ["status", "fulfilled"],
    fulfil: ["fulfilled"],
    refund: ["refunded"],
    bought: ["customer", "order"],
    buyer: ["customer"],
    purchase: ["order"],
    shopper: ["customer"],
    hide: ["status", "draft"],
    stock: ["quantity", "inventory"],
    inventory: ["quantity"],
    size: ["option", "variant"],
    colour: ["option", "variant"],
    color: ["option", "variant"],
    collection: ["category"],
    wholesale: ["bulk", "pricing"],
    "volume discount": ["bulk", "pricing"],
    rating: ["review"],
    question: ["message"],
    emailed: ["message"],
    wrote: ["message"],
    approve: ["moderate"],
    currency: ["settings"],
    tax: ["settings"],
  },
  tools: [
    productsList,
    productsGet,
    productsCreate,
    productsUpdate,
    productsSetStatus,
    productsDelete,
    productOptionsSet,
    variantsCreate,
    variantsUpdate,
    variantsDelete,
    variantsGenerate,
    bulkPricingSet,
    categoriesList,
    categoriesCreate,
    categoriesUpdate,
    categoriesMove,
    categoriesReorder,
    categoriesDelete,
    settingsGet,
    settingsUpdate,
    customersList,
    customersGet,
    customersCreate,
    customersUpdate,
    ordersList,
    ordersGet,
    ordersCreate,
    ordersUpdate,
    ordersUpdateStatus,
    ordersDelete,
    discountsList,
    discountsGet,
    discountsCreate,
    discountsUpdate,
    discountsDelete,
    reviewsList,
    reviewsCreate,
    reviewsModerate,
    messagesList,
    messagesGet,
    messagesCreate,
    messagesReply,
    messagesClose,
    messagesReopen,
  ],
  stagedTargets: storeStagedTargets,
  events: storeEvents,
  portal: { routes: storePages, nav: [{ href: STORE_PATH, label: "Store" }] },
};
