/**
 * Point 3, what bots and webhooks post: embeds as the spec describes them, components (buttons
 * of every style, link buttons, string selects, channel selects) that emit `message:component`
 * and show the ack's error, the BOT tag, and the WEBHOOK badge with the webhook's name and avatar.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addBot } from "../../helpers/bots.ts";
import { joinChannel } from "../../helpers/community.ts";
import { createServer } from "../../helpers/community.ts";
import { waitForEvent } from "../../helpers/server.ts";
import { accessibleNames, eventually, messageWith, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

async function setting() {
  const owner = await suite.server.register();
  const serverId = await createServer(suite.server, owner, "Rich Town");
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  const form = new FormData();
  form.append("emoji", new File([solidPng(48, 48, [47, 158, 68])], "green.png", { type: "image/png" }));
  form.append("name", "green");
  const emoji = await suite.server.api("POST", `/api/v1/servers/${serverId}/emojis`, { token: owner.token, raw: form });
  const image = `${suite.server.url}/api/v1/emojis/${emoji.body.emoji.id}/file`;
  return { owner, serverId, channelId: general!.id, image, path: `/channels/${serverId}/${general!.id}` };
}

test("an embed with every part, and components of every kind that reach the bot", async () => {
  const { owner, serverId, channelId, image, path } = await setting();
  const bot = await addBot(suite.server, owner, serverId, "Showcase");
  const socket = await joinChannel(suite.server, bot, channelId);
  // The bot answers every press, so a press that reached it shows its follow-up.
  socket.on("interaction:create", (interaction) => {
    socket.emit("interaction:response", {
      interaction_id: interaction.id,
      channel_id: interaction.channel_id,
      content: `got ${interaction.custom_id}${interaction.values ? `: ${interaction.values.join("+")}` : ""}${interaction.selected_channels ? `: #${interaction.selected_channels.map((c: { name: string }) => c.name).join("+")}` : ""}`,
    });
  });
  const sent = await socket.emitWithAck("bot:send_message", {
    channel_id: channelId,
    content: "Release notes",
    embeds: [
      {
        title: "Hearth 1.2",
        url: "https://hearth.example/releases/1.2",
        description: "Faster *everything*.",
        color: "#E8590C",
        author: { name: "Release bot", url: "https://hearth.example", icon_url: image },
        thumbnail: image,
        image,
        fields: [
          { name: "Fixes", value: "12", inline: true },
          { name: "Features", value: "3", inline: true },
          { name: "Upgrade", value: "Run the migration first." },
        ],
        footer: { text: "Shipped", icon_url: image },
        timestamp: "2024-05-06T07:08:09.000Z",
        components: [
          { type: "button", style: "primary", label: "Primary", custom_id: "p" },
          { type: "button", style: "secondary", label: "Secondary", custom_id: "s" },
          { type: "button", style: "success", label: "Success", custom_id: "ok" },
          { type: "button", style: "danger", label: "Danger", custom_id: "d" },
          { type: "button", style: "link", label: "Docs", url: "https://hearth.example/docs" },
          { type: "button", style: "secondary", label: "Sold out", custom_id: "off", disabled: true },
        ],
      },
      {
        description: "Choose below",
        components: [
          { type: "string_select", custom_id: "flavour", placeholder: "Pick a flavour", options: [{ label: "Mint", value: "mint" }, { label: "Lemon", value: "lemon", description: "Sour" }] },
          { type: "channel_select", custom_id: "where", placeholder: "Pick a channel", channel_types: ["text"] },
          { type: "string_select", custom_id: "toppings", placeholder: "Pick toppings", min_values: 1, max_values: 2, options: [{ label: "Nuts", value: "nuts" }, { label: "Sprinkles", value: "sprinkles" }, { label: "Cream", value: "cream" }] },
        ],
      },
    ],
  });
  expect(sent.ok).toBe(true);

  const { page, context } = await suite.person({ user: owner, path });
  const message = messageWith(page, "Release notes");
  await message.waitFor();
  expect(await message.locator(".badge").allTextContents()).toEqual(["BOT"]);
  const embed = message.locator(".embed").first();
  expect(await embed.getAttribute("data-color")).toBe("#E8590C");
  expect(await embed.evaluate((el) => (el.ownerDocument.defaultView as any).getComputedStyle(el).borderInlineStartColor)).toBe("rgb(232, 89, 12)");
  expect(await embed.getByRole("link", { name: "Hearth 1.2" }).getAttribute("href")).toBe("https://hearth.example/releases/1.2");
  expect(await embed.getByRole("link", { name: "Release bot" }).getAttribute("href")).toBe("https://hearth.example");
  expect(await embed.locator(".embed-description em").textContent()).toBe("everything");
  expect(await embed.locator("dt").allTextContents()).toEqual(["Fixes", "Features", "Upgrade"]);
  expect(await embed.locator(".embed-field.inline").count()).toBe(2);
  expect(await embed.locator(".embed-footer").textContent()).toBe("Shipped • May 6, 2024, 7:08 AM");
  const pictures = embed.locator("img");
  await eventually(async () => {
    const sizes = await pictures.evaluateAll((imgs) => imgs.map((img) => (img as any).naturalWidth as number));
    expect(sizes.length).toBe(4); // author icon, image, footer icon, thumbnail
    expect(sizes.every((w) => w === 48)).toBe(true);
  });
  await page.setViewportSize({ width: 1280, height: 1100 });
  await suite.shot(page, "rich-1-embed-and-components");

  expect(await accessibleNames(embed, "button")).toEqual(["Primary", "Secondary", "Success", "Danger", "Docs", "Sold out"]);
  expect(await embed.getByRole("button", { name: "Sold out" }).isDisabled()).toBe(true);

  for (const [label, id] of [["Primary", "p"], ["Danger", "d"]] as const) {
    const press = waitForEvent(socket, "interaction:create");
    await embed.getByRole("button", { name: label }).click();
    const interaction = await press;
    expect(interaction).toMatchObject({ type: "message_component", component_type: "button", custom_id: id, message_id: sent.message_id, user: { id: owner.id } });
    await messageWith(page, `got ${id}`).waitFor();
  }

  // A link button opens its URL and sends nothing to the bot.
  await context.route("https://hearth.example/**", (route) => route.fulfill({ contentType: "text/html", body: "<title>Docs</title>" }));
  const popup = context.waitForEvent("page");
  await embed.getByRole("button", { name: "Docs" }).click();
  const opened = await popup;
  await opened.waitForLoadState();
  expect(opened.url()).toBe("https://hearth.example/docs");
  await opened.close();

  const choices = message.locator(".embed").nth(1);
  const flavour = choices.getByRole("combobox", { name: "Pick a flavour" });
  const picked = waitForEvent(socket, "interaction:create");
  await flavour.selectOption({ label: "Lemon" });
  expect(await picked).toMatchObject({ component_type: "string_select", custom_id: "flavour", values: ["lemon"] });
  await messageWith(page, "got flavour: lemon").waitFor();

  const where = choices.getByRole("combobox", { name: "Pick a channel" });
  expect(await where.locator("option").allTextContents()).toEqual(["Pick a channel", "#general"]);
  const chosen = waitForEvent(socket, "interaction:create");
  await where.selectOption({ label: "#general" });
  expect(await chosen).toMatchObject({ component_type: "channel_select", custom_id: "where", selected_channels: [{ id: channelId, name: "general", type: "text" }] });

  const toppings = choices.getByRole("listbox", { name: "Pick toppings" });
  await toppings.selectOption(["nuts", "cream"]);
  const many = waitForEvent(socket, "interaction:create");
  await choices.getByRole("button", { name: "Apply" }).click();
  expect(await many).toMatchObject({ component_type: "string_select", custom_id: "toppings", values: ["nuts", "cream"] });
  await messageWith(page, "got toppings: nuts+cream").waitFor();

  // The ack's error is shown: the bot is no longer in the server.
  expect((await suite.server.api("DELETE", `/api/v1/servers/${serverId}/members/${bot.botUserId}`, { token: owner.token })).status).toBe(200);
  await embed.getByRole("button", { name: "Secondary" }).click();
  await message.getByRole("alert").filter({ hasText: "The bot that sent this message is no longer in this server" }).waitFor();
  await suite.shot(page, "rich-2-ack-error");
  socket.close();
});

test("webhook messages carry the WEBHOOK badge with the webhook's name and avatar; edits show (edited)", async () => {
  const { owner, serverId, channelId, image, path } = await setting();
  const created = await suite.server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "Deploys", avatar: image } });
  expect(created.status).toBe(201);
  const { page } = await suite.person({ user: owner, path });
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  const run = (body: unknown) => fetch(`${suite.server.url}${created.body.url}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect((await run({ content: "Deployed v1.2", embeds: [{ title: "Build", color: 0x2f9e44 }] })).status).toBe(204);
  expect((await run({ content: "Tests are green", username: "CI" })).status).toBe(204);

  const deployed = messageWith(page, "Deployed v1.2");
  await deployed.waitFor();
  expect(await deployed.locator(".author").textContent()).toBe("Deploys");
  expect(await deployed.locator(".badge").allTextContents()).toEqual(["WEBHOOK"]);
  expect(await deployed.locator(".message-gutter img").getAttribute("src")).toBe(image);
  expect(await deployed.locator(".embed").getAttribute("data-color")).toBe("#2F9E44");
  const ci = messageWith(page, "Tests are green");
  await ci.waitFor();
  expect(await ci.locator(".author").textContent()).toBe("CI");
  expect(await ci.locator(".badge").allTextContents()).toEqual(["WEBHOOK"]);

  // A bot edits its message: the edited marker appears live.
  const bot = await addBot(suite.server, owner, serverId, "Editor");
  const socket = await suite.server.connect(bot.token);
  const sent = await socket.emitWithAck("bot:send_message", { channel_id: channelId, content: "first draft" });
  await messageWith(page, "first draft").waitFor();
  await socket.emitWithAck("bot:edit_message", { message_id: sent.message_id, content: "final version" });
  await messageWith(page, "final version").getByText("(edited)").waitFor();
  expect(await messageWith(page, "final version").locator(".badge").allTextContents()).toEqual(["BOT"]);
  await suite.shot(page, "rich-3-webhook-and-edited");
  socket.close();
});
