'use strict';
// The loader that @berrypack/webpack's plugin adds to webpack's or Rspack's rules for the imports
// it claims. It is CommonJS and imports nothing, so both hosts load it the same way, and it only
// routes: the plugin instance named in its options builds the module. Its `pitch` answers before
// any other loader runs or the file is read, as a Rollup `load` hook claims an import.
// Use it through `plugins: [berrypack()]`, never in a rule of your own.

const REGISTRY = Symbol.for('@berrypack/webpack');

module.exports = function berrypackLoader(source) {
  return source;
};

module.exports.pitch = function berrypackPitch() {
  const callback = this.async();
  const options = this.getOptions();
  const plugin = globalThis[REGISTRY] && globalThis[REGISTRY].get(options.instance);
  if (!plugin) {
    const error = new Error(
      'Unexpected use of @berrypack/webpack/loader without its plugin, expected `plugins: [berrypack()]` in the webpack or Rspack configuration',
    );
    error.stack = '';
    return callback(error);
  }
  plugin.load(this).then(
    (code) => callback(null, code),
    (error) => callback(error),
  );
};
