import { entry, type YNode } from '../source/yaml-tree.js';
import { andList, checkOwnKeys, checkRequiredKeys, expectCount, expectFlag, expectMapping } from './check-misc.js';
import type { RoutineContext } from './context.js';

export const PORT_KEYS = ['input', 'output', 'limits'] as const;
export const LIMIT_KEYS = ['bytes', 'messages', 'pending'] as const;

const PORT_HINTS: Readonly<Record<string, string>> = Object.fromEntries(LIMIT_KEYS.map((key) => [key, `\`${key}\` belongs inside \`port.limits\``]));
const LIMIT_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  ['calls', 'steps', 'concurrency', 'timeout'].map((key) => [key, `\`${key}\` is a tool connection limit; it belongs inside a \`tools\` entry's \`limits\``]),
);

/** PORT-1 on the `port` field. */
export function checkPortField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  const map = expectMapping(r, node, 'BP1450', '`port`', andList(PORT_KEYS));
  if (!map) return;
  checkOwnKeys(r, map, PORT_KEYS, 'BP1450', '`port`', PORT_HINTS);
  checkRequiredKeys(r, map, PORT_KEYS, 'BP1450', '`port`');
  const flags = (['input', 'output'] as const).map((key) => {
    const e = entry(map, key);
    return e && expectFlag(r, e.value, 'BP1451', `\`port.${key}\``);
  });
  if (flags[0] === false && flags[1] === false) {
    r.report('BP1452', map, 'Unexpected `port` with `input: false` and `output: false`, expected at least one of them `true`', {
      hint: 'a port without input or output does nothing; remove `port`, or set `input` or `output` to `true`',
    });
  }
  const limits = entry(map, 'limits');
  if (!limits) return;
  const limitsMap = expectMapping(r, limits.value, 'BP1453', '`port.limits`', andList(LIMIT_KEYS));
  if (!limitsMap) return;
  checkOwnKeys(r, limitsMap, LIMIT_KEYS, 'BP1453', '`port.limits`', LIMIT_HINTS);
  checkRequiredKeys(r, limitsMap, LIMIT_KEYS, 'BP1453', '`port.limits`');
  for (const key of LIMIT_KEYS) {
    const e = entry(limitsMap, key);
    if (e) expectCount(r, e.value, 'BP1454', `\`port.limits.${key}\``, 1);
  }
}
