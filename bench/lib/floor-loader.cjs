'use strict';
// The watch floor's loader (floor-plugins.mjs): registers the package's paths, gives a one-line module.
module.exports = function floorLoader() {
  const paths = globalThis[Symbol.for('berrypack-bench-floor')];
  for (const file of paths.files) this.addDependency(file);
  for (const directory of paths.directories) this.addContextDependency(directory);
  return 'export default 1;\n';
};
