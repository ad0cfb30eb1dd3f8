import { doubleValue, TypedField } from '../../record/field';
import { isListMap } from '../../record/list-map';
import {
  BOOL,
  BYTES,
  DOUBLE,
  ENUM,
  FIXED32,
  FIXED64,
  FLOAT,
  GROUP,
  INT32,
  INT64,
  MESSAGE,
  MISSING,
  NO_LIST,
  NO_MAP,
  SFIXED32,
  SFIXED64,
  SINT32,
  SINT64,
  STRING,
  UINT32,
  UINT64,
  type FieldPlan,
  type MapPlan,
  type MessagePlan,
} from './message-plan';
import {
  notWholeValues,
  packedWidth,
  readField,
  setMember,
  type MessageReader,
  type NestedReader,
} from './plan-reader';
import {
  MAX_PROTOBUF_DEPTH,
  ProtobufDecodeError,
  signed64,
  skipField,
  tooDeep,
  unsigned64,
  zigzag64,
} from './wire-reader';

let canGenerate: boolean | undefined;

/**
 * Whether this process may compile code from strings: false where `new Function` is refused (Node's
 * `--disallow-code-generation-from-strings`, a Content Security Policy without `unsafe-eval`). Tried once.
 */
export function codeGenerationAvailable(): boolean {
  if (canGenerate === undefined) {
    try {
      canGenerate = (new Function('return 1') as () => unknown)() === 1;
    } catch {
      canGenerate = false;
    }
  }
  return canGenerate;
}

// One generated reader per plan, made on first use and kept as long as the plan is.
const generated = new WeakMap<MessagePlan, MessageReader>();

/**
 * The reader generated for `plan` (see {@link readerSource}), made on first use with those of the message types its
 * fields hold. Throws the host's EvalError where code generation is refused: check
 * {@link codeGenerationAvailable} first.
 */
export function generatedReader(plan: MessagePlan): MessageReader {
  let reader = generated.get(plan);
  if (reader) return reader;
  const nestedReaders: MessageReader[] = plan.fields.map(() => notGenerated);
  reader = compile(plan, nestedReaders);
  // Cached before the nested readers are made, so that a type that holds itself finds its own reader.
  generated.set(plan, reader);
  for (const f of plan.fields) if (f.message !== null) nestedReaders[f.slot] = generatedReader(f.message);
  return reader;
}

/** How the general path, taken from a generated reader, reads nested messages: with their generated readers. */
const readGeneratedNested: NestedReader = (plan, reader, end, depth, endTag, previous) =>
  generatedReader(plan)(reader, end, depth, endTag, previous);

function notGenerated(): never {
  throw new Error('protobuf reader not generated');
}

/** What a generated reader closes over besides its plan: the helpers its cases call. */
const HELPERS = {
  readField,
  readNested: readGeneratedNested,
  skipField,
  setMember,
  notWholeValues,
  tooDeep,
  doubleValue,
  TypedField,
  isListMap,
  signed64,
  unsigned64,
  zigzag64,
  ProtobufDecodeError,
  NO_LIST,
  NO_MAP,
  MISSING,
  MAX_PROTOBUF_DEPTH,
};

/** The type of what {@link readerSource} returns once compiled: a factory taking the context by name. */
type ReaderFactory = (...context: unknown[]) => MessageReader;

function compile(plan: MessagePlan, nestedReaders: readonly MessageReader[]): MessageReader {
  const context: Record<string, unknown> = {
    ...HELPERS,
    plan,
    shape: plan.shape,
    fields: plan.fields,
    names: plan.names,
    initial: plan.initial,
    defaults: plan.defaults,
    nestedReaders,
  };
  const keys = Object.keys(context);
  const factory = new Function(...keys, readerSource(plan)) as ReaderFactory;
  return factory(...keys.map((key) => context[key]));
}

