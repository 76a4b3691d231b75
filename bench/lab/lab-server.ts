// The lab's server on its "internet": the built app and the relay (signaling/serve.ts's
// startServer), handing out the ICE servers a case names. `--clock-shift-s S` moves this
// process's clock S seconds (negative: into the past) so the relay mints credentials coturn
// sees as expired: what a relay whose clock is wrong, or a tab holding a grant for days, gets.
//   node --import tsx bench/lab/lab-server.ts --host IP --port N [--turn-url URL]... [--turn-secret-file F] [--clock-shift-s S]
import { startServer } from '../../signaling/serve';
import { turnConfigFrom } from '../../signaling/turn-credentials';

const args = process.argv.slice(2);
const value = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const shiftMs = Number(value('--clock-shift-s') ?? 0) * 1000;
if (shiftMs) {
  const realNow = Date.now.bind(Date);
  Date.now = () => realNow() + shiftMs;
}
const urls = args.flatMap((a, i) => (a === '--turn-url' && args[i + 1] ? [args[i + 1]!] : []));
const turn = turnConfigFrom({ urls, secretFile: value('--turn-secret-file') });
const server = await startServer({ host: value('--host') ?? '127.0.0.1', port: Number(value('--port') ?? 8080), staticDir: 'dist', relay: turn ? { turn } : {} });
console.log(`lab server ${server.url}`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
