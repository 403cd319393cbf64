/**
 * The demo's automations and outgoing webhooks: per company, an automation
 * that turns a published blog post into a card and an email to the editor
 * (two versions, with a run history: succeeded, skipped by its condition,
 * and one failed at its email step), and a webhook subscription for the
 * site's renderer with a delivery log (delivered, and one that gave up
 * after its retries). Nothing is left pending, so a demo server never
 * calls the example URLs. Automations were made in the portal (credential
 * kind "session"), so no API key's revocation stops them. A second,
 * disabled automation greets new chat visitors (post_chat_message). A
 * third, also disabled, shows branches and waits: two days after a new
 * lead, a follow-up mail unless a deal was made meanwhile, with one
 * finished run in which the wait ended and the branch chose to send.
 */
import { eq } from "drizzle-orm";
import { posts } from "../cms/tables";
import {
  automationRuns,
  automations,
  automationVersions,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  type AutomationDefinition,
} from "./tables";
import { MAX_ATTEMPTS } from "./webhooks";
import type { DemoPart, DemoWorld } from "../../mcp/define";

interface Company {
  id: number;
  owner: number;
  siteId: number;
  project: string;
  editor: string;
  host: string;
  posts: { id: number; slug: string; title: string }[];
}

function definition(c: Company, v: 1 | 2): AutomationDefinition {
  return {
    name: "Promote new blog posts",
    description: "When a blog post first goes live, open a card to share it and tell the editor.",
    trigger: {
      type: "event",
      eventType: "post.published",
      filters: [{ path: "trigger.data.postType", op: "eq", value: "blog" }],
    },
    conditions: [{ path: "trigger.data.proposal", op: "eq", value: "new" }],
    actions: [
      {
        type: "create_card",
        with: {
          projectId: c.project,
          title: "Share “{{trigger.data.title}}” on social",
          description: "Live at /{{trigger.data.slug}}",
          ...(v === 2 ? { priority: 2 } : {}),
        },
      },
      {
        type: "send_email",
        with: {
          to: c.editor,
          subject: "Published: {{trigger.data.title}}",
          text: "Card {{steps.0.output.key}} tracks the social posts for /{{trigger.data.slug}}.",
        },
      },
    ],
  };
}

