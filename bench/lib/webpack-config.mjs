// The webpack/Rspack configuration of the bench's builds: a Node build of ENTRY into OUT_DIR,
// unminified, no source maps, nothing printed (as the webpack tests build).
import path from 'node:path';

/** `host`: 'webpack' or 'rspack'; returns its compiler factory. */
export async function hostCompiler(host) {
  return host === 'webpack' ? (await import('webpack')).default : (await import('@rspack/core')).rspack;
}

export function webpackConfig(entry, outDir, plugins, mode) {
  return {
    mode,
    context: path.dirname(entry),
    entry,
    target: 'node',
    devtool: false,
    output: { path: outDir, library: { type: 'commonjs2' } },
    optimization: { minimize: false },
    infrastructureLogging: { level: 'none' },
    stats: 'none',
    plugins,
  };
}
