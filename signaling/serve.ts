// One Node HTTP server on one port: the built app (dist/) and the relay at /relay.
//   npm start          vite build && tsx signaling/serve.ts         (app + relay)
//   npm run relay      tsx signaling/serve.ts --relay-only          (relay only)
// Options: --port N (or env PORT, default 8080), --host H (or env HOST, default
// 127.0.0.1; use --host 0.0.0.0 to serve a LAN), --dir DIR (default dist), --relay-only,
// --trust-proxy (or env TRUST_PROXY=1: behind your own reverse proxy, the relay's
// per-address caps count the client address in X-Forwarded-For, not the proxy's),
// --turn-url URL[,URL] (repeatable; env TURN_URLS) with --turn-secret-file PATH (env
// TURN_SECRET_FILE, or TURN_SECRET) and --turn-ttl S (env TURN_TTL, default 86400): hand
// each registered tab these ICE servers, TURN with credentials minted from the secret
// shared with coturn (turn-credentials.ts).
// Browser tests start it in-process with startServer().
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRelay, type Relay, type RelayOptions } from './relay';
import { turnConfigFrom } from './turn-credentials';

export const RELAY_PATH = '/relay';

export const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

export interface ServerOptions {
  port?: number;
  host?: string;
  /** Directory of the built app (default 'dist'). Ignored with relayOnly. */
  staticDir?: string;
  relayOnly?: boolean;
  relay?: RelayOptions;
}

export interface RunningServer {
  /** http://host:port/ */
  url: string;
  /** ws://host:port/relay */
  relayUrl: string;
  port: number;
  relay: Relay;
  close(): Promise<void>;
}

async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  } catch {
    res.writeHead(400).end('bad path');
    return;
  }
  // Resolve inside root only: '..' and absolute tricks end up outside and are refused.
  const file = resolve(root, '.' + (pathname.endsWith('/') ? pathname + 'index.html' : pathname));
  if (pathname.includes('\0') || (file !== root && !file.startsWith(root + sep))) {
    res.writeHead(403).end('forbidden');
    return;
  }
  let target = file;
  let st = await stat(target).catch(() => undefined);
  if (st?.isDirectory()) {
    target = join(target, 'index.html');
    st = await stat(target).catch(() => undefined);
  }
  if (!st?.isFile()) {
    // Single-page fallback for routes, but a missing asset is a real 404.
    if (extname(pathname) !== '' && extname(pathname) !== '.html') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    target = join(root, 'index.html');
    st = await stat(target).catch(() => undefined);
    if (!st?.isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found (is the app built? run vite build)');
      return;
    }
  }
  const type = MIME[extname(target).toLowerCase()] ?? 'application/octet-stream';
  const immutable = target.includes(`${sep}assets${sep}`);
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': st.size,
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(target).on('error', () => res.destroy()).pipe(res);
}

export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const root = resolve(opts.staticDir ?? 'dist');
  const relay = createRelay(opts.relay);
  const server = createServer((req, res) => {
    if (opts.relayOnly) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`voxel-populi relay: connect a WebSocket to ${RELAY_PATH}\n`);
      return;
    }
    serveStatic(root, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.on('upgrade', (req, socket, head) => {
    let path = '';
    try {
      path = new URL(req.url ?? '/', 'http://x').pathname;
    } catch {
      /* fall through to refusal */
    }
    if (path !== RELAY_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    relay.handleUpgrade(req, socket, head);
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port ?? 8080, host, () => res());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (opts.port ?? 8080);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    relayUrl: `ws://${shownHost}:${port}${RELAY_PATH}`,
    port,
    relay,
    close: async () => {
      await relay.close();
      server.closeAllConnections?.();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

/** Every value of a repeatable flag (`--x a --x=b`). */
function argValues(args: string[], name: string): string[] {
  return args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]!] : a.startsWith(`${name}=`) ? [a.slice(name.length + 1)] : []));
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const relayOnly = args.includes('--relay-only');
  const port = Number(argValue(args, '--port') ?? process.env.PORT ?? 8080);
  const host = argValue(args, '--host') ?? process.env.HOST ?? '127.0.0.1';
  const trustProxy = args.includes('--trust-proxy') || process.env.TRUST_PROXY === '1';
  const turnUrls = argValues(args, '--turn-url');
  const turn = turnConfigFrom({
    urls: turnUrls.length ? turnUrls : process.env.TURN_URLS ? [process.env.TURN_URLS] : [],
    secretFile: argValue(args, '--turn-secret-file') ?? process.env.TURN_SECRET_FILE,
    secret: process.env.TURN_SECRET,
    ttl: argValue(args, '--turn-ttl') ?? process.env.TURN_TTL,
  });
  const s = await startServer({ port, host, relayOnly, staticDir: argValue(args, '--dir') ?? 'dist', relay: { trustProxy, ...(turn ? { turn } : {}) } });
  console.log(relayOnly ? `Relay: ${s.relayUrl}` : `Voxel Populi: ${s.url}  (relay at ${s.relayUrl})`);
  if (turn) console.log(`ICE servers for registered tabs: ${turn.urls.join(', ')} (TURN credentials good for ${turn.ttlSeconds} s)`);
  const stop = () => void s.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: unknown) => {
    console.error(`voxel-populi server: ${(e as Error).message ?? String(e)}`);
    process.exit(1);
  });
}
