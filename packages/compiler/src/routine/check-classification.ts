import { entry } from '../source/yaml-tree.js';
import { checkClassificationOutput } from './classification-output.js';
import type { RoutineContext } from './context.js';

const CLASSIFY_HINT = 'classification judges its complete input in one step; move this work into a generation routine that calls the classifier';

/**
 * CLS-1..4, for a routine whose `model.select.operation` is `classification`. Without
 * `output` a classification answers `{state, questions}` (CLS-2 allows it).
 */
export function checkClassification(ctx: RoutineContext): void {
  const r = ctx.reporter;
  const fm = ctx.frontmatter;

  const tools = entry(fm, 'tools');
  // `tools: []` offers nothing, so it declares no tools.
  if (tools && !(tools.value.kind === 'seq' && tools.value.items.length === 0)) {
    r.report('BP1380', tools.keySpan, 'Unexpected `tools` in a classification routine, expected no tools', { hint: CLASSIFY_HINT });
  }
  if (ctx.port.input) {
    const port = entry(fm, 'port');
    const input = port?.value.kind === 'map' ? entry(port.value, 'input') : undefined;
    if (input) {
      r.report('BP1380', input.value, 'Unexpected `port.input: true` in a classification routine, expected no input port', {
        hint: 'write `input: false`: a classification takes its whole input at the call',
      });
    }
  }
  for (const key of ['configure', 'compaction']) {
    const e = entry(fm, key);
    if (e)
      r.report('BP1380', e.keySpan, `Unexpected \`${key}\` in a classification routine, expected no \`${key}\``, {
        hint: `remove \`${key}\`: ${key === 'compaction' ? 'classification preserves its complete input' : 'configuration is generation policy'}`,
      });
  }

  const output = entry(fm, 'output');
  if (output) checkClassificationOutput(r, output);
}
