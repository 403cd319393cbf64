import { Hono } from "hono";
import type { Deps } from "../core/context";

export function mcpRoutes(_deps: Deps) {
  const app = new Hono();
  return app;
}
