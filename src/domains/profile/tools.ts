/** The profile toolset: the caller's own name, title, time zone, working hours and notification preferences. */
import { demoProfiles } from "./demo";
import * as v from "valibot";
import { defineTool, type Domain } from "../../mcp/define";
import { getProfile, updateProfile } from "./verbs";
import { preferenceUpdates } from "../notifications/preferences";

const line = (max: number) => v.nullable(v.pipe(v.string(), v.maxLength(max)));
const hhmm = v.pipe(v.string(), v.regex(/^\d\d:\d\d$/, "times are HH:MM"));

export const profileGet = defineTool({
  name: "profile_get",
  toolset: "profile",
  scope: "profile:read",
  readOnly: true,
  companyFree: true,
  title: "Get my profile",
  description: "Your own profile: name, email, time zone, working hours.",
  input: v.object({}),
  run: async (ctx) => await getProfile(ctx),
});

export const profileUpdate = defineTool({
  name: "profile_update",
  toolset: "profile",
  scope: "profile:write",
  readOnly: false,
  idempotent: true,
  companyFree: true,
  minRole: "viewer",
  title: "Update my profile",
  description: "Change your profile (null clears); workingHours {mon: [{start, end}]}.",
  input: v.object({
    name: v.optional(line(100)),
    title: v.optional(line(100)),
    timeZone: v.optional(line(64)),
    workingHours: v.optional(
      v.nullable(v.record(v.string(), v.pipe(v.array(v.object({ start: hhmm, end: hhmm })), v.maxLength(4)))),
    ),
    notificationPreferences: v.optional(preferenceUpdates),
  }),
  run: async (ctx, input) => await updateProfile(ctx, input),
});

export const profileDomain: Domain = {
  demo: demoProfiles,
  scopes: [
    {
      area: "profile",
      title: "Profile",
      words: { "profile:read": "read your portal profile", "profile:write": "update it" },
    },
  ],
  name: "profile",
  title: "Profile",
  description: "Your own profile: name, title, time zone, working hours and notification preferences.",
  vocabulary: {
    "job title": ["profile", "title"],
    timezone: ["time", "zone"],
    "my name": ["profile"],
    "about me": ["profile"],
  },
  tools: [profileGet, profileUpdate],
};
