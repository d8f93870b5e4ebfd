// Validates the OpenAPI document on stdin; prints {valid, version, errors} as JSON. A separate
// process because the validator is ESM-only and jest runs tests as CommonJS.
import { Validator } from '@seriousme/openapi-schema-validator';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const res = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: res.valid, version: validator.version, errors: res.errors ?? [] }));
