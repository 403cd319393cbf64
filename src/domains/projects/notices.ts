/**
 * Who hears about a card: the people newly assigned to it, and the members
 * a comment @mentions (when it is posted, and those an edit newly
 * mentions). A subscriber over the card and comment events, which carry the
 * user ids and the card's key, title and project, so nothing is read back.
 * The person who acted is never told what they did themself (notify()
 * skips the actor); a recurrence's card has no actor, so its assignees are
 * told.
 */
import type { EventDef, Subscriber } from "../../core/events";
import { notify } from "../notifications/notify";
import { PRIORITY_NAMES } from "./cards";
import { cardAssigned, commentCreated, commentUpdated } from "./events";

type Data<E> = E extends EventDef<infer T> ? T : never;

export const projectNotices: Subscriber = {
  name: "projects.notices",
  types: [cardAssigned.type, commentCreated.type, commentUpdated.type],
  async handle(deps, e) {
    const actorUserId = e.actor?.userId ?? null;
    if (e.type === cardAssigned.type) {
      const d = e.data as Data<typeof cardAssigned>;
      const facts = [
        d.priority ? `${PRIORITY_NAMES[d.priority]} priority` : null,
        d.dueDate ? `due ${d.dueDate}` : null,
      ].filter(Boolean);
      await notify(deps, {
        companyId: e.companyId,
        userIds: d.assigneeUserIds,
        type: "card.assigned",
        title: `${d.key} ${d.title}`,
        body: `Assigned to you in ${d.projectName}${facts.length ? ` (${facts.join(", ")})` : ""}.`,
        entity: { type: "card", id: e.entity.id },
        actorUserId,
      });
      return;
    }
    const d = e.data as Data<typeof commentCreated> | Data<typeof commentUpdated>;
    const userIds = "newlyMentionedUserIds" in d ? d.newlyMentionedUserIds : d.mentionedUserIds;
    if (!userIds.length) return;
    await notify(deps, {
      companyId: e.companyId,
      userIds,
      type: "comment.mentioned",
      title: `${d.key} ${d.title}`,
      body: `You were mentioned: “${d.excerpt}”`,
      entity: { type: "card", id: d.cardId },
      actorUserId: "authorUserId" in d ? (d.authorUserId ?? actorUserId) : actorUserId,
    });
  },
};
