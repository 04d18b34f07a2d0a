/** The API reference page (docs/reference.md): reached from the user panel, both documents shown, nothing loaded from elsewhere. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

test("the user panel links to /docs, which shows the REST operations and the gateway events from this server alone", async () => {
  const person = await suite.person();
  const link = person.page.getByRole("region", { name: "Your account" }).getByRole("link", { name: "API docs" });
  expect(await link.getAttribute("href")).toBe("/docs");

  const { page } = await suite.visitor("about:blank");
  const requested: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto("/docs");
  // Swagger UI renders the OpenAPI document: tags, then an operation with its path.
  const servers = page.locator("#operations-tag-Servers");
  await servers.waitFor({ timeout: 20_000 });
  await servers.click();
  await page.locator("#operations-Servers-listMembers").waitFor();
  await suite.shot(page, "reference-1-rest");

  await page.getByRole("tab", { name: "Gateway" }).click();
  await page.getByRole("heading", { name: /Client → server/ }).waitFor();
  await page.locator("#event-voice\\:join summary").click();
  await page.locator("#event-voice\\:join").getByText("participants").first().waitFor();
  await page.locator("#event-message\\:new summary").click();
  await page.locator("#event-message\\:new").getByRole("link", { name: "Message" }).waitFor();
  await suite.shot(page, "reference-2-gateway");

  const origin = new URL(suite.server.url).origin;
  expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("about:") && !url.startsWith("data:"))).toEqual([]);
  expect(errors).toEqual([]);
}, 60_000);
