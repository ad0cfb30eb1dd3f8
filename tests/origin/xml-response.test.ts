import { spawnSync } from 'node:child_process';
import { SendResponse, DataRecord } from 'rest-service-origin';
import { request } from 'undici';
import { startOrigin, type TestOrigin } from './origin-helpers';

/**
 * Sends a request and reads the answer; every answer must be a namespace-well-formed XML document by the real
 * xmllint (Debian libxml2-utils), which reads the bytes as sent, in their declared encoding.
 */
async function send(
  url: string,
  options: { body: string; headers?: Record<string, string> },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const answer = await request(url, { method: 'POST', body: options.body, headers: options.headers });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  const lint = spawnSync('xmllint', ['--noout', '-'], { input: bytes, encoding: 'utf8' });
  expect({ error: lint.error, status: lint.status, stderr: lint.stderr }).toEqual({
    error: undefined,
    status: 0,
    stderr: '',
  });
  return { status: answer.statusCode, headers: answer.headers, text: bytes.toString('utf8') };
}

const SCHEMA = `<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="response">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="httpStatusCode" type="xs:int"/>
        <xs:element name="data" minOccurs="0" maxOccurs="unbounded">
          <xs:complexType>
            <xs:sequence><xs:element name="id" type="xs:int"/></xs:sequence>
          </xs:complexType>
        </xs:element>
        <xs:element name="errorMessage" type="xs:string" minOccurs="0"/>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>`;

