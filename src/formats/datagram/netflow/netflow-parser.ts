import type { ErrorCode } from '../../../errors/error-table';
import { field, type FieldValue, type PlainMap } from '../../../record/field';
import { ListMapShape, listMapShapeOf } from '../../../record/list-map';
import type { ParseFailure, ParseResult, ParseSource, ParsedRecord, Parser } from '../../data-format';
import { failure } from '../../failure';
import { removeControlCharacters } from '../../text-input';
import {
  COUNTER_TYPES,
  IPV4_TYPES,
  IPV6_TYPES,
  MAC_TYPES,
  NAME_TYPES,
  NETFLOW_FIELD_TYPES,
  NETFLOW_SCOPE_TYPES,
} from './netflow-field-types';
import {
  templateCacheOf,
  type NetflowTemplate,
  type NetflowTemplateCache,
  type NetflowTemplateField,
} from './netflow-template-cache';

/** Options of the NetFlow packet parser: the `datagram` format's flow-export keys, defaults applied. */
export interface NetflowParserOptions {
  /** NetFlow v9: give each field's bytes (`rawValues`), its interpreted value (`values`), or both. */
  recordGenerationMode: 'rawOnly' | 'interpretedOnly' | 'rawAndInterpreted';
  /** NetFlow v9: templates kept per origin; -1 is unlimited, else the least recently used are evicted. */
  maxTemplatesInCache: number;
  /** NetFlow v9: a template idle for longer than this is evicted; -1 keeps templates forever. */
  templateCacheTimeoutMs: number;
  /** Remove ASCII control characters other than tab, LF and CR from name fields (spec §2.3). */
  ignoreControlCharacters?: boolean;
}

const V5_HEADER = 24;
const V5_RECORD = 48;
const V9_HEADER = 20;
/** The `packetHeader` LIST_MAP of a v9 record. */
const V9_HEADER_SHAPE = new ListMapShape([
  'version',
  'flowRecordCount',
  'sysUptimeMs',
  'unixSeconds',
  'sequenceNumber',
  'sourceId',
  'sourceIdRaw',
]);
const FLOWSET_HEADER = 4;

/**
 * Makes a parser of one NetFlow packet: the body is the packet's bytes as the exporter sent them in one UDP
 * datagram (DESIGN.md §6). The bytes are collected until `end`, which decodes them; `push` returns nothing.
 *
 * - Version 5: one record per flow, a plain MAP with the header and flow fields (docs/formats/datagram.md). A
 *   packet shorter than `24 + 48 × count` bytes is one `ORIGIN_NETFLOW_MALFORMED` failure and no record; bytes
 *   after the last flow are ignored.
 * - Version 9: one record per data record of a data flowset, a LIST_MAP (`flowKind`, `sender`, `packetHeader`,
 *   `flowTemplateId`, `rawValues` and/or `values`). Templates are kept in the origin's template cache in
 *   `source.originState`, keyed by exporter (`source.remoteAddress`), source ID and template ID, so a template
 *   sent in one request decodes data in the next. A data flowset whose template is unknown is an
 *   `ORIGIN_NETFLOW_TEMPLATE_UNKNOWN` failure and parsing goes on with the next flowset; a flowset whose length is
 *   impossible, or a template that is invalid (no fields, a zero-length field, more fields than its flowset
 *   holds), is an `ORIGIN_NETFLOW_MALFORMED` failure.
 * - Any other version (1, 7, 10/IPFIX…): one `ORIGIN_NETFLOW_VERSION_UNSUPPORTED` failure.
 *
 * Never throws on bad input; every loop advances by at least 4 bytes, and records are at most one per data
 * record byte, so work and memory stay proportional to the packet's size.
 */
export function createNetflowParser(options: NetflowParserOptions, source: ParseSource): Parser {
  const chunks: Uint8Array[] = [];
  let done = false;
  const empty = (): ParseResult => ({ records: [], failures: [] });
  return {
    push(chunk) {
      if (!done && chunk.length > 0) chunks.push(new Uint8Array(chunk));
      return empty();
    },
    end() {
      if (done) return empty();
      done = true;
      const bytes = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
      chunks.length = 0;
      return decodePacket(bytes, options, source);
    },
    parseAll(bytes) {
      if (done || chunks.length > 0) {
        this.push(bytes);
        return this.end();
      }
      done = true;
      return decodePacket(bytes, options, source);
    },
  };
}

