/**
 * The Convert page: files chosen or dropped, grouped by input format; for each group the outputs
 * /v2/convert/formats lists for it ("Convert to") and the chosen output's options as a form; Convert
 * makes one job per file through the public API (import/upload → convert → export/url), subscribes to
 * its tasks' events, uploads the file with the upload task's form, and follows the job to its end.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { accessToken, ApiError, apiData, uploadWithForm } from '../api';
import { convertRowsFor, formatOfName, type OperationRow } from '../discovery';
import { liveEvents, subscribe } from '../events';
import { OptionsForm, type OptionValues } from '../components/options-form';
import { ConvertDrop } from '../components/convert-drop';
import { ConvertFile, type Chosen, type Run } from '../components/convert-file';
import { followJob } from '../convert-follow';
import { convertJobRequest, creationErrorText, inputFormats, mergeTasks, outcomeOf, outputChoices, TASK_NAMES, type JobView } from '../convert-plan';

type Formats = { rows?: OperationRow[]; error?: string };
type GroupChoice = { output: string; options: OptionValues };

let nextKey = 1;

export function ConvertPage() {
  const [chosen, setChosen] = useState<Chosen[]>([]);
  const [formats, setFormats] = useState<Record<string, Formats>>({});
  const [choices, setChoices] = useState<Record<string, GroupChoice>>({});
  const [formError, setFormError] = useState<string | undefined>();
  const followers = useRef(new Map<number, { stop(): void }>());

  useEffect(() => () => followers.current.forEach((f) => f.stop()), []);

  const pending = chosen.filter((c) => !c.run);
  const groups = inputFormats(
    pending.map((c) => c.file.name),
    formatOfName,
  );

  // Discovery's outputs for each input format chosen (cached by discovery.ts).
  useEffect(() => {
    for (const format of groups) {
      if (!format || formats[format]) continue;
      setFormats((f) => ({ ...f, [format]: {} }));
      convertRowsFor(format).then(
        (rows) => setFormats((f) => ({ ...f, [format]: { rows } })),
        (err: unknown) => setFormats((f) => ({ ...f, [format]: { error: err instanceof Error ? err.message : String(err) } })),
      );
    }
  }, [groups.join('\n')]);

  const patch = (key: number, change: (run: Run) => Run) =>
    setChosen((list) => list.map((c) => (c.key === key && c.run ? { ...c, run: change(c.run) } : c)));

  const convertOne = async (item: Chosen, choice: GroupChoice) => {
    const { key, file, format } = item;
    let job: JobView;
    try {
      job = await apiData<JobView>('POST', '/v2/jobs', convertJobRequest(format, choice.output, choice.options));
    } catch (err) {
      const lines = err instanceof ApiError ? creationErrorText(err) : [String(err)];
      return patch(key, (r) => ({ ...r, phase: 'ended', error: lines }));
    }
    patch(key, (r) => ({ ...r, phase: 'uploading', jobId: job.id, tasks: job.tasks }));
    let tasks = job.tasks;
    // Subscribed before the upload, so the first events of the conversion are heard.
    const follower = followJob(
      job.id,
      { fetchJob: (id) => apiData<JobView>('GET', `/v2/jobs/${encodeURIComponent(id)}`), subscribe, live: liveEvents() },
      (snapshot) => {
        tasks = mergeTasks(tasks, snapshot);
        const ended = outcomeOf(tasks).ended;
        if (ended) {
          follower.stop();
          followers.current.delete(key);
        }
        const shown = tasks;
        patch(key, (r) => ({ ...r, tasks: shown, phase: ended ? 'ended' : r.phase }));
      },
    );
    followers.current.set(key, follower);
    // The subscription is sent once the access token is at hand; waiting for the token here too puts
    // it on the socket before the upload starts (the server does not acknowledge it: the polls cover
    // a subscription that arrives late).
    await accessToken();
    const form = job.tasks.find((t) => t.name === TASK_NAMES.upload)?.result?.form;
    try {
      if (!form) throw new ApiError(0, 'The job has no upload form.');
      await uploadWithForm(form, file, (fraction) => patch(key, (r) => ({ ...r, uploaded: fraction })));
      patch(key, (r) => ({ ...r, uploaded: 1, phase: r.phase === 'ended' ? 'ended' : 'running' }));
      follower.poke();
    } catch (err) {
      follower.stop();
      followers.current.delete(key);
      patch(key, (r) => ({ ...r, phase: 'ended', error: [err instanceof Error ? err.message : String(err)] }));
    }
  };

  const onConvert = (e: Event) => {
    e.preventDefault();
    if (!pending.length) return setFormError('Choose a file to convert first.');
    const unknown = groups.filter((g) => !formats[g]?.rows?.length);
    const ready = pending.filter((c) => !unknown.includes(c.format));
    const missing = groups.filter((g) => !unknown.includes(g) && !choices[g]?.output);
    if (missing.length) return setFormError(`Choose what to convert the ${missing.map((m) => m.toUpperCase()).join(', ')} files to.`);
    if (!ready.length) return setFormError('None of the chosen files can be converted here.');
    setFormError(undefined);
    setChosen((list) => list.map((c) => (ready.some((r) => r.key === c.key) ? { ...c, run: { phase: 'creating', tasks: [] } } : c)));
    for (const item of ready) void convertOne(item, choices[item.format]!);
  };

  const downloads = chosen.reduce((n, c) => n + (c.run ? outcomeOf(c.run.tasks).files.length : 0), 0);
  const several = groups.length > 1;
  const ended = chosen.filter((c) => c.run?.phase === 'ended');

  return (
    <section>
      <h1 tabIndex={-1}>Convert</h1>
      <form onSubmit={onConvert} noValidate>
        <ConvertDrop
          id="convert-file"
          onFiles={(files) => {
            setFormError(undefined);
            setChosen((list) => [...list, ...files.map((file) => ({ key: nextKey++, file, format: formatOfName(file.name) }))]);
          }}
        />
        {groups.map((format) => {
          const found = formats[format];
          const choice = choices[format] ?? { output: '', options: {} };
          const id = `convert-to-${format || 'none'}`;
          const files = pending.filter((c) => c.format === format);
          const options = found?.rows?.find((r) => r.output_format === choice.output)?.options ?? [];
          return (
            <fieldset key={format} class="convert-group">
              <legend>
                {format ? `${format.toUpperCase()} files` : 'Files without an extension'} ({files.length})
              </legend>
              {!format ? (
                <p class="muted">The input format is the file's extension: these files have none and cannot be converted here.</p>
              ) : found?.error ? (
                <p class="error">The formats of {format.toUpperCase()} could not be listed: {found.error}</p>
              ) : !found?.rows ? (
                <p class="muted">Finding what {format.toUpperCase()} converts to…</p>
              ) : found.rows.length === 0 ? (
                <p class="muted">No conversion from {format.toUpperCase()} is available here.</p>
              ) : (
                <>
                  <label for={id}>
                    Convert to{several && <span class="visually-hidden"> for the {format.toUpperCase()} files</span>}
                  </label>
                  <select id={id} value={choice.output} onChange={(e) => setChoices((c) => ({ ...c, [format]: { output: e.currentTarget.value, options: {} } }))}>
                    <option value="">Choose a format</option>
                    {outputChoices(found.rows).map(({ group, choices: outs }) => (
                      <optgroup key={group} label={group}>
                        {outs.map((o) => (
                          <option key={o.format} value={o.format}>
                            {o.format}
                          </option>
                        ))}
                      </optgroup>
                    ))}
                  </select>
                  {choice.output && (
                    <details class="convert-options" open>
                      <summary>Options of {choice.output.toUpperCase()}</summary>
                      <OptionsForm
                        idPrefix={`${id}-option`}
                        options={options}
                        values={choice.options}
                        onChange={(values) => setChoices((c) => ({ ...c, [format]: { output: choice.output, options: values } }))}
                      />
                    </details>
                  )}
                </>
              )}
            </fieldset>
          );
        })}
        {formError && (
          <p role="alert" class="error">
            {formError}
          </p>
        )}
        <div class="actions">
          <button type="submit">Convert</button>
          {ended.length > 0 && (
            <button type="button" class="secondary" onClick={() => setChosen((list) => list.filter((c) => c.run?.phase !== 'ended'))}>
              Clear finished
            </button>
          )}
        </div>
      </form>
      {chosen.length > 0 && (
        <>
          <h2>Files</h2>
          <ul class="convert-files">
            {chosen.map((item) => (
              <ConvertFile key={item.key} item={item} distinctDownloads={downloads > 1} onRemove={() => setChosen((list) => list.filter((c) => c.key !== item.key))} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
