// `npm run peer -- --world NAME [--relay URL|none] [--data DIR] [--seed SEED]
//                 [--bind ADDRESS] [--ice URL,...|JSON] [--ice-user U --ice-credential P]
//                 [--ice-policy relay] [--http PORT] [--print SECONDS]`
// --ice takes stun:/turn: URLs (--ice-user and --ice-credential, or --ice-credential-file,
// go to the turn: ones) or a JSON array of RTCIceServer; the relay may grant more
// (TURN with short-lived credentials). --ice-policy relay: only TURN relays.
// A headless peer (headless-peer.ts): hosts the world's regions from Node and keeps the
// world alive with no browser open. It prints one line when it is hosting ("hosting world
// ..."), then the dashboard's figures every --print seconds (default 60; 0: never), and
// with --http serves them as JSON on 127.0.0.1:PORT (GET /). SIGINT / SIGTERM stop it.
// Defaults: world populi, relay ws://127.0.0.1:8080/relay, data ./voxel-peer-data/<world>.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { fmtBytes, fmtUptime, pathSummary, relayedShare } from '../ui/host-dashboard';
import { countPaths } from '../net/link-path';
import { DEFAULT_WORLD } from './config';
import type { HostFigures } from './host-figures';
import { iceFromFlags } from '../bootstrap/headless-ice';
import { HEADLESS_DEFAULTS, startHeadlessPeer } from './headless-peer';
import { storeScope } from '../store/store-scope';

const USAGE = 'usage: npm run peer -- --world NAME [--relay ws://HOST:PORT/relay|none] [--data DIR] [--seed SEED] [--bind ADDRESS] [--ice stun:HOST:PORT,turn:HOST:PORT?transport=udp,...|JSON] [--ice-user U] [--ice-credential P|--ice-credential-file F] [--ice-policy relay] [--http PORT] [--print SECONDS]';

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** One line of the dashboard's figures, for a log. */
export function figureLine(f: HostFigures): string {
  const primary = f.regions.filter((r) => r.role === 'primary').map((r) => r.name);
  const backup = f.regions.filter((r) => r.role === 'backup').map((r) => r.name);
  const players = f.regions.reduce((n, r) => n + r.players, 0);
  const rss = process.memoryUsage().rss;
  return [
    `up ${fmtUptime(f.uptimeMs)}`, `${f.status}`, `about ${f.networkSize} nodes`, `${f.links.length} links (${pathSummary(countPaths(f.links.map((l) => l.path)), relayedShare(f.links))})`,
    `primary ${primary.length ? primary.join(' ') : '-'}`, `backup ${backup.length ? backup.join(' ') : '-'}`, `${players} players`,
    `tick ${f.tickHz.toFixed(1)} Hz`,
    `edits ${f.edits.accepted} accepted ${f.edits.confirmed} confirmed ${f.edits.refused} refused`,
    `in ${fmtBytes(f.traffic.inBytes)} out ${fmtBytes(f.traffic.outBytes)}`, `rss ${fmtBytes(rss)}`,
    ...(f.problem ? [f.problem] : []),
  ].join(' · ');
}

function serveFigures(port: number, figures: () => HostFigures): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url !== '/' && req.url !== '/figures.json')) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ...figures(), rssBytes: process.memoryUsage().rss, heapUsedBytes: process.memoryUsage().heapUsed }));
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

async function main(): Promise<void> {
  // The same code runs in tabs, where a promise rejected with nobody listening is logged and
  // the page goes on; Node would end the process instead. Logged here too, as in a tab.
  process.on('unhandledRejection', (err) => console.error('unhandled rejection:', err));
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) return void console.log(USAGE);
  const world = arg(args, 'world') ?? DEFAULT_WORLD;
  const relay = arg(args, 'relay');
  const seed = arg(args, 'seed');
  // A seed of its own is another world of the name (store/store-scope.ts), so another directory:
  // peers of both can run at once (LevelDB locks its directory).
  const dataDir = resolve(arg(args, 'data') ?? `voxel-peer-data/${storeScope(world, seed ?? world)}`);
  const printSec = Number(arg(args, 'print') ?? 60);
  const httpPort = arg(args, 'http');
  const bind = arg(args, 'bind');
  const credFile = arg(args, 'ice-credential-file');
  const { iceServers, icePolicy } = iceFromFlags({
    ice: arg(args, 'ice'),
    user: arg(args, 'ice-user'),
    credential: credFile ? readFileSync(credFile, 'utf8').trim() : arg(args, 'ice-credential'),
    policy: arg(args, 'ice-policy'),
  });
  const hp = await startHeadlessPeer({
    world, dataDir,
    relay: relay === 'none' ? null : (relay ?? HEADLESS_DEFAULTS.relay),
    ...(seed ? { seed } : {}),
    ...(bind ? { bindAddress: bind } : {}),
    iceServers, icePolicy,
    onStage: (stage, detail) => console.log(`join: ${stage}${detail ? ` (${detail})` : ''}`),
  });
  const server = httpPort ? await serveFigures(Number(httpPort), hp.figures) : undefined;
  console.log(`hosting world ${hp.world} as node ${hp.peer.id} (${hp.peer.status}, ${hp.peer.dht.linkInfo().length} links; data ${dataDir}; ready ${Math.round(performance.now())} ms after start)`
    + (server ? `; figures at http://127.0.0.1:${httpPort}/` : ''));
  if (hp.peer.failure) console.log(`alone for now: ${hp.peer.failure.kind} (${hp.peer.failure.detail}); hosting alone and looking for peers`);
  const printer = printSec > 0 ? setInterval(() => console.log(figureLine(hp.figures())), printSec * 1000) : undefined;
  const stop = () => {
    clearInterval(printer);
    server?.close();
    void hp.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`headless peer: ${(err as Error).message}`);
  process.exit(1);
});
