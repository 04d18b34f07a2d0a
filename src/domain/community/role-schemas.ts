/** The payloads that create and change custom roles: the REST routes parse with these, and Roles takes their output. */
import * as v from "valibot";
import { ALL_PERMISSIONS } from "../access/permission-bits.ts";
import { LIMITS } from "../shared/limits.ts";
import { boolean, displayName, integer } from "../shared/validation.ts";

const name = v.pipe(
  displayName,
  v.minLength(1, "must not be empty"),
  v.maxLength(LIMITS.role.nameLength, `must be at most ${LIMITS.role.nameLength} characters`),
);
const color = v.pipe(v.string("must be a string"), v.regex(/^#[0-9a-fA-F]{6}$/, "must be a hex color like #RRGGBB"));
const permissions = integer(0, ALL_PERMISSIONS);

export const NewRole = v.object({ name, color: v.optional(color), permissions: v.optional(permissions), hoist: v.optional(boolean) });
export type NewRoleInput = v.InferOutput<typeof NewRole>;

export const RoleChanges = v.object({ name: v.optional(name), color: v.optional(color), permissions: v.optional(permissions), hoist: v.optional(boolean) });
export type RoleChangesInput = v.InferOutput<typeof RoleChanges>;
