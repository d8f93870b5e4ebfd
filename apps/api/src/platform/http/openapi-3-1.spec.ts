import { schema31, toOpenApi31 } from './openapi-3-1';

describe('toOpenApi31', () => {
  it('turns nullable typed schemas into type arrays, nested ones included', () => {
    expect(schema31({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(schema31({ type: 'object', properties: { a: { type: 'integer', nullable: true }, b: { type: 'array', items: { type: 'number', nullable: true } } } })).toEqual({
      type: 'object',
      properties: { a: { type: ['integer', 'null'] }, b: { type: 'array', items: { type: ['number', 'null'] } } },
    });
    expect(schema31({ type: 'string', enum: ['a', 'b'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(schema31({ type: 'string', nullable: false })).toEqual({ type: 'string' });
  });

  it('keeps a property called "nullable" and wraps nullable references in anyOf', () => {
    expect(schema31({ type: 'object', properties: { nullable: { type: 'boolean' } } })).toEqual({ type: 'object', properties: { nullable: { type: 'boolean' } } });
    expect(schema31({ $ref: '#/components/schemas/X', nullable: true, description: 'd' })).toEqual({ description: 'd', anyOf: [{ $ref: '#/components/schemas/X' }, { type: 'null' }] });
  });

  it('turns boolean exclusive bounds into numbers', () => {
    expect(schema31({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: false })).toEqual({ type: 'number', exclusiveMinimum: 0, maximum: 1 });
  });

  it('rewrites the version and schemas under components, parameters, bodies and responses, without touching the input', () => {
    const doc = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      components: { schemas: { A: { type: 'string', nullable: true } } },
      paths: {
        '/x': {
          post: {
            parameters: [{ name: 'q', in: 'query', schema: { type: 'integer', nullable: true } }],
            requestBody: { content: { 'application/json': { schema: { type: 'object', nullable: true } } } },
            responses: { '200': { description: '', content: { 'application/json': { schema: { type: 'boolean', nullable: true } } } } },
          },
        },
      },
    };
    const out = toOpenApi31(doc);
    expect(out.openapi).toBe('3.1.0');
    expect(out.components.schemas.A).toEqual({ type: ['string', 'null'] });
    const op = out.paths['/x'].post;
    expect(op.parameters[0].schema).toEqual({ type: ['integer', 'null'] });
    expect(op.requestBody.content['application/json'].schema).toEqual({ type: ['object', 'null'] });
    expect(op.responses['200'].content!['application/json'].schema).toEqual({ type: ['boolean', 'null'] });
    expect(doc.openapi).toBe('3.0.0');
    expect(doc.components.schemas.A).toEqual({ type: 'string', nullable: true });
  });
});
