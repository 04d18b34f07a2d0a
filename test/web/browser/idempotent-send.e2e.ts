/**
 * The composer's idempotent send (docs/messages.md, "Idempotent sends"): every send carries a
 * nonce with `enforce_nonce`, and when the connection fails after the server stored the message
 * (the answer lost), the web app's one retry carries the same nonce: one message, shown once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer } from "../../helpers/community.ts";
import { history } from "../../helpers/bot-platform.ts";
import { uniqueName } from "../../helpers/server.ts";
import { eventually } from "../../helpers/wait.ts";
import { messageWith, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

test("a send whose answer is lost is retried once with the same nonce: one message, shown once", async () => {
  const owner = await suite.server.register(uniqueName("owner"));
  const serverId = await createServer(suite.server, owner, "Retries");
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${general!.id}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.waitFor();

  const sent: { nonce: unknown; enforce_nonce: unknown }[] = [];
  await page.route(`**/api/v1/messages/${general!.id}`, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    sent.push(route.request().postDataJSON());
    if (sent.length > 1) return route.continue();
    // The request reaches the server, which stores the message; its answer never arrives.
    await route.fetch();
    await route.abort("connectionreset");
  });

  await box.fill("sent exactly once");
  await box.press("Enter");
  await messageWith(page, "sent exactly once").waitFor();
  // Shown by its message:new first; the composer clears when the retry is answered.
  await eventually(async () => (await box.inputValue()) === "", "the composer cleared by the retry's answer");
  expect(sent).toHaveLength(2);
  expect(sent[0]!.enforce_nonce).toBe(true);
  expect(sent[0]!.nonce).toMatch(/^[0-9a-f]{25}$/);
  expect(sent[1]!.nonce).toBe(sent[0]!.nonce);
  expect((await history(suite.server, owner.token, general!.id)).map((m) => m.content)).toEqual(["sent exactly once"]);
  expect(await messageWith(page, "sent exactly once").count()).toBe(1);
});
