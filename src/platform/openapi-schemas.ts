import type {
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

// What the schemas of the OpenAPI document say of every request and response (docs/api.md §1):
// closed request bodies, timestamps, nullable objects. Applied by documentGuarantees.

function resolve(
  document: OpenAPIObject,
  schema: SchemaObject | ReferenceObject | undefined,
): SchemaObject | undefined {
  if (!schema) return undefined;
  if (!('$ref' in schema)) return schema;
  const resolved = document.components?.schemas?.[schema.$ref.split('/').pop() ?? ''];
  return resolved && !('$ref' in resolved) ? resolved : undefined;
}

/** True for a response whose body is one resource (its schema has `id` and `object`). */
export function returnsResource(
  document: OpenAPIObject,
  response: ResponseObject | ReferenceObject | undefined,
): boolean {
  if (!response || '$ref' in response) return false;
  const properties = resolve(document, response.content?.['application/json']?.schema)?.properties;
  return !!properties && 'id' in properties && 'object' in properties;
}

export function bodySchema(
  document: OpenAPIObject,
  operation: OperationObject,
): SchemaObject | undefined {
  const body = operation.requestBody;
  if (!body || '$ref' in body) return undefined;
  return resolve(document, body.content['application/json']?.schema);
}

/**
 * The API rejects every field a request body does not define (docs/api.md §1): the schemas of
 * request bodies, and the objects nested in them, say so with `additionalProperties: false`.
 */
export function closeRequestSchemas(
  document: OpenAPIObject,
  schema: SchemaObject | ReferenceObject | undefined,
  seen = new Set<SchemaObject>(),
): void {
  const resolved = resolve(document, schema);
  if (!resolved || seen.has(resolved)) return;
  seen.add(resolved);
  if (resolved.properties && resolved.additionalProperties === undefined) {
    resolved.additionalProperties = false;
  }
  for (const child of [
    ...Object.values(resolved.properties ?? {}),
    ...(resolved.oneOf ?? []),
    ...(resolved.anyOf ?? []),
    ...(resolved.allOf ?? []),
    ...(resolved.items ? [resolved.items] : []),
  ]) {
    closeRequestSchemas(document, child, seen);
  }
}

/**
 * Timestamps are ISO 8601 UTC with milliseconds (docs/api.md §1): every string property of a
 * schema whose name ends in `At` (`createdAt`, `nextRetryAt`, ...) says `format: date-time`,
 * which the Swagger plugin cannot read from a `string` field.
 */
export function formatTimestamps(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {})) {
    if ('$ref' in schema) continue;
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if ('$ref' in property || !/[a-z]At$/.test(name)) continue;
      if (property.type === 'string' && property.format === undefined) {
        property.format = 'date-time';
      }
    }
  }
}

/**
 * In OpenAPI 3.0 `nullable: true` admits null only beside a `type` in the same schema object, and
 * `allOf` still applies to null: `{ type: 'object', nullable: true, allOf: [{ $ref }] }`, which the
 * Swagger plugin writes for a nullable object property, refuses null in every strict client (the
 * referenced schema refuses it). Such a schema is replaced by a copy of the one it names, with
 * `nullable: true` beside its `type`; any other nullable schema without a type stops the document
 * from being built, so the class of mistake cannot reach a client.
 */
export function nullableReferences(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  const inlined = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as SchemaObject & ReferenceObject;
    if (schema.nullable === true && (schema.type === undefined || schema.allOf || schema.$ref)) {
      const only = schema.allOf?.length === 1 ? schema.allOf[0] : schema.$ref ? schema : undefined;
      const name = only && '$ref' in only ? only.$ref.split('/').pop() : undefined;
      const target = name ? schemas[name] : undefined;
      if (!target || target.type === undefined) {
        throw new Error(
          `OpenAPI: ${JSON.stringify(node)} is nullable without a type, so strict clients refuse null`,
        );
      }
      inlined.add(name!);
      const { allOf: _allOf, $ref: _ref, type: _type, ...rest } = schema;
      for (const key of Object.keys(schema)) delete (node as Record<string, unknown>)[key];
      Object.assign(schema, structuredClone(target), rest, { nullable: true });
    }
    Object.values(node).forEach(visit);
  };
  visit(document.paths);
  visit(schemas);
  // A schema now copied everywhere it was named leaves the document.
  const text = JSON.stringify(document);
  for (const name of inlined) {
    if (!text.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
  }
}
