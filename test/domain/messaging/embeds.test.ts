import { describe, expect, test } from "bun:test";
import type { Component } from "../../../src/domain/shared/shapes.ts";
import {
  EMBED_LIMITS,
  findComponent,
  normalizeEmbeds,
  validateComponentValues,
} from "../../../src/domain/messaging/embeds.ts";
import { ApiError } from "../../../src/domain/shared/errors.ts";
import type { Embed } from "../../../src/domain/shared/shapes.ts";

const STRICT = { lenient: false };
const LENIENT = { lenient: true };

const errorOf = (run: () => unknown): string | null => {
  try {
    run();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }
};

const chars = (count: number, char = "a") => char.repeat(count);
const httpUrl = (length: number) => `https://e.com/${chars(length - "https://e.com/".length)}`;
const button = (custom_id: string, extra: Record<string, unknown> = {}) => ({ type: "button", label: "Go", custom_id, ...extra });
const options = (count: number) => Array.from({ length: count }, (_, i) => ({ label: `L${i}`, value: `v${i}` }));
const select = (custom_id: string, extra: Record<string, unknown> = {}) => ({ type: "string_select", custom_id, options: options(3), ...extra });

type ValidCase = [name: string, input: unknown, lenient: boolean, expected: Embed[]];

describe("normalizeEmbeds accepts the spec's shapes", () => {
  const full = {
    title: "Release",
    description: "Notes",
    url: "https://example.com/r",
    color: "#a1b2c3",
    fields: [{ name: "n", value: "v", inline: true }, { name: "n2", value: "v2" }],
    thumbnail: "https://example.com/t.png",
    image: "http://example.com/i.png",
    footer: { text: "f", icon_url: "https://example.com/f.png" },
    author: { name: "a", url: "https://example.com/a", icon_url: "https://example.com/ai.png" },
    timestamp: "2024-05-06T07:08:09.123Z",
    components: [button("b1", { style: "success", emoji: { name: "🔥" }, disabled: false })],
  };
  const cases: ValidCase[] = [
    ["absent embeds (undefined)", undefined, false, []],
    ["absent embeds (null)", null, false, []],
    ["empty array", [], false, []],
    ["title only", [{ title: "t" }], false, [{ title: "t" }]],
    ["description only", [{ description: "d" }], false, [{ description: "d" }]],
    ["fields only", [{ fields: [{ name: "n", value: "v" }] }], false, [{ fields: [{ name: "n", value: "v" }] }]],
    ["image only", [{ image: "https://x.io/a.png" }], false, [{ image: "https://x.io/a.png" }]],
    ["thumbnail only", [{ thumbnail: "https://x.io/a.png" }], false, [{ thumbnail: "https://x.io/a.png" }]],
    ["author only", [{ author: { name: "me" } }], false, [{ author: { name: "me" } }]],
    ["footer only", [{ footer: { text: "ft" } }], false, [{ footer: { text: "ft" } }]],
    [
      "components only",
      [{ components: [button("x")] }],
      false,
      [{ components: [{ type: "button", label: "Go", style: "primary", custom_id: "x" }] }],
    ],
    [
      "every field",
      [full],
      false,
      [{ ...full, color: "#A1B2C3", components: [{ type: "button", label: "Go", style: "success", custom_id: "b1", emoji: { name: "🔥" }, disabled: false }] }],
    ],
    ["color is stored uppercase", [{ title: "t", color: "#abcdef" }], false, [{ title: "t", color: "#ABCDEF" }]],
    ["unknown keys are dropped", [{ title: "t", type: "rich", video: { url: "x" }, footer: { text: "f", proxy_icon_url: "p" } }], false, [{ title: "t", footer: { text: "f" } }]],
    ["null optional fields are absent", [{ title: "t", description: null, color: null, image: null }], false, [{ title: "t" }]],
    ["empty title and description are dropped", [{ title: "", description: "", image: "https://x.io/a" }], false, [{ image: "https://x.io/a" }]],
    ["timestamp re-emitted via toISOString", [{ title: "t", timestamp: "2024-01-02T03:04:05+02:00" }], false, [{ title: "t", timestamp: "2024-01-02T01:04:05.000Z" }]],
    ["date-only timestamp", [{ title: "t", timestamp: "2024-02-29" }], false, [{ title: "t", timestamp: "2024-02-29T00:00:00.000Z" }]],
    ["timestamp without offset is UTC", [{ title: "t", timestamp: "2024-01-02T03:04" }], false, [{ title: "t", timestamp: "2024-01-02T03:04:00.000Z" }]],
    ["ten embeds", Array.from({ length: 10 }, () => ({ title: "t" })), false, Array.from({ length: 10 }, () => ({ title: "t" }))],
    ["title at 256", [{ title: chars(256) }], false, [{ title: chars(256) }]],
    ["lengths count code points", [{ title: chars(256, "😀") }], false, [{ title: chars(256, "😀") }]],
    ["description at 4096", [{ description: chars(4096) }], false, [{ description: chars(4096) }]],
    ["footer text at 2048", [{ footer: { text: chars(2048) } }], false, [{ footer: { text: chars(2048) } }]],
    ["author name at 256", [{ author: { name: chars(256) } }], false, [{ author: { name: chars(256) } }]],
    ["url at 2048", [{ title: "t", url: httpUrl(2048) }], false, [{ title: "t", url: httpUrl(2048) }]],
    // 4096 + 1024 + 256 + 256 + 368 = 6000
    [
      "total characters at 6000",
      [{ description: chars(4096), fields: [{ name: chars(256), value: chars(1024) }], author: { name: chars(256) }, footer: { text: chars(368) } }],
      false,
      [{ description: chars(4096), fields: [{ name: chars(256), value: chars(1024) }], author: { name: chars(256) }, footer: { text: chars(368) } }],
    ],
    [
      "total counts code points, not UTF-16 units",
      [{ description: chars(4096, "😀"), fields: [{ name: chars(256, "😀"), value: chars(1024, "😀") }] }],
      false,
      [{ description: chars(4096, "😀"), fields: [{ name: chars(256, "😀"), value: chars(1024, "😀") }] }],
    ],
    // lenient (webhook) shapes
    ["lenient: integer color", [{ title: "t", color: 0x5865f2 }], true, [{ title: "t", color: "#5865F2" }]],
    ["lenient: color 0 pads", [{ title: "t", color: 0 }], true, [{ title: "t", color: "#000000" }]],
    ["lenient: color 0xFFFFFF", [{ title: "t", color: 0xffffff }], true, [{ title: "t", color: "#FFFFFF" }]],
    ["lenient: string color still works", [{ title: "t", color: "#00ff00" }], true, [{ title: "t", color: "#00FF00" }]],
    [
      "lenient: image and thumbnail objects",
      [{ image: { url: "https://x.io/i.png", width: 10 }, thumbnail: { url: "https://x.io/t.png", proxy_url: "p" } }],
      true,
      [{ image: "https://x.io/i.png", thumbnail: "https://x.io/t.png" }],
    ],
    ["lenient: timestamp in unix seconds", [{ title: "t", timestamp: 1700000000 }], true, [{ title: "t", timestamp: "2023-11-14T22:13:20.000Z" }]],
    ["lenient: fractional seconds", [{ title: "t", timestamp: 1700000000.5 }], true, [{ title: "t", timestamp: "2023-11-14T22:13:20.500Z" }]],
    ["lenient: footer with icon_url kept", [{ footer: { text: "f", icon_url: "https://x.io/f.png" } }], true, [{ footer: { text: "f", icon_url: "https://x.io/f.png" } }]],
  ];
  test.each(cases)("%s", (_name, input, lenient, expected) => {
    expect(normalizeEmbeds(input, { lenient })).toEqual(expected);
  });
});

