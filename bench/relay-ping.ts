// What the tabs' relay keepalive costs the relay (src/net/relay-bootstrap.ts keepaliveMs):
// the real relay in a child process, N sockets that each send a ping every `--every` ms
// (staggered), and the child's CPU time over the run, against the same N sockets sending
// nothing (the relay's own 30 s WebSocket pings only). Loopback only: run inside
// scripts/netns.sh. The sockets do not register (a registration costs the relay a key
// derivation per id, far more than a ping): a ping is answered the same before and after.
//   bash scripts/netns.sh npx tsx bench/relay-ping.ts [--sockets 2000] [--every 4667] [--seconds 20]
import { spawn } from 'node:child_process';
import * as v from 'valibot';
import WebSocket from 'ws';
import { RelayMessageSchema } from '../src/net/relay-protocol';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const SOCKETS = arg('sockets', 2000);
/** A tab silent otherwise pings every keepaliveMs to 4/3 of it (checked at a third): 4.67 s on average at 4 s. */
const EVERY_MS = arg('every', 4667);
const SECONDS = arg('seconds', 20);

if (process.argv.includes('--child')) {
  const { startServer } = await import('../signaling/serve');
  const s = await startServer({ port: 0, host: '127.0.0.1', relayOnly: true, relay: {
    maxSockets: SOCKETS + 10, maxSocketsPerAddress: SOCKETS + 10, addressBurst: 1e9, addressRatePerSecond: 1e9, registerTimeoutMs: 1e9,
  } });
  console.log(`url ${s.relayUrl}`);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (line: string) => {
    if (line.startsWith('cpu')) {
      const u = process.cpuUsage();
      console.log(`cpu ${u.user + u.system} ${s.relay.stats.pingsAnswered} ${s.relay.stats.bytesIn}`);
    }
    if (line.startsWith('exit')) process.exit(0);
  });
} else {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', '--sockets', String(SOCKETS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiters.shift();
      if (w) w(l); else lines.push(l);
    }
  });
  const line = () => new Promise<string>((r) => { const l = lines.shift(); if (l !== undefined) r(l); else waiters.push(r); });
  const url = (await line()).split(' ')[1]!;
  const cpu = async () => { child.stdin.write('cpu\n'); const [, us, pings, bytes] = (await line()).split(' '); return { us: Number(us), pings: Number(pings), bytes: Number(bytes) }; };
  const sockets: WebSocket[] = [];
  let pongs = 0, pongBytes = 0;
  for (let i = 0; i < SOCKETS; i++) {
    const ws = new WebSocket(url);
    ws.on('message', (d: Buffer) => { if (d.toString().includes('pong')) { pongs++; pongBytes += d.length; } });
    await new Promise<void>((r, j) => { ws.once('open', () => r()); ws.once('error', j); });
    sockets.push(ws);
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await sleep(1000);
  const idle0 = await cpu();
  await sleep(SECONDS * 1000);
  const idle1 = await cpu();
  const PING = JSON.stringify({ type: 'ping' });
  const timers = sockets.map((ws, i) => {
    let t: ReturnType<typeof setInterval> | undefined;
    const start = setTimeout(() => { ws.send(PING); t = setInterval(() => ws.send(PING), EVERY_MS); }, (i / SOCKETS) * EVERY_MS);
    return () => { clearTimeout(start); clearInterval(t); };
  });
  await sleep(EVERY_MS); // every socket pinging
  const busy0 = await cpu();
  const pongs0 = pongs;
  await sleep(SECONDS * 1000);
  const busy1 = await cpu();
  for (const stop of timers) stop();
  const idleCpu = (idle1.us - idle0.us) / 1e6 / SECONDS;
  const busyCpu = (busy1.us - busy0.us) / 1e6 / SECONDS;
  const pings = busy1.pings - busy0.pings;
  const perPingUs = ((busy1.us - busy0.us) - (idle1.us - idle0.us)) / pings;
  console.log(`relay-ping {"sockets":${SOCKETS},"everyMs":${EVERY_MS},"seconds":${SECONDS},"pingsPerSecond":${(pings / SECONDS).toFixed(1)},` +
    `"relayCpuIdle":${idleCpu.toFixed(4)},"relayCpuPinging":${busyCpu.toFixed(4)},"cpuUsPerPing":${perPingUs.toFixed(1)},"pongsHeard":${pongs - pongs0},` +
    `"pingFrameBytes":${PING.length},"pongFrameBytes":${pongs > 0 ? Math.round(pongBytes / pongs) : 0}}`);
  for (const ws of sockets) ws.terminate();
  child.stdin.write('exit\n');
  // The tab's side of one keepalive, but for the socket's own work: a ping written, its pong read and checked as every relay frame is.
  const N = 100_000;
  const t0 = performance.now();
  let ok = 0;
  for (let i = 0; i < N; i++) {
    JSON.stringify({ type: 'ping' });
    if (v.safeParse(RelayMessageSchema, JSON.parse('{"type":"pong"}')).success) ok++;
  }
  console.log(`relay-ping tab {"usPerKeepalive":${(((performance.now() - t0) * 1000) / N).toFixed(2)},"parsed":${ok}}`);
}