async function seedCompany(world: DemoWorld, c: Company) {
  const { tx } = world;
  const v1 = definition(c, 1);
  const v2 = definition(c, 2);
  const [a] = await tx
    .insert(automations)
    .values({
      companyId: c.id,
      name: v2.name,
      description: v2.description,
      enabled: true,
      version: 2,
      trigger: v2.trigger,
      conditions: v2.conditions,
      actions: v2.actions,
      triggerType: "event",
      eventType: "post.published",
      createdByUserId: c.owner,
      credentialKind: "session",
      credentialId: 0,
      scopes: ["*"],
      lastRunAt: world.at(1, 3),
      createdAt: world.at(20),
      updatedAt: world.at(6),
    })
    .returning({ id: automations.id });
  await tx.insert(automationVersions).values([
    {
      automationId: a!.id,
      version: 1,
      definition: v1,
      note: "created",
      createdByUserId: c.owner,
      createdAt: world.at(20),
    },
    {
      automationId: a!.id,
      version: 2,
      definition: v2,
      note: "updated",
      createdByUserId: c.owner,
      createdAt: world.at(6),
    },
  ]);
  const trigger = (p: Company["posts"][number], proposal: string, daysAgo: number) => ({
    kind: "event",
    eventType: "post.published",
    siteId: c.siteId,
    entity: { type: "post", id: p.id },
    data: {
      postId: p.id,
      slug: p.slug,
      title: p.title,
      postType: "blog",
      status: "published",
      published: true,
      proposal,
    },
    at: world.at(daysAgo).toISOString(),
  });
  const step = (index: number, type: string, input: unknown, output: unknown, error: string | null, at: Date) => ({
    index,
    type,
    status: error ? ("failed" as const) : ("succeeded" as const),
    input,
    output,
    error,
    startedAt: at.toISOString(),
    finishedAt: new Date(at.getTime() + 180).toISOString(),
  });
  const [p1, p2] = c.posts;
  const runs = [];
  if (p1) {
    const at = world.at(12);
    runs.push({
      automationId: a!.id,
      companyId: c.id,
      version: 1,
      status: "succeeded" as const,
      trigger: trigger(p1, "new", 12),
      chain: [],
      attempts: 1,
      startStep: 2,
      steps: [
        step(
          0,
          "create_card",
          { projectId: c.project, title: `Share “${p1.title}” on social`, description: `Live at /${p1.slug}` },
          { id: 0, key: `${c.project}-90`, title: `Share “${p1.title}” on social` },
          null,
          at,
        ),
        step(
          1,
          "send_email",
          { to: c.editor, subject: `Published: ${p1.title}` },
          { mailId: 0, to: [c.editor], subject: `Published: ${p1.title}` },
          null,
          at,
        ),
      ],
      createdAt: at,
      startedAt: at,
      finishedAt: new Date(at.getTime() + 400),
    });
    const at2 = world.at(4);
    runs.push({
      automationId: a!.id,
      companyId: c.id,
      version: 2,
      status: "skipped" as const,
      trigger: trigger(p1, "revision", 4),
      chain: [],
      attempts: 1,
      startStep: 0,
      steps: [],
      error: "Conditions not met.",
      createdAt: at2,
      startedAt: at2,
      finishedAt: at2,
    });
  }
  if (p2) {
    const at = world.at(1, 3);
    runs.push({
      automationId: a!.id,
      companyId: c.id,
      version: 2,
      status: "failed" as const,
      trigger: trigger(p2, "new", 1),
      chain: [],
      attempts: 1,
      startStep: 1,
      steps: [
        step(
          0,
          "create_card",
          { projectId: c.project, title: `Share “${p2.title}” on social`, priority: 2 },
          { id: 0, key: `${c.project}-91`, title: `Share “${p2.title}” on social` },
          null,
          at,
        ),
        step(
          1,
          "send_email",
          { to: "editor@", subject: `Published: ${p2.title}` },
          null,
          'with.to must be 1 to 20 email addresses; got "editor@".',
          at,
        ),
      ],
      error: 'Step 1 (send_email) failed: with.to must be 1 to 20 email addresses; got "editor@".',
      createdAt: at,
      startedAt: at,
      finishedAt: new Date(at.getTime() + 300),
    });
  }
  if (runs.length) await tx.insert(automationRuns).values(runs);

  // A second automation, left off so the demo's widgets answer only as people do until someone enables it.
  const greet: AutomationDefinition = {
    name: "Greet new chats",
    description: "Answer a visitor's first message at once, and leave the agents a note.",
    trigger: { type: "event", eventType: "chat.conversation_created" },
    conditions: [],
    actions: [
      {
        type: "post_chat_message",
        with: {
          text: "Hi {{trigger.data.visitorName}}, thanks for your message! Someone from the team will answer shortly.",
          status: "pending",
        },
      },
      {
        type: "post_chat_message",
        with: { text: "Greeted automatically. First message: {{trigger.data.body}}", internal: true },
      },
    ],
  };
  const [g] = await tx
    .insert(automations)
    .values({
      companyId: c.id,
      name: greet.name,
      description: greet.description,
      enabled: false,
      version: 1,
      trigger: greet.trigger,
      conditions: greet.conditions,
      actions: greet.actions,
      triggerType: "event",
      eventType: "chat.conversation_created",
      createdByUserId: c.owner,
      credentialKind: "session",
      credentialId: 0,
      scopes: ["*"],
      createdAt: world.at(3),
      updatedAt: world.at(3),
    })
    .returning({ id: automations.id });
  await tx.insert(automationVersions).values({
    automationId: g!.id,
    version: 1,
    definition: greet,
    note: "created",
    createdByUserId: c.owner,
    createdAt: world.at(3),
  });

  await seedFollowUp(world, c);

  const [hook] = await tx
    .insert(webhookEndpoints)
    .values({
      companyId: c.id,
      url: `https://${c.host}/api/revalidate`,
      description: "Site renderer: revalidate pages when content changes",
      eventTypes: ["post.*", "product.*", "branding.updated"],
      secret: `whsec_${Buffer.from(`demo-secret-${c.id}-`.padEnd(32, "x")).toString("base64")}`,
      status: "enabled",
      failureStreak: 0,
      lastSuccessAt: world.at(1, 3),
      lastFailureAt: world.at(9),
      createdByUserId: c.owner,
      createdAt: world.at(30),
      updatedAt: world.at(30),
    })
    .returning({ id: webhookEndpoints.id });
  let eventId = 900_000 + c.id * 1000;
  for (const [i, p] of c.posts.entries()) {
    for (const [type, daysAgo, ok] of [
      ["post.created", 14 - i, true],
      ["post.published", 12 - i, i !== 0],
    ] as const) {
      const at = world.at(daysAgo);
      const payload = {
        id: `evt_${++eventId}`,
        type,
        timestamp: at.toISOString(),
        companyId: c.id,
        siteId: c.siteId,
        entity: { type: "post", id: p.id },
        actor: null,
        data: {
          postId: p.id,
          slug: p.slug,
          title: p.title,
          cacheTags: [
            `site:${c.siteId}`,
            `site:${c.siteId}:posts`,
            `site:${c.siteId}:post:${p.id}`,
            `site:${c.siteId}:post/${p.slug}`,
          ],
        },
      };
      const [d] = await tx
        .insert(webhookDeliveries)
        .values({
          endpointId: hook!.id,
          companyId: c.id,
          eventId,
          eventType: type,
          entityKey: `post:${p.id}`,
          payload,
          status: ok ? "succeeded" : "failed",
          attempts: ok ? 1 : MAX_ATTEMPTS,
          lastStatusCode: ok ? 200 : 502,
          lastError: ok ? null : "HTTP 502",
          createdAt: at,
          deliveredAt: ok ? at : null,
        })
        .returning({ id: webhookDeliveries.id });
      await tx.insert(webhookAttempts).values(
        ok
          ? [
              {
                deliveryId: d!.id,
                attemptedAt: at,
                statusCode: 200,
                error: null,
                responseBody: '{"revalidated":true}',
                durationMs: 84,
              },
            ]
          : Array.from({ length: MAX_ATTEMPTS }, (_, k) => ({
              deliveryId: d!.id,
              attemptedAt: new Date(at.getTime() + k * 60_000),
              statusCode: 502,
              error: "HTTP 502",
              responseBody: "Bad Gateway",
              durationMs: 30 + k,
            })),
      );
    }
  }
}