describe("normalizeEmbeds components", () => {
  const cases: ValidCase[] = [
    [
      "link button",
      [{ components: [{ type: "button", label: "Docs", style: "link", url: "https://docs.example" }] }],
      false,
      [{ components: [{ type: "button", label: "Docs", style: "link", url: "https://docs.example" }] }],
    ],
    [
      "button with custom emoji and disabled",
      [{ components: [button("b", { style: "danger", emoji: { name: "party", id: "e1", animated: true }, disabled: true })] }],
      false,
      [{ components: [{ type: "button", label: "Go", style: "danger", custom_id: "b", emoji: { name: "party", id: "e1" }, disabled: true }] }],
    ],
    [
      "string select with every option field",
      [
        {
          components: [
            {
              type: "string_select",
              custom_id: "s",
              placeholder: "Pick",
              min_values: 0,
              max_values: 2,
              options: [
                { label: "A", value: "a", description: "first", emoji: { name: "🅰️" }, default: true },
                { label: "B", value: "b" },
              ],
            },
          ],
        },
      ],
      false,
      [
        {
          components: [
            {
              type: "string_select",
              custom_id: "s",
              options: [
                { label: "A", value: "a", description: "first", emoji: { name: "🅰️" }, default: true },
                { label: "B", value: "b" },
              ],
              placeholder: "Pick",
              min_values: 0,
              max_values: 2,
            },
          ],
        },
      ],
    ],
    ["string select with 25 options", [{ components: [select("s", { options: options(25), max_values: 25 })] }], false, [{ components: [{ type: "string_select", custom_id: "s", options: options(25), max_values: 25 }] }]],
    [
      "channel select",
      [{ components: [{ type: "channel_select", custom_id: "c", placeholder: "Where?", channel_types: ["voice", "text", "voice"] }] }],
      false,
      [{ components: [{ type: "channel_select", custom_id: "c", placeholder: "Where?", channel_types: ["text", "voice"] }] }],
    ],
    ["channel select, empty channel_types dropped", [{ components: [{ type: "channel_select", custom_id: "c", channel_types: [] }] }], false, [{ components: [{ type: "channel_select", custom_id: "c" }] }]],
    [
      "25 components in one embed",
      [{ components: Array.from({ length: 25 }, (_, i) => button(`b${i}`)) }],
      false,
      [{ components: Array.from({ length: 25 }, (_, i) => ({ type: "button", label: "Go", style: "primary", custom_id: `b${i}` })) }],
    ],
    [
      "edge lengths: label 80, custom_id 100, placeholder 150, option 100/100/100",
      [
        {
          components: [
            button(chars(100, "b"), { label: chars(80) }),
            { type: "string_select", custom_id: "s", placeholder: chars(150), options: [{ label: chars(100), value: chars(100), description: chars(100) }] },
          ],
        },
      ],
      false,
      [
        {
          components: [
            { type: "button", label: chars(80), style: "primary", custom_id: chars(100, "b") },
            { type: "string_select", custom_id: "s", options: [{ label: chars(100), value: chars(100), description: chars(100) }], placeholder: chars(150) },
          ],
        },
      ],
    ],
    [
      "distinct custom_ids across embeds",
      [{ components: [button("a")] }, { components: [button("b")] }],
      false,
      [
        { components: [{ type: "button", label: "Go", style: "primary", custom_id: "a" }] },
        { components: [{ type: "button", label: "Go", style: "primary", custom_id: "b" }] },
      ],
    ],
  ];
  test.each(cases)("%s", (_name, input, lenient, expected) => {
    expect(normalizeEmbeds(input, { lenient })).toEqual(expected);
  });
});

