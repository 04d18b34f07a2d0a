/**
 * A registered slash-command option as the API answers it (SPEC.md "Command option");
 * `normalizeOption` (command-args.ts) checks one a bot registers. A file of its own so that
 * command-args.ts, which the web app bundles, takes only its type and not valibot.
 */
import * as v from "valibot";

export const CommandOption = v.object({
  name: v.string(),
  description: v.string(),
  /** SPEC.md "Option types": 3 string, 4 integer, 5 boolean, 6 user, 7 channel, 8 role, 10 number. */
  type: v.number(),
  required: v.boolean(),
  choices: v.optional(v.array(v.object({ name: v.string(), value: v.union([v.string(), v.number()]) }))),
  autocomplete: v.optional(v.boolean()),
  min_value: v.optional(v.number()),
  max_value: v.optional(v.number()),
  max_length: v.optional(v.number()),
  channel_types: v.optional(v.array(v.number())),
});
export type CommandOption = v.InferOutput<typeof CommandOption>;
