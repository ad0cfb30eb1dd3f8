/**
 * Parses a collectd AuthFile: one `user: password` line per user. Leading and trailing white space around the
 * user and the password is dropped; blank lines, lines starting with `#` and lines without a colon are skipped
 * (collectd skips them too). A later line for the same user replaces an earlier one.
 *
 * @returns user name → password.
 */
export function parseAuthFile(text: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const user = line.slice(0, colon).trim();
    if (user !== '') users.set(user, line.slice(colon + 1).trim());
  }
  return users;
}
