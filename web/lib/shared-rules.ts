/**
 * Rules the app shares with the server, taken from the server's pure modules so that each rule
 * lives in one place: the autocomplete ranking (spec "Commands" rule 7), option type codes,
 * permission bits and labels, and the base permission computation.
 */
export { OPTION_TYPES, rankCommands } from "../../src/domain/bots/command-args.ts";
export { ALL_PERMISSIONS, PERMISSIONS, PERMISSION_LABELS, permissionNames, type PermissionName } from "../../src/domain/access/permission-bits.ts";
export { BUILTIN_ROLES, computeBasePermissions, type BuiltinRole } from "../../src/domain/access/permissions.ts";
export { LIMITS } from "../../src/domain/shared/limits.ts";
