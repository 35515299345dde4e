import { bundleCodes } from './codes/bundle.js';
import { callCodes } from './codes/calls.js';
import { codeCodes } from './codes/code.js';
import { internalCodes } from './codes/internal.js';
import { manifestCodes } from './codes/manifest.js';
import { methodCodes } from './codes/method.js';
import { modelCodes } from './codes/model.js';
import { pathCodes } from './codes/path.js';
import { referenceCodes } from './codes/reference.js';
import { schemaCodes } from './codes/schema.js';
import { sourceCodes } from './codes/source.js';
import type { CodeInfo } from './codes/types.js';

export type { CodeInfo } from './codes/types.js';

export const CODES = {
  ...sourceCodes,
  ...schemaCodes,
  ...modelCodes,
  ...callCodes,
  ...pathCodes,
  ...manifestCodes,
  ...referenceCodes,
  ...codeCodes,
  ...bundleCodes,
  ...methodCodes,
  ...internalCodes,
} as const;

export type Code = keyof typeof CODES;

export function codeInfo(code: Code): CodeInfo {
  return CODES[code];
}
