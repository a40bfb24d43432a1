/**
 * GraphiQL that works with no internet access. Yoga's default page loads GraphiQL from a public CDN,
 * and `@graphql-yoga/render-graphiql` inlines everything into one ~9 MB page, over Lambda's 6 MB
 * response limit. Here the page is small and references its script, style sheet, Monaco workers and
 * icon as separate assets under `<endpoint>/assets/`, served by a yoga plugin from the same function,
 * compressed (br or gzip, at most ~1.3 MB each) and cached by the browser for a year (the URL carries
 * the GraphiQL version).
 *
 * The 9 MB asset module is imported on the first asset request only, so GraphQL requests never pay for
 * it at cold start.
 */
import type * as GraphiqlAssets from '@graphql-yoga/render-graphiql/graphiql';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

/** The installed `@graphql-yoga/render-graphiql` version (a unit test keeps it in step). */
export const GRAPHIQL_ASSET_VERSION = '5.24.1';

type AssetModule = typeof GraphiqlAssets;

interface AssetSpec {
  contentType: string;
  pick(module: AssetModule): string | Buffer;
}

const ASSETS: Record<string, AssetSpec> = {
  'graphiql.js': { contentType: 'text/javascript; charset=utf-8', pick: (m) => m.js },
  'graphiql.css': { contentType: 'text/css; charset=utf-8', pick: (m) => m.css },
  'editor.worker.js': { contentType: 'text/javascript; charset=utf-8', pick: (m) => m.editorWorkerService },
  'json.worker.js': { contentType: 'text/javascript; charset=utf-8', pick: (m) => m.jsonWorker },
  'graphql.worker.js': { contentType: 'text/javascript; charset=utf-8', pick: (m) => m.graphqlWorker },
  'favicon.ico': {
    contentType: 'image/x-icon',
    pick: (m) => Buffer.from(m.favicon.slice(m.favicon.indexOf(',') + 1), 'base64'),
  },
};

export const GRAPHIQL_ASSET_FILES = Object.keys(ASSETS);

/** Monaco asks for a worker by label; these are the labels GraphiQL uses. */
const WORKER_FILES = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' };

type Encoding = 'br' | 'gzip';

/** The best encoding the client accepts (br over gzip), or undefined when it accepts neither. */
export function pickEncoding(acceptEncoding: string | null): Encoding | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(token, q ? Number(q.slice(2)) : 1);
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return undefined;
}

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

let assetModule: Promise<AssetModule> | undefined;
const compressed = new Map<string, Promise<Buffer>>();

/** The compressed bytes of one asset, computed once per process and encoding. */
function compressedAsset(file: string, spec: AssetSpec, encoding: Encoding): Promise<Buffer> {
  const key = `${file}:${encoding}`;
  let bytes = compressed.get(key);
  if (!bytes) {
    assetModule ??= import('@graphql-yoga/render-graphiql/graphiql');
    bytes = assetModule.then((m) => {
      const raw = spec.pick(m);
      // Brotli quality 5 compresses the 5 MB script in ~0.1 s to ~1.3 MB; 11 would take seconds.
      return encoding === 'br'
        ? brotli(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } })
        : gz(raw, { level: 6 });
    });
    bytes.catch(() => compressed.delete(key));
    compressed.set(key, bytes);
  }
  return bytes;
}

/** JSON that is safe inside an inline <script>. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface OfflineGraphiQL {
  /** Where the assets are served, e.g. `/graphql/assets`. */
  assetsPath: string;
  /** Yoga's `renderGraphiQL` option. */
  render(options?: GraphiQLOptions): string;
  /** Serves `GET <assetsPath>/<file>`. */
  plugin: Plugin;
}

export function offlineGraphiQL(opts: { graphqlEndpoint: string }): OfflineGraphiQL {
  const assetsPath = `${opts.graphqlEndpoint.replace(/\/$/, '')}/assets`;
  const url = (file: string) => `${assetsPath}/${file}?v=${GRAPHIQL_ASSET_VERSION}`;
  const workers = Object.fromEntries(Object.entries(WORKER_FILES).map(([label, file]) => [label, url(file)]));

  const render = (options: GraphiQLOptions = {}): string => {
    const title = options.title ?? 'GraphiQL';
    return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="${escapeHtml(options.favicon ?? url('favicon.ico'))}" />
    <link rel="stylesheet" href="${url('graphiql.css')}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>The GraphQL explorer needs JavaScript.</noscript>
    <div id="root">Loading ${escapeHtml(title)}…</div>
    <script>
      var workers = ${scriptJson(workers)};
      self.MonacoEnvironment = {
        globalAPI: false,
        getWorkerUrl: function (moduleId, label) { return workers[label]; },
      };
    </script>
    <script src="${url('graphiql.js')}"></script>
    <script>
      YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), ${scriptJson(options)});
    </script>
  </body>
</html>
`;
  };

  const plugin: Plugin = {
    onRequest({ url: requestUrl, request, endResponse, fetchAPI }) {
      if (!requestUrl.pathname.startsWith(`${assetsPath}/`)) return;
      const file = requestUrl.pathname.slice(assetsPath.length + 1);
      const spec = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      const text = (status: number, body: string, headers: Record<string, string> = {}) =>
        endResponse(new fetchAPI.Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } }));

      if (!spec) return text(404, `no explorer asset named ${file}; known: ${GRAPHIQL_ASSET_FILES.join(', ')}`);
      if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'explorer assets support GET only', { allow: 'GET, HEAD' });
      const encoding = pickEncoding(request.headers.get('accept-encoding'));
      if (!encoding) {
        return text(406, 'explorer assets are served compressed only: send "accept-encoding: br" or "accept-encoding: gzip"', {
          vary: 'accept-encoding',
        });
      }
      return compressedAsset(file, spec, encoding).then((bytes) =>
        endResponse(
          new fetchAPI.Response(request.method === 'HEAD' ? null : new Uint8Array(bytes), {
            status: 200,
            headers: {
              'content-type': spec.contentType,
              'content-encoding': encoding,
              'content-length': String(bytes.length),
              vary: 'accept-encoding',
              'cache-control': 'public, max-age=31536000, immutable',
              'x-content-type-options': 'nosniff',
            },
          }),
        ),
      );
    },
  };

  return { assetsPath, render, plugin };
}