/** Decodes one whole packet; exported for the `datagram` format, which may split a body into several packets. */
export function decodePacket(
  bytes: Uint8Array,
  options: NetflowParserOptions,
  source: ParseSource,
): ParseResult {
  if (bytes.length === 0) return { records: [], failures: [] };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 2) {
    return fail('ORIGIN_NETFLOW_MALFORMED', bytes, 0, {
      version: '?',
      offset: 0,
      detail: 'no version field',
    });
  }
  const version = view.getUint16(0);
  if (version === 5) return decodeV5(bytes, view, source);
  if (version === 9) return new V9Decoder(bytes, view, options, source).decode();
  return fail('ORIGIN_NETFLOW_VERSION_UNSUPPORTED', bytes, 0, { version });
}

function fail(
  code: ErrorCode,
  bytes: Uint8Array,
  offset: number,
  params: Record<string, string | number>,
  recordIndex = 0,
): ParseResult {
  return { records: [], failures: [netflowFailure(code, bytes, offset, params, recordIndex, false)] };
}

function netflowFailure(
  code: ErrorCode,
  bytes: Uint8Array,
  offset: number,
  params: Record<string, string | number>,
  recordIndex: number,
  canContinue: boolean,
): ParseFailure {
  return failure({
    code,
    params,
    recordIndex,
    byteOffset: offset,
    // Packets are binary: the excerpt is the hex of the bytes at the problem.
    excerpt: Buffer.from(
      bytes.buffer,
      bytes.byteOffset + offset,
      Math.min(64, bytes.length - offset),
    ).toString('hex'),
    canContinue,
  });
}

function long(value: number): FieldValue {
  return field('LONG', value);
}

function short(value: number): FieldValue {
  return field('SHORT', value);
}

function decodeV5(bytes: Uint8Array, view: DataView, source: ParseSource): ParseResult {
  if (bytes.length < V5_HEADER) {
    return fail('ORIGIN_NETFLOW_MALFORMED', bytes, 0, {
      version: 5,
      offset: 0,
      detail: `the packet is ${bytes.length} bytes, shorter than the 24-byte header`,
    });
  }
  const count = view.getUint16(2);
  const needed = V5_HEADER + V5_RECORD * count;
  if (bytes.length < needed) {
    return fail('ORIGIN_NETFLOW_MALFORMED', bytes, 0, {
      version: 5,
      offset: 0,
      detail: `the header counts ${count} flows, which need ${needed} bytes, but the packet has ${bytes.length}`,
    });
  }
  const uptime = view.getUint32(4);
  const seconds = view.getUint32(8);
  const nanos = view.getUint32(12);
  const timestamp = seconds * 1000 + Math.floor(nanos / 1e6);
  const sampling = view.getUint16(22);
  const header: PlainMap = {
    version: 5,
    ...(source.remoteAddress === undefined ? {} : { sender: source.remoteAddress }),
    length: bytes.length,
    count,
    uptime: long(uptime),
    seconds: long(seconds),
    nanos: long(nanos),
    timestamp: long(timestamp),
    flowseq: long(view.getUint32(16)),
    enginetype: short(view.getUint8(20)),
    engineid: short(view.getUint8(21)),
    raw_sampling: sampling,
    samplingint: sampling & 0x3fff,
    samplingmode: sampling >>> 14,
  };
  const records: ParsedRecord[] = [];
  for (let i = 0; i < count; i++) {
    const at = V5_HEADER + i * V5_RECORD;
    const rawFirst = view.getUint32(at + 24);
    const rawLast = view.getUint32(at + 28);
    const value: PlainMap = {
      ...header,
      srcaddr: view.getInt32(at),
      dstaddr: view.getInt32(at + 4),
      nexthop: view.getInt32(at + 8),
      srcaddr_s: ipv4(bytes, at),
      dstaddr_s: ipv4(bytes, at + 4),
      nexthop_s: ipv4(bytes, at + 8),
      snmpinput: view.getUint16(at + 12),
      snmponput: view.getUint16(at + 14),
      dPkts: long(view.getUint32(at + 16)),
      dOctets: long(view.getUint32(at + 20)),
      first: long(rawFirst === 0 ? 0 : timestamp - uptime + rawFirst),
      last: long(rawLast === 0 ? 0 : timestamp - uptime + rawLast),
      raw_first: long(rawFirst),
      raw_last: long(rawLast),
      srcport: view.getUint16(at + 32),
      dstport: view.getUint16(at + 34),
      tcp_flags: short(view.getUint8(at + 37)),
      proto: short(view.getUint8(at + 38)),
      tos: short(view.getUint8(at + 39)),
      srcas: view.getUint16(at + 40),
      dstas: view.getUint16(at + 42),
      src_mask: short(view.getUint8(at + 44)),
      dst_mask: short(view.getUint8(at + 45)),
    };
    records.push({ value });
  }
  return { records, failures: [] };
}