type ErrorCase = [input: unknown, lenient: boolean, message: string];
/** Inputs can be long, so a case is titled by its index, mode and expected message. */
const titled = (cases: ErrorCase[]) =>
  cases.map(([input, lenient, message], index): [string, unknown, boolean, string] => [
    `${index} ${lenient ? "lenient" : "strict"}: ${message}`,
    input,
    lenient,
    message,
  ]);

describe("normalizeEmbeds names the first bad field", () => {
  const cases: ErrorCase[] = [
    // input shape
    ["nope", false, "embeds: must be an array"],
    [{ title: "t" }, false, "embeds: must be an array"],
    [42, true, "embeds: must be an array"],
    [[null], false, "embeds.0: must be an object"],
    [[{ title: "t" }, null], false, "embeds.1: must be an object"],
    [[["title"]], false, "embeds.0: must be an object"],
    [Array.from({ length: 11 }, () => ({ title: "t" })), false, "embeds: must contain at most 10 embeds"],
    [[{}], false, "embeds.0: must have at least one of title, description, fields, image, thumbnail, author, footer or components"],
    [[{ url: "https://x.io", color: "#000000", timestamp: "2024-01-01", fields: [], components: [] }], false, "embeds.0: must have at least one of title, description, fields, image, thumbnail, author, footer or components"],
    // text limits, one past the edge
    [[{ title: chars(257) }], false, "embeds.0.title: must be at most 256 characters"],
    [[{ title: chars(257, "😀") }], false, "embeds.0.title: must be at most 256 characters"],
    [[{ title: 5 }], false, "embeds.0.title: must be a string"],
    [[{ description: chars(4097) }], false, "embeds.0.description: must be at most 4096 characters"],
    [[{ fields: Array.from({ length: 26 }, () => ({ name: "n", value: "v" })) }], false, "embeds.0.fields: must contain at most 25 fields"],
    [[{ fields: { name: "n", value: "v" } }], false, "embeds.0.fields: must be an array"],
    [[{ fields: [{ name: "n", value: "v" }, { name: "n", value: "v" }, { name: "n", value: chars(1025) }] }], false, "embeds.0.fields.2.value: must be 1-1024 characters"],
    [[{ fields: [{ name: chars(257), value: "v" }] }], false, "embeds.0.fields.0.name: must be 1-256 characters"],
    [[{ fields: [{ name: "", value: "v" }] }], false, "embeds.0.fields.0.name: must be 1-256 characters"],
    [[{ fields: [{ name: "n" }] }], false, "embeds.0.fields.0.value: is required"],
    [[{ fields: [{ name: "n", value: "v", inline: "yes" }] }], false, "embeds.0.fields.0.inline: must be a boolean"],
    [[{ fields: [null] }], false, "embeds.0.fields.0: must be an object"],
    [[{ footer: { text: chars(2049) } }], false, "embeds.0.footer.text: must be 1-2048 characters"],
    [[{ footer: {} }], false, "embeds.0.footer.text: is required"],
    [[{ footer: "f" }], false, "embeds.0.footer: must be an object"],
    [[{ author: { name: chars(257) } }], false, "embeds.0.author.name: must be 1-256 characters"],
    [
      [{ description: chars(4096), fields: [{ name: chars(256), value: chars(1024) }], author: { name: chars(256) }, footer: { text: chars(369) } }],
      false,
      "embeds.0: must have at most 6000 characters in total (title, description, fields, footer, author)",
    ],
    // URLs
    [[{ title: "t", url: httpUrl(2049) }], false, "embeds.0.url: must be at most 2048 characters"],
    [[{ title: "t", url: "ftp://x.io/a" }], false, "embeds.0.url: must be an http(s) URL"],
    [[{ title: "t", url: "javascript:alert(1)" }], false, "embeds.0.url: must be an http(s) URL"],
    [[{ title: "t", url: "not a url" }], false, "embeds.0.url: must be an http(s) URL"],
    [[{ title: "t", url: " https://x.io" }], false, "embeds.0.url: must be an http(s) URL"],
    [[{ image: "data:image/png;base64,AAAA" }], false, "embeds.0.image: must be an http(s) URL"],
    [[{ thumbnail: httpUrl(2049) }], false, "embeds.0.thumbnail: must be at most 2048 characters"],
    [[{ footer: { text: "f", icon_url: "file:///etc/passwd" } }], false, "embeds.0.footer.icon_url: must be an http(s) URL"],
    [[{ author: { name: "a", url: "mailto:a@b.c" } }], false, "embeds.0.author.url: must be an http(s) URL"],
    [[{ author: { name: "a", icon_url: 3 } }], false, "embeds.0.author.icon_url: must be a string"],
    // strict refuses the webhook shapes
    [[{ title: "t", color: 0xff0000 }], false, "embeds.0.color: must be a hex color like #RRGGBB"],
    [[{ title: "t", color: "#fff" }], false, "embeds.0.color: must be a hex color like #RRGGBB"],
    [[{ title: "t", color: "red" }], false, "embeds.0.color: must be a hex color like #RRGGBB"],
    [[{ image: { url: "https://x.io/i.png" } }], false, "embeds.0.image: must be a URL string"],
    [[{ thumbnail: { url: "https://x.io/i.png" } }], false, "embeds.0.thumbnail: must be a URL string"],
    [[{ title: "t", timestamp: 1700000000 }], false, "embeds.0.timestamp: must be an ISO 8601 string"],
    // lenient still has limits
    [[{ title: "t", color: 0x1000000 }], true, "embeds.0.color: must be a #RRGGBB string or an integer 0-16777215"],
    [[{ title: "t", color: -1 }], true, "embeds.0.color: must be a #RRGGBB string or an integer 0-16777215"],
    [[{ title: "t", color: 1.5 }], true, "embeds.0.color: must be a #RRGGBB string or an integer 0-16777215"],
    [[{ image: {} }], true, "embeds.0.image.url: is required"],
    [[{ image: { url: "ftp://x.io/i" } }], true, "embeds.0.image.url: must be an http(s) URL"],
    [[{ thumbnail: 7 }], true, "embeds.0.thumbnail: must be a URL string or an object with url"],
    [[{ title: "t", timestamp: 1700000000000 }], true, "embeds.0.timestamp: must be unix seconds, not milliseconds"],
    [[{ title: "t", timestamp: Number.NaN }], true, "embeds.0.timestamp: must be an ISO 8601 string or unix seconds"],
    // timestamps
    [[{ title: "t", timestamp: "yesterday" }], false, "embeds.0.timestamp: must be a valid ISO 8601 date"],
    [[{ title: "t", timestamp: "2023-02-29T00:00:00Z" }], false, "embeds.0.timestamp: must be a valid ISO 8601 date"],
    [[{ title: "t", timestamp: "2024-13-01" }], false, "embeds.0.timestamp: must be a valid ISO 8601 date"],
    [[{ title: "t", timestamp: "2024-01-01T24:00:00Z" }], false, "embeds.0.timestamp: must be a valid ISO 8601 date"],
  ];
  test.each(titled(cases))("%s", (_title, input, lenient, message) => {
    expect(errorOf(() => normalizeEmbeds(input, { lenient }))).toBe(message);
  });
});

