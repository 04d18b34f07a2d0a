/**
 * Slash command definitions, typed so a handler's options follow from the definition: a
 * `string` option gives a string, `integer` and `number` a number, `boolean` a boolean, `user`,
 * `channel`, `role` and `mentionable` the id (a string), an option with `choices` one of the
 * choice values, and an option that is not `required` may be missing (`undefined`).
 *
 * Definitions use the type names of docs/commands.md; they are sent with the type codes of the
 * API reference (OPTION_TYPES, copied from the server), checked against the spec's limits first.
 */
import { HearthLimitError } from "./errors.js";
import { LIMITS, OPTION_TYPES } from "./generated/constants.js";
import type * as S from "./generated/schemas.js";

export type OptionTypeName = "string" | "integer" | "number" | "boolean" | "user" | "channel" | "role" | "mentionable";

export interface OptionDefinition {
  name: string;
  description?: string;
  type: OptionTypeName;
  required?: boolean;
  choices?: readonly { name: string; value: string | number }[];
  /** `integer` and `number` only. */
  min_value?: number;
  max_value?: number;
  /** `string` only. */
  max_length?: number;
  /** `channel` only: channel type codes. */
  channel_types?: readonly number[];
  autocomplete?: boolean;
}

export interface CommandDefinition {
  name: string;
  description?: string;
  options?: readonly OptionDefinition[];
}

/** A user, channel or role id (a UUID) as the interaction delivers it. */
export type Id = string;

type ValueOfType<T extends OptionTypeName> = T extends "integer" | "number" ? number : T extends "boolean" ? boolean : T extends "string" ? string : Id;

/** The value an option delivers: a choice's value when it has choices, else its type's. */
export type OptionValue<O extends OptionDefinition> = O extends { choices: readonly { value: infer V }[] } ? V : ValueOfType<O["type"]>;

type RequiredOptions<C extends CommandDefinition> = Extract<NonNullable<C["options"]>[number], { required: true }>;
type OptionalOptions<C extends CommandDefinition> = Exclude<NonNullable<C["options"]>[number], { required: true }>;

/** The `options` a handler receives for a command: `{sides?: number}` for `/roll [sides:integer]`. */
export type OptionsOf<C extends CommandDefinition> = C extends { options: readonly OptionDefinition[] }
  ? C["options"]["length"] extends 0
    ? NoOptions
    : { [O in RequiredOptions<C> as O["name"]]: OptionValue<O> } & { [O in OptionalOptions<C> as O["name"]]?: OptionValue<O> }
  : NoOptions;

/** A command without options receives the whole text as `value` (docs/commands.md). */
type NoOptions = { value?: string };

/**
 * Declares a command; `const` keeps the literal names and types, so `OptionsOf` can read them.
 * Nothing is sent until the bot starts.
 */
export function defineCommand<const C extends CommandDefinition>(definition: C): C {
  checkCommand(definition, "");
  return definition;
}

const NAME = new RegExp(`^[\\w-]{1,${LIMITS.commandNameLength}}$`);
const fail = (path: string, reason: string): never => {
  throw new HearthLimitError(path, reason);
};

function checkName(name: unknown, path: string): void {
  if (typeof name !== "string" || !NAME.test(name)) fail(path, `must be 1-${LIMITS.commandNameLength} letters, digits, _ or -`);
}

function checkDescription(description: unknown, path: string): void {
  if (description !== undefined && (typeof description !== "string" || description.length > LIMITS.optionDescriptionLength)) {
    fail(path, `must be at most ${LIMITS.optionDescriptionLength} characters`);
  }
}

/** The spec's limits on one definition (docs/commands.md), with the server's field paths. */
export function checkCommand(command: CommandDefinition, prefix: string): void {
  checkName(command.name, `${prefix}name`);
  checkDescription(command.description, `${prefix}description`);
  const options = command.options ?? [];
  if (options.length > LIMITS.optionsPerCommand) fail(`${prefix}options`, `at most ${LIMITS.optionsPerCommand} options`);
  const seen = new Set<string>();
  options.forEach((option, index) => {
    const at = `${prefix}options.${index}`;
    checkName(option.name, `${at}.name`);
    if (option.name.toLowerCase() === "__bot") fail(`${at}.name`, "__bot is reserved");
    if (seen.has(option.name.toLowerCase())) fail(`${at}.name`, `duplicate option name ${option.name}`);
    seen.add(option.name.toLowerCase());
    checkDescription(option.description, `${at}.description`);
    if (!(option.type.toUpperCase() in OPTION_TYPES)) fail(`${at}.type`, `must be one of ${Object.keys(OPTION_TYPES).map((t) => t.toLowerCase()).join(", ")}`);
    if ((option.choices?.length ?? 0) > LIMITS.choicesPerOption) fail(`${at}.choices`, `at most ${LIMITS.choicesPerOption} choices`);
    option.choices?.forEach((choice, c) => {
      if (choice.name.length < 1 || choice.name.length > LIMITS.bot.choiceNameLength) fail(`${at}.choices.${c}.name`, `must be 1-${LIMITS.bot.choiceNameLength} characters`);
      if (typeof choice.value === "string" && choice.value.length > LIMITS.bot.choiceValueLength) fail(`${at}.choices.${c}.value`, `must be at most ${LIMITS.bot.choiceValueLength} characters`);
    });
    if (option.min_value !== undefined && option.max_value !== undefined && option.min_value > option.max_value) fail(`${at}.min_value`, "must not exceed max_value");
    if ((option.channel_types?.length ?? 0) > LIMITS.channelTypesPerOption) fail(`${at}.channel_types`, `at most ${LIMITS.channelTypesPerOption} entries`);
  });
}

/** A definition as the API takes it (`CommandDefinition` of the reference: type codes). */
export function toWire(command: CommandDefinition): S.CommandDefinition {
  const wire: S.CommandDefinition = { name: command.name, description: command.description ?? "" };
  if (command.options) {
    wire.options = command.options.map((option) => {
      const { type, choices, channel_types, ...rest } = option;
      const out: NonNullable<S.CommandDefinition["options"]>[number] = { ...rest, type: OPTION_TYPES[type.toUpperCase() as keyof typeof OPTION_TYPES] };
      if (choices) out.choices = choices.map((choice) => ({ ...choice }));
      if (channel_types) out.channel_types = [...channel_types];
      return out;
    });
  }
  return wire;
}

/** Checks a whole set (at most 50 global commands, names unique) and converts it. */
export function commandsToWire(commands: readonly CommandDefinition[]): S.CommandDefinition[] {
  if (commands.length > LIMITS.globalCommandsPerApplication) fail("", `at most ${LIMITS.globalCommandsPerApplication} commands`);
  const names = new Set<string>();
  commands.forEach((command, index) => {
    checkCommand(command, `${index}.`);
    const name = command.name.toLowerCase();
    if (names.has(name)) fail(`${index}.name`, `Duplicate command name: ${name}`);
    names.add(name);
  });
  return commands.map(toWire);
}
