/**
 * Renaming a record keeps the links to it: [[Old title]] in linking records
 * is rewritten in the rename's transaction; a link written with the old
 * title afterwards still resolves; title collisions leave ambiguous links
 * alone or write [[#id|label]]; a rename racing edits loses neither.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isAppError } from "../../src/core/errors";
import { rewriteLinks } from "../../src/domains/brain/links";
import { makeWorld, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

const backlinks = async (id: number) =>
  ((await w.call("brain_records_get", { id })).backlinks as { id: number }[]).map((b) => b.id).sort((a, b) => a - b);
const bodyOf = async (id: number) => (await w.call("brain_records_get", { id })).body as string;

describe("rewriteLinks", () => {
  test("old title in any case/spacing, labels kept, #id links and other titles untouched", () => {
    const md = "See [[Pricing  Model]], [[pricing model|the model]], [[#7]], [[Pricing models]] and [[Other]].";
    expect(rewriteLinks(md, "pricing model", { id: 7, title: "Pricing 2026" }, false)).toBe(
      "See [[Pricing 2026]], [[Pricing 2026|the model]], [[#7]], [[Pricing models]] and [[Other]].",
    );
    expect(rewriteLinks(md, "pricing model", { id: 7, title: "Shared" }, true)).toBe(
      "See [[#7|Shared]], [[#7|the model]], [[#7]], [[Pricing models]] and [[Other]].",
    );
    // A title that cannot stand inside [[…]] is linked by id.
    expect(rewriteLinks("[[Pricing model]]", "pricing model", { id: 7, title: "A|B [draft]" }, false)).toBe("[[#7]]");
  });
});

describe("renaming keeps links", () => {
  test("linking records are rewritten in the same transaction, as new versions by the renamer", async () => {
    const target = await w.call("brain_documents_create", { title: "Pricing Model", body: "Tiers." });
    const a = await w.call("brain_notes_create", {
      title: "Call notes",
      body: "Per [[pricing model]] and [[Pricing Model|our tiers]].",
    });
    const b = await w.call("brain_notes_create", { title: "By id", body: "See [[#" + target.id + "]]." });
    expect(await backlinks(target.id)).toEqual([a.id, b.id]);
    const r = await w.call("brain_documents_update", { id: target.id, title: "Pricing 2026" });
    expect(r.linksUpdatedIn).toEqual([a.id]);
    expect(await bodyOf(a.id)).toBe("Per [[Pricing 2026]] and [[Pricing 2026|our tiers]].");
    expect(await bodyOf(b.id)).toBe(`See [[#${target.id}]].`);
    expect(await backlinks(target.id)).toEqual([a.id, b.id]);
    const hist = await w.call("brain_records_history", { id: a.id });
    expect(hist.items[0]).toMatchObject({ version: 2, action: "update", changed: ["body"] });
    // And back: the links follow again.
    await w.call("brain_documents_update", { id: target.id, title: "Pricing Model" });
    expect(await bodyOf(a.id)).toBe("Per [[Pricing Model]] and [[Pricing Model|our tiers]].");
  });

  test("a link written with a former title still resolves, until another record takes that title", async () => {
    const t = await w.call("brain_notes_create", { title: "Launch plan" });
    await w.call("brain_notes_update", { id: t.id, title: "Launch plan v2" });
    const late = await w.call("brain_notes_create", { title: "Late", body: "Old habit: [[Launch plan]]." });
    expect(await backlinks(t.id)).toEqual([late.id]);
    const fresh = await w.call("brain_notes_create", { title: "Launch plan" });
    expect(await backlinks(fresh.id)).toEqual([late.id]);
    expect(await backlinks(t.id)).toEqual([]);
  });

  test("title collision: another record keeps the old title, so its links are left alone", async () => {
    const n1 = await w.call("brain_notes_create", { title: "Roadmap" });
    const d1 = await w.call("brain_documents_create", { title: "Roadmap" });
    const linker = await w.call("brain_notes_create", { title: "Links to roadmap", body: "[[Roadmap]]" });
    const r = await w.call("brain_notes_update", { id: n1.id, title: "Roadmap (old)" });
    expect(r.linksUpdatedIn).toBeUndefined();
    expect(await bodyOf(linker.id)).toBe("[[Roadmap]]");
    expect(await backlinks(d1.id)).toEqual([linker.id]);
    expect(await backlinks(n1.id)).toEqual([]);
  });

  test("title collision: renamed onto a title another record has, links go by id", async () => {
    const a = await w.call("brain_notes_create", { title: "Brand voice" });
    const other = await w.call("brain_documents_create", { title: "Style guide" });
    const linker = await w.call("brain_notes_create", { title: "Voice links", body: "Follow [[Brand voice]]." });
    await w.call("brain_notes_update", { id: a.id, title: "Style guide" });
    expect(await bodyOf(linker.id)).toBe(`Follow [[#${a.id}|Style guide]].`);
    expect(await backlinks(a.id)).toEqual([linker.id]);
    expect(await backlinks(other.id)).toEqual([]);
  });

  test("race: a rename and edits of the linking record both land, on either engine", async () => {
    for (let round = 0; round < 4; round++) {
      const target = await w.call("brain_notes_create", { title: `Race target ${round}` });
      const linker = await w.call("brain_notes_create", {
        title: `Race linker ${round}`,
        body: `Start [[Race target ${round}]].`,
      });
      // The editor writes a whole body (as tools do); a conflict is retried from a fresh read, as a client would.
      const edit = async () => {
        for (let i = 0; ; i++) {
          try {
            const cur = await bodyOf(linker.id);
            return await w.call("brain_notes_update", { id: linker.id, body: `${cur} Edited.` });
          } catch (e) {
            if (!(isAppError(e) && e.code === "conflict") || i > 5) throw e;
          }
        }
      };
      const rename = () => w.call("brain_notes_update", { id: target.id, title: `Race renamed ${round}` });
      const out = await Promise.allSettled(round % 2 ? [edit(), rename()] : [rename(), edit()]);
      expect(out.map((o) => o.status)).toEqual(["fulfilled", "fulfilled"]);
      const body = await bodyOf(linker.id);
      expect(body).toContain("Edited.");
      expect(await backlinks(target.id)).toEqual([linker.id]);
      // Whether the rewrite came before or after the edit, the link names the record (new title, or old title resolved as former).
      expect(
        body === `Start [[Race renamed ${round}]]. Edited.` || body === `Start [[Race target ${round}]]. Edited.`,
      ).toBe(true);
    }
  });

  test("race: a note written with the old title while the rename commits still links", async () => {
    const target = await w.call("brain_notes_create", { title: "Quarterly review" });
    const [, created] = await Promise.all([
      w.call("brain_notes_update", { id: target.id, title: "Q1 review" }),
      w.call("brain_notes_create", { title: "Prep", body: "Before [[Quarterly review]]." }),
    ]);
    expect(await backlinks(target.id)).toEqual([created.id]);
  });

  test("race: two records linking each other renamed at once both land (a deadlock on PostgreSQL is retried whole)", async () => {
    for (let round = 0; round < 3; round++) {
      const a = await w.call("brain_notes_create", { title: `Mutual A${round}`, body: `See [[Mutual B${round}]].` });
      const b = await w.call("brain_notes_create", { title: `Mutual B${round}`, body: `See [[Mutual A${round}]].` });
      await Promise.all([
        w.call("brain_notes_update", { id: a.id, title: `Mutual A${round} new` }),
        w.call("brain_notes_update", { id: b.id, title: `Mutual B${round} new` }),
      ]);
      expect(await backlinks(a.id)).toEqual([b.id]);
      expect(await backlinks(b.id)).toEqual([a.id]);
      const ga = await w.call("brain_records_get", { id: a.id });
      const gb = await w.call("brain_records_get", { id: b.id });
      expect([ga.title, gb.title]).toEqual([`Mutual A${round} new`, `Mutual B${round} new`]);
    }
  });

  test("restoring an old title relinks too; a rename by review applies the same way", async () => {
    const t = await w.call("brain_notes_create", { title: "Offer" });
    const l = await w.call("brain_notes_create", { title: "Offer link", body: "[[Offer]]" });
    await w.call("brain_notes_update", { id: t.id, title: "Offer 2" });
    expect(await bodyOf(l.id)).toBe("[[Offer 2]]");
    await w.call("brain_records_restore", { id: t.id, version: 1 });
    expect(await bodyOf(l.id)).toBe("[[Offer]]");
  });
});