describe("normalizeEmbeds rejects bad components", () => {
  const inEmbed = (...components: unknown[]) => [{ components }];
  const cases: ErrorCase[] = [
    [[{ components: "b" }], false, "embeds.0.components: must be an array"],
    [[{ components: Array.from({ length: 26 }, (_, i) => button(`b${i}`)) }], false, "embeds.0.components: must contain at most 25 components"],
    [inEmbed(null), false, "embeds.0.components.0: must be an object"],
    [inEmbed({ label: "x" }), false, "embeds.0.components.0.type: is required"],
    [inEmbed({ type: "text_input", custom_id: "x" }), false, "embeds.0.components.0.type: must be one of button, string_select, channel_select"],
    [inEmbed({ type: 2, custom_id: "x", label: "Go" }), true, "embeds.0.components.0.type: must be one of button, string_select, channel_select"],
    // buttons
    [inEmbed({ type: "button", style: "link", label: "Docs", url: "https://d.io", custom_id: "x" }), false, "embeds.0.components.0.custom_id: is not allowed on a link button"],
    [inEmbed({ type: "button", style: "link", label: "Docs" }), false, "embeds.0.components.0.url: is required for a link button"],
    [inEmbed({ type: "button", style: "link", label: "Docs", url: "javascript:x" }), false, "embeds.0.components.0.url: must be an http(s) URL"],
    [inEmbed({ type: "button", label: "Go" }), false, "embeds.0.components.0.custom_id: is required"],
    [inEmbed({ type: "button", style: "secondary", label: "Go", url: "https://d.io", custom_id: "x" }), false, "embeds.0.components.0.url: is allowed only on a link button"],
    [inEmbed({ type: "button", custom_id: "x" }), false, "embeds.0.components.0.label: is required"],
    [inEmbed(button("x", { label: "" })), false, "embeds.0.components.0.label: must be 1-80 characters"],
    [inEmbed(button("x", { label: chars(81) })), false, "embeds.0.components.0.label: must be 1-80 characters"],
    [inEmbed(button(chars(101))), false, "embeds.0.components.0.custom_id: must be 1-100 characters"],
    [inEmbed(button("")), false, "embeds.0.components.0.custom_id: must be 1-100 characters"],
    [inEmbed(button("x", { style: "blurple" })), false, "embeds.0.components.0.style: must be one of primary, secondary, success, danger, link"],
    [inEmbed(button("x", { style: 1 })), true, "embeds.0.components.0.style: must be one of primary, secondary, success, danger, link"],
    [inEmbed(button("x", { emoji: "🔥" })), false, "embeds.0.components.0.emoji: must be an object"],
    [inEmbed(button("x", { emoji: { id: "1" } })), false, "embeds.0.components.0.emoji.name: is required"],
    [inEmbed(button("x", { disabled: 1 })), false, "embeds.0.components.0.disabled: must be a boolean"],
    // string selects
    [inEmbed({ type: "string_select", custom_id: "s" }), false, "embeds.0.components.0.options: is required"],
    [inEmbed(select("s", { options: [] })), false, "embeds.0.components.0.options: must contain at least 1 option"],
    [inEmbed(select("s", { options: options(26) })), false, "embeds.0.components.0.options: must contain at most 25 options"],
    [inEmbed({ type: "string_select", options: options(2) }), false, "embeds.0.components.0.custom_id: is required"],
    [inEmbed(select("s", { options: [{ label: "A" }] })), false, "embeds.0.components.0.options.0.value: is required"],
    [inEmbed(select("s", { options: [{ label: "A", value: chars(101) }] })), false, "embeds.0.components.0.options.0.value: must be 1-100 characters"],
    [inEmbed(select("s", { options: [{ label: chars(101), value: "a" }] })), false, "embeds.0.components.0.options.0.label: must be 1-100 characters"],
    [inEmbed(select("s", { options: [{ label: "A", value: "a", description: chars(101) }] })), false, "embeds.0.components.0.options.0.description: must be at most 100 characters"],
    [inEmbed(select("s", { options: [{ label: "A", value: "a", default: "yes" }] })), false, "embeds.0.components.0.options.0.default: must be a boolean"],
    [inEmbed(select("s", { options: [{ label: "A", value: "a" }, { label: "B", value: "a" }] })), false, "embeds.0.components.0.options.1.value: must be unique within the select"],
    [inEmbed(select("s", { placeholder: chars(151) })), false, "embeds.0.components.0.placeholder: must be at most 150 characters"],
    [inEmbed(select("s", { max_values: 4 })), false, "embeds.0.components.0.max_values: must not exceed the number of options"],
    [inEmbed(select("s", { max_values: 0 })), false, "embeds.0.components.0.max_values: must be an integer 1-25"],
    [inEmbed(select("s", { min_values: 2 })), false, "embeds.0.components.0.min_values: must not exceed max_values"],
    [inEmbed(select("s", { min_values: 1.5, max_values: 2 })), false, "embeds.0.components.0.min_values: must be an integer 0-25"],
    // channel selects
    [inEmbed({ type: "channel_select" }), false, "embeds.0.components.0.custom_id: is required"],
    [inEmbed({ type: "channel_select", custom_id: "c", channel_types: ["text", "category"] }), false, "embeds.0.components.0.channel_types.1: must be one of text, voice"],
    [inEmbed({ type: "channel_select", custom_id: "c", channel_types: "text" }), false, "embeds.0.components.0.channel_types: must be an array"],
    [inEmbed({ type: "channel_select", custom_id: "c", placeholder: chars(151) }), false, "embeds.0.components.0.placeholder: must be at most 150 characters"],
    // custom_id uniqueness across the message
    [inEmbed(button("dup"), select("dup")), false, "embeds.0.components.1.custom_id: must be unique within the message (also used by embeds.0.components.0)"],
    [
      [{ components: [button("a")] }, { title: "t" }, { components: [{ type: "channel_select", custom_id: "a" }] }],
      false,
      "embeds.2.components.0.custom_id: must be unique within the message (also used by embeds.0.components.0)",
    ],
  ];
  test.each(titled(cases))("%s", (_title, input, lenient, message) => {
    expect(errorOf(() => normalizeEmbeds(input, { lenient }))).toBe(message);
  });

  test("link buttons may share a url, having no custom_id", () => {
    const link = { type: "button", style: "link", label: "Docs", url: "https://d.io" };
    expect(normalizeEmbeds([{ components: [link, link] }], STRICT)[0]!.components).toHaveLength(2);
  });
});

