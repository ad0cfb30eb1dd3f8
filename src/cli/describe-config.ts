import type { OriginConfig } from '../origin/config';
import type { OriginDescription } from '../origin/origin';

/** How a config file's origin would serve, in plain words: one `label: text` pair per line. */
export type DescribedLine = readonly [label: string, text: string];

const AUTHENTICATION_WORDS: Readonly<Record<OriginDescription['authentication'], string>> = {
  gateway: 'by the API gateway',
  spnego: 'Kerberos with SPNEGO',
  basic: 'HTTP Basic over TLS',
  none: 'none: any client that reaches the port',
};

/**
 * What `rest-origin describe` prints: the endpoint, TLS, the authentication chain (by the precedence of spec §5,
 * with the options it ignores), the application ID check, the limits, the data format and the response. Never a
 * secret: user names are counted, passwords and keys not mentioned.
 *
 * @param description - what `origin.describe()` says of an origin made from `config` (not started).
 */
export function describeConfig(config: OriginConfig, description: OriginDescription): DescribedLine[] {
  const { general, http, tls, dataFormat, httpResponse } = config;
  const scheme = tls.useTls ? 'https' : 'http';
  const host = http.host === undefined || http.host === '' ? '0.0.0.0' : http.host;
  const lines: DescribedLine[] = [
    ['origin', `'${general.name}'`],
    ['endpoint', `${scheme}://${host}:${http.port}/${host === '0.0.0.0' ? ' (every address)' : ''}`],
    ['TLS', tlsWords(description)],
    ['authentication', authenticationWords(config, description)],
    ['application IDs', applicationIdWords(config, description)],
    ['limits', limitWords(config)],
    ['format', formatWords(dataFormat.format, dataFormat.compression.format, general.onRecordError)],
    [
      'response',
      `${httpResponse.dataFormat}${httpResponse.sendRawResponse ? ' (raw records)' : ' envelope'}, ${httpResponse.charset}`,
    ],
  ];
  for (const ignored of description.ignored) lines.push(['ignored', ignored]);
  return lines;
}

/** The lines aligned on their labels. */
export function formatDescribedLines(lines: readonly DescribedLine[]): string {
  const width = Math.max(...lines.map(([label]) => label.length)) + 1;
  return lines.map(([label, text]) => `  ${`${label}:`.padEnd(width + 1)}${text}`).join('\n');
}

function tlsWords(description: OriginDescription): string {
  if (!description.tls) return 'off (plain HTTP)';
  return description.mutualTls ? 'on, mutual TLS (a trusted client certificate is required)' : 'on';
}

function authenticationWords(config: OriginConfig, description: OriginDescription): string {
  const words = AUTHENTICATION_WORDS[description.authentication];
  if (description.authentication === 'basic') {
    const users = config.tls.basicAuthenticationUsers.length;
    return `${words} (${users} user${users === 1 ? '' : 's'}, realm '${config.general.name}')`;
  }
  if (description.authentication === 'spnego')
    return `${words} (principal ${config.http.httpSpnegoPrincipal})`;
  return words;
}

function applicationIdWords(config: OriginConfig, description: OriginDescription): string {
  const count = config.http.applicationIds.length;
  const ids = `${count} ID${count === 1 ? '' : 's'}`;
  if (description.applicationIds === 'none') return 'not checked';
  if (description.applicationIds === 'header') return `${ids}, in the X-ENGINE-APPLICATION-ID header`;
  return `${ids}, in the X-ENGINE-APPLICATION-ID header or the engineApplicationId query parameter`;
}

function limitWords({ http }: OriginConfig): string {
  return [
    `${http.maxConcurrentRequests} requests at once`,
    `${http.queueSize} waiting for at most ${seconds(http.queueTimeoutMs)}`,
    `bodies up to ${http.maxRequestSizeMb} MB`,
    `${http.maxRecordsPerRequest.toLocaleString('en-US')} records per request`,
    `answers within ${seconds(http.responseTimeoutMs)}`,
  ].join(', ');
}

function formatWords(format: string, compression: string, onRecordError: string): string {
  const compressed = compression === 'none' ? '' : `, inside ${compression}`;
  return `${format}${compressed}; a record that cannot be read: ${onRecordError}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
