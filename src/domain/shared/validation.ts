import * as v from "valibot";
import { badRequest } from "./errors.ts";
import { LIMITS } from "./limits.ts";
import { normalizeDisplayName, NO_VISIBLE_CHARACTERS } from "./display-name.ts";

type Issue = v.BaseIssue<unknown>;

/** "field.sub: message", or the bare message when the issue is about the whole input. */
export function describeIssue(issue: Issue, rootName = "body"): string {
  const path = issue.path?.map((item) => String(item.key)).join(".");
  // A key the object schema expects but the input lacks.
  if (path && issue.path?.at(-1)?.origin === "key" && issue.input === undefined) return `${path}: is required`;
  if (!path) return `${rootName}: ${issue.message}`;
  return `${path}: ${issue.message}`;
}

/** Parses untrusted input (a gateway payload, a multipart field set) or throws a 400 naming the field. */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown, rootName = "body"): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (!result.success) throw badRequest(describeIssue(result.issues[0], rootName));
  return result.output;
}

/** UUID check used for path parameters: anything else is answered 404 by the caller's lookup. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === "string" && UUID_RE.test(value);

/**
 * Control characters (C0, DEL, C1), the line and paragraph separators, and the bidi controls
 * (marks, embeddings, overrides, isolates): none belongs in a name shown to other people,
 * where they hide text, break lines or reorder what is displayed after them.
 */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `text` without its unprintable characters (see UNPRINTABLE). */
export const stripUnprintable = (text: string): string => text.replace(UNPRINTABLE, "");

/**
 * A name shown to others (servers, channels, categories, roles, webhooks and a webhook
 * message's `username`, applications, group DMs, ...), normalised by `normalizeDisplayName`
 * (docs/README.md#display-names). The one place names are cleaned; each field adds its own
 * length rule after it, so lengths count what is kept. A name that had characters but none visible is refused
 * here; a blank one is left to the field's own rule (a required name's "must not be empty",
 * or a group DM's name being cleared).
 */
export const displayName = v.pipe(
  v.string("must be a string"),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const name = normalizeDisplayName(dataset.value);
    if (name !== "" || dataset.value.trim() === "") return name;
    addIssue({ message: NO_VISIBLE_CHARACTERS });
    return NEVER;
  }),
);

/** Common pieces of request schemas. */
/** A string of at most `max` characters; empty is allowed (it clears a bio, a topic, a reason). */
export const boundedText = (max: number) =>
  v.pipe(v.string("must be a string"), v.maxLength(max, `must be at most ${max} characters`));

export const boolean = v.boolean("must be a boolean");

/** A bounded integer, from JSON. */
export const integer = (min: number, max: number) =>
  v.pipe(
    v.number("must be a number"),
    v.integer("must be an integer"),
    v.minValue(min, `must be between ${min} and ${max}`),
    v.maxValue(max, `must be between ${min} and ${max}`),
  );
export const uuid = (field: string) =>
  v.pipe(v.string(`${field} must be a string`), v.uuid(`${field} must be a UUID`));

export const username = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.minLength(LIMITS.account.usernameMin, `must be ${LIMITS.account.usernameMin}-${LIMITS.account.usernameMax} characters`),
  v.maxLength(LIMITS.account.usernameMax, `must be ${LIMITS.account.usernameMin}-${LIMITS.account.usernameMax} characters`),
  v.regex(/^[A-Za-z0-9_.-]+$/, "may contain only letters, digits, _, . and -"),
);

export const password = v.pipe(
  v.string("must be a string"),
  v.minLength(LIMITS.account.passwordMin, `must be at least ${LIMITS.account.passwordMin} characters`),
  v.maxLength(LIMITS.account.passwordMax, `must be at most ${LIMITS.account.passwordMax} characters`),
);

/** A 6-digit TOTP code; clients sometimes send it as a number. */
export const totpCode = v.pipe(
  v.union([v.string(), v.number()], "must be a 6-digit code"),
  v.transform((code) => String(code).trim()),
  v.regex(/^\d{6}$/, "must be a 6-digit code"),
);
