import { randomBytes } from 'node:crypto';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CallError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { isToolConnection, toolConnectionProblems } from './environment.js';
import type { CompiledStep } from '@berrypack/compiler/method-types';
import type { RunContext } from './run-context.js';

/**
 * MTH-14, MTH-5: "Method checks access before operations start", done by the runner for the
 * steps a run (or a resume) has left to do: each connection they use has a configuration the
 * executor accepts, and a tool connection has every tool bound, granted and offered by its
 * server; each state is readable (its file, or its default) and the folder of each state they
 * change is writable. Every problem is named in one error; none means undefined.
 */
export async function accessProblem(
  context: RunContext,
  steps: readonly CompiledStep[],
  connections = [...new Set(steps.flatMap(connectionsOf))].sort(),
): Promise<CallError | undefined> {
  const environment = await environmentProblems(context, connections);
  const states = stateProblems(context, [...new Set(steps.flatMap((s) => s.changes.filter((c) => c.root === 'state').map((c) => c.name)))]);
  const problems = [
    ...(environment.problems.length > 0 ? [{ code: environment.code, message: `Unexpected environment: ${environment.problems.join('; ')}` }] : []),
    ...states,
  ];
  if (problems.length === 0) return undefined;
  return { code: problems[0]!.code, message: problems.map((p) => p.message).join('; ') };
}

async function environmentProblems(context: RunContext, names: readonly string[]): Promise<{ code: string; problems: string[] }> {
  const problems: string[] = [];
  let code = 'access-denied';
  for (const name of names) {
    const connection = context.method.environment[name]!;
    const configuration = Object.hasOwn(context.environment, name) ? context.environment[name] : undefined;
    if (configuration === undefined || configuration === null) {
      problems.push(`connection \`${name}\` (${connection.type}: ${connection.description}) has no configuration`);
      code = 'environment-missing';
      continue;
    }
    if (isToolConnection(configuration)) {
      problems.push(...(await toolConnectionProblems(name, configuration)));
      continue;
    }
    const refused = context.executor?.checkAccess
      ? context.executor.checkAccess(name, connection, configuration)
      : isPlainObject(configuration)
        ? undefined
        : 'its configuration must be an object';
    if (refused !== undefined) {
      problems.push(`connection \`${name}\`: ${refused}`);
      code = 'environment-missing';
    }
  }
  return { code, problems };
}

/** Every state read once (missing without default, not JSON, wrong shape); the folder of each changed state writable. */
function stateProblems(context: RunContext, changed: readonly string[]): CallError[] {
  const problems: CallError[] = [];
  for (const name of Object.keys(context.method.state)) {
    try {
      context.state(name);
    } catch (error) {
      const e = error as { code?: string; message: string };
      problems.push({ code: e.code ?? 'state-invalid', message: e.message });
    }
  }
  for (const name of changed) {
    const file = context.method.state[name]!.file;
    const refused = unwritable(path.dirname(path.resolve(context.store.dataDir, ...file.split('/'))));
    if (refused)
      problems.push({
        code: 'access-denied',
        message: `Unexpected state \`${name}\` whose folder cannot be written (${file}: ${refused}), expected a writable folder for its replacement`,
      });
  }
  return problems;
}

/**
 * Whether a file can be created in `folder` (or, while it does not exist, in its nearest
 * existing ancestor, where the writer would create it): a real probe file, created and removed,
 * so a read-only mount is found even where permission bits say nothing (as for root).
 */
function unwritable(folder: string): string | undefined {
  let at = folder;
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(at).isDirectory();
    } catch (error) {
      const parent = path.dirname(at);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && parent !== at) {
        at = parent;
        continue;
      }
      return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    }
    if (!isDirectory) return `${path.basename(at)} is not a folder`;
    const probe = path.join(at, `.berrypack-access-${randomBytes(6).toString('hex')}`);
    try {
      writeFileSync(probe, '');
      rmSync(probe);
      return undefined;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    }
  }
}

/** The state and connection targets a step reads or changes: steps sharing one run one at a time (MTH-13). */
export function targetsOf(step: CompiledStep): string[] {
  const targets = new Set<string>();
  const refs = [...Object.values(step.in), ...(step.each ? [step.each.ref] : []), ...(step.when ? [step.when] : []), ...step.changes];
  for (const ref of refs) if (ref.root === 'state' || ref.root === 'environment') targets.add(`${ref.root}.${ref.name}`);
  return [...targets].sort();
}

/** Connections a step uses, through `in` or `changes`. */
export function connectionsOf(step: CompiledStep): string[] {
  return targetsOf(step)
    .filter((t) => t.startsWith('environment.'))
    .map((t) => t.slice('environment.'.length));
}
