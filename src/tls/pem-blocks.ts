/** One `-----BEGIN <label>----- … -----END <label>-----` block of a PEM text, with its markers. */
export interface PemBlock {
  /** `CERTIFICATE`, `PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, `RSA PRIVATE KEY`, … */
  readonly label: string;
  readonly text: string;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The PEM blocks of `text` in order; text between blocks (comments, `Bag Attributes`) is ignored. */
export function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(BLOCK)].map((match) => ({ label: match[1] ?? '', text: `${match[0]}\n` }));
}

/** True for the labels of a private key block, encrypted or not, in PKCS #8 or a traditional form. */
export function isPrivateKeyLabel(label: string): boolean {
  return label.endsWith('PRIVATE KEY');
}

/** The `CERTIFICATE` blocks of `text`. */
export function certificateBlocks(text: string): string[] {
  return pemBlocks(text)
    .filter((block) => block.label === 'CERTIFICATE' || block.label === 'TRUSTED CERTIFICATE')
    .map((block) => block.text);
}
