/**
 * Tiny builders for the demo posts' block content, so the content files read
 * like the pages they describe. The result is checked by validateContent in
 * the seed tests; nothing here bypasses the catalog.
 */
import type { Block } from "../../src/domains/blocks/catalog";
import { HARBOR_MEDIA, NORTHWIND_MEDIA } from "./demo-media";

/**
 * How seed data names a demo media file. The seed swaps these placeholders
 * for the stored files' URLs (and refuses names that are not demo files).
 */
export const DEMO_MEDIA_PREFIX = "/media/demo/";
export const M = (file: string) => `${DEMO_MEDIA_PREFIX}${file}`;

export const h = (text: string, level = 2, anchor?: string): Block => ({
  type: "heading",
  props: anchor ? { text, level, anchor } : { text, level },
});
export const p = (text: string): Block => ({ type: "paragraph", props: { text } });
export const lead = (text: string): Block => ({ type: "paragraph", props: { text, size: "lg" } });
export const ul = (...items: string[]): Block => ({ type: "list", props: { items } });
export const ol = (...items: string[]): Block => ({ type: "list", props: { items, ordered: true } });
export const quote = (text: string, cite?: string): Block => ({
  type: "quote",
  props: cite ? { text, cite } : { text },
});
export const code = (text: string, language?: string): Block => ({
  type: "code",
  props: language ? { code: text, language } : { code: text },
});
export const hr = (): Block => ({ type: "divider", props: {} });
export const button = (label: string, href: string, variant = "primary"): Block => ({
  type: "button",
  props: { label, href, variant },
});
export const spacer = (size = "md"): Block => ({ type: "spacer", props: { size } });

/** An image block; `sized` adds the file's pixel width and height (from the media list, so they are always the real ones). */
export const img = (file: string, alt: string, caption?: string, sized = false): Block => {
  const m = sized ? [...HARBOR_MEDIA, ...NORTHWIND_MEDIA].find((x) => x.file === file) : undefined;
  if (sized && !m?.width) throw new Error(`demo seed: ${file} is not a demo image with a size`);
  return {
    type: "image",
    props: {
      src: M(file),
      alt,
      ...(caption ? { caption } : {}),
      ...(m ? { width: m.width, height: m.height } : {}),
    },
  };
};
export const gallery = (...images: [file: string, alt: string, caption?: string][]): Block => ({
  type: "gallery",
  props: {
    images: images.map(([f, alt, caption]) => ({ src: M(f), alt, ...(caption ? { caption } : {}) })),
    columns: 3,
  },
});
export const video = (file: string, poster: string, title: string, caption?: string): Block => ({
  type: "video",
  props: { src: M(file), poster: M(poster), title, ...(caption ? { caption } : {}) },
});
export const file = (f: string, label: string, description?: string): Block => ({
  type: "file",
  props: { href: M(f), label, ...(description ? { description } : {}) },
});

export const section = (props: Record<string, unknown>, ...children: Block[]): Block => ({
  type: "section",
  props,
  children,
});
export const columns = (...cols: Block[][]): Block => ({
  type: "columns",
  props: { gap: "lg" },
  children: cols.map((children) => ({ type: "column", props: { width: Math.floor(12 / cols.length) }, children })),
});
export const grid = (cols: number, ...children: Block[]): Block => ({
  type: "grid",
  props: { columns: cols },
  children,
});

export const hero = (
  heading: string,
  subheading: string,
  cta?: [string, string],
  image?: string,
  secondary?: [string, string],
): Block => ({
  type: "hero",
  props: {
    heading,
    subheading,
    ...(cta ? { ctaLabel: cta[0], ctaHref: cta[1] } : {}),
    ...(secondary ? { secondaryCtaLabel: secondary[0], secondaryCtaHref: secondary[1] } : {}),
    ...(image ? { backgroundImage: M(image), backgroundImageAlt: "" } : {}),
  },
});
export const card = (title: string, body: string, href?: string, image?: string): Block => ({
  type: "card",
  props: {
    title,
    body,
    ...(href ? { href, ctaLabel: "Read more" } : {}),
    ...(image ? { image: M(image), imageAlt: "" } : {}),
  },
});
export const cta = (heading: string, body: string, buttonLabel: string, buttonHref: string): Block => ({
  type: "cta",
  props: { heading, body, buttonLabel, buttonHref },
});
export const faq = (heading: string, ...items: [question: string, answer: string][]): Block => ({
  type: "faq",
  props: { heading, items: items.map(([question, answer]) => ({ question, answer })) },
});
export const accordion = (...items: [title: string, body: string][]): Block => ({
  type: "accordion",
  props: { items: items.map(([title, body]) => ({ title, body })) },
});
export const tabs = (...t: [label: string, body: string][]): Block => ({
  type: "tabs",
  props: { tabs: t.map(([label, body]) => ({ label, body })) },
});
export const testimonial = (
  quoteText: string,
  author: string,
  role?: string,
  company?: string,
  rating?: number,
): Block => ({
  type: "testimonial",
  props: {
    quote: quoteText,
    author,
    ...(role ? { role } : {}),
    ...(company ? { company } : {}),
    ...(rating ? { rating } : {}),
  },
});
export const embed = (url: string, title: string, provider: string, caption?: string): Block => ({
  type: "embed",
  props: { url, title, provider, ...(caption ? { caption } : {}) },
});

export const productGrid = (heading: string, categorySlug?: string, limit = 6, sort = "featured"): Block => ({
  type: "product-grid",
  props: { heading, ...(categorySlug ? { categorySlug } : {}), limit, sort },
});
export const productCard = (productSlug: string): Block => ({ type: "product-card", props: { productSlug } });
export const addToCart = (productSlug: string, label = "Add to bag"): Block => ({
  type: "add-to-cart",
  props: { productSlug, label },
});
export const featured = (heading: string, limit = 4): Block => ({
  type: "featured-products",
  props: { heading, limit },
});
/** featured-products showing exactly these products, in this order. */
export const picks = (heading: string, productSlugs: string[]): Block => ({
  type: "featured-products",
  props: { heading, productSlugs },
});
export const categoryList = (heading: string, parentSlug?: string): Block => ({
  type: "category-list",
  props: { heading, ...(parentSlug ? { parentSlug } : {}), layout: "grid" },
});
