import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

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
