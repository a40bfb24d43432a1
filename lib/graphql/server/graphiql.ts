/**
 * GraphiQL that works with no internet access. Yoga's default page loads GraphiQL from a public CDN,
 * and `@graphql-yoga/render-graphiql` inlines everything into one ~9 MB page, over Lambda's 6 MB
 * response limit. Here the page is small and references its script, style sheet, Monaco workers and
 * icon as separate assets under `<endpoint>/assets/`, which the graphiqlAssets function serves from
 * precompressed files (lib/graphql/server/graphiql-assets.ts); none of GraphiQL is in the GraphQL function.
 */
import type { GraphiQLOptions } from 'graphql-yoga';
import { GRAPHIQL_ASSET_VERSION, type GraphiqlAssetFile } from './graphiql-assets.js';

/** Monaco asks for a worker by label; these are the labels GraphiQL uses. */
const WORKER_FILES = {
  editorWorkerService: 'editor.worker.js',
  json: 'json.worker.js',
  graphql: 'graphql.worker.js',
} satisfies Record<string, GraphiqlAssetFile>;

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
}

export function offlineGraphiQL(opts: { graphqlEndpoint: string }): OfflineGraphiQL {
  const assetsPath = `${opts.graphqlEndpoint.replace(/\/$/, '')}/assets`;
  const url = (file: GraphiqlAssetFile) => `${assetsPath}/${file}?v=${GRAPHIQL_ASSET_VERSION}`;
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

  return { assetsPath, render };
}
