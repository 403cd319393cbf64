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
  description: "A site's products with price and stock; search: name or SKU.",
  input: s.productListInput,
  run: listProducts,
});

const productsGet = defineTool({
  name: "products_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get a product",
  description: "A product by id or slug with variants, pricing and SEO (cents).",
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
  description: "Create a product (draft unless status says); money in cents.",
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
  description: "Change a product (null clears; images replaces); cents.",
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
  description: "Set a product's status; taking it off sale needs approval.",
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
  description: "Delete a product and its variants; an active one needs approval.",
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
  description: "Replace a product's options (see deleteInvalidVariants).",
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
  description: "Add a variant, one value per option ({Size: M}); cents.",
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
  description: "Change a variant's price, stock, SKU, image or options.",
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
  description: "Delete a variant and its bulk pricing (or set active: false).",
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
  description: "Create the missing option combinations as variants (≤ 100).",
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
    "Replace a product's quantity pricing ([] removes): fixed unit price (cents) or percent_off (basis points).",
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
  description: "A site's product categories as a tree, with product counts.",
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
  description: "Change a category; deactivating hides its subtree.",
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
  description: "Move a category under another parent (null = top level).",
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
  description: "Reorder a parent's children: orderedIds lists each once.",
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
  description: "Delete a category without subcategories.",
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
  description: "Whether a site's store is enabled, its currency and tax mode.",
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
  description: "Enable a site's store; set its ISO 4217 currency and tax mode.",
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
  description: "A site's customers, newest first; search: email or name.",
  input: s.customerListInput,
  run: listCustomers,
});

const customersGet = defineTool({
  name: "customers_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get a customer",
  description: "A customer with order count and total spent (cents).",
  input: s.customerRef,
  run: getCustomer,
});

const customersCreate = defineTool({
  name: "customers_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create a customer",
  description: "Add a customer; emails are unique per site.",
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
  description: "Change a customer's email, name or phone; null clears.",
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
  description: "A site's orders, newest first, with totals.",
  input: s.orderListInput,
  run: listOrders,
});

const ordersGet = defineTool({
  name: "orders_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get an order",
  description: "An order with its lines, subtotal, discount and total (cents).",
  input: s.orderRef,
  run: getOrder,
});

const ordersCreate = defineTool({
  name: "orders_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Create an order",
  description: "Place a pending order at catalog prices; needs an enabled store.",
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
  description: "Change a pending order's notes or customer.",
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
  description: "Delete a pending or cancelled order (refund a paid one instead).",
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
  description: "Move an order: pending → paid|cancelled; paid → fulfilled|refunded; fulfilled → refunded.",
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
  description: "A site's discount codes with terms, usage and whether usable now.",
  input: s.discountListInput,
  run: listDiscounts,
});

const discountsGet = defineTool({
  name: "discounts_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Get a discount",
  description: "A discount code with terms, usage and whether it is usable now.",
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
  description: "Create a discount code: percent (basis points) or fixed (cents).",
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
  description: "Change a discount's terms; code and kind are fixed.",
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
  description: "Delete a discount code no order used (deactivate a used one).",
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
  description: "A site's product reviews, newest first, with the average rating.",
  input: s.reviewListInput,
  run: listReviews,
});

const reviewsCreate = defineTool({
  name: "reviews_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Record a review",
  description: "Record a product review (rating 1-5), pending until moderated.",
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
  description: "Approve (show) or hide a review.",
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
  description: "Customer message threads; awaitingReply: customer spoke last.",
  input: s.messageListInput,
  run: listMessages,
});

const messagesGet = defineTool({
  name: "customer_messages_get",
  toolset: "store",
  scope: "store:read",
  readOnly: true,
  title: "Read a customer message",
  description: "A thread with all its messages in order.",
  input: s.messageRef,
  run: getMessage,
});

const messagesCreate = defineTool({
  name: "customer_messages_create",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Record a customer message",
  description: "Record a customer's message (email, form, phone) as a thread.",
  input: s.messageCreateInput,
  run: createMessage,
});

const messagesReply = defineTool({
  name: "customer_messages_reply",
  toolset: "store",
  scope: "store:write",
  readOnly: false,
  title: "Reply to a customer message",
  description: "Add a staff reply to an open customer thread.",
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
  description: "Close a thread once it is resolved.",
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
  description: "Reopen a closed thread so it can be replied to.",
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
