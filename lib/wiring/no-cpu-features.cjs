// ssh2 asks cpu-features (a native addon, never built here: package.json allowScripts) which ciphers the
// CPU speeds up, inside a try; the bundles get this stand-in, so ssh2 takes its defaults.
module.exports = () => {
  throw new Error('cpu-features is not bundled');
};
