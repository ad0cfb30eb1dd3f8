import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess, waitForPort } from './server-process';

/** Debian's nginx-light (installed by .ci/install-system-packages). */
export const NGINX = '/usr/sbin/nginx';

/** What the generated config balances, and how. */
export interface NginxSite {
  /** The loopback port nginx listens on. */
  readonly port: number;
  /** The origins' ports on 127.0.0.1, the members of the upstream group. */
  readonly upstreams: readonly number[];
  /**
   * The balancing method, one upstream directive: `''` for round robin (the default), or e.g.
   * `hash $remote_addr consistent` for exporter affinity (docs/deployment.md).
   */
  readonly balance?: string;
}

/**
 * The nginx config of docs/deployment.md for `site`, every path inside `dir` (pid, logs, temp files), so that it
 * runs as any user beside a system nginx. `daemon off` keeps the master in the foreground for the test to stop.
 *
 * The proxy settings are the ones a drain needs: POSTs go to another origin when the first refuses the
 * connection or answers 503 (which the origin sends only for requests it did not process, decision 0045), so
 * `non_idempotent` retries cannot duplicate a request.
 */
export function nginxConfig(dir: string, site: NginxSite): string {
  const servers = site.upstreams.map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=10s;`);
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log notice;
events { worker_connections 512; }
http {
  log_format upstreams '$remote_addr "$request" $status upstream_addr="$upstream_addr" upstream_status="$upstream_status"';
  access_log ${dir}/access.log upstreams;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream origins {
${site.balance ? `    ${site.balance};\n` : ''}${servers.join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${site.port};
    location / {
      proxy_pass http://origins;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_next_upstream error timeout http_503 non_idempotent;
      proxy_next_upstream_timeout 10s;
    }
  }
}
`;
}

/** An nginx the test started, with its own config in a temp directory. */
export interface RunningNginx {
  readonly dir: string;
  readonly url: string;
  /** Rewrites the config for `site` and reloads it (SIGHUP): new workers take it, old ones finish their requests. */
  reload(site: NginxSite): Promise<void>;
  /** The access log so far. */
  accessLog(): string;
  /** Stops nginx (SIGTERM) and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts nginx in the foreground (`-p <dir> -c <dir>/nginx.conf -e <dir>/error.log`) and resolves once it
 * accepts connections on 127.0.0.1:`site.port`; rejects with its error log when it cannot start (a test then
 * fails, it never skips).
 */
export async function startNginx(site: NginxSite): Promise<RunningNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'rest-origin-nginx-'));
  // nginx's workers may run as another user (nobody when the test runs as root); they read and write here.
  chmodSync(dir, 0o755);
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, site));
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const errorLog = (): string => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  try {
    await waitForPort('nginx', site.port, child, () => output + errorLog());
  } catch (error) {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    url: `http://127.0.0.1:${site.port}`,
    async reload(next: NginxSite): Promise<void> {
      writeFileSync(conf, nginxConfig(dir, next));
      const before = errorLog().length;
      child.kill('SIGHUP');
      // The master logs this once the new workers run with the new config.
      for (let i = 0; i < 100 && !errorLog().slice(before).includes('start worker process'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (!errorLog().slice(before).includes('start worker process')) {
        throw new Error(`nginx did not reload: ${errorLog().slice(before)}`);
      }
    },
    accessLog: () => {
      try {
        return readFileSync(join(dir, 'access.log'), 'utf8');
      } catch {
        return '';
      }
    },
    async stop(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
