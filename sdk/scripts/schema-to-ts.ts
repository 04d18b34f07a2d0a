/**
 * JSON Schema (OpenAPI 3.0's dialect and draft-07, as Hearth's two reference documents write
 * them) to TypeScript type text. Only what the documents use: `$ref` to named schemas, `type`,
 * `nullable`, `enum`, `const`, `anyOf`/`oneOf`/`allOf`, `items`, `properties` with `required`,
 * `additionalProperties`, and `format: binary` (PCM and uploads).
 *
 * Validation keywords (`maxLength`, `pattern`, `minimum`, ...) have no TypeScript form and are
 * left out: the server checks them, and the SDK's own pre-send checks use the copied LIMITS.
 */

export type Schema = Record<string, unknown>;

export interface EmitOptions {
  /** The type a `format: binary` string becomes. */
  binary: string;
  /** Put before every named schema's name (`S.` when the names live in another module). */
  refPrefix?: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A property name, quoted only when it must be. */
export const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** `#/components/schemas/Message` -> `Message`. */
export function refName(ref: string): string {
  const name = ref.slice(ref.lastIndexOf("/") + 1);
  if (!IDENTIFIER.test(name)) throw new Error(`schema name ${name} is not a TypeScript identifier`);
  return name;
}

const literal = (value: unknown) => JSON.stringify(value);

/** A type in a position where `|` or `&` would bind wrongly (an array's element). */
const group = (type: string) => (/[|&]/.test(type) && !/^\{[\s\S]*\}$/.test(type) ? `(${type})` : type);

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.length === 0 ? "never" : unique.join(" | ");
}

export function schemaToTs(schema: unknown, options: EmitOptions, indent = ""): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  const node = schema as Schema;
  let type = baseType(node, options, indent);
  if (node.nullable === true && type !== "unknown") type = `${type} | null`;
  return type;
}

function baseType(node: Schema, options: EmitOptions, indent: string): string {
  if (typeof node.$ref === "string") return `${options.refPrefix ?? ""}${refName(node.$ref)}`;
  if ("const" in node) return literal(node.const);
  if (Array.isArray(node.enum)) return union(node.enum.map(literal));
  for (const combinator of ["oneOf", "anyOf"] as const) {
    const parts = node[combinator];
    if (Array.isArray(parts)) return union(parts.map((part) => schemaToTs(part, options, indent)));
  }
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map((part) => schemaToTs(part, options, indent));
    return parts.length === 1 ? parts[0]! : parts.map(group).join(" & ");
  }
  const type = node.type;
  if (Array.isArray(type)) return union(type.map((one) => baseType({ ...node, type: one }, options, indent)));
  switch (type) {
    case "string":
      return node.format === "binary" ? options.binary : "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${group(schemaToTs(node.items, options, indent))}[]`;
    case "object":
      return objectType(node, options, indent);
    default:
      return node.properties ? objectType(node, options, indent) : "unknown";
  }
}

function objectType(node: Schema, options: EmitOptions, indent: string): string {
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const required = new Set((node.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [name, child] of Object.entries(properties)) {
    const optional = required.has(name) ? "" : "?";
    if (typeof child.description === "string") lines.push(`${inner}/** ${child.description.replaceAll("*/", "* /")} */`);
    lines.push(`${inner}${key(name)}${optional}: ${schemaToTs(child, options, inner)};`);
  }
  const extra = node.additionalProperties;
  if (extra && typeof extra === "object") lines.push(`${inner}[key: string]: ${schemaToTs(extra, options, inner)};`);
  else if (extra === true) lines.push(`${inner}[key: string]: unknown;`);
  if (lines.length === 0) return "Record<string, never>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}
