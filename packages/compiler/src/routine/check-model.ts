import { entry, type YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from './context.js';
import { expectMap, expectString } from './expect.js';
import { mapAt } from './model-schema-view.js';
import { checkSelect } from './model-select.js';
import { checkBoundedSession, checkVoiceSession } from './model-session.js';
import { checkModelKeys } from './model-settings.js';

export { checkModelSettings, type CatalogModel, type ModelCatalog } from './model-settings.js';

/**
 * MDL-1..8 on the `model` field. MDL-9 (text without `output`, JSON with it) is a runtime
 * semantic with nothing to refuse here. Settings are accepted unchecked: without a catalog
 * MDL-6 is deferred to preparation; `checkModelSettings` applies it when a catalog is given.
 */
export function checkModelField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  const model = expectMap(r, node, 'BP1300', '`model`');
  if (!model) return;
  const select = entry(model, 'select');
  const provider = entry(model, 'provider');
  const id = entry(model, 'id');

  const named = provider ?? id;
  if (select && named) {
    r.report('BP1302', named.keySpan, `Unexpected \`${named.key}\` beside \`select\`, expected either \`select\` or \`provider\` and \`id\``, {
      hint: 'keep `select` to let binding choose a model, or remove it to name one with `provider` and `id`',
      related: [r.locate(select.keySpan, '`select` is here')],
    });
  } else if (!select && !named) {
    r.report('BP1301', model, 'Unexpected `model` without `select` or `provider` and `id`, expected one of them', {
      hint: 'add `select:` with `operation: generation` (or `classification`), or name a catalog model with `provider:` and `id:`',
    });
  } else if (!select && named && !(provider && id)) {
    const missing = provider ? 'id' : 'provider';
    r.report('BP1303', named.keySpan, `Unexpected \`${named.key}\` without \`${missing}\`, expected both \`provider\` and \`id\``, {
      hint: `add \`${missing}:\` from env.runtime.models, or use \`select\` instead`,
    });
  }
  for (const e of [provider, id]) {
    if (e) expectString(r, e.value, 'BP1304', `\`model.${e.key}\``, { nonempty: true });
  }

  checkModelKeys(r, model);
  if (select) checkSelect(r, select);

  if (ctx.session === 'voice') {
    const session = mapAt(mapAt(model, 'select'), 'session');
    const trigger = session && entry(session, 'trigger');
    if (trigger) checkVoiceSession(ctx, trigger.value);
  } else if (ctx.session === 'bounded') {
    checkBoundedSession(ctx);
  }
}
