/** The agency's service catalogue per company, and requests made against it. */
import { bool, createdAt, id, index, integer, table, text } from "../../core/columns";
import { companies } from "../../core/tables";

export const serviceCatalog = table(
  "service_catalog",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    priceCents: integer("price_cents"),
    unit: text("unit"), // e.g. project, month, hour
    active: bool("active").notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [index("service_catalog_company").on(t.companyId)],
);

export const serviceRequests = table("service_requests", {
  id: id(),
  companyId: integer("company_id")
    .notNull()
    .references(() => companies.id, { onDelete: "cascade" }),
  serviceId: integer("service_id")
    .notNull()
    .references(() => serviceCatalog.id),
  userId: integer("user_id"),
  details: text("details"),
  status: text("status").notNull().default("open"),
  createdAt: createdAt(),
});
