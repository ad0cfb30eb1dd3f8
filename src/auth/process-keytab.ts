import { OriginError } from '../errors/origin-error';

/**
 * GSSAPI (MIT Kerberos) finds the acceptor's keytab through the environment variable `KRB5_KTNAME`, which is one
 * per process. So the origins of one process that use SPNEGO share one keytab: the first to start sets
 * `KRB5_KTNAME=FILE:<keytab>`, the others must name the same file, and the variable is put back as it was when
 * the last of them stops. The variable is read by libkrb5 whenever GSSAPI acquires credentials, so a host that
 * sets it itself for other code should give its origins the same keytab.
 */
interface Hold {
  readonly path: string;
  holders: number;
  readonly previous: string | undefined;
}

let hold: Hold | undefined;

/**
 * Makes `path` (absolute) the process keytab for one more holder.
 *
 * @throws OriginError `ORIGIN_AUTH_KEYTAB_CONFLICT` when another origin holds a different keytab.
 */
export function holdProcessKeytab(path: string): void {
  if (hold !== undefined && hold.path !== path) {
    throw new OriginError('ORIGIN_AUTH_KEYTAB_CONFLICT', { path, other: hold.path });
  }
  if (hold === undefined) {
    hold = { path, holders: 0, previous: process.env.KRB5_KTNAME };
    process.env.KRB5_KTNAME = `FILE:${path}`;
  }
  hold.holders++;
}

/** Gives back one hold of `path`; the last one restores `KRB5_KTNAME` as it was before the first. */
export function releaseProcessKeytab(path: string): void {
  if (hold === undefined || hold.path !== path) return;
  if (--hold.holders > 0) return;
  if (hold.previous === undefined) delete process.env.KRB5_KTNAME;
  else process.env.KRB5_KTNAME = hold.previous;
  hold = undefined;
}