describe('XML response over a real socket', () => {
  let running: TestOrigin | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('answers with the XML envelope, pretty by default', async () => {
    running = await startOrigin({ httpResponse: { dataFormat: 'xml' } });
    const answer = await send(running.url, { body: '{"id":1,"tags":["a","b"],"n":null} {"id":2}' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(answer.text).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<response>',
        '  <httpStatusCode>200</httpStatusCode>',
        '  <data>',
        '    <id>1</id>',
        '    <tags>a</tags>',
        '    <tags>b</tags>',
        '    <n/>',
        '  </data>',
        '  <data>',
        '    <id>2</id>',
        '  </data>',
        '</response>',
      ].join('\n'),
    );
  });

  it('sends raw records compactly when prettyFormat is off', async () => {
    running = await startOrigin({
      httpResponse: { dataFormat: 'xml', sendRawResponse: true, prettyFormat: false },
    });
    const answer = await send(running.url, { body: '{"a":"x<y&z"} {"a":"2"}' });
    expect(answer.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><records><record><a>x&lt;y&amp;z</a></record><record><a>2</a></record></records>',
    );
  });

  it('writes a LIST_MAP record (a delimited row) in its field order, a field added by a stage last', async () => {
    running = await startOrigin(
      {
        dataFormat: { format: 'delimited', delimited: { headerLine: 'withHeader' } },
        httpResponse: { dataFormat: 'xml', sendRawResponse: true, prettyFormat: false },
      },
      (batch) => {
        for (const record of batch.records) {
          record.set('/added', 'yes');
          record.delete('/b');
        }
        new SendResponse().write(batch);
      },
    );
    const answer = await send(running.url, { body: 'zeta,b,alpha\n1,2,3\n' });
    expect(answer.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><records><record><zeta>1</zeta><alpha>3</alpha><added>yes</added></record></records>',
    );
  });

  it('encodes the body in the configured charset, with references for what it cannot carry', async () => {
    running = await startOrigin({
      httpResponse: { dataFormat: 'xml', charset: 'ISO-8859-1', prettyFormat: false },
    });
    const answer = await send(running.url, { body: '{"a":"é€"}' });
    expect(answer.headers['content-type']).toBe('application/xml; charset=iso-8859-1');
    // The helper reads the body as UTF-8: the one latin1 byte of 'é' shows as U+FFFD, '€' as a reference.
    expect(answer.text).toContain('<a>\ufffd&#x20ac;</a>');
    expect(answer.text.startsWith('<?xml version="1.0" encoding="ISO-8859-1"?>')).toBe(true);
  });

  it('answers a rejection with the XML envelope', async () => {
    running = await startOrigin({
      http: { applicationIds: ['app-1'] },
      httpResponse: { dataFormat: 'xml', prettyFormat: false },
    });
    const answer = await send(running.url, { body: '{}' });
    expect(answer.status).toBe(403);
    expect(answer.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(answer.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><response><httpStatusCode>403<\/httpStatusCode><errorMessage>ORIGIN_APP_ID_MISSING - [^<]+<\/errorMessage><\/response>$/,
    );
  });

  it('sends a response that validates against xmlSchema', async () => {
    running = await startOrigin({
      httpResponse: { dataFormat: 'xml', validateSchema: true, xmlSchema: SCHEMA },
    });
    const answer = await send(running.url, { body: '{"id":1} {"id":2}' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<id>2</id>');
  });

  it('answers 500 naming the first violation instead of a response that fails xmlSchema', async () => {
    running = await startOrigin({
      httpResponse: {
        dataFormat: 'xml',
        validateSchema: true,
        xmlSchema: SCHEMA,
        prettyFormat: false,
        sendErrorDetails: true,
      },
    });
    const answer = await send(running.url, { body: '{"id":"one"}' });
    expect(answer.status).toBe(500);
    expect(answer.text).toContain('<errorMessage>ORIGIN_RESPONSE_SCHEMA_INVALID - ');
    expect(answer.text).toContain("'one' is not a valid value");
    expect(answer.text).not.toContain('<data>');
  });

  it('refuses a field name that is not an XML name with a 500 envelope', async () => {
    running = await startOrigin({
      httpResponse: { dataFormat: 'xml', prettyFormat: false, sendErrorDetails: true },
    });
    const answer = await send(running.url, { body: '{"1st":1}' });
    expect(answer.status).toBe(500);
    expect(answer.text).toContain("field name '1st' is not a valid XML name");
  });

  it('withholds what the renderer said unless httpResponse.sendErrorDetails', async () => {
    running = await startOrigin({ httpResponse: { dataFormat: 'xml', prettyFormat: false } });
    const answer = await send(running.url, { body: '{"1st":1}' });
    expect(answer.status).toBe(500);
    expect(answer.text).toMatch(
      /<errorMessage>ORIGIN_RESPONSE_RENDER_FAILED - The response could not be rendered: details withheld \(request [\w-]+\)\.<\/errorMessage>/,
    );
    expect(answer.text).not.toContain('1st');
  });

  it('echoes an XML request as XML', async () => {
    running = await startOrigin({
      dataFormat: { format: 'xml', xml: { delimiterElement: 'item', outputFieldAttributes: true } },
      httpResponse: { dataFormat: 'xml', sendRawResponse: true, prettyFormat: false },
    });
    const answer = await send(running.url, { body: '<items><item id="7"><name>n</name></item></items>' });
    expect(answer.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><records><record><item id="7"><name><value>n</value></name></item></record></records>',
    );
  });

  it('declares xsi on the record element when a record echoes xsi:nil declared outside it', async () => {
    running = await startOrigin({
      dataFormat: { format: 'xml', xml: { delimiterElement: 'item', outputFieldAttributes: true } },
      httpResponse: { dataFormat: 'xml', sendRawResponse: true, prettyFormat: false },
    });
    const answer = await send(running.url, {
      body: '<items xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><item><value xsi:nil="true"/></item></items>',
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><records><record xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><item><value xsi:nil="true"/></item></record></records>',
    );
  });

  it('declares a prefix of element names with the URI the request bound it to', async () => {
    running = await startOrigin({
      dataFormat: { format: 'xml', xml: { delimiterElement: 'entry' } },
      httpResponse: { dataFormat: 'xml', prettyFormat: false },
    });
    const answer = await send(running.url, {
      body: '<feed xmlns:m="urn:meta"><entry><m:title>One</m:title></entry><entry><title>Two</title></entry></feed>',
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(
      '<data xmlns:m="urn:meta"><entry><m:title><value>One</value></m:title></entry></data><data><entry><title><value>Two</value></title></entry></data>',
    );
  });

  it('keeps a declaration the record carries and adds none for it', async () => {
    running = await startOrigin({
      dataFormat: { format: 'xml', xml: { delimiterElement: 'entry', outputFieldAttributes: true } },
      httpResponse: { dataFormat: 'xml', sendRawResponse: true, prettyFormat: false },
    });
    const answer = await send(running.url, {
      body: '<feed><entry xmlns:x="urn:x"><x:title>Two</x:title></entry></feed>',
    });
    expect(answer.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><records><record><entry xmlns:x="urn:x"><x:title><value>Two</value></x:title></entry></record></records>',
    );
  });

  it('refuses with a 500 envelope a prefix that nothing declares', async () => {
    const httpResponse = { dataFormat: 'xml', prettyFormat: false, sendErrorDetails: true } as const;
    running = await startOrigin({ httpResponse }, (batch) => {
      new SendResponse().write(batch, [new DataRecord({ value: { 'p:x': 1 } })]);
    });
    const answer = await send(running.url, { body: '{}' });
    expect(answer.status).toBe(500);
    expect(answer.text).toContain(
      "ORIGIN_RESPONSE_RENDER_FAILED - The response could not be rendered: namespace prefix 'p' is used but not declared",
    );
  });
});