/** The follow-up definition: wait two days, look for the lead's deals, mail only when there are none. */
export function followUpDefinition(c: { editor: string }): AutomationDefinition {
  return {
    name: "Follow up new leads",
    description: "Two days after a lead arrives, mail them unless a deal was created for them meanwhile.",
    trigger: {
      type: "event",
      eventType: "contact.created",
      filters: [{ path: "trigger.data.lifecycleStage", op: "eq", value: "lead" }],
    },
    conditions: [{ path: "trigger.data.emails.0", op: "exists" }],
    actions: [
      { id: "pause", type: "wait", with: { for: "2d" } },
      {
        id: "deals",
        type: "call_tool",
        with: { tool: "deals_list", arguments: { contactId: "{{trigger.entity.id}}", limit: 1 } },
      },
      {
        id: "noDeal",
        type: "if",
        with: {
          conditions: [{ path: "steps.deals.output.total", op: "eq", value: 0 }],
          // biome-ignore lint/suspicious/noThenProperty: the field's name in definitions; a list, never a callable then.
          then: [
            {
              type: "send_email",
              with: {
                to: "{{trigger.data.emails.0}}",
                subject: "Following up",
                text:
                  "Hello {{trigger.data.name}}, thanks for your interest. Shall we find a time to talk? Reply to {{automation.name}} at " +
                  c.editor +
                  ".",
              },
            },
          ],
          else: [],
        },
      },
    ],
  };
}

