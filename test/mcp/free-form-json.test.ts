/**
 * Free-form JSON arguments over MCP with a real SDK client (issue 30, the
 * hostile-input run): an array where an object is expected used to be
 * coerced into {"0":1,…} and accepted; a 2,000-deep array or 10,000+ items
 * went on to be walked, stored and rendered. Each is now a tool error
 * (isError) naming the argument, and a refused write writes nothing. The
 * bound is one helper, src/core/json-value.ts; these tests hold the tools
 * that use it, the ones the report named first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JSON_MAX_DEPTH, JSON_MAX_NODES } from "../../src/core/json-value";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;
let automationId: number;
let templateId: number;

/** [[[…[1]…]]], `levels` arrays deep. */
function deepArray(levels: number): unknown {
  let x: unknown = 1;
  for (let i = 0; i < levels; i++) x = [x];
  return x;
}
const DEEP = deepArray(2000);
const MANY = Array.from({ length: JSON_MAX_NODES + 1 }, (_, i) => i);

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  automationId = (
    await w.ok(w.owner, "automations_create", {
      name: "Greet",
      trigger: { type: "event", eventType: "post.published" },
      actions: [{ type: "notify", with: { userIds: [w.ownerUserId], title: "Published {{trigger.data.title}}" } }],
    })
  ).id;
  templateId = (await w.ok(w.owner, "email_templates_create", { name: "Hi", html: "<p>Hi {{ data.who }}</p>" })).id;
}, 60_000);
afterAll(async () => {
  await s?.stop();
});

/** The call is refused with a tool error whose message matches `expected`, and nothing was written. */
async function refused(tool: string, args: Record<string, unknown>, expected: RegExp): Promise<string> {
  const before = w.changes();
  const r = await w.call(w.owner, tool, args);
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(expected);
  expect(r.text).not.toMatch(/internal|unexpected/i);
  expect(w.changes()).toBe(before);
  return r.text;
}

describe('an array where an object is expected is refused, not coerced into {"0":…}', () => {
  test("automations_test sample", async () => {
    await refused(
      "automations_test",
      { id: automationId, sample: [1, 2, 3] },
      /sample must be an object, not an array/,
    );
    // The same call with an object is a dry run as before.
    const ok = await w.ok(w.owner, "automations_test", { id: automationId, sample: { data: { title: "Hello" } } });
    expect(JSON.stringify(ok)).toContain("Published Hello");
  });

  test("email_templates_render data and attributes", async () => {
    await refused(
      "email_templates_render",
      { id: templateId, data: [1, 2, 3] },
      /data must be an object, not an array/,
    );
    await refused(
      "email_templates_render",
      { id: templateId, attributes: ["x"] },
      /attributes must be an object, not an array/,
    );
    expect((await w.ok(w.owner, "email_templates_render", { id: templateId, data: { who: "Ann" } })).html).toContain(
      "Hi Ann",
    );
  });

  test.each(["contacts_list", "crm_companies_list", "deals_list"])("%s custom", async (tool) => {
    await refused(tool, { custom: [1, 2, 3] }, /custom must be an object, not an array/);
  });

  test("writes: contacts_create custom, crm_views_create filters, email_segments_create rules, automation step input", async () => {
    await refused("contacts_create", { firstName: "Ann", custom: [1, 2, 3] }, /custom must be an object, not an array/);
    await refused(
      "crm_views_create",
      { object: "contact", name: "Mine", filters: ["a"] },
      /filters must be an object, not an array/,
    );
    await refused("email_segments_create", { name: "All", rules: [] }, /rules must be an object, not an array/);
    await refused(
      "automations_create",
      { name: "Bad", trigger: { type: "webhook" }, actions: [{ type: "notify", with: [1] }] },
      /actions\[0\]\.with: must be an object, not an array/,
    );
  });
});

describe(`free-form JSON is bounded: at most ${JSON_MAX_DEPTH} levels and ${JSON_MAX_NODES} values`, () => {
  test("automations_test sample: a 2,000-deep array, 10,001 items", async () => {
    await refused(
      "automations_test",
      { id: automationId, sample: { data: DEEP } },
      new RegExp(`sample is nested deeper than ${JSON_MAX_DEPTH} levels`),
    );
    await refused(
      "automations_test",
      { id: automationId, sample: { data: { items: MANY } } },
      /sample holds more than 10,000 values/,
    );
    // Just inside both bounds is a dry run.
    const inside = { data: { title: "x", items: deepArray(JSON_MAX_DEPTH - 3) } };
    expect((await w.call(w.owner, "automations_test", { id: automationId, sample: inside })).isError).toBe(false);
  });

  test("email_templates_render data; contacts_list custom", async () => {
    await refused(
      "email_templates_render",
      { id: templateId, data: { who: DEEP } },
      /data is nested deeper than 32 levels/,
    );
    await refused(
      "email_templates_render",
      { id: templateId, data: { who: MANY } },
      /data holds more than 10,000 values/,
    );
    await refused("contacts_list", { custom: { tier: DEEP } }, /custom is nested deeper than 32 levels/);
  });

  test("writes: products_create metadata, email_subscribers_add attributes, automation condition value; nothing stored", async () => {
    await refused(
      "products_create",
      { siteId: w.siteA, name: "Mug", price: 1200, metadata: { a: deepArray(100) } },
      /metadata is nested deeper than 32 levels/,
    );
    await refused(
      "email_subscribers_add",
      { email: "deep@example.com", attributes: { a: DEEP } },
      /attributes is nested deeper than 32 levels/,
    );
    await refused(
      "automations_create",
      {
        name: "Deep",
        trigger: { type: "webhook" },
        conditions: [{ path: "trigger.data.x", op: "eq", value: DEEP }],
        actions: [{ type: "notify", with: { userIds: [w.ownerUserId], title: "x" } }],
      },
      /conditions\[0\]\.value: is nested deeper than 32 levels/,
    );
    expect((await w.ok(w.owner, "automations_list", {})).items.map((a: any) => a.name)).toEqual(["Greet"]);
  });
});
