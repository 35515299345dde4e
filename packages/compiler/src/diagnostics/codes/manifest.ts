import type { CodeInfo } from './types.js';

/** BP20xx: plugin.json and packages (MAN). */
export const manifestCodes = {
  BP2001: {
    rule: 'MAN-1',
    severity: 'error',
    title: 'plugin.json is not valid JSON',
    needs:
      'a `plugin.json` that is not strict RFC 8259 JSON (a trailing comma, a comment, single quotes, an unquoted key, a leading zero, `NaN`, text after the value, nesting deeper than 1000 levels, or an empty file)',
  },
  BP2002: { rule: 'MAN-1', severity: 'error', title: 'plugin.json is not valid UTF-8', needs: 'a `plugin.json` whose bytes are not UTF-8' },
  BP2003: {
    rule: 'MAN-1',
    severity: 'error',
    title: 'plugin.json is not a JSON object',
    needs: 'a `plugin.json` holding an array, a string or another non-object value',
  },
  BP2004: {
    rule: 'MAN-1',
    severity: 'error',
    title: '`$schema` is missing or not the Agent Plugins 1.0.0 schema URL',
    needs: 'a `plugin.json` without `$schema`, or with another URL',
  },
  BP2005: {
    rule: 'MAN-1',
    severity: 'error',
    title: '`name` is missing or not a string',
    needs: 'a `plugin.json` without `name`, or with a non-string `name`',
  },
  BP2006: {
    rule: 'NAME-4',
    severity: 'error',
    title: 'Invalid plugin name',
    needs: 'a `plugin.json` whose `name` has characters other than lowercase letters, digits, `-` and `.`, an empty `.` segment, or more than 128 characters',
  },
  BP2007: {
    rule: 'MAN-1',
    severity: 'error',
    title: '`version` is missing or not the string "1"',
    needs: 'a `plugin.json` without `version`, or with `1` unquoted or another value',
  },
  BP2010: {
    rule: 'MAN-2',
    severity: 'error',
    title: '`extensions` or its Berry extension is not an object',
    needs: 'a `plugin.json` whose `extensions` or `extensions["ai.strawberry.berry"]` is not a JSON object',
  },
  BP2011: {
    rule: 'MAN-2',
    severity: 'error',
    title: 'Unknown field in the Berry extension',
    needs: 'a `plugin.json` whose Berry extension has a field other than agents, exports, sources, imports, resources, interfaces, requires and runtime',
  },
  BP2012: {
    rule: 'MAN-2',
    severity: 'error',
    title: '`interfaces` is not a list of objects, or `runtime` is not an object',
    needs: 'a `plugin.json` whose Berry extension has `interfaces` that is not an array of objects or `runtime` that is not an object',
  },
  BP2013: {
    rule: 'MAN-2',
    severity: 'warning',
    title: 'A Berry declaration at the top level of plugin.json is ignored',
    needs: 'a Berry `plugin.json` with one of the extension fields (`agents`, `exports`, `sources`, …) beside `$schema` instead of inside the extension',
  },
  BP2020: {
    rule: 'MAN-3',
    severity: 'error',
    title: '`agents` is not a map of agents with title, description and entry',
    needs:
      'a `plugin.json` whose `agents` is not an object, or an agent that is not an object, lacks a nonempty `title`, `description` or `entry`, or has another field',
  },
  BP2021: {
    rule: 'MAN-3',
    severity: 'error',
    title: '`exports` is not a list of distinct names',
    needs: 'a `plugin.json` whose `exports` is not an array of strings, or names one routine twice',
  },
  BP2022: {
    rule: 'MAN-3',
    severity: 'warning',
    title: 'The package declares neither agents nor exports',
    needs: 'a Berry `plugin.json` without `agents` and without `exports`',
  },
  BP2030: {
    rule: 'MAN-4',
    severity: 'error',
    title: '`sources` is not a relative path inside the package',
    needs: 'a `plugin.json` whose `sources` is absolute, leaves the manifest directory, uses `\\` or is not a string',
  },
  BP2031: {
    rule: 'MAN-4',
    severity: 'error',
    title: 'The `sources` directory does not exist or is not a directory',
    needs: 'a `plugin.json` whose `sources` names a missing directory or a file',
  },
  BP2032: {
    rule: 'MAN-4',
    severity: 'error',
    title: 'A symbolic link leaves the package',
    needs: 'a package with a symbolic link to a directory or `.md` file outside the manifest directory, or a `sources` directory reached through one',
  },
  BP2033: {
    rule: 'MAN-4',
    severity: 'error',
    title: 'Too many entries below the sources directory',
    needs: 'a sources directory with more than 100,000 entries below it',
  },
  BP2040: {
    rule: 'MAN-5',
    severity: 'error',
    title: '`imports` is not a list of imports with a name',
    needs: 'a `plugin.json` whose `imports` is not an array of objects, or an import without a string `name`, or with an unknown field',
  },
  BP2041: {
    rule: 'MAN-5',
    severity: 'error',
    title: 'An import needs exactly one of `manifest`, `bundle` and `root`',
    needs: 'a `plugin.json` with an import that has none or several of `manifest`, `bundle` and `root`',
  },
  BP2042: {
    rule: 'MAN-5',
    severity: 'error',
    title: 'An import path is not relative POSIX, or a root is not a sha256 digest',
    needs:
      'a `plugin.json` with an import whose `manifest`/`bundle` is absolute or uses `\\`, whose `manifest` does not end in `plugin.json`, or whose `root` is not `sha256-` and 64 hexadecimal digits',
  },
  BP2043: { rule: 'MAN-5', severity: 'error', title: 'Two imports with the same name', needs: 'a `plugin.json` with two imports of the same `name`' },
  BP2050: {
    rule: 'MAN-6',
    severity: 'error',
    title: '`resources` is not a list of {uri, mimeType, path}',
    needs:
      'a `plugin.json` whose `resources` is not an array of objects, or a resource without a nonempty `uri`, a `type/subtype` `mimeType` or a `path`, or with another field',
  },
  BP2051: {
    rule: 'MAN-6',
    severity: 'error',
    title: 'A resource path is not a relative path inside the package',
    needs: 'a `plugin.json` with a resource path that is absolute, leaves the manifest directory (directly or through a symbolic link) or uses `\\`',
  },
  BP2052: {
    rule: 'MAN-6',
    severity: 'error',
    title: 'A resource file is missing or not a file',
    needs: 'a `plugin.json` with a resource path naming a missing file or a directory',
  },
  BP2053: { rule: 'MAN-6', severity: 'error', title: 'Two resources with the same uri', needs: 'a `plugin.json` with two resources of the same `uri`' },
  BP2060: {
    rule: 'MAN-7',
    severity: 'error',
    title: '`requires` is not a list of distinct external tool names',
    needs: 'a `plugin.json` whose `requires` is not an array of names (e.g. an object of models or readers), or lists a tool twice',
  },
  BP2080: {
    rule: 'MAN-8',
    severity: 'error',
    title: 'plugin.json does not match the requested version',
    needs: 'a build given a `version` other than the sha256 of the `plugin.json` bytes',
  },
  BP2090: {
    rule: 'MAN-5',
    severity: 'error',
    title: 'An import cycle: a package imports itself, directly or through others',
    needs: 'two packages whose `imports` name each other',
  },
  BP2091: { rule: 'MAN-5', severity: 'error', title: 'An imported package does not build', needs: 'a `manifest` import of a package with errors' },
  BP2092: {
    rule: 'MAN-5',
    severity: 'error',
    title: '`export` names no public definition of the imported package',
    needs: "an import whose `export` is neither an agent entry nor listed in the imported package's `exports`",
  },
  BP2093: {
    rule: 'MAN-5',
    severity: 'error',
    title: 'An imported bundle or retained root cannot be read or does not verify',
    needs: 'a `bundle` import of a missing or changed bundle file, or a `root` not in the store',
  },
  BP2094: {
    rule: 'MAN-5',
    severity: 'error',
    title: 'An imported manifest or bundle is not a regular file, or is too large to read',
    needs: 'a `manifest` or `bundle` import (or a `root` in the store) naming a FIFO, a device, a directory or a file larger than 536,870,888 bytes',
  },
} as const satisfies Record<string, CodeInfo>;
