import { DomainError } from '@strata/domain/errors';
import { Matches } from 'class-validator';
import { DtoBodyPipe } from './dto-body.pipe';
import { Field } from './field.decorator';
import { Integer, IsoDateTime, OneOf, Text, UidList } from './field-rules';

class ExampleDto {
  @Field(Text({ required: true, max: 5 })) name!: string;
  @Field(OneOf(['a', 'b'] as const)) kind?: 'a' | 'b';
  @Field(Integer({ min: 0 })) count?: number;
  @Field(UidList({ max: 3 })) uids?: string[];
  @Field(IsoDateTime()) at?: number;
}

// an instant fixed by the test, not read from a calendar: the pipe parses dates, it never compares them with now
const AT_SECS = 1_900_000_000;
const AT_ISO = new Date(AT_SECS * 1000).toISOString();
const IMPOSSIBLE = `${AT_ISO.slice(0, 4)}-02-31T00:00:00Z`;

const pipe = new DtoBodyPipe();
const run = (body: unknown, metatype: Function = ExampleDto) => pipe.transform(body, { type: 'body', metatype: metatype as never });
const refusal = (body: unknown) => {
  try {
    run(body);
  } catch (e) {
    return (e as DomainError).toBody();
  }
  throw new Error('accepted');
};

describe('DtoBodyPipe', () => {
  it('hands the handler an instance of the DTO with parsed values and omitted fields undefined', () => {
    const dto = run({ name: '  ada ', uids: ['x', 'x', 'y'], at: AT_ISO }) as ExampleDto;
    expect(dto).toBeInstanceOf(ExampleDto);
    expect({ ...dto }).toEqual({ name: 'ada', kind: undefined, count: undefined, uids: ['x', 'y'], at: AT_SECS });
  });

  it('drops fields the DTO does not declare and counts null as omitted', () => {
    const dto = run({ name: 'ada', kind: null, extra: 1 }) as Record<string, unknown>;
    expect(dto.kind).toBeUndefined();
    expect('extra' in dto).toBe(false);
  });

  it('answers the REFERENCE error of the first failing field in declaration order', () => {
    expect(refusal({ kind: 'c', count: -1 })).toEqual({ error: 'name is required', code: 'missing_field', field: 'name' });
    expect(refusal({ name: '   ' })).toMatchObject({ code: 'missing_field', field: 'name' });
    expect(refusal({ name: 'toolong' })).toEqual({ error: 'name must be at most 5 characters', code: 'invalid_field', field: 'name' });
    expect(refusal({ name: 'ok', kind: 'c', count: -1 })).toEqual({ error: 'kind must be one of: a, b', code: 'invalid_field', field: 'kind', allowed: ['a', 'b'] });
    expect(refusal({ name: 'ok', count: 1.5 })).toMatchObject({ code: 'invalid_field', field: 'count', error: 'count must be an integer' });
    expect(refusal({ name: 'ok', uids: ['fine', 'not a uid'] })).toMatchObject({ code: 'invalid_uid', field: 'uids[1]' });
    expect(refusal({ name: 'ok', uids: ['a', 'b', 'c', 'd'] })).toMatchObject({ code: 'invalid_field', field: 'uids' });
    expect(refusal({ name: 'ok', at: IMPOSSIBLE })).toMatchObject({ code: 'invalid_field', field: 'at' });
  });

  it('refuses a body that is not a JSON object with invalid_json, and reads a missing body as empty', () => {
    expect(refusal([1])).toMatchObject({ code: 'invalid_json' });
    expect(refusal('text')).toMatchObject({ code: 'invalid_json' });
    expect(refusal(undefined)).toMatchObject({ code: 'missing_field', field: 'name' });
  });

  it('still applies a plain class-validator constraint declared beside the field rules, in declaration order', () => {
    class MixedDto {
      @Field(Text({ required: true, max: 5 })) name!: string;
      @Field(Text({ max: 10 })) @Matches(/^[a-z]+$/, { message: 'code must be lowercase letters' }) code?: string;
    }
    expect(() => run({ name: 'ok', code: 'ABC' }, MixedDto)).toThrow(expect.objectContaining({ code: 'invalid_field', message: 'code must be lowercase letters' }));
    expect(() => run({ code: 'ABC' }, MixedDto)).toThrow(expect.objectContaining({ code: 'missing_field' }));
    expect({ ...(run({ name: 'ok', code: 'abc' }, MixedDto) as object) }).toEqual({ name: 'ok', code: 'abc' });
  });

  it('lets bodies of any other type through untouched', () => {
    const raw = { anything: true };
    expect(run(raw, Object)).toBe(raw);
    expect(pipe.transform(raw, { type: 'query', metatype: ExampleDto as never })).toBe(raw);
  });
});