describe("normalizeEmbeds output", () => {
  test("does not alias the input", () => {
    const input = [{ title: "t", fields: [{ name: "n", value: "v" }] }];
    const [embed] = normalizeEmbeds(input, STRICT);
    embed!.fields![0]!.name = "changed";
    expect(input[0]!.fields[0]!.name).toBe("n");
  });

  test("is stable: normalizing the output again gives the same embeds", () => {
    const once = normalizeEmbeds([{ image: { url: "https://x.io/i" }, color: 255, timestamp: 1, components: [select("s")] }], LENIENT);
    expect(normalizeEmbeds(once, STRICT)).toEqual(once);
  });

  test("the limits are published", () => {
    expect(EMBED_LIMITS.embedsPerMessage).toBe(10);
    expect(EMBED_LIMITS.totalCharacters).toBe(6000);
  });
});

const CHANNEL_A = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const CHANNEL_B = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c";

describe("findComponent", () => {
  const embeds = normalizeEmbeds(
    [
      { title: "no components" },
      { components: [{ type: "button", style: "link", label: "Docs", url: "https://d.io" }, button("ok")] },
      { components: [select("pick"), { type: "channel_select", custom_id: "where" }] },
    ],
    STRICT,
  );
  test.each([
    ["ok", "button"],
    ["pick", "string_select"],
    ["where", "channel_select"],
    ["missing", null],
    ["", null],
    ["https://d.io", null],
  ] as [string, Component["type"] | null][])("%p", (customId, type) => {
    expect(findComponent(embeds, customId)?.type ?? null).toBe(type);
  });

  test("returns the typed component", () => {
    const found = findComponent(embeds, "pick");
    expect(found?.type === "string_select" ? found.options.map((option) => option.value) : null).toEqual(["v0", "v1", "v2"]);
  });

  test("an empty message has none", () => {
    expect(findComponent([], "ok")).toBeNull();
  });
});

