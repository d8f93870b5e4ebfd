import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptions, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Short forms for the fields of response classes (`*.response.ts`): what the service answers,
 * described once for OpenAPI and the typed client. The presenters are typed with the same
 * classes, so a field the schema names and the answer lacks does not compile.
 */
export const Str = (description?: string, extra: ApiPropertyOptions = {}) => ApiProperty({ type: String, description, ...extra } as ApiPropertyOptions);
export const NullableStr = (description?: string) => ApiProperty({ type: String, nullable: true, description });
export const Num = (description?: string) => ApiProperty({ type: Number, description });
export const NullableNum = (description?: string) => ApiProperty({ type: Number, nullable: true, description });
export const Int = (description?: string) => ApiProperty({ type: 'integer', description });
export const NullableInt = (description?: string) => ApiProperty({ type: 'integer', nullable: true, description });
export const Nums = (description?: string) => ApiProperty({ type: [Number], description });
export const Bool = (description?: string) => ApiProperty({ type: Boolean, description });
export const Iso = (description = 'ISO 8601 UTC, with milliseconds') => ApiProperty({ type: String, format: 'date-time', description });
export const NullableIso = (description = 'ISO 8601 UTC, with milliseconds; null when not set') =>
  ApiProperty({ type: String, format: 'date-time', nullable: true, description });
export const OneOf = (values: readonly string[], description?: string, nullable = false) => ApiProperty({ enum: [...values], nullable, description } as ApiPropertyOptions);
export const Strings = (description?: string) => ApiProperty({ type: [String], description });
// A getter, so classes declared further down a file are resolved when the document is built.
// Written inline as `type: () => …`: @nestjs/swagger knows a lazy type by the function's name.
export const Nested = (of: () => Function, description?: string, nullable = false, required = true) =>
  ApiProperty({ type: () => of(), nullable, required, description } as ApiPropertyOptions);
export const ListOf = (of: () => Function, description?: string) => ApiProperty({ type: () => of(), isArray: true, description } as ApiPropertyOptions);
/** an open JSON object (opaque to the service or shaped by another document) */
export const Json = (description?: string, nullable = false) => ApiProperty({ type: 'object', additionalProperties: true, nullable, description } as ApiPropertyOptions);

/** The offset page of REFERENCE §1.4, around a list of `T`. */
export abstract class OffsetPage {
  @Bool('more items follow this page')
  has_more!: boolean;
  @Int()
  limit!: number;
  @Int()
  offset!: number;
}

/** A schema the document registers by name rather than from a class (the graph records: NodeRecord, EdgeRecord). */
export const schemaRef = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
/** a field holding one such record */
export const Shared = (name: string, description?: string, nullable = false) => ApiProperty({ allOf: [schemaRef(name)], nullable, description } as ApiPropertyOptions);
/**
 * Classes only named by `$ref` (the fields added to a record): the document registers them
 * (`setupOpenApi` passes them to Nest as extra models).
 */
const referencedOnly = new Set<Function>();
export const referencedModels = (): Function[] => [...referencedOnly];
const recordWith = (record: string, extra: Function) => {
  referencedOnly.add(extra);
  return { allOf: [schemaRef(record), { $ref: getSchemaPath(extra) }] };
};
/** a field holding a record with the fields of a class (declared above it) added */
export const SharedWith = (name: string, extra: Function, description?: string) => ApiProperty({ ...recordWith(name, extra), description } as ApiPropertyOptions);
/** a field holding a list of those */
export const ListOfSharedWith = (name: string, extra: Function, description?: string) =>
  ApiProperty({ type: 'array', items: recordWith(name, extra), description } as ApiPropertyOptions);
/** a field holding a list of such records */
export const ListOfShared = (name: string, description?: string) => ApiProperty({ type: 'array', items: schemaRef(name), description } as ApiPropertyOptions);
/** a JSON object whose keys are open (type names, refs…) and whose values are all of one type */
export const MapOf = (type: 'integer' | 'number' | 'string', description?: string) =>
  ApiProperty({ type: 'object', additionalProperties: { type }, description } as ApiPropertyOptions);

/**
 * One shape of an answer: a response class, a registered schema by name ('NodeRecord'), a
 * list of either (`[Class]`), or a schema written out (`{ allOf: [...] }`).
 */
export type Shape = Function | string | RecordWithShape | [Function | string | RecordWithShape] | SchemaObject;

/** a registered record with the fields of a class added (annotations, flags): `allOf` of the two */
export class RecordWithShape {
  constructor(
    readonly record: string,
    readonly extra: Function,
  ) {}
}
export const RecordWith = (record: string, extra: Function) => new RecordWithShape(record, extra);

function shapeSchema(s: Shape): SchemaObject | ReferenceObject {
  if (Array.isArray(s)) return { type: 'array', items: shapeSchema(s[0]) };
  if (typeof s === 'string') return schemaRef(s);
  if (typeof s === 'function') return { $ref: getSchemaPath(s) };
  if (s instanceof RecordWithShape) return recordWith(s.record, s.extra);
  return s;
}

function classesOf(shapes: readonly unknown[]): Function[] {
  const out: Function[] = [];
  for (const s of shapes) {
    if (typeof s === 'function') out.push(s);
    else if (s instanceof RecordWithShape) out.push(s.extra);
    else if (Array.isArray(s)) out.push(...classesOf(s));
  }
  return out;
}

/**
 * What a route answers with one status: one shape, or several (`anyOf`) where the answer
 * depends on the action or an option. The classes are registered with the document here.
 */
export function Answers(status: number, description: string, ...shapes: Shape[]) {
  const schema = shapes.length === 1 ? shapeSchema(shapes[0]) : { anyOf: shapes.map(shapeSchema) };
  const classes = classesOf(shapes);
  return applyDecorators(...(classes.length ? [ApiExtraModels(...classes)] : []), ApiResponse({ status, description, schema }));
}