/** `n` as source text, refusing anything but a safe integer: the only values spliced into generated code. */
function integer(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/**
 * The body of a reader specialised to `plan`, generated as protobufjs and avsc generate theirs: a `switch` on the
 * whole tag (field number and the wire type the field is written with) with the value reads inlined, a local per
 * field (`field<slot>`), the record built by the plan's list-map shape without loops. Tags it has no case for (unknown fields, wire-type
 * mismatches, groups, maps of messages or enums) take {@link readField}, the general path.
 *
 * Only integers the plan computed go into the source; names, defaults and enum tables are reached through arrays
 * of the context (`names`, `fields`, `initial`, `defaults`), so no descriptor text can become code.
 */
export function readerSource(plan: MessagePlan): string {
  const setup: string[] = [];
  const cases: string[] = [];
  plan.fields.forEach((f, slot) => {
    if (f.slot !== slot) throw new Error('protobuf plan slots out of order');
    const k = integer(slot);
    setup.push(
      `const plan${k} = fields[${k}], enumNames${k} = plan${k}.enumNames, initial${k} = initial[${k}];`,
    );
    const fieldCases = casesOf(f);
    if (fieldCases.length > 0) {
      cases.push(`// field number ${integer(f.number)}, slot ${k}`, ...fieldCases);
    }
  });
  const fieldLocals = plan.names.map((_, slot) => `field${integer(slot)}`);
  const load = (array: string): string =>
    fieldLocals.map((local, slot) => `${local} = ${array}[${integer(slot)}];`).join(' ');
  return `
${setup.join('\n')}
return function read(reader, end, depth, endTag, previous) {
  if (depth > MAX_PROTOBUF_DEPTH) throw tooDeep();
  ${fieldLocals.map((local, slot) => `let ${local} = initial${integer(slot)};`).join(' ')}
  if (previous !== null) {
    ${fieldLocals.map((local, slot) => `${local} = previous[names[${integer(slot)}]];`).join(' ')}
  }
  let open = endTag !== -1;
  let value, number, list, members, before, stop, slots;
  while (reader.position < end) {
    const tag = reader.tag(end);
    if (tag === endTag) {
      open = false;
      break;
    }
    switch (tag) {
      ${cases.join('\n      ')}
      default:
        slots = [${fieldLocals.join(', ')}];
        readField(plan, slots, reader, tag, end, depth, readNested);
        ${load('slots')}
    }
  }
  if (open) throw new ProtobufDecodeError('missing end group');
  ${recordSource(plan, fieldLocals).join('\n  ')}
};`;
}

/** The `case` clauses reading field `f` (none when every occurrence takes the general path). */
function casesOf(f: FieldPlan): string[] {
  const k = integer(f.slot);
  // The whole tag as reader.tag returns it: unsigned, so numbers up to 2^29 - 1 need no sign care.
  const tag = (wireType: number): string => integer(f.number * 8 + wireType);
  const unsetOthers = f.oneofOthers.map((other) => `field${integer(other)} = null;`).join(' ');
  if (f.map !== null) {
    if (f.kind === MESSAGE || f.kind === ENUM) return [];
    return [`case ${tag(2)}: ${mapEntrySource(f, f.map)} break;`];
  }
  if (f.kind === GROUP) return [];
  if (f.repeated) return repeatedCases(f, tag);
  if (f.kind === MESSAGE) {
    return [
      `case ${tag(2)}: { stop = reader.lengthPrefix(end) + reader.position; before = field${k}; ` +
        `field${k} = nestedReaders[${k}](reader, stop, depth + 1, -1, isListMap(before) ? before : null); ` +
        `${unsetOthers} break; }`,
    ];
  }
  if (f.kind === ENUM) {
    return [
      `case ${tag(f.wireType)}: { ${enumSource(f, 'end', 'break')} field${k} = value; ${unsetOthers} break; }`,
    ];
  }
  return [
    `case ${tag(f.wireType)}: field${k} = ${scalarSource(f.kind, f.slot, 'end', f.verifyUtf8)}; ${unsetOthers} break;`,
  ];
}

function repeatedCases(f: FieldPlan, tag: (wireType: number) => string): string[] {
  const k = integer(f.slot);
  const list = `list = field${k}; if (list === NO_LIST) field${k} = list = [];`;
  const cases: string[] = [];
  if (f.kind === MESSAGE) {
    cases.push(
      `case ${tag(2)}: { ${list} stop = reader.lengthPrefix(end) + reader.position; ` +
        `list.push(nestedReaders[${k}](reader, stop, depth + 1, -1, null)); break; }`,
    );
  } else if (f.kind === ENUM) {
    cases.push(
      `case ${tag(f.wireType)}: { ${list} ${enumSource(f, 'end', 'break')} list.push(value); break; }`,
    );
  } else {
    cases.push(
      `case ${tag(f.wireType)}: { ${list} list.push(${scalarSource(f.kind, f.slot, 'end', f.verifyUtf8)}); break; }`,
    );
  }
  if (f.packable) {
    const read =
      f.kind === ENUM
        ? `${enumSource(f, 'stop', 'continue')} list.push(value);`
        : `list.push(${scalarSource(f.kind, f.slot, 'stop', f.verifyUtf8)});`;
    cases.push(
      `case ${tag(2)}: { ${list} const length = reader.lengthPrefix(end); stop = reader.position + length; ` +
        `if (length % ${integer(packedWidth(f))} !== 0) throw notWholeValues(names[${k}]); ` +
        `while (reader.position < stop) { ${read} } break; }`,
    );
  }
  return cases;
}

/** Statements that check required fields, make absent lists, maps and bytes fresh, and return the record. */
function recordSource(plan: MessagePlan, fieldLocals: readonly string[]): string[] {
  const statements: string[] = [];
  for (const slot of plan.required) {
    const k = integer(slot);
    statements.push(
      `if (previous === null && field${k} === MISSING) throw new ProtobufDecodeError("missing required '" + names[${k}] + "'");`,
    );
  }
  for (const slot of plan.freshSlots) {
    const k = integer(slot);
    statements.push(
      `if (field${k} === NO_LIST) field${k} = []; else if (field${k} === NO_MAP) field${k} = {}; ` +
        `else if (field${k} === defaults[${k}]) field${k} = field${k}.slice();`,
    );
  }
  statements.push(`return shape.create([${fieldLocals.join(', ')}]);`);
  return statements;
}

/** The expression reading one value of a scalar `kind` (not enum) bounded by the variable named `end`. */
function scalarSource(kind: number, slot: number, end: string, verifyUtf8: boolean): string {
  switch (kind) {
    case DOUBLE:
      return `doubleValue(reader.double(${end}))`;
    case FLOAT:
      return `new TypedField('FLOAT', reader.float(${end}))`;
    case INT32:
      return `reader.varint32(${end}) | 0`;
    case UINT32:
      return `reader.varint32(${end})`;
    case SINT32:
      return `(number = reader.varint32(${end}), ((number >>> 1) ^ -(number & 1)) | 0)`;
    case FIXED32:
      return `reader.fixed32(${end})`;
    case SFIXED32:
      return `reader.fixed32(${end}) | 0`;
    case INT64:
      return `(reader.varint64(${end}), signed64(reader.low, reader.high))`;
    case UINT64:
      return `(reader.varint64(${end}), unsigned64(reader.low, reader.high))`;
    case SINT64:
      return `(reader.varint64(${end}), zigzag64(reader))`;
    case FIXED64:
      return `(reader.fixed64(${end}), unsigned64(reader.low, reader.high))`;
    case SFIXED64:
      return `(reader.fixed64(${end}), signed64(reader.low, reader.high))`;
    case BOOL:
      return `reader.bool(${end})`;
    case STRING:
      return `reader.string(${end}, ${verifyUtf8 ? 'true' : 'false'}, names[${integer(slot)}])`;
    case BYTES:
      return `reader.bytes(${end})`;
    default:
      throw new Error(`no scalar kind ${kind}`);
  }
}

/**
 * Statements that read one entry of a map field whose value is a scalar (not an enum or message) into its
 * object, as the interpreted reader's map entries are read.
 */
function mapEntrySource(f: FieldPlan, map: MapPlan): string {
  const k = integer(f.slot);
  const keyTag = integer((1 << 3) | map.keyWireType);
  const valueTag = integer((2 << 3) | f.wireType);
  // Numbers, bigints and booleans as their decimal text or true/false, as the record's MAP keys are.
  const read = scalarSource(map.key.kind, f.slot, 'stop', map.key.verifyUtf8);
  const key = map.key.kind === STRING ? read : `String(${read})`;
  const fallback = f.kind === BYTES ? `plan${k}.map.valueDefault.slice()` : `plan${k}.map.valueDefault`;
  return (
    `{ stop = reader.lengthPrefix(end) + reader.position; let key = plan${k}.map.keyDefault; value = undefined; ` +
    `while (reader.position < stop) { const entryTag = reader.tag(stop); ` +
    `if (entryTag === ${keyTag}) key = ${key}; ` +
    `else if (entryTag === ${valueTag}) value = ${scalarSource(f.kind, f.slot, 'stop', f.verifyUtf8)}; ` +
    `else skipField(reader, entryTag & 7, entryTag >>> 3, stop, depth); } ` +
    `if (value === undefined) value = ${fallback}; ` +
    `members = field${k}; if (members === NO_MAP) field${k} = members = {}; ` +
    `if (key === '__proto__') setMember(members, key, value); else members[key] = value; }`
  );
}

/**
 * Statements that read one enum value bounded by `end` into `value`, or leave the case (`onDrop`) when a closed
 * enum does not name it.
 */
function enumSource(f: FieldPlan, end: string, onDrop: string): string {
  const k = integer(f.slot);
  const unnamed = f.closedEnum ? onDrop : 'value = number';
  return `number = reader.varint32(${end}) | 0; value = enumNames${k}[number]; if (value === undefined) { ${unnamed}; }`;
}
