import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { Reporter } from '../diagnostics/reporter.js';
import type { CompilerHost } from '../host.js';
import { isInside } from './paths.js';
import { digestOf } from '../bundle/digest.js';
import type { CapturedResource, ManifestInfo } from './types.js';

/**
 * MAN-6 capture: each declared file's exact bytes (no text normalization: resources are
 * content-addressed blobs), with digest and size, in declaration order. A missing file,
 * a directory, or a path that leaves the package through a symbolic link is refused at
 * the `path` in plugin.json.
 */
export function captureResources(manifest: ManifestInfo, host: CompilerHost): { resources: CapturedResource[]; diagnostics: Diagnostic[]; files: string[] } {
  const r = new Reporter(manifest.file, manifest.lines);
  const resources: CapturedResource[] = [];
  const files: string[] = [];
  if (manifest.resources.length === 0) return { resources, diagnostics: r.diagnostics, files };
  let realRoot: string;
  try {
    realRoot = host.realpath(manifest.dir);
  } catch {
    realRoot = manifest.dir;
  }
  for (const res of manifest.resources) {
    files.push(res.path);
    const stat = host.stat(res.path);
    if (stat?.kind !== 'file') {
      r.report(
        'BP2052',
        res.pathSpan,
        `Unexpected ${stat === undefined ? 'missing file' : stat.kind === 'directory' ? 'directory' : 'special file'} \`${res.relPath}\` for resource \`${res.uri}\`, expected a file`,
        {
          hint:
            stat === undefined
              ? 'the path is relative to plugin.json; create the file or correct the path'
              : 'a resource is one file; declare each file of a directory as its own resource',
        },
      );
      continue;
    }
    let real: string;
    try {
      real = host.realpath(res.path);
    } catch (error) {
      r.report('BP9001', res.pathSpan, `Unexpected error resolving \`${res.relPath}\`: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      continue;
    }
    if (!isInside(realRoot, real)) {
      r.report('BP2051', res.pathSpan, `Unexpected resource \`${res.relPath}\` resolving to ${real} outside the package, expected a file inside it`, {
        hint: 'symbolic links that leave the package are refused; copy the file into the package',
      });
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = host.readFile(res.path);
    } catch (error) {
      r.report('BP9001', res.pathSpan, `Unexpected error reading \`${res.relPath}\`: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      continue;
    }
    resources.push({ uri: res.uri, path: res.relPath, mediaType: res.mimeType, digest: digestOf(bytes), size: bytes.byteLength, bytes });
  }
  return { resources, diagnostics: r.diagnostics, files };
}
