import type { CodeInfo } from './types.js';

/**
 * BP40xx: bundles (BND). Reported by the loader, in the order it checks: the first failed
 * check is the one reported (docs/bundle-format.md, "Verifying a bundle").
 */
export const bundleCodes = {
  BP4001: { rule: 'BND-4', severity: 'error', title: 'The bundle file could not be read', needs: 'a bundle path that does not exist or cannot be opened' },
  BP4002: { rule: 'BND-1', severity: 'error', title: 'The bundle is not valid UTF-8', needs: 'a bundle file containing bytes that are not UTF-8' },
  BP4003: { rule: 'BND-1', severity: 'error', title: 'The bundle is not JSON', needs: 'a bundle file that does not parse as JSON, e.g. a truncated one' },
  BP4004: {
    rule: 'BND-1',
    severity: 'error',
    title: 'The bundle is not an envelope `{content, format, id}`',
    needs: 'a JSON file that lacks one of `content`, `format`, `id`, has another key, or whose `content` is not an object',
  },
  BP4005: {
    rule: 'BND-1',
    severity: 'error',
    title: 'The file is not a berrypack bundle (`format` is not `berrypack/N`)',
    needs: 'a JSON file whose `format` is missing or not a berrypack format',
  },
  BP4006: {
    rule: 'BND-1',
    severity: 'error',
    title: 'The bundle was written by a newer berrypack',
    needs: 'a bundle whose `format` is `berrypack/N` with N greater than 2 (the newest this loader reads)',
  },
  BP4007: {
    rule: 'BND-2',
    severity: 'error',
    title: 'The bundle id is not `sha256-` and 64 lowercase hex digits',
    needs: 'a bundle whose `id` is not a well-formed digest',
  },
  BP4008: {
    rule: 'BND-1',
    severity: 'error',
    title: 'The bundle is not canonical JSON (RFC 8785)',
    needs: 'a bundle that was reformatted or edited by hand (whitespace, key order, number or string spelling)',
  },
  BP4009: {
    rule: 'BND-4',
    severity: 'error',
    title: 'The bundle id does not match the digest of its content',
    needs: 'a bundle whose content was changed after it was built',
  },
  BP4010: {
    rule: 'BND-4',
    severity: 'error',
    title: 'The bundle is not the one expected',
    needs: 'a bundle whose id differs from the id its importer recorded (`expectedId`)',
  },
  BP4011: {
    rule: 'BND-2',
    severity: 'error',
    title: 'A `files` entry is malformed',
    needs: 'a bundle whose `content.files` is not a list of `{path, mediaType, digest, size, text}`',
  },
  BP4012: {
    rule: 'BND-4',
    severity: 'error',
    title: 'An inline file does not match its digest or size',
    needs: 'a bundle in which a file text was changed but not its `digest`',
  },
  BP4013: {
    rule: 'BND-2',
    severity: 'error',
    title: 'A `resources` entry is malformed',
    needs: 'a bundle whose `content.resources` is not a list of `{uri, path, mediaType, digest, size}`',
  },
  BP4014: {
    rule: 'BND-4',
    severity: 'error',
    title: 'A resource blob is missing or cannot be read',
    needs: 'a bundle whose `blobs/sha256/<hex>` file for a resource is absent',
  },
  BP4015: {
    rule: 'BND-4',
    severity: 'error',
    title: 'A resource blob does not match its digest or size',
    needs: 'a bundle whose blob file was replaced or changed',
  },
  BP4016: {
    rule: 'BND-4',
    severity: 'error',
    title: 'A text reference or an embedded import does not resolve',
    needs:
      'a `berrypack/2` bundle whose `{slice: [start, end]}` falls outside its file or inside a character, a source naming no file, or an embedded import that is not a bundle content',
  },
} as const satisfies Record<string, CodeInfo>;

export type BundleCode = keyof typeof bundleCodes;