async function seedFollowUp(world: DemoWorld, c: Company) {
  const { tx } = world;
  const d = followUpDefinition(c);
  const [a] = await tx
    .insert(automations)
    .values({
      companyId: c.id,
      name: d.name,
      description: d.description,
      enabled: false,
      version: 1,
      trigger: d.trigger,
      conditions: d.conditions,
      actions: d.actions,
      triggerType: "event",
      eventType: "contact.created",
      createdByUserId: c.owner,
      credentialKind: "session",
      credentialId: 0,
      scopes: ["*"],
      lastRunAt: world.at(9),
      createdAt: world.at(10),
      updatedAt: world.at(10),
    })
    .returning({ id: automations.id });
  await tx.insert(automationVersions).values({
    automationId: a!.id,
    version: 1,
    definition: d,
    note: "created",
    createdByUserId: c.owner,
    createdAt: world.at(10),
  });
  const made = world.at(9);
  const ended = world.at(7);
  const lead = { name: "Ada Lovelace", emails: [`ada@${c.host}`] };
  const after = (ms: number) => new Date(ended.getTime() + ms).toISOString();
  await tx.insert(automationRuns).values({
    automationId: a!.id,
    companyId: c.id,
    version: 1,
    status: "succeeded",
    trigger: {
      kind: "event",
      eventType: "contact.created",
      entity: { type: "contact", id: 0 },
      data: { ...lead, companyId: null, ownerUserId: null, lifecycleStage: "lead", tags: [], source: "tool" },
      at: made.toISOString(),
    },
    chain: [],
    attempts: 1,
    startStep: 3,
    steps: [
      {
        index: 0,
        id: "pause",
        type: "wait",
        status: "succeeded",
        input: { for: "2d" },
        output: { waitedUntil: ended.toISOString(), endedAt: ended.toISOString() },
        error: null,
        waitUntil: ended.toISOString(),
        startedAt: made.toISOString(),
        finishedAt: ended.toISOString(),
      },
      {
        index: 1,
        id: "deals",
        type: "call_tool",
        status: "succeeded",
        input: { tool: "deals_list", arguments: { contactId: 0, limit: 1 } },
        output: { items: [], total: 0, limit: 1, offset: 0 },
        error: null,
        startedAt: after(20),
        finishedAt: after(60),
      },
      {
        index: 2,
        id: "noDeal",
        type: "if",
        status: "succeeded",
        branch: "then",
        input: { conditions: [{ path: "steps.deals.output.total", op: "eq", value: 0, holds: true }] },
        output: { branch: "then" },
        error: null,
        startedAt: after(60),
        finishedAt: after(60),
      },
      {
        index: 2,
        path: "actions[2].with.then[0]",
        type: "send_email",
        status: "succeeded",
        input: { to: lead.emails[0], subject: "Following up" },
        output: { mailId: 0, to: lead.emails, subject: "Following up" },
        error: null,
        startedAt: after(60),
        finishedAt: after(140),
      },
    ],
    createdAt: made,
    startedAt: made,
    finishedAt: new Date(ended.getTime() + 140),
  });
}

export const demoAutomations: DemoPart = async (world) => {
  const postsOf = async (siteId: number) =>
    await world.tx
      .select({ id: posts.id, slug: posts.slug, title: posts.title })
      .from(posts)
      .where(eq(posts.siteId, siteId))
      .orderBy(posts.id)
      .limit(2);
  await seedCompany(world, {
    id: world.companies.harbor,
    owner: world.users.maya,
    siteId: world.sites.harbor,
    project: "HCW",
    editor: "maya@harborcoffee.example",
    host: "harborcoffee.example",
    posts: await postsOf(world.sites.harbor),
  });
  await seedCompany(world, {
    id: world.companies.northwind,
    owner: world.users.demo,
    siteId: world.sites.northwind,
    project: "NWB",
    editor: "studio@northwind.example",
    host: "northwind.example",
    posts: await postsOf(world.sites.northwind),
  });
};
