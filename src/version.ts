/**
 * The version of this build: package.json's, read when the bundle is made,
 * so `bun build --compile` embeds it and `dist/plinth --version` knows it
 * without the file beside it.
 */
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
