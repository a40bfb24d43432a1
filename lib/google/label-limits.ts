/**
 * The label limits that `GET /v2beta/limits/label` reports (Drive Labels `LabelLimits`). Google
 * publishes the schema but not the values; only `maxFields` (10 fields per label) is confirmed by its
 * admin help pages, the rest are plausible defaults. They live here, in one constant, to be corrected
 * in one place. int64 values (`integerLimits`) are strings, dates are `google.type.Date` objects.
 */
import { message, SCALAR } from './fields.js';
export const LABEL_LIMITS = {
  name: 'limits/label',
  maxTitleLength: 200,
  maxDescriptionLength: 1000,
  maxFields: 10,
  maxDeletedFields: 100,
  maxDraftRevisions: 100,
  fieldLimits: {
    maxIdLength: 64,
    maxDisplayNameLength: 200,
    maxDescriptionLength: 1000,
    textLimits: { minLength: 0, maxLength: 1000 },
    longTextLimits: { minLength: 0, maxLength: 10000 },
    integerLimits: { minValue: '-9007199254740991', maxValue: '9007199254740991' },
    dateLimits: { minValue: { year: 1, month: 1, day: 1 }, maxValue: { year: 9999, month: 12, day: 31 } },
    userLimits: { listLimits: { maxEntries: 20 } },
    selectionLimits: {
      listLimits: { maxEntries: 20 },
      maxIdLength: 64,
      maxDisplayNameLength: 200,
      maxChoices: 200,
      maxDeletedChoices: 1000,
    },
  },
} as const;

/** The resource name GetLabelLimits accepts. */
export const LABEL_LIMITS_NAME = LABEL_LIMITS.name;

const V2BETA = 'google.apps.drive.labels.v2beta';
const lengths = (name: string) => message(`${V2BETA}.${name}`, { minLength: SCALAR, maxLength: SCALAR });
const listLimits = message(`${V2BETA}.ListLimits`, { maxEntries: SCALAR });
const date = message('google.type.Date', { year: SCALAR, month: SCALAR, day: SCALAR });

/** The LabelLimits message, which partial responses are checked against. */
export const LABEL_LIMITS_MESSAGE = message(`${V2BETA}.LabelLimits`, {
  name: SCALAR,
  maxTitleLength: SCALAR,
  maxDescriptionLength: SCALAR,
  maxFields: SCALAR,
  maxDeletedFields: SCALAR,
  maxDraftRevisions: SCALAR,
  fieldLimits: message(`${V2BETA}.FieldLimits`, {
    maxIdLength: SCALAR,
    maxDisplayNameLength: SCALAR,
    maxDescriptionLength: SCALAR,
    textLimits: lengths('TextLimits'),
    longTextLimits: lengths('LongTextLimits'),
    integerLimits: message(`${V2BETA}.IntegerLimits`, { minValue: SCALAR, maxValue: SCALAR }),
    dateLimits: message(`${V2BETA}.DateLimits`, { minValue: date, maxValue: date }),
    userLimits: message(`${V2BETA}.UserLimits`, { listLimits }),
    selectionLimits: message(`${V2BETA}.SelectionLimits`, {
      listLimits,
      maxIdLength: SCALAR,
      maxDisplayNameLength: SCALAR,
      maxChoices: SCALAR,
      maxDeletedChoices: SCALAR,
    }),
  }),
});
