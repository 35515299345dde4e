import type { ResourceEntry, Target } from '../bundle/content.js';
import type { Bundle } from '../bundle/load-bundle.js';
import { packageView, type PackageView, type RoutineRef } from '../bundle/routine-table.js';
import { failure, RuntimeError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { addressOf, type Address } from '../validate/address.js';

/**
 * What `load` reads at an address (spec "References and environment": "load reads a granted
 * retained address; loading never invokes a routine or widens permissions"): a source's
 * captured file, or an import's captured content. Nothing runs and nothing is fetched.
 */
export type RetainedContent =
  | { name: string; digest: string; kind: 'source'; path: string; mediaType: string; text: string }
  | {
      name: string;
      digest: string;
      kind: 'import';
      plugin: { name: string; version?: string };
      export?: string;
      files: { path: string; mediaType: string; digest: string; size: number; text: string }[];
    };

/** The addresses a routine retains, by name: its `[[name]]` dependencies and its `!ref`s. */
export function retainedAddresses(routine: RoutineRef): Map<string, Target> {
  const named = new Map<string, Target>();
  for (const target of [...(routine.source.dependencies ?? []), ...(routine.source.refs ?? [])])
    if (target.kind !== 'external') named.set(target.kind === 'import' ? target.alias : target.name, target);
  return named;
}

/** The content at a retained target of `pkg`. */
export function retainedContent(pkg: PackageView, target: Target): RetainedContent {
  const { name, digest } = addressOf(pkg, target);
  if (target.kind === 'source') {
    const source = pkg.content.sources[target.name]!;
    const file = pkg.files.get(source.path);
    if (file === undefined) throw failure('invalid-bundle', `Missing the captured file ${source.path} of \`${name}\``);
    return { name, digest, kind: 'source', path: file.path, mediaType: file.mediaType, text: file.text };
  }
  const imported = pkg.imports.get(name)!;
  const { content } = imported.view;
  return {
    name,
    digest,
    kind: 'import',
    plugin: { ...content.plugin },
    ...(imported.export === undefined ? {} : { export: imported.export }),
    files: content.files.map((f) => ({ path: f.path, mediaType: f.mediaType, digest: f.digest, size: f.size, text: f.text })),
  };
}

/**
 * `load` for a host: the content a `!ref` address (`{name, digest}`, as outputs and journals
 * carry it) or a top-level source or import name designates in `bundle`. A digest that differs
 * from the bundle's is refused (`stale-address`): an address is exact.
 */
export function loadRetained(bundle: Bundle, address: Address | string): RetainedContent {
  const pkg = packageView(bundle.id, bundle.content);
  const name = typeof address === 'string' ? address : isPlainObject(address) && typeof address.name === 'string' ? address.name : undefined;
  if (name === undefined) throw new RuntimeError('invalid-address', 'Unexpected address, expected {name, digest} or a source or import name');
  const target: Target | undefined = Object.hasOwn(bundle.content.sources, name)
    ? { kind: 'source', name }
    : pkg.imports.has(name)
      ? { kind: 'import', alias: name }
      : undefined;
  if (target === undefined)
    throw new RuntimeError('unknown-address', `Unexpected address \`${name}\`, expected a source or import of ${bundle.content.plugin.name}`);
  const content = retainedContent(pkg, target);
  if (typeof address !== 'string' && address.digest !== content.digest)
    throw new RuntimeError(
      'stale-address',
      `Unexpected digest ${address.digest} for \`${name}\`, expected ${content.digest}: the address was retained from other content`,
    );
  return content;
}

/** A resource as `readResource` returns it: the record and its verified bytes. */
export interface ResourceContent extends ResourceEntry {
  bytes: Uint8Array;
}

/**
 * Reads a bundle resource by its URI (a label, never fetched): the bytes `loadBundle`
 * verified against the digest. Refused when the bundle has no such resource
 * (`unknown-resource`) or its blob was not given to `loadBundle` (`resource-unavailable`).
 */
export function readResource(bundle: Bundle, uri: string): ResourceContent {
  const resources = bundle.content.resources ?? [];
  const record = resources.find((r) => r.uri === uri);
  if (record === undefined)
    throw new RuntimeError(
      'unknown-resource',
      `Unexpected resource ${uri}, expected one of ${resources.map((r) => r.uri).join(', ') || '(none: the bundle has no resources)'}`,
    );
  const bytes = bundle.blobs.get(record.digest.replace(/^sha256-/, ''));
  if (bytes === undefined)
    throw new RuntimeError(
      'resource-unavailable',
      `Missing the bytes of resource ${uri} (${record.digest}), expected its blob beside the bundle (blobs/sha256/) or in loadBundle's \`blobs\``,
    );
  return { uri: record.uri, path: record.path, mediaType: record.mediaType, digest: record.digest, size: record.size, bytes: new Uint8Array(bytes) };
}
