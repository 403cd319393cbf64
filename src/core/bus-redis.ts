/**
 * Cache invalidation over Redis pub/sub (src/core/changes.ts): the tables a
 * commit wrote go out on one channel; every instance drops what it cached
 * from them. Publishing uses the shared connection; subscribing needs a
 * connection of its own (a subscribed Redis connection can do nothing else).
 */
import type Redis from "ioredis";
import { CHANNEL, type ChangeBus } from "./changes";

export function redisChangeBus(redis: Redis): ChangeBus {
  let sub: Redis | null = null;
  return {
    publish(message) {
      redis.publish(CHANNEL, message).catch(() => {});
    },
    async subscribe(onMessage, onReset) {
      sub = redis.duplicate();
      sub.on("message", (_channel: string, message: string) => onMessage(message));
      // Messages sent while disconnected are lost: drop every cache on reconnect.
      sub.on("ready", onReset);
      await sub.subscribe(CHANNEL);
    },
    async close() {
      sub?.disconnect();
      sub = null;
    },
  };
}
