import { Hono } from "hono";
import type { Deps } from "../core/context";

export function approvalRoutes(_deps: Deps) {
  const app = new Hono();
  return app;
}