describe("validateComponentValues", () => {
  const actionButton: Component = { type: "button", label: "Go", style: "primary", custom_id: "b" };
  const disabledButton: Component = { ...actionButton, disabled: true };
  const linkButton: Component = { type: "button", label: "Docs", style: "link", url: "https://d.io" };
  const single: Component = { type: "string_select", custom_id: "s", options: options(3) };
  const multi: Component = { type: "string_select", custom_id: "m", options: options(3), min_values: 0, max_values: 2 };
  const channel: Component = { type: "channel_select", custom_id: "c" };
  const channels: Component = { type: "channel_select", custom_id: "cs", min_values: 1, max_values: 2 };

  test.each([
    ["button, no values", actionButton, undefined, []],
    ["button, null", actionButton, null, []],
    ["button, empty array", actionButton, [], []],
    ["select, one value", single, ["v1"], ["v1"]],
    ["multi select, none (min 0)", multi, [], []],
    ["multi select, two", multi, ["v0", "v2"], ["v0", "v2"]],
    ["channel select, one UUID", channel, [CHANNEL_A], [CHANNEL_A]],
    ["channel select, two UUIDs within max", channels, [CHANNEL_A, CHANNEL_B], [CHANNEL_A, CHANNEL_B]],
  ] as [string, Component, unknown, string[]][])("%s", (_name, component, values, expected) => {
    expect(validateComponentValues(component, values)).toEqual(expected);
  });

  test.each([
    ["button with values", actionButton, ["x"], "values: a button takes no values"],
    ["disabled button", disabledButton, undefined, "custom_id: this button is disabled"],
    ["link button", linkButton, undefined, "custom_id: link buttons are opened by the client, not pressed"],
    ["select, not an array", single, "v1", "values: must be an array"],
    ["select, none (default min 1)", single, [], "values: must contain exactly 1 value"],
    ["select, two (default max 1)", single, ["v0", "v1"], "values: must contain exactly 1 value"],
    ["select, unknown value", single, ["nope"], "values.0: must be one of the select's option values"],
    ["select, non-string", single, [1], "values.0: must be a string"],
    ["multi select, three", multi, ["v0", "v1", "v2"], "values: must contain 0-2 values"],
    ["multi select, duplicates", multi, ["v0", "v0"], "values: must not contain duplicates"],
    ["channel select, not a UUID", channel, ["general"], "values.0: must be a channel id (UUID)"],
    ["channel select, none", channel, [], "values: must contain exactly 1 value"],
    ["channel select, missing", channel, undefined, "values: must be an array"],
    ["channel select, three over max 2", channels, [CHANNEL_A, CHANNEL_B, CHANNEL_A], "values: must contain 1-2 values"],
  ] as [string, Component, unknown, string][])("%s", (_name, component, values, message) => {
    expect(errorOf(() => validateComponentValues(component, values))).toBe(message);
  });
});
