// Validates the OpenAPI document on stdin with @seriousme/openapi-schema-validator (an ES module, which jest's
// CommonJS runtime cannot load) and prints { valid, errors, version } as JSON.
import { Validator } from '@seriousme/openapi-schema-validator';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const validator = new Validator();
const result = await validator.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
console.log(JSON.stringify({ valid: result.valid, errors: result.errors, version: validator.version }));
