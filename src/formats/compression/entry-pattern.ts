/**
 * A matcher for `dataFormat.compression.filePattern`: UNIX-style `*` (any run of characters) and `?` (one
 * character); every other character stands for itself. Neither wildcard crosses `/`. A pattern without `/` is
 * matched against the entry's file name (the part after its last `/`), so the default `*` selects every file at any
 * depth and `*.csv` every CSV file; a pattern with `/` is matched against the whole entry name, less a leading `./`
 * (`data/*.csv` selects the CSV files directly inside `data/`).
 */
export function entryPatternMatcher(pattern: string): (entryName: string) => boolean {
  let source = '';
  for (const char of pattern) {
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`, 'su');
  const wholeName = pattern.includes('/');
  return (entryName) => {
    const name = entryName.startsWith('./') ? entryName.slice(2) : entryName;
    return regex.test(wholeName ? name : name.slice(name.lastIndexOf('/') + 1));
  };
}

/** The names of the header attributes {@link entryAttributes} writes; the origin reserves them (decision 0046). */
export const ARCHIVE_ENTRY_ATTRIBUTES: readonly string[] = Object.freeze([
  'filePathInsideArchive',
  'fileNameInsideArchive',
]);

/** The header attributes naming an archive entry: its directory (`''` at the top) and its file name. */
export function entryAttributes(entryName: string): {
  filePathInsideArchive: string;
  fileNameInsideArchive: string;
} {
  const slash = entryName.lastIndexOf('/');
  return {
    filePathInsideArchive: slash === -1 ? '' : entryName.slice(0, slash),
    fileNameInsideArchive: entryName.slice(slash + 1),
  };
}
