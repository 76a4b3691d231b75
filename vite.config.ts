import { defineConfig, loadEnv, type Plugin } from 'vite';
import { resolve } from 'node:path';
import { parseIcePolicy, parseIceServersJson } from './src/net/ice-servers.js';
import { earlyMintScript } from './src/app/early-mint.js';

type HtmlContext = Parameters<Extract<NonNullable<Plugin['transformIndexHtml']>, { handler: unknown }>['handler']>[1];
type HtmlTags = { tag: string; attrs?: Record<string, string | boolean>; children?: string; injectTo: 'head' | 'head-prepend' }[];

/** A build-only plugin that adds tags to the built pages once their chunks are known (`tags` sees the config's base). */
function builtPageTags(name: string, tags: (ctx: HtmlContext, base: string) => HtmlTags | undefined): Plugin {
  let base = '/';
  return {
    name,
    apply: 'build',
    configResolved(c) {
      base = c.base;
    },
    transformIndexHtml: { order: 'post', handler: (_html, ctx) => tags(ctx, base) },
  };
}

/**
 * The player page's entry (src/app/player.ts) is small and loads the join's code
 * (src/app/page-join.ts) by dynamic import; its chunks are named in index.html as
 * modulepreload links too, so the browser fetches them with the entry, not once it ran.
 */
const preloadJoinCode = () =>
  builtPageTags('preload-join-code', ({ bundle, chunk: entry }, base) => {
    if (!bundle || !entry) return;
    const join = entry.dynamicImports.map((f) => bundle[f]).find((c) => c?.type === 'chunk' && c.moduleIds.some((id) => id.endsWith('/src/app/page-join.ts')));
    if (!join || join.type !== 'chunk') return;
    // The join's chunk and what it imports, but the entry and its own imports (Vite preloads those already).
    const files = new Set<string>();
    const add = (name: string) => {
      const c = bundle[name];
      if (!c || c.type !== 'chunk' || files.has(name) || name === entry.fileName || entry.imports.includes(name)) return;
      files.add(name);
      c.imports.forEach(add);
    };
    add(join.fileName);
    return [...files].map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${f}` }, injectTo: 'head' as const }));
  });

/**
 * The player page's node id mint, begun by an inline script at the top of index.html's head
 * before its modules are fetched (src/app/early-mint.ts): the worker's built file is named
 * here, as only the build knows it. A build without it fails (the page would mint late).
 */
const earlyMint = () =>
  builtPageTags('early-mint', (ctx, base) => {
    if (!ctx.bundle || !ctx.path.endsWith('/index.html')) return;
    const worker = Object.keys(ctx.bundle).find((f) => /(^|\/)node-id\.worker-[\w-]+\.js$/.test(f));
    if (!worker) throw new Error('early-mint: no node-id.worker chunk in the build');
    return [{ tag: 'script', children: earlyMintScript(`${base}${worker}`), injectTo: 'head-prepend' as const }];
  });

// Multi-page: the player page and the hosting page (host.html: a tab that only hosts).
export default defineConfig(({ mode }) => {
  // A deploy's ICE settings are checked here, so a typo fails the build (and `npm start`)
  // with the reason, not every player's page at run time.
  const env = loadEnv(mode, import.meta.dirname, 'VITE_');
  parseIceServersJson(env.VITE_ICE_SERVERS, 'VITE_ICE_SERVERS');
  parseIcePolicy(env.VITE_ICE_POLICY, 'VITE_ICE_POLICY');
  return {
    plugins: [preloadJoinCode(), earlyMint()],
    build: {
      target: 'es2022',
      sourcemap: true,
      chunkSizeWarningLimit: 1500,
      rollupOptions: {
        input: {
          main: resolve(import.meta.dirname, 'index.html'),
          host: resolve(import.meta.dirname, 'host.html'),
        },
      },
    },
    worker: { format: 'es' },
    server: { port: 5173, strictPort: false },
  };
});
