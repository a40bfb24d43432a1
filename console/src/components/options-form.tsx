/**
 * A form for an operation's options, built from discovery's OptionView list: enums as selects,
 * booleans as checkboxes, numbers and strings as inputs, dictionaries as JSON. Only options the user
 * set are sent; the service fills in the rest with its defaults (shown as placeholders).
 */
import type { OptionView } from '../discovery';

export type OptionValues = Record<string, unknown>;

const shown = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function parse(option: OptionView, raw: string): unknown {
  if (raw === '') return undefined;
  if (option.type === 'integer' || option.type === 'float') {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw; // a wrong number goes to the API, whose 422 names the field
  }
  if (option.type === 'dictionary') {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  if (option.type === 'enum') {
    const match = option.possible_values?.find((p) => String(p) === raw);
    return match === undefined ? raw : match;
  }
  return raw;
}

export function OptionsForm(props: { idPrefix: string; options: OptionView[]; values: OptionValues; onChange: (values: OptionValues) => void }) {
  const { options, values, onChange, idPrefix } = props;
  const set = (name: string, value: unknown) => {
    const next = { ...values };
    if (value === undefined) delete next[name];
    else next[name] = value;
    onChange(next);
  };
  if (!options.length) return <p class="muted">This operation has no options.</p>;
  return (
    <div class="options">
      {options.map((option) => {
        const id = `${idPrefix}-${option.name}`;
        const hint = option.description ? `${id}-hint` : undefined;
        if (option.type === 'boolean') {
          const checked = values[option.name] === undefined ? option.default === true : values[option.name] === true;
          return (
            <div key={option.name}>
              <label for={id}>
                <input id={id} type="checkbox" checked={checked} aria-describedby={hint} onChange={(e) => set(option.name, e.currentTarget.checked)} /> {option.name}
              </label>
              {hint && <div id={hint} class="muted">{option.description}</div>}
            </div>
          );
        }
        return (
          <div key={option.name}>
            <label for={id}>{option.name}</label>
            {option.type === 'enum' ? (
              <select id={id} aria-describedby={hint} value={shown(values[option.name])} onChange={(e) => set(option.name, parse(option, e.currentTarget.value))}>
                <option value="">default{option.default !== undefined && option.default !== null ? ` (${shown(option.default)})` : ''}</option>
                {(option.possible_values ?? []).map((v) => (
                  <option key={shown(v)} value={shown(v)}>
                    {shown(v)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                {...(option.type === 'integer' || option.type === 'float' ? { type: 'number' as const, step: option.type === 'float' ? 'any' : '1' } : { type: 'text' as const })}
                aria-describedby={hint}
                placeholder={shown(option.default)}
                value={shown(values[option.name])}
                onInput={(e) => set(option.name, parse(option, e.currentTarget.value))}
              />
            )}
            {hint && <div id={hint} class="muted">{option.description}</div>}
          </div>
        );
      })}
    </div>
  );
}