function ipv4(bytes: Uint8Array, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

/** RFC 5952 text of 16 address bytes: lower-case hex, no leading zeros, the longest run of ≥ 2 zero groups as `::`. */
function ipv6(bytes: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function mac(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
}

function unsigned(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return value;
}

/** The interpreted value of one v9 field (reference §7.7): see docs/formats/datagram.md for the rules. */
function interpret(f: NetflowTemplateField, raw: Uint8Array, ignoreControlCharacters: boolean): FieldValue {
  const n = raw.length;
  if (f.scope) return interpretByLength(raw);
  if (COUNTER_TYPES.has(f.type) && n <= 8) return field('DECIMAL', unsigned(raw).toString());
  if (IPV4_TYPES.has(f.type) && n === 4) return ipv4(raw, 0);
  if (IPV6_TYPES.has(f.type) && n === 16) return ipv6(raw);
  if (MAC_TYPES.has(f.type) && n === 6) return mac(raw);
  if (NAME_TYPES.has(f.type)) {
    let end = n;
    while (end > 0 && raw[end - 1] === 0) end--;
    const bytes = Buffer.from(raw.buffer, raw.byteOffset, end);
    return (ignoreControlCharacters ? removeControlCharacters(bytes) : bytes).toString('utf8');
  }
  return interpretByLength(raw);
}

function interpretByLength(raw: Uint8Array): FieldValue {
  switch (raw.length) {
    case 1:
    case 2:
    case 3:
      return Number(unsigned(raw));
    case 4:
      return long(Number(unsigned(raw)));
    default:
      return raw;
  }
}

function fieldName(f: NetflowTemplateField): string {
  const table = f.scope ? NETFLOW_SCOPE_TYPES : NETFLOW_FIELD_TYPES;
  return table.get(f.type) ?? (f.scope ? `scope_type_${f.type}` : `type_${f.type}`);
}

/** Decodes one v9 packet; one instance per packet. */
class V9Decoder {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #options: NetflowParserOptions;
  readonly #source: ParseSource;
  readonly #cache: NetflowTemplateCache;
  readonly #now = Date.now();
  /** Templates this packet defined: usable within it even when the cache keeps none (maxTemplatesInCache 0). */
  readonly #local = new Map<number, NetflowTemplate>();
  readonly #records: ParsedRecord[] = [];
  readonly #failures: ParseFailure[] = [];
  #header: FieldValue = null;
  #sourceId = 0;

  constructor(bytes: Uint8Array, view: DataView, options: NetflowParserOptions, source: ParseSource) {
    this.#bytes = bytes;
    this.#view = view;
    this.#options = options;
    this.#source = source;
    this.#cache = templateCacheOf(source.originState);
    this.#cache.configure(options.maxTemplatesInCache, options.templateCacheTimeoutMs);
  }

  decode(): ParseResult {
    const bytes = this.#bytes;
    const view = this.#view;
    if (bytes.length < V9_HEADER) {
      return fail('ORIGIN_NETFLOW_MALFORMED', bytes, 0, {
        version: 9,
        offset: 0,
        detail: `the packet is ${bytes.length} bytes, shorter than the 20-byte header`,
      });
    }
    this.#sourceId = view.getUint32(16);
    this.#header = V9_HEADER_SHAPE.create([
      9,
      view.getUint16(2),
      long(view.getUint32(4)),
      long(view.getUint32(8)),
      long(view.getUint32(12)),
      long(this.#sourceId),
      bytes.slice(16, 20),
    ]);
    let at = V9_HEADER;
    while (at < bytes.length) {
      if (bytes.length - at < FLOWSET_HEADER) {
        // Trailing bytes too short for a flowset header are padding some exporters add.
        if (bytes.subarray(at).every((b) => b === 0)) break;
        this.#malformed(at, `${bytes.length - at} bytes after the last flowset`, false);
        break;
      }
      const flowsetId = view.getUint16(at);
      const length = view.getUint16(at + 2);
      if (length < FLOWSET_HEADER || at + length > bytes.length) {
        this.#malformed(
          at,
          `flowset ${flowsetId} has length ${length}, but ${bytes.length - at} bytes are left and a flowset is at least 4`,
          false,
        );
        break;
      }
      const body = at + FLOWSET_HEADER;
      const end = at + length;
      if (flowsetId === 0) this.#templates(body, end);
      else if (flowsetId === 1) this.#optionsTemplates(body, end);
      else if (flowsetId >= 256) this.#data(flowsetId, at, body, end);
      // Flowset IDs 2-255 are reserved (RFC 3954 §5.2): skipped.
      at = end;
    }
    return { records: this.#records, failures: this.#failures };
  }

  #malformed(offset: number, detail: string, canContinue: boolean): void {
    this.#failures.push(
      netflowFailure(
        'ORIGIN_NETFLOW_MALFORMED',
        this.#bytes,
        offset,
        { version: 9, offset, detail },
        this.#records.length,
        canContinue,
      ),
    );
  }

  #key(templateId: number): string {
    return `${this.#source.remoteAddress ?? ''}|${this.#sourceId}|${templateId}`;
  }

  #store(template: NetflowTemplate): void {
    this.#local.set(template.id, template);
    this.#cache.put(this.#key(template.id), template, this.#now);
  }

  /** Reads `count` (type, length) pairs at `at`; undefined (after a failure) when a field has length 0. */
  #fields(at: number, count: number, scope: boolean, templateId: number): NetflowTemplateField[] | undefined {
    const fields: NetflowTemplateField[] = [];
    for (let i = 0; i < count; i++) {
      const type = this.#view.getUint16(at + i * 4);
      const length = this.#view.getUint16(at + i * 4 + 2);
      if (length === 0) {
        this.#malformed(at + i * 4, `template ${templateId} has field ${type} of length 0`, true);
        return undefined;
      }
      fields.push({ type, length, scope });
    }
    return fields;
  }

  #templates(start: number, end: number): void {
    let at = start;
    // A template record needs 4 bytes of header; less is padding.
    while (end - at >= 4) {
      const id = this.#view.getUint16(at);
      const count = this.#view.getUint16(at + 2);
      if (id === 0 && count === 0) break;
      if (id < 256) {
        this.#malformed(at, `template ID ${id} is below 256`, true);
        return;
      }
      if (count === 0) {
        this.#malformed(at, `template ${id} has no fields`, true);
        return;
      }
      if (at + 4 + count * 4 > end) {
        this.#malformed(at, `template ${id} declares ${count} fields, more than its flowset holds`, true);
        return;
      }
      const fields = this.#fields(at + 4, count, false, id);
      if (!fields) return;
      this.#store(makeTemplate(id, 'FLOWSET', fields));
      at += 4 + count * 4;
    }
  }

  #optionsTemplates(start: number, end: number): void {
    let at = start;
    while (end - at >= 6) {
      const id = this.#view.getUint16(at);
      const scopeLength = this.#view.getUint16(at + 2);
      const optionLength = this.#view.getUint16(at + 4);
      if (id === 0 && scopeLength === 0 && optionLength === 0) break;
      if (id < 256) {
        this.#malformed(at, `options template ID ${id} is below 256`, true);
        return;
      }
      if (scopeLength % 4 !== 0 || optionLength % 4 !== 0 || scopeLength + optionLength === 0) {
        this.#malformed(
          at,
          `options template ${id} has scope length ${scopeLength} and option length ${optionLength}`,
          true,
        );
        return;
      }
      const fieldsAt = at + 6;
      if (fieldsAt + scopeLength + optionLength > end) {
        this.#malformed(at, `options template ${id} declares more fields than its flowset holds`, true);
        return;
      }
      const scope = this.#fields(fieldsAt, scopeLength / 4, true, id);
      const rest = scope && this.#fields(fieldsAt + scopeLength, optionLength / 4, false, id);
      if (!scope || !rest) return;
      this.#store(makeTemplate(id, 'OPTIONS', [...scope, ...rest]));
      // Each options template is padded to a 4-byte boundary (RFC 3954 §6.1).
      at = fieldsAt + scopeLength + optionLength;
      at += (4 - ((at - start) % 4)) % 4;
    }
  }

  #data(templateId: number, flowsetAt: number, start: number, end: number): void {
    const template = this.#local.get(templateId) ?? this.#cache.get(this.#key(templateId), this.#now);
    if (!template) {
      this.#failures.push(
        netflowFailure(
          'ORIGIN_NETFLOW_TEMPLATE_UNKNOWN',
          this.#bytes,
          flowsetAt,
          {
            offset: flowsetAt,
            templateId,
            exporter: this.#source.remoteAddress ?? 'unknown',
            sourceId: this.#sourceId,
          },
          this.#records.length,
          true,
        ),
      );
      return;
    }
    if (this.#local.has(templateId)) this.#cache.get(this.#key(templateId), this.#now);
    const mode = this.#options.recordGenerationMode;
    // Shapes from the shared bounded cache: the records of one template (and of one sender and mode) share them.
    const fieldsShape = listMapShapeOf(uniqueNames(template.fields));
    const sender = this.#source.remoteAddress;
    const recordKeys = ['flowKind'];
    if (sender !== undefined) recordKeys.push('sender');
    recordKeys.push('packetHeader', 'flowTemplateId');
    if (mode !== 'interpretedOnly') recordKeys.push('rawValues');
    if (mode !== 'rawOnly') recordKeys.push('values');
    const recordShape = listMapShapeOf(recordKeys);
    // What is left after the last whole record is padding (RFC 3954 §5.3).
    for (let at = start; end - at >= template.recordLength; at += template.recordLength) {
      const raw: FieldValue[] = [];
      const values: FieldValue[] = [];
      let offset = at;
      for (const f of template.fields) {
        const bytes = this.#bytes.slice(offset, offset + f.length);
        if (mode !== 'interpretedOnly') raw.push(bytes);
        if (mode !== 'rawOnly') {
          values.push(interpret(f, bytes, this.#options.ignoreControlCharacters === true));
        }
        offset += f.length;
      }
      const record: FieldValue[] = [template.kind];
      if (sender !== undefined) record.push(sender);
      record.push(this.#header, templateId);
      if (mode !== 'interpretedOnly') record.push(fieldsShape.create(raw));
      if (mode !== 'rawOnly') record.push(fieldsShape.create(values));
      this.#records.push({ value: recordShape.create(record) });
    }
  }
}

function makeTemplate(
  id: number,
  kind: 'FLOWSET' | 'OPTIONS',
  fields: NetflowTemplateField[],
): NetflowTemplate {
  return { id, kind, fields, recordLength: fields.reduce((sum, f) => sum + f.length, 0) };
}

/** Field names of a template; a type repeated in one template gets `_2`, `_3`… so no value is lost. */
function uniqueNames(fields: readonly NetflowTemplateField[]): string[] {
  const seen = new Map<string, number>();
  return fields.map((f) => {
    const name = fieldName(f);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}
