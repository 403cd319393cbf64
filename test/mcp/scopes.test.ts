/** The scope grammar of interface.md 5.3 as src/core/scopes.ts decides it, and the metadata that advertises it. */
import "../../src/catalog"; // the domains declare their settings (and scopes) when the catalog is built
import { expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { covers, isGrantable, roleAllows, SCOPES } from "../../src/core/scopes";
import { grantableScopes, protectedResourceMetadata } from "../../src/mcp/auth";

test("wildcards: * grants everything, <domain>:* every scope of that domain only", () => {
  for (const s of SCOPES) {
    expect(covers(["*"], s)).toBe(true);
    const [d] = s.split(":");
    expect(covers([`${d}:*`], s)).toBe(true);
  }
  expect(covers(["projects:*"], "crm:read")).toBe(false);
  expect(covers(["email:*"], "email:send")).toBe(true);
  expect(covers(["brain:*"], "brain:approve")).toBe(true);
});

test("write implies read; read never implies write", () => {
  expect(covers(["crm:write"], "crm:read")).toBe(true);
  expect(covers(["crm:read"], "crm:write")).toBe(false);
  expect(covers(["crm:write"], "sites:read")).toBe(false);
});

test("email:send is needed in addition to email:write; brain:approve is separate from brain:write", () => {
  expect(covers(["email:write"], "email:send")).toBe(false);
  expect(covers(["email:send"], "email:send")).toBe(true);
  expect(covers(["brain:write"], "brain:approve")).toBe(false);
  expect(covers(["brain:approve"], "brain:write")).toBe(false);
});

test("approvals:manage includes approvals:read", () => {
  expect(covers(["approvals:manage"], "approvals:read")).toBe(true);
  expect(covers(["approvals:read"], "approvals:manage")).toBe(false);
});

test("sites:read includes media:read (interface.md 5.3 lists media under it), never media:write", () => {
  for (const g of ["sites:read", "sites:write", "sites:*"]) expect(covers([g], "media:read")).toBe(true);
  expect(covers(["sites:read"], "media:write")).toBe(false);
  expect(covers(["sites:write"], "media:write")).toBe(false);
  expect(covers(["media:read"], "sites:read")).toBe(false);
});

test("unscoped (null) is always covered, even by an empty scope list", () => {
  expect(covers([], null)).toBe(true);
  expect(covers([], "profile:read")).toBe(false);
});

test("grantable: every listed scope and wildcard, nothing invented", () => {
  for (const s of grantableScopes()) expect(isGrantable(s)).toBe(true);
  for (const s of ["nope:read", "crm:delete", "crm", "", "*:*", "crm:read ", "CRM:READ", "billing:write"])
    expect(isGrantable(s)).toBe(false);
});

test("roles: viewers read, admins and owners write, minRole narrows further", () => {
  expect(roleAllows("viewer", false)).toBe(true);
  expect(roleAllows("viewer", true)).toBe(false);
  expect(roleAllows("admin", true)).toBe(true);
  expect(roleAllows("owner", true)).toBe(true);
  expect(roleAllows("admin", true, "owner")).toBe(false);
  expect(roleAllows("viewer", false, "admin")).toBe(false);
});

test("protected-resource metadata advertises exactly the grantable scopes", () => {
  const config = { ...loadConfig({}, {}), publicUrl: "https://portal.example.com" };
  const doc = protectedResourceMetadata(config);
  expect(doc.resource).toBe("https://portal.example.com/api/mcp");
  expect(doc.authorization_servers).toEqual(["https://portal.example.com"]);
  expect(doc.bearer_methods_supported).toEqual(["header"]);
  expect(new Set(doc.scopes_supported)).toEqual(new Set(grantableScopes()));
  expect(doc.scopes_supported).toContain("billing:*");
  expect(doc.scopes_supported.length).toBe(new Set(doc.scopes_supported).size);
});
