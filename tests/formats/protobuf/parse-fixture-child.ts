// Run by without-code-generation.test.ts as a child process (`node [--disallow-code-generation-from-strings]
// --import tsx parse-fixture-child.ts <fixture name>`): parses one delimited fixture of the shop.Order type with the
// protobuf parser and prints whether the host allows code generation from strings, the records and the failures as
// one line of JSON. The type is
// loaded from the .proto sources: protobufjs decodes a descriptor set with code it generates, which such a host
// refuses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { ProtobufParser } from '../../../src/formats/protobuf/protobuf-parser';
import { recordsJson } from './records-json';

// Run as an ES module by tsx, where __dirname does not exist.
const fixtures = fileURLToPath(new URL('../../fixtures/formats/protobuf/', import.meta.url));
const root = new protobuf.Root();
root.resolvePath = (_, target) => join(fixtures, 'proto', target);
root.loadSync('shop.proto', { keepCase: true });
root.resolveAll();
const type = root.lookupType('shop.Order');
const parser = new ProtobufParser(type, true);
const pushed = parser.push(readFileSync(join(fixtures, `${process.argv[2]}.input.bin`)));
const ended = parser.end();
console.log(
  JSON.stringify({
    codeGeneration: codeGenerationAllowed(),
    records: recordsJson([...pushed.records, ...ended.records].map((r) => r.value)),
    failures: [...pushed.failures, ...ended.failures],
  }),
);

function codeGenerationAllowed(): boolean {
  try {
    return (new Function('return true') as () => boolean)();
  } catch {
    return false;
  }
}
