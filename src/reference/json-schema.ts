/**
 * valibot -> JSON Schema, in OpenAPI 3.0's dialect (the REST document) or draft-07 (the AsyncAPI
 * document's schema format), through @valibot/to-json-schema with `errorMode: "ignore"` (checks it cannot express, such as
 * a `custom` guard or a transform, are left out: the schema then says less than the code checks,
 * never something else). docs/reference.md says how to read the result.
 */
import * as v from "valibot";
import { Binary } from "../domain/shared/events.ts";
import { toJsonSchema, type ConversionConfig, type JsonSchema } from "@valibot/to-json-schema";

/** A JSON Schema object as the documents carry it. */
export type SchemaObject = Record<string, unknown>;
type AnySchema = v.GenericSchema;

/** Schemas whose JSON Schema is given by hand (binary data, files): what the converter cannot see. */
const byHand = new WeakMap<object, SchemaObject>();

/** Gives `schema` a JSON Schema of our own; returns the schema, so it reads as a declaration. */
function describedAs<S extends AnySchema>(schema: S, jsonSchema: SchemaObject): S {
  byHand.set(schema, jsonSchema);
  return schema;
}

/** Binary PCM in gateway events (a Socket.IO binary attachment). */
describedAs(Binary, { type: "string", format: "binary" });

/** A file part of a multipart form (documentation only: the route reads it from the form). */
export const FileField = describedAs(
  v.custom<File>((input) => input instanceof File),
  { type: "string", format: "binary" },
);

export interface Components {
  /** Named schemas: a schema used anywhere is written as a `$ref` to its name. */
  readonly named: Readonly<Record<string, AnySchema>>;
}

/**
 * The named schemas of some modules: every exported object, union or variant schema, under its
 * export name (so `Message` in shapes.ts is `#/components/schemas/Message`). Primitives (ids,
 * timestamps) stay inline.
 */
export function namedSchemas(...modules: Record<string, unknown>[]): Record<string, AnySchema> {
  const named: Record<string, AnySchema> = {};
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) {
      const schema = value as { kind?: unknown; type?: unknown } | null;
      if (!schema || typeof schema !== "object" || schema.kind !== "schema") continue;
      if (!["object", "loose_object", "strict_object", "union", "variant"].includes(String(schema.type))) continue;
      if (named[name] && named[name] !== value) throw new Error(`Two schemas are named ${name}`);
      named[name] = value as AnySchema;
    }
  }
  return named;
}

/**
 * Converts valibot schemas for one document. A named schema met anywhere (but at the root of its
 * own definition) becomes a `$ref` to its name, so each is converted in full once.
 */
export class SchemaConverter {
  private readonly config: ConversionConfig;
  private readonly names = new Map<object, string>();
  /** The named schema being defined, which must not refer to itself. */
  private defining: object | null = null;

  constructor(
    components: Components,
    /** OpenAPI 3.0's dialect (`nullable`), or draft-07 (AsyncAPI's schema format). */
    target: "openapi-3.0" | "draft-07" = "openapi-3.0",
    /** Where named schemas live. */
    private readonly refPrefix = "#/components/schemas/",
  ) {
    for (const [name, schema] of Object.entries(components.named)) this.names.set(schema, name);
    this.config = {
      target,
      errorMode: "ignore",
      // "ignore" reads every item of a pipeline; a transform adds nothing (`?limit=` stays the
      // digits string a client sends).
      typeMode: "ignore",
      overrideSchema: ({ valibotSchema, jsonSchema }) => this.override(valibotSchema, jsonSchema),
    };
  }

  /** The JSON Schema of `schema` (a request's or an answer's), its named parts as `$ref`s. */
  convert(schema: AnySchema, _side: "input" | "output" = "output"): SchemaObject {
    const { $schema: _dialect, ...converted } = toJsonSchema(schema, this.config) as SchemaObject;
    return tidy(converted);
  }

  /** Every named schema, converted in full (the document's `components.schemas`). */
  definitions(): Record<string, SchemaObject> {
    const out: Record<string, SchemaObject> = {};
    for (const [schema, name] of this.names) {
      this.defining = schema;
      try {
        out[name] = this.convert(schema as AnySchema);
      } finally {
        this.defining = null;
      }
    }
    return out;
  }

  private override(schema: v.GenericSchema, converted: JsonSchema): JsonSchema | undefined {
    const name = this.names.get(schema);
    if (name && schema !== this.defining) return { $ref: `${this.refPrefix}${name}` } as JsonSchema;
    const own = byHand.get(schema);
    if (own) return own as JsonSchema;
    const pipe = (schema as { pipe?: readonly { kind: string }[] }).pipe;
    // `v.pipe(v.custom(guard), schema)` (http/schemas.ts `body()`): the guard only refines the
    // error message; the schema after it is the shape.
    if (schema.type === "custom" && pipe && pipe[1]?.kind === "schema") return this.convert(pipe[1] as AnySchema) as JsonSchema;
    // A loose object says so, since a plain one is read as exact (the tests hold answers to that).
    if (schema.type === "loose_object") return { ...converted, additionalProperties: true } as JsonSchema;
    return undefined;
  }
}

/**
 * What OpenAPI 3.0 needs on top of the converter's output: a `$ref` cannot carry `nullable`
 * beside it (siblings of `$ref` are ignored), so a nullable reference becomes
 * `{nullable: true, allOf: [{$ref}]}`; an empty `required` list is dropped.
 */
function tidy(schema: SchemaObject): SchemaObject {
  const map = (node: unknown) =>
    node && typeof node === "object" ? Object.fromEntries(Object.entries(node).map(([key, value]) => [key, tidy(value as SchemaObject)])) : node;
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" || key === "patternProperties" || key === "$defs") out[key] = map(value);
    else if (key === "allOf" || key === "anyOf" || key === "oneOf") out[key] = (value as SchemaObject[]).map(tidy);
    else if ((key === "items" || key === "additionalProperties" || key === "not") && value && typeof value === "object") out[key] = tidy(value as SchemaObject);
    else out[key] = value;
  }
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}
