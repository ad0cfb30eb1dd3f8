import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, InProcessRunnerPool, Origin, echoPipeline } from 'rest-service-origin';
import { injectOrigin, type ServedOrigin } from './origin-helpers';

const XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"';

/** A response schema whose `id` type comes from `types.xsd`, imported by the given location. */
function schemaImporting(location: string): string {
  return `<?xml version="1.0"?>
<xs:schema ${XS} xmlns:t="urn:types">
  <xs:import namespace="urn:types" schemaLocation="${location}"/>
  <xs:element name="response">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="httpStatusCode" type="xs:int"/>
        <xs:element name="data" minOccurs="0" maxOccurs="unbounded">
          <xs:complexType><xs:sequence><xs:element name="id" type="t:Id"/></xs:sequence></xs:complexType>
        </xs:element>
        <xs:element name="errorMessage" type="xs:string" minOccurs="0"/>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>`;
}

// types.xsd includes limits.xsd from its own directory: includes resolve against the including file.
const TYPES = `<xs:schema ${XS} targetNamespace="urn:types" xmlns:t="urn:types">
  <xs:include schemaLocation="limits.xsd"/>
  <xs:simpleType name="Id"><xs:restriction base="t:Small"/></xs:simpleType>
</xs:schema>`;
const LIMITS = `<xs:schema ${XS} targetNamespace="urn:types">
  <xs:simpleType name="Small"><xs:restriction base="xs:int"><xs:maxInclusive value="9"/></xs:restriction></xs:simpleType>
</xs:schema>`;

describe('httpResponse.xmlSchema is compiled at start, its imports read from the resources directory', () => {
  let resources: string;
  let running: ServedOrigin | undefined;
  beforeAll(() => {
    resources = mkdtempSync(join(tmpdir(), 'xml-schema-'));
    mkdirSync(join(resources, 'xsd'));
    writeFileSync(join(resources, 'xsd', 'types.xsd'), TYPES);
    writeFileSync(join(resources, 'xsd', 'limits.xsd'), LIMITS);
    writeFileSync(join(tmpdir(), 'outside-resources.xsd'), LIMITS);
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });
  afterAll(() => {
    rmSync(resources, { recursive: true, force: true });
    rmSync(join(tmpdir(), 'outside-resources.xsd'), { force: true });
  });

  /** Starts an origin that must fail to start; returns the error. */
  async function startFailure(xmlSchema: string): Promise<unknown> {
    const pool = new InProcessRunnerPool(10, echoPipeline, { runnerIdleTimeMs: 0 });
    const origin = new Origin(
      {
        general: { resourcesDirectory: resources },
        http: { host: '127.0.0.1', port: 0 },
        dataFormat: { format: 'json' },
        httpResponse: { dataFormat: 'xml', validateSchema: true, xmlSchema },
      },
      { runners: pool },
    );
    try {
      await origin.start();
      return undefined;
    } catch (error) {
      expect(origin.state).toBe('failed');
      return error;
    } finally {
      await origin.destroy();
      await pool.close();
    }
  }

  it('validates with imports and includes resolved relative to the resources directory and to each file', async () => {
    running = injectOrigin({
      general: { resourcesDirectory: resources },
      // The validator's complaint is a detail the client sees only with sendErrorDetails (decision 0046).
      httpResponse: {
        dataFormat: 'xml',
        validateSchema: true,
        xmlSchema: schemaImporting('xsd/types.xsd'),
        sendErrorDetails: true,
      },
    });
    const valid = await running.send({ body: '{"id":7}' });
    expect(valid.status).toBe(200);
    const invalid = await running.send({ body: '{"id":12}' });
    expect(invalid.status).toBe(500);
    expect(invalid.text).toContain('ORIGIN_RESPONSE_SCHEMA_INVALID - ');
    expect(invalid.text).toContain("'12'");
  });

  it('refuses to start, naming the problem, when the schema does not compile', async () => {
    const error = await startFailure(`<xs:schema ${XS}><xs:element name="a" type="nope"/></xs:schema>`);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      {
        path: '/httpResponse/xmlSchema',
        message: expect.stringMatching(/^does not compile as an XML Schema: .*'nope' does not resolve/),
      },
    ]);
  });

  it('refuses to start when the schema is not XML', async () => {
    const error = await startFailure('<xs:schema');
    expect((error as ConfigError).problems[0]?.message).toMatch(/^does not compile as an XML Schema: /);
  });

  it('refuses to start, naming the file, when an import cannot be read', async () => {
    const error = await startFailure(schemaImporting('xsd/missing.xsd'));
    expect((error as ConfigError).problems[0]?.message).toMatch(
      /^xmlSchema imports 'xsd\/missing.xsd', which cannot be read: ENOENT/,
    );
  });

  it('refuses an import outside the resources directory, and a URL', async () => {
    const outside = await startFailure(schemaImporting('../outside-resources.xsd'));
    expect((outside as ConfigError).problems[0]?.message).toMatch(
      /^xmlSchema imports '..\/outside-resources.xsd', which lies outside the resources directory/,
    );
    const url = await startFailure(schemaImporting('http://127.0.0.1:1/types.xsd'));
    expect((url as ConfigError).problems[0]?.message).toBe(
      "xmlSchema imports 'http://127.0.0.1:1/types.xsd', a URL: imports are read from the resources directory, never fetched",
    );
  });
});
