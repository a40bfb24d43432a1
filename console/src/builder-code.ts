/**
 * A job as code to run elsewhere: curl, the official Node.js SDK and the official Python SDK, each
 * pointed at this service (the SDKs call CloudConvert's host names otherwise; docs/using/sdks.md and
 * docs/using/sdks-other-languages.md say how). The API key is never written into the code: each reads
 * CLOUDCONVERT_API_KEY from the environment.
 */
export type CodeLanguage = 'curl' | 'node' | 'python';

export const CODE_LANGUAGES: Array<{ id: CodeLanguage; label: string }> = [
  { id: 'curl', label: 'curl' },
  { id: 'node', label: 'Node.js' },
  { id: 'python', label: 'Python' },
];

/** `text` as one word of a POSIX shell: in single quotes, each single quote written as '\''. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The service's base URL without a trailing slash. */
const trimmed = (base: string) => base.replace(/\/+$/, '');

export function curlCode(job: unknown, base: string): string {
  return [
    `curl -X POST ${JSON.stringify(`${trimmed(base)}/v2/jobs`)} \\`,
    `  -H "Authorization: Bearer $CLOUDCONVERT_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d ${shellQuote(JSON.stringify(job, null, 2))}`,
    '',
  ].join('\n');
}

export function nodeCode(job: unknown, base: string): string {
  // JSON is JavaScript (ES2019 on, U+2028 and U+2029 included): the job goes in as it is.
  return `// Node.js 18 or later: npm install cloudconvert, then run with CLOUDCONVERT_API_KEY set.
import CloudConvert from 'cloudconvert';

const SERVICE = ${JSON.stringify(trimmed(base))};
const cloudConvert = new CloudConvert(process.env.CLOUDCONVERT_API_KEY);
// The SDK calls [region.][sync.]api[.sandbox].cloudconvert.com; this service serves each as a path.
const callWithBase = cloudConvert.callWithBase.bind(cloudConvert);
cloudConvert.callWithBase = (base, method, route, params, opts) => {
  const labels = new URL(base).hostname.split('.');
  const region = labels[0] === 'api' || labels[0] === 'sync' ? '' : \`/\${labels[0]}\`;
  const prefix = labels.includes('sandbox') ? '/sandbox' : region;
  return callWithBase(\`\${SERVICE}\${prefix}\${labels.includes('sync') ? '/sync' : ''}/v2/\`, method, route, params, opts);
};

let job = await cloudConvert.jobs.create(${JSON.stringify(job, null, 2)});
// A wait answers after at most 25 s here: wait again while the job runs.
do job = await cloudConvert.jobs.wait(job.id);
while (job.status === 'waiting' || job.status === 'processing');

if (job.status !== 'finished') {
  for (const task of job.tasks) if (task.status === 'error') console.error(\`\${task.name}: \${task.message}\`);
  process.exit(1);
}
for (const file of cloudConvert.jobs.getExportUrls(job)) console.log(file.url);
`;
}

/** A JSON value as a Python literal (None, True, False; strings as JSON writes them, which Python reads alike). */
export function pythonLiteral(value: unknown, pad = ''): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'None';
  if (typeof value === 'string') return JSON.stringify(value);
  const inner = `${pad}    `;
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    return `[\n${value.map((v) => `${inner}${pythonLiteral(v, inner)}`).join(',\n')}\n${pad}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (!entries.length) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${pythonLiteral(v, inner)}`).join(',\n')}\n${pad}}`;
}

export function pythonCode(job: unknown, base: string): string {
  const service = trimmed(base);
  return `# Python 3: pip install cloudconvert, then run with CLOUDCONVERT_API_KEY set.
import os
import sys

import cloudconvert

SERVICE = ${JSON.stringify(service)}
# The SDK's endpoint and sync_endpoint replace CloudConvert's host names; it adds v2/ to each.
cloudconvert.configure(api_key=os.environ["CLOUDCONVERT_API_KEY"], endpoint=SERVICE, sync_endpoint=SERVICE + "/sync")

job = cloudconvert.Job.create(payload=${pythonLiteral(job)})
# A wait answers after at most 25 s here: wait again while the job runs.
job = cloudconvert.Job.wait(id=job["id"])
while job["status"] in ("waiting", "processing"):
    job = cloudconvert.Job.wait(id=job["id"])

if job["status"] != "finished":
    for task in job["tasks"]:
        if task["status"] == "error":
            print(f"{task['name']}: {task['message']}", file=sys.stderr)
    sys.exit(1)
for task in job["tasks"]:
    if task["operation"] == "export/url" and task["status"] == "finished":
        for file in task["result"]["files"]:
            print(file["url"])
`;
}

export function codeFor(language: CodeLanguage, job: unknown, base: string): string {
  if (language === 'curl') return curlCode(job, base);
  if (language === 'node') return nodeCode(job, base);
  return pythonCode(job, base);
}
