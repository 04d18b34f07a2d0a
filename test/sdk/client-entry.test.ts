/**
 * `@hearth/sdk/client` is what a browser page imports (the web app does): bundled for the
 * browser it holds the REST and gateway clients and nothing of the bot helpers, voice or WAV code.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const SDK_SRC = join(import.meta.dir, "..", "..", "sdk", "src");

test("the client entry bundles for the browser without the bot, voice or WAV code", async () => {
  const result = await Bun.build({ entrypoints: [join(SDK_SRC, "client.ts")], target: "browser", external: ["socket.io-client"] });
  expect(result.success).toBe(true);
  const code = await result.outputs[0]!.text();
  expect(code).toContain("class RestClient");
  expect(code).toContain("class Gateway");
  for (const absent of ["createBot", "joinVoice", "readWav", "defineCommand", "node:"]) expect(code).not.toContain(absent);
});
